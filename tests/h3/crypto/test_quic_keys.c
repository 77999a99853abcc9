/* Key schedule and packet protection against RFC 9001 Appendix A, plus
 * round trips for every suite, packet-number length and header form. */
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "crypto_test_util.h"
#include "quic_hkdf.h"
#include "quic_keys.h"
#include "rfc9001_vectors.h"

static const struct {
	gnutls_cipher_algorithm_t cipher;
	gnutls_mac_algorithm_t hash;
} suites[] = {
	{ GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_SHA256 },
	{ GNUTLS_CIPHER_AES_256_GCM, GNUTLS_MAC_SHA384 },
	{ GNUTLS_CIPHER_CHACHA20_POLY1305, GNUTLS_MAC_SHA256 },
	{ GNUTLS_CIPHER_AES_128_CCM, GNUTLS_MAC_SHA256 },
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* ---- A.1 ---------------------------------------------------------------- */

/* The HkdfLabel bytes of A.1, fed to raw HKDF-Expand, give what
 * shb_quic_hkdf_expand_label derives. */
static void test_expand_label_info(void)
{
	static const struct {
		const char *label, *info;
		size_t len;
	} v[] = {
		{ "client in", V_A1_HKDF_LABEL_CLIENT_IN, 32 },
		{ "server in", V_A1_HKDF_LABEL_SERVER_IN, 32 },
		{ "quic key", V_A1_HKDF_LABEL_QUIC_KEY, 16 },
		{ "quic iv", V_A1_HKDF_LABEL_QUIC_IV, 12 },
		{ "quic hp", V_A1_HKDF_LABEL_QUIC_HP, 16 },
	};
	uint8_t secret[32], info[64], want[32], got[32];

	th_unhex(V_A1_INITIAL_SECRET, secret, sizeof(secret));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = th_unhex(v[i].info, info, sizeof(info));
		gnutls_datum_t k = { secret, sizeof(secret) }, in = { info, (unsigned)n };
		CU_ASSERT_FATAL(n > 0);
		CU_ASSERT_EQUAL_FATAL(gnutls_hkdf_expand(GNUTLS_MAC_SHA256, &k, &in,
							 want, v[i].len), 0);
		memset(got, 0, sizeof(got));
		CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, secret,
							   sizeof(secret), v[i].label,
							   got, v[i].len), 0);
		CU_ASSERT_EQUAL(memcmp(got, want, v[i].len), 0);
	}
}

static void test_a1_secrets(void)
{
	uint8_t dcid[8], salt[20], initial[32], c[32], s[32];
	gnutls_datum_t ikm = { dcid, sizeof(dcid) }, sd = { salt, sizeof(salt) };

	th_unhex(V_A1_DCID, dcid, sizeof(dcid));
	th_unhex(V_INITIAL_SALT, salt, sizeof(salt));
	CU_ASSERT_EQUAL_FATAL(gnutls_hkdf_extract(GNUTLS_MAC_SHA256, &ikm, &sd, initial), 0);
	TH_ASSERT_HEX(initial, 32, V_A1_INITIAL_SECRET);
	CU_ASSERT_EQUAL_FATAL(shb_quic_initial_secrets(dcid, sizeof(dcid), c, s), 0);
	TH_ASSERT_HEX(c, 32, V_A1_CLIENT_INITIAL_SECRET);
	TH_ASSERT_HEX(s, 32, V_A1_SERVER_INITIAL_SECRET);
}

static void check_keys(const char *secret_hex, const char *key_hex,
		       const char *iv_hex, const char *hp_hex)
{
	uint8_t secret[32], key[16], iv[12], hp[16];

	th_unhex(secret_hex, secret, sizeof(secret));
	CU_ASSERT_EQUAL_FATAL(shb_quic_packet_keys(GNUTLS_MAC_SHA256, secret, 32, 16,
						   key, iv, hp), 0);
	TH_ASSERT_HEX(key, 16, key_hex);
	TH_ASSERT_HEX(iv, 12, iv_hex);
	TH_ASSERT_HEX(hp, 16, hp_hex);
}

static void test_a1_client_keys(void)
{
	check_keys(V_A1_CLIENT_INITIAL_SECRET, V_A1_CLIENT_KEY, V_A1_CLIENT_IV,
		   V_A1_CLIENT_HP);
}

static void test_a1_server_keys(void)
{
	check_keys(V_A1_SERVER_INITIAL_SECRET, V_A1_SERVER_KEY, V_A1_SERVER_IV,
		   V_A1_SERVER_HP);
}

/* The key contexts built from the DCID hold the A.1 values (iv directly;
 * key and hp through the A.2 sample and mask). */
static void test_a1_key_contexts(void)
{
	struct shb_quic_keys c = SHB_QUIC_KEYS_EMPTY, s = SHB_QUIC_KEYS_EMPTY;
	uint8_t dcid[8], sample[16], mask[5];

	th_unhex(V_A1_DCID, dcid, sizeof(dcid));
	CU_ASSERT_FALSE(shb_quic_keys_ready(&c));
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init_initial(&c, &s, dcid, sizeof(dcid)), 0);
	CU_ASSERT_TRUE(shb_quic_keys_ready(&c));
	CU_ASSERT_EQUAL(shb_quic_keys_cipher(&c), GNUTLS_CIPHER_AES_128_GCM);
	TH_ASSERT_HEX(c.iv, 12, V_A1_CLIENT_IV);
	TH_ASSERT_HEX(s.iv, 12, V_A1_SERVER_IV);
	th_unhex(V_A2_SAMPLE, sample, sizeof(sample));
	CU_ASSERT_EQUAL(shb_quic_hp_mask(&c, sample, mask), 0);
	TH_ASSERT_HEX(mask, 5, V_A2_MASK);
	th_unhex(V_A3_SAMPLE, sample, sizeof(sample));
	CU_ASSERT_EQUAL(shb_quic_hp_mask(&s, sample, mask), 0);
	TH_ASSERT_HEX(mask, 5, V_A3_MASK);
	shb_quic_keys_deinit(&c);
	shb_quic_keys_deinit(&s);
	CU_ASSERT_FALSE(shb_quic_keys_ready(&c));
	CU_ASSERT_EQUAL(shb_quic_keys_cipher(&c), GNUTLS_CIPHER_UNKNOWN);
}

/* ---- A.2 ---------------------------------------------------------------- */

static void initial_keys(struct shb_quic_keys *c, struct shb_quic_keys *s)
{
	uint8_t dcid[8];

	th_unhex(V_A1_DCID, dcid, sizeof(dcid));
	*c = SHB_QUIC_KEYS_EMPTY;
	*s = SHB_QUIC_KEYS_EMPTY;
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init_initial(c, s, dcid, sizeof(dcid)), 0);
}

/* The A.2 plaintext packet: header, CRYPTO frame, PADDING to 1162 bytes. */
static size_t a2_plain(uint8_t *pkt, size_t cap)
{
	size_t h = th_unhex(V_A2_UNPROTECTED_HEADER, pkt, cap);
	size_t f = th_unhex(V_A2_CRYPTO_FRAME, pkt + h, cap - h);

	CU_ASSERT_EQUAL(h, 22);
	CU_ASSERT_EQUAL(f, 245);
	memset(pkt + h + f, 0, V_A2_PAYLOAD_LENGTH - f);
	return h;
}

static void test_a2_protect(void)
{
	struct shb_quic_keys c, s;
	uint8_t pkt[1300], mask[5];
	int n;

	initial_keys(&c, &s);
	a2_plain(pkt, sizeof(pkt));
	/* Seal alone: the sample is the start of the ciphertext. */
	n = shb_quic_seal(&c, V_A2_PN, pkt, 22, V_A2_PAYLOAD_LENGTH, sizeof(pkt));
	CU_ASSERT_EQUAL_FATAL(n, 1200);
	TH_ASSERT_HEX(pkt + 22, 16, V_A2_SAMPLE);
	CU_ASSERT_EQUAL(shb_quic_hp_mask(&c, pkt + 22, mask), 0);
	TH_ASSERT_HEX(mask, 5, V_A2_MASK);
	CU_ASSERT_EQUAL(shb_quic_hp_apply(&c, pkt, (size_t)n, 18), 0);
	TH_ASSERT_HEX(pkt, 22, V_A2_PROTECTED_HEADER);
	TH_ASSERT_HEX(pkt, 1200, V_A2_PACKET);

	/* The same through shb_quic_protect, with an exact-size buffer. */
	a2_plain(pkt, sizeof(pkt));
	CU_ASSERT_EQUAL(shb_quic_protect(&c, V_A2_PN, pkt, 18, V_A2_PAYLOAD_LENGTH, 1200),
			1200);
	TH_ASSERT_HEX(pkt, 1200, V_A2_PACKET);
	shb_quic_keys_deinit(&c);
	shb_quic_keys_deinit(&s);
}

static void test_a2_unprotect(void)
{
	struct shb_quic_keys c, s;
	uint8_t pkt[1200], plain[1300];
	uint64_t tpn = 99;

	initial_keys(&c, &s);
	CU_ASSERT_EQUAL_FATAL(th_unhex(V_A2_PACKET, pkt, sizeof(pkt)), 1200);
	/* A server opens the client's Initial with the client keys. */
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&c, pkt, sizeof(pkt), 18, &tpn), 4);
	CU_ASSERT_EQUAL(tpn, V_A2_PN);
	TH_ASSERT_HEX(pkt, 22, V_A2_UNPROTECTED_HEADER);
	CU_ASSERT_EQUAL(shb_quic_open(&c, V_A2_PN, pkt, 22, sizeof(pkt)),
			V_A2_PAYLOAD_LENGTH);
	a2_plain(plain, sizeof(plain));
	CU_ASSERT_EQUAL(memcmp(pkt, plain, 22 + V_A2_PAYLOAD_LENGTH), 0);
	/* The server keys cannot open it. */
	CU_ASSERT_EQUAL_FATAL(th_unhex(V_A2_PACKET, pkt, sizeof(pkt)), 1200);
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&c, pkt, sizeof(pkt), 18, &tpn), 4);
	CU_ASSERT_EQUAL(shb_quic_open(&s, V_A2_PN, pkt, 22, sizeof(pkt)),
			SHB_QUIC_CRYPTO_E_AUTH);
	shb_quic_keys_deinit(&c);
	shb_quic_keys_deinit(&s);
}

/* Any flipped bit (tag, ciphertext, header/AAD) or a wrong packet number
 * fails with _E_AUTH, and the payload region is wiped. */
static void test_a2_tamper(void)
{
	struct shb_quic_keys c, s;
	uint8_t orig[1200], pkt[1200], zeros[1200 - 22] = { 0 };
	uint64_t tpn;

	initial_keys(&c, &s);
	th_unhex(V_A2_PACKET, orig, sizeof(orig));
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&c, orig, sizeof(orig), 18, &tpn), 4);
	for (int bit = 0; bit < 8; bit++) {
		static const size_t where[] = { 1199, 1184, 500, 22, 5, 21 };
		for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
			memcpy(pkt, orig, sizeof(pkt));
			pkt[where[w]] ^= (uint8_t)(1u << bit);
			CU_ASSERT_EQUAL(shb_quic_open(&c, 2, pkt, 22, sizeof(pkt)),
					SHB_QUIC_CRYPTO_E_AUTH);
			CU_ASSERT_EQUAL(memcmp(pkt + 22, zeros, sizeof(zeros)), 0);
		}
	}
	memcpy(pkt, orig, sizeof(pkt));
	CU_ASSERT_EQUAL(shb_quic_open(&c, 3, pkt, 22, sizeof(pkt)), SHB_QUIC_CRYPTO_E_AUTH);
	memcpy(pkt, orig, sizeof(pkt));
	CU_ASSERT_EQUAL(shb_quic_open(&c, 2, pkt, 22, sizeof(pkt)), V_A2_PAYLOAD_LENGTH);
	shb_quic_keys_deinit(&c);
	shb_quic_keys_deinit(&s);
}

/* ---- A.3 ---------------------------------------------------------------- */

static void test_a3_server_initial(void)
{
	struct shb_quic_keys c, s;
	uint8_t pkt[256], frames[200];
	size_t h, f;
	uint64_t tpn = 0;
	int n;

	initial_keys(&c, &s);
	h = th_unhex(V_A3_UNPROTECTED_HEADER, pkt, sizeof(pkt));
	f = th_unhex(V_A3_FRAMES, frames, sizeof(frames));
	CU_ASSERT_EQUAL_FATAL(h, 20);
	memcpy(pkt + h, frames, f);
	n = shb_quic_protect(&s, V_A3_PN, pkt, 18, f, sizeof(pkt));
	CU_ASSERT_EQUAL_FATAL(n, (int)(h + f + 16));
	TH_ASSERT_HEX(pkt + 22, 16, V_A3_SAMPLE);
	TH_ASSERT_HEX(pkt, 20, V_A3_PROTECTED_HEADER);
	TH_ASSERT_HEX(pkt, n, V_A3_PACKET);

	/* And back, as the client sees it. */
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&s, pkt, (size_t)n, 18, &tpn), 2);
	CU_ASSERT_EQUAL(tpn, V_A3_PN);
	TH_ASSERT_HEX(pkt, 20, V_A3_UNPROTECTED_HEADER);
	CU_ASSERT_EQUAL(shb_quic_open(&s, V_A3_PN, pkt, 20, (size_t)n), (int)f);
	CU_ASSERT_EQUAL(memcmp(pkt + 20, frames, f), 0);
	shb_quic_keys_deinit(&c);
	shb_quic_keys_deinit(&s);
}

/* ---- A.5 ---------------------------------------------------------------- */

static void a5_keys(struct shb_quic_keys *k)
{
	uint8_t secret[32];

	th_unhex(V_A5_SECRET, secret, sizeof(secret));
	*k = SHB_QUIC_KEYS_EMPTY;
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(k, GNUTLS_CIPHER_CHACHA20_POLY1305,
						 GNUTLS_MAC_SHA256, secret, 32), 0);
}

static void test_a5_keys_and_ku(void)
{
	uint8_t secret[32], key[32], iv[12], hp[32], ku[32];

	th_unhex(V_A5_SECRET, secret, sizeof(secret));
	CU_ASSERT_EQUAL_FATAL(shb_quic_packet_keys(GNUTLS_MAC_SHA256, secret, 32, 32,
						   key, iv, hp), 0);
	TH_ASSERT_HEX(key, 32, V_A5_KEY);
	TH_ASSERT_HEX(iv, 12, V_A5_IV);
	TH_ASSERT_HEX(hp, 32, V_A5_HP);
	CU_ASSERT_EQUAL_FATAL(shb_quic_next_secret(GNUTLS_MAC_SHA256, secret, 32, ku), 0);
	TH_ASSERT_HEX(ku, 32, V_A5_KU);
	CU_ASSERT_EQUAL(shb_quic_next_secret(GNUTLS_MAC_SHA256, secret, 32, secret + 1),
			SHB_QUIC_CRYPTO_E_INVAL);
}

static void test_a5_short_header(void)
{
	struct shb_quic_keys k;
	uint8_t pkt[64], mask[5];
	uint64_t tpn = 0;
	int n;

	a5_keys(&k);
	th_unhex(V_A5_UNPROTECTED_HEADER, pkt, sizeof(pkt));
	th_unhex(V_A5_PAYLOAD, pkt + 4, sizeof(pkt) - 4);
	n = shb_quic_seal(&k, V_A5_PN, pkt, 4, 1, sizeof(pkt));
	CU_ASSERT_EQUAL_FATAL(n, 21);
	TH_ASSERT_HEX(pkt + 4, 17, V_A5_PAYLOAD_CIPHERTEXT);
	CU_ASSERT_EQUAL(shb_quic_hp_mask(&k, pkt + 5, mask), 0);
	TH_ASSERT_HEX(pkt + 5, 16, V_A5_SAMPLE);
	TH_ASSERT_HEX(mask, 5, V_A5_MASK);
	CU_ASSERT_EQUAL(shb_quic_hp_apply(&k, pkt, 21, 1), 0);
	TH_ASSERT_HEX(pkt, 4, V_A5_PROTECTED_HEADER);
	TH_ASSERT_HEX(pkt, 21, V_A5_PACKET);

	th_unhex(V_A5_UNPROTECTED_HEADER, pkt, sizeof(pkt));
	th_unhex(V_A5_PAYLOAD, pkt + 4, sizeof(pkt) - 4);
	CU_ASSERT_EQUAL(shb_quic_protect(&k, V_A5_PN, pkt, 1, 1, 21), 21);
	TH_ASSERT_HEX(pkt, 21, V_A5_PACKET);

	CU_ASSERT_EQUAL(shb_quic_hp_remove(&k, pkt, 21, 1, &tpn), V_A5_PN_LENGTH);
	CU_ASSERT_EQUAL(tpn, V_A5_PN & 0xffffff);
	TH_ASSERT_HEX(pkt, 4, V_A5_UNPROTECTED_HEADER);
	CU_ASSERT_EQUAL(shb_quic_open(&k, V_A5_PN, pkt, 4, 21), 1);
	CU_ASSERT_EQUAL(pkt[4], 0x01);
	shb_quic_keys_deinit(&k);
}

/* Key update: the next generation equals keys installed from the "quic ku"
 * secret, except that the header-protection key is the old one. */
static void test_key_update_a5(void)
{
	struct shb_quic_keys cur, next = SHB_QUIC_KEYS_EMPTY, fresh = SHB_QUIC_KEYS_EMPTY;
	uint8_t ku[32], a[64], b[64], mask_cur[5], mask_next[5], sample[16];
	uint64_t tpn;

	a5_keys(&cur);
	th_unhex(V_A5_KU, ku, sizeof(ku));
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_update(&next, &cur), 0);
	TH_ASSERT_HEX(next.secret, 32, V_A5_KU);
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&fresh, GNUTLS_CIPHER_CHACHA20_POLY1305,
						 GNUTLS_MAC_SHA256, ku, 32), 0);
	fill(a, sizeof(a), 7);
	a[0] = 0x43; /* short header, key phase 0, 4-byte pn */
	a[1] = 0, a[2] = 0, a[3] = 1234 >> 8, a[4] = 1234 & 0xff;
	memcpy(b, a, sizeof(a));
	CU_ASSERT_EQUAL(shb_quic_seal(&next, 1234, a, 5, 30, sizeof(a)), 51);
	CU_ASSERT_EQUAL(shb_quic_seal(&fresh, 1234, b, 5, 30, sizeof(b)), 51);
	CU_ASSERT_EQUAL(memcmp(a, b, 51), 0);
	fill(sample, sizeof(sample), 9);
	shb_quic_hp_mask(&cur, sample, mask_cur);
	shb_quic_hp_mask(&next, sample, mask_next);
	CU_ASSERT_EQUAL(memcmp(mask_cur, mask_next, 5), 0);
	/* The old generation cannot open a packet of the new one. */
	CU_ASSERT_EQUAL(shb_quic_hp_apply(&next, a, 51, 1), 0);
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&cur, a, 51, 1, &tpn), 4);
	CU_ASSERT_EQUAL(tpn, 1234 & 0xffffffffu);
	memcpy(b, a, 51);
	CU_ASSERT_EQUAL(shb_quic_open(&cur, 1234, a, 5, 51), SHB_QUIC_CRYPTO_E_AUTH);
	CU_ASSERT_EQUAL(shb_quic_open(&next, 1234, b, 5, 51), 30);
	CU_ASSERT_EQUAL(shb_quic_keys_update(&cur, &cur), SHB_QUIC_CRYPTO_E_INVAL);
	shb_quic_keys_deinit(&cur);
	shb_quic_keys_deinit(&next);
	shb_quic_keys_deinit(&fresh);
}

/* Rotating three slots through many generations on both ends keeps them in
 * step and reuses the AEAD handles (no allocation after the first). */
static void test_key_update_rotation(void)
{
	for (size_t si = 0; si < NSUITES; si++) {
		struct shb_quic_keys tx[2] = { SHB_QUIC_KEYS_EMPTY, SHB_QUIC_KEYS_EMPTY };
		struct shb_quic_keys rx[2] = { SHB_QUIC_KEYS_EMPTY, SHB_QUIC_KEYS_EMPTY };
		uint8_t secret[48], pkt[128], plain[128];
		size_t slen = shb_quic_hash_len(suites[si].hash);
		gnutls_aead_cipher_hd_t h0 = NULL, h1 = NULL;

		fill(secret, sizeof(secret), (uint32_t)si);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&tx[0], suites[si].cipher,
							 suites[si].hash, secret, slen), 0);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&rx[0], suites[si].cipher,
							 suites[si].hash, secret, slen), 0);
		for (int gen = 0; gen < 6; gen++) {
			int c = gen & 1, n = c ^ 1;
			uint64_t pn = 1000u + (uint64_t)gen, tpn;

			fill(plain, sizeof(plain), (uint32_t)gen);
			plain[0] = (uint8_t)(0x41 | (c << 2));
			plain[3] = (uint8_t)(pn >> 8);
			plain[4] = (uint8_t)pn;
			memcpy(pkt, plain, sizeof(pkt));
			CU_ASSERT_EQUAL(shb_quic_protect(&tx[c], pn, pkt, 3, 60, sizeof(pkt)), 81);
			CU_ASSERT_EQUAL(shb_quic_hp_remove(&rx[c], pkt, 81, 3, &tpn), 2);
			CU_ASSERT_EQUAL(tpn, pn & 0xffff);
			CU_ASSERT_EQUAL(shb_quic_open(&rx[c], pn, pkt, 5, 81), 60);
			CU_ASSERT_EQUAL(memcmp(pkt, plain, 65), 0);
			CU_ASSERT_EQUAL_FATAL(shb_quic_keys_update(&tx[n], &tx[c]), 0);
			CU_ASSERT_EQUAL_FATAL(shb_quic_keys_update(&rx[n], &rx[c]), 0);
			if (gen == 1) {
				h0 = tx[0].aead;
				h1 = tx[1].aead;
			}
		}
		CU_ASSERT_PTR_NOT_NULL(h0);
		CU_ASSERT_PTR_EQUAL(tx[0].aead, h0);
		CU_ASSERT_PTR_EQUAL(tx[1].aead, h1);
		for (int i = 0; i < 2; i++) {
			shb_quic_keys_deinit(&tx[i]);
			shb_quic_keys_deinit(&rx[i]);
		}
	}
}

/* ---- round trips -------------------------------------------------------- */

/* Header protection for both header forms, every suite and packet-number
 * lengths 1-4, with the smallest payload that leaves room for the sample. */
static void test_hp_round_trip(void)
{
	for (size_t si = 0; si < NSUITES; si++) {
		struct shb_quic_keys k = SHB_QUIC_KEYS_EMPTY;
		uint8_t secret[48];
		size_t slen = shb_quic_hash_len(suites[si].hash);

		fill(secret, sizeof(secret), 100u + (uint32_t)si);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&k, suites[si].cipher,
							 suites[si].hash, secret, slen), 0);
		for (int lng = 0; lng < 2; lng++) {
			for (unsigned pn_len = 1; pn_len <= 4; pn_len++) {
				size_t pn_off = lng ? 26 : 9;
				size_t payload = 4 - pn_len;
				size_t hdr = pn_off + pn_len, total = hdr + payload + 16;
				uint8_t plain[64], pkt[64];
				uint8_t keep = lng ? 0xf0 : 0xe0;
				uint64_t pn = 0x1020304050ull + pn_len, tpn = 0;

				fill(plain, sizeof(plain), pn_len * 31u + (unsigned)lng);
				plain[0] = (uint8_t)((lng ? 0xc0 : 0x40) | (plain[0] & ~keep & 0xfc) |
						     (pn_len - 1));
				for (unsigned i = 0; i < pn_len; i++)
					plain[pn_off + i] = (uint8_t)(pn >> (8 * (pn_len - 1 - i)));
				memcpy(pkt, plain, sizeof(pkt));
				/* One byte too few for the sample: refused, untouched. */
				CU_ASSERT_EQUAL(shb_quic_protect(&k, pn, pkt, pn_off, payload,
								 total - 1),
						SHB_QUIC_CRYPTO_E_INVAL);
				if (payload)
					CU_ASSERT_EQUAL(shb_quic_protect(&k, pn, pkt, pn_off,
									 payload - 1, sizeof(pkt)),
							SHB_QUIC_CRYPTO_E_INVAL);
				CU_ASSERT_EQUAL(memcmp(pkt, plain, sizeof(pkt)), 0);
				CU_ASSERT_EQUAL_FATAL(shb_quic_protect(&k, pn, pkt, pn_off, payload,
								       total), (int)total);
				/* Only the protected bits of the first byte move, and
				 * the rest of the header stays as it was. */
				CU_ASSERT_EQUAL(pkt[0] & keep, plain[0] & keep);
				CU_ASSERT_EQUAL(memcmp(pkt + 1, plain + 1, pn_off - 1), 0);
				CU_ASSERT_EQUAL(shb_quic_hp_remove(&k, pkt, total - 1, pn_off, &tpn),
						SHB_QUIC_CRYPTO_E_INVAL);
				CU_ASSERT_EQUAL(shb_quic_hp_remove(&k, pkt, total, pn_off, &tpn),
						(int)pn_len);
				CU_ASSERT_EQUAL(tpn, pn & ((1ull << (8 * pn_len)) - 1));
				CU_ASSERT_EQUAL(memcmp(pkt, plain, hdr), 0);
				CU_ASSERT_EQUAL(shb_quic_open(&k, pn, pkt, hdr, total), (int)payload);
				CU_ASSERT_EQUAL(memcmp(pkt, plain, hdr + payload), 0);
			}
		}
		shb_quic_keys_deinit(&k);
	}
}

/* The mask really depends on the key, the sample and the form: over many
 * samples the first byte takes every value the mask bits allow. */
static void test_hp_mask_coverage(void)
{
	for (size_t si = 0; si < NSUITES; si++) {
		struct shb_quic_keys k = SHB_QUIC_KEYS_EMPTY;
		uint8_t secret[48], sample[16], mask[5], seen[32] = { 0 };
		unsigned distinct = 0;

		fill(secret, sizeof(secret), 55u + (uint32_t)si);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&k, suites[si].cipher, suites[si].hash,
							 secret,
							 shb_quic_hash_len(suites[si].hash)), 0);
		for (uint32_t i = 0; i < 400; i++) {
			fill(sample, sizeof(sample), i);
			CU_ASSERT_EQUAL(shb_quic_hp_mask(&k, sample, mask), 0);
			if (!seen[mask[0] & 0x1f]++)
				distinct++;
		}
		CU_ASSERT_EQUAL(distinct, 32);
		shb_quic_keys_deinit(&k);
	}
}

/* Seal/open for every suite at several sizes, in place; packets of one
 * suite do not open under another key. */
static void test_seal_open_suites(void)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 17, 100, 1162, 1400 };
	static uint8_t pkt[1500], plain[1500];

	for (size_t si = 0; si < NSUITES; si++) {
		struct shb_quic_keys k = SHB_QUIC_KEYS_EMPTY, other = SHB_QUIC_KEYS_EMPTY;
		uint8_t secret[48];
		size_t slen = shb_quic_hash_len(suites[si].hash);

		fill(secret, sizeof(secret), 200u + (uint32_t)si);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&k, suites[si].cipher,
							 suites[si].hash, secret, slen), 0);
		secret[0] ^= 1;
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&other, suites[si].cipher,
							 suites[si].hash, secret, slen), 0);
		CU_ASSERT_EQUAL(shb_quic_keys_cipher(&k), suites[si].cipher);
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t n = sizes[z];
			fill(plain, sizeof(plain), (uint32_t)(n + si));
			memcpy(pkt, plain, sizeof(pkt));
			CU_ASSERT_EQUAL(shb_quic_seal(&k, SHB_QUIC_KEYS_PN_MAX - n, pkt, 13, n,
						      13 + n + 16), (int)(13 + n + 16));
			if (n >= 16)
				CU_ASSERT_NOT_EQUAL(memcmp(pkt + 13, plain + 13, n), 0);
			uint8_t copy[1500];
			memcpy(copy, pkt, 13 + n + 16);
			CU_ASSERT_EQUAL(shb_quic_open(&other, SHB_QUIC_KEYS_PN_MAX - n, copy, 13,
						      13 + n + 16), SHB_QUIC_CRYPTO_E_AUTH);
			CU_ASSERT_EQUAL(shb_quic_open(&k, SHB_QUIC_KEYS_PN_MAX - n, pkt, 13,
						      13 + n + 16), (int)n);
			CU_ASSERT_EQUAL(memcmp(pkt, plain, 13 + n), 0);
		}
		shb_quic_keys_deinit(&k);
		shb_quic_keys_deinit(&other);
	}
}

/* Re-installing keys of another suite into a used context works. */
static void test_reinit_other_suite(void)
{
	struct shb_quic_keys k = SHB_QUIC_KEYS_EMPTY, ref = SHB_QUIC_KEYS_EMPTY;
	uint8_t secret[48], a[64], b[64];

	fill(secret, sizeof(secret), 77);
	for (size_t si = 0; si < NSUITES; si++) {
		size_t slen = shb_quic_hash_len(suites[si].hash);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&k, suites[si].cipher,
							 suites[si].hash, secret, slen), 0);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&ref, suites[si].cipher,
							 suites[si].hash, secret, slen), 0);
		fill(a, sizeof(a), 3);
		a[0] = 0x40;
		memcpy(b, a, sizeof(a));
		CU_ASSERT_EQUAL(shb_quic_protect(&k, 9, a, 1, 20, sizeof(a)), 38);
		CU_ASSERT_EQUAL(shb_quic_protect(&ref, 9, b, 1, 20, sizeof(b)), 38);
		CU_ASSERT_EQUAL(memcmp(a, b, 38), 0);
		shb_quic_keys_deinit(&ref);
	}
	shb_quic_keys_deinit(&k);
	shb_quic_keys_deinit(&k); /* twice is harmless */
	shb_quic_keys_deinit(NULL);
}

/* ---- bad input ---------------------------------------------------------- */

static void test_errors(void)
{
	struct shb_quic_keys e = SHB_QUIC_KEYS_EMPTY, k = SHB_QUIC_KEYS_EMPTY;
	uint8_t secret[48] = { 1 }, pkt[64] = { 0x40 }, before[64], mask[5], out[32];
	uint8_t cid[21] = { 0 }, c[32], s[32];
	uint64_t tpn;

	/* Empty context. */
	CU_ASSERT_EQUAL(shb_quic_seal(&e, 0, pkt, 5, 20, sizeof(pkt)), SHB_QUIC_CRYPTO_E_NOKEY);
	CU_ASSERT_EQUAL(shb_quic_open(&e, 0, pkt, 5, 41), SHB_QUIC_CRYPTO_E_NOKEY);
	CU_ASSERT_EQUAL(shb_quic_hp_mask(&e, pkt, mask), SHB_QUIC_CRYPTO_E_NOKEY);
	CU_ASSERT_EQUAL(shb_quic_hp_apply(&e, pkt, 41, 1), SHB_QUIC_CRYPTO_E_NOKEY);
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&e, pkt, 41, 1, &tpn), SHB_QUIC_CRYPTO_E_NOKEY);
	CU_ASSERT_EQUAL(shb_quic_protect(&e, 0, pkt, 1, 20, sizeof(pkt)),
			SHB_QUIC_CRYPTO_E_NOKEY);
	CU_ASSERT_EQUAL(shb_quic_protect(NULL, 0, pkt, 1, 20, sizeof(pkt)),
			SHB_QUIC_CRYPTO_E_NOKEY);
	CU_ASSERT_EQUAL(shb_quic_keys_update(&k, &e), SHB_QUIC_CRYPTO_E_NOKEY);

	/* Unsupported suites, hashes and secret lengths leave k empty. */
	CU_ASSERT_EQUAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_CCM_8, GNUTLS_MAC_SHA256,
					   secret, 32), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_CBC, GNUTLS_MAC_SHA256,
					   secret, 32), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_SHA1,
					   secret, 20), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_SHA256,
					   secret, 48), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_SHA256,
					   NULL, 32), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_FALSE(shb_quic_keys_ready(&k));
	/* A failed re-init empties a context that held keys. */
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_GCM,
						 GNUTLS_MAC_SHA256, secret, 32), 0);
	CU_ASSERT_EQUAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_SHA384,
					   secret, 32), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_FALSE(shb_quic_keys_ready(&k));
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&k, GNUTLS_CIPHER_AES_128_GCM,
						 GNUTLS_MAC_SHA256, secret, 32), 0);

	/* Bad geometry: nothing written. */
	memcpy(before, pkt, sizeof(pkt));
	CU_ASSERT_EQUAL(shb_quic_seal(&k, 0, pkt, 5, 20, 40), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_seal(&k, 0, pkt, 0, 20, 64), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_seal(&k, 0, pkt, 65, 0, 64), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_seal(&k, SHB_QUIC_KEYS_PN_MAX + 1, pkt, 5, 20, 64),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_seal(&k, 0, NULL, 5, 20, 64), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_open(&k, 0, pkt, 5, 20), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_open(&k, 0, pkt, 30, 20), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_open(&k, SHB_QUIC_KEYS_PN_MAX + 1, pkt, 5, 41),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hp_apply(&k, pkt, 20, 1), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hp_apply(&k, pkt, 41, 0), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hp_apply(&k, pkt, 41, 50), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&k, pkt, 21, 2, &tpn), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_protect(&k, 0, pkt, 64, 0, 64), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_protect(&k, 0, pkt, 1, 40, 50), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(memcmp(pkt, before, sizeof(pkt)), 0);

	/* HKDF arguments. */
	CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, secret, 32, "x", out, 0),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, secret, 32, "x", out, 256),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, secret, 31, "x", out, 16),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_MD5, secret, 16, "x", out, 16),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, secret, 32,
		"0123456789012345678901234567890123456789012345678901234567890123456789",
		out, 16), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_packet_keys(GNUTLS_MAC_SHA256, secret, 32, 24, out, out, out),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_initial_secrets(cid, 21, c, s), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_initial_secrets(NULL, 8, c, s), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_keys_init_initial(&e, NULL, cid, 21), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_FALSE(shb_quic_keys_ready(&e));
	/* Empty and maximal connection IDs are valid and give distinct keys. */
	CU_ASSERT_EQUAL(shb_quic_initial_secrets(NULL, 0, c, s), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(c, s, 32), 0);
	CU_ASSERT_EQUAL(shb_quic_initial_secrets(cid, 20, out, s), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(c, out, 32), 0);
	CU_ASSERT_EQUAL(shb_quic_hash_len(GNUTLS_MAC_SHA1), 0);
	CU_ASSERT_EQUAL(shb_quic_cipher_key_len(GNUTLS_CIPHER_AES_128_CCM_8), 0);
	CU_ASSERT_STRING_EQUAL(shb_quic_crypto_strerror(SHB_QUIC_CRYPTO_E_AUTH),
			       "authentication failed");
	CU_ASSERT_STRING_EQUAL(shb_quic_crypto_strerror(-99), "unknown error");
	shb_quic_keys_deinit(&k);
}

CU_TestInfo shb_test_quic_keys[] = {
	{ "HKDF-Expand-Label info bytes (A.1)", test_expand_label_info },
	{ "A.1 initial secrets", test_a1_secrets },
	{ "A.1 client key/iv/hp", test_a1_client_keys },
	{ "A.1 server key/iv/hp", test_a1_server_keys },
	{ "A.1 key contexts from the DCID", test_a1_key_contexts },
	{ "A.2 client Initial protected byte for byte", test_a2_protect },
	{ "A.2 client Initial unprotected", test_a2_unprotect },
	{ "A.2 tampered packets fail to open", test_a2_tamper },
	{ "A.3 server Initial both ways", test_a3_server_initial },
	{ "A.5 ChaCha20 keys and quic ku", test_a5_keys_and_ku },
	{ "A.5 ChaCha20 short header packet", test_a5_short_header },
	{ "key update matches quic ku, keeps hp", test_key_update_a5 },
	{ "key update rotation reuses handles", test_key_update_rotation },
	{ "header protection round trip, pn 1-4", test_hp_round_trip },
	{ "header protection mask coverage", test_hp_mask_coverage },
	{ "seal/open all suites", test_seal_open_suites },
	{ "re-init with another suite", test_reinit_other_suite },
	{ "bad input", test_errors },
	CU_TEST_INFO_NULL,
};
