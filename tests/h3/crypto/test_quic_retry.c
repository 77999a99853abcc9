/* Retry Integrity Tag: RFC 9001 A.4, the fixed key and nonce against their
 * derivation, every bit of the packet, and the streaming AAD against a
 * one-shot GnuTLS AEAD over the assembled pseudo-packet. */
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "crypto_test_util.h"
#include "quic_hkdf.h"
#include "quic_retry.h"
#include "rfc9001_vectors.h"

static void test_a4_tag(void)
{
	uint8_t odcid[8], pkt[64], tag[16];
	size_t n;

	th_unhex(V_A4_ODCID, odcid, sizeof(odcid));
	n = th_unhex(V_A4_RETRY_PACKET, pkt, sizeof(pkt));
	CU_ASSERT_EQUAL_FATAL(n, 36);
	CU_ASSERT_EQUAL(shb_quic_retry_tag(odcid, 8, pkt, n - 16, tag), 0);
	TH_ASSERT_HEX(tag, 16, V_A4_RETRY_INTEGRITY_TAG);
	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, pkt, n), SHB_QUIC_CRYPTO_OK);
}

/* The v1 key and nonce are "quic key" / "quic iv" of the Retry secret. */
static void test_retry_constants(void)
{
	uint8_t secret[32], key[16], iv[12];

	th_unhex(V_RETRY_SECRET, secret, sizeof(secret));
	CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, secret, 32,
						   "quic key", key, 16), 0);
	CU_ASSERT_EQUAL(shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, secret, 32,
						   "quic iv", iv, 12), 0);
	TH_ASSERT_HEX(key, 16, V_RETRY_INTEGRITY_KEY);
	TH_ASSERT_HEX(iv, 12, V_RETRY_INTEGRITY_NONCE);
}

static void test_a4_every_bit(void)
{
	uint8_t odcid[8], pkt[64];
	size_t n;

	th_unhex(V_A4_ODCID, odcid, sizeof(odcid));
	n = th_unhex(V_A4_RETRY_PACKET, pkt, sizeof(pkt));
	for (size_t i = 0; i < n * 8; i++) {
		pkt[i / 8] ^= (uint8_t)(1u << (i % 8));
		CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, pkt, n), SHB_QUIC_CRYPTO_E_AUTH);
		pkt[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	for (size_t i = 0; i < 8 * 8; i++) {
		odcid[i / 8] ^= (uint8_t)(1u << (i % 8));
		CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, pkt, n), SHB_QUIC_CRYPTO_E_AUTH);
		odcid[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	/* The ODCID length is covered too. */
	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 7, pkt, n), SHB_QUIC_CRYPTO_E_AUTH);
	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, pkt, n), SHB_QUIC_CRYPTO_OK);
}

static void test_bad_input(void)
{
	uint8_t odcid[21] = { 0 }, pkt[64] = { 0 }, tag[16];

	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, pkt, 16), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, pkt, 0), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, NULL, 40), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 21, pkt, 40), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_retry_verify(NULL, 8, pkt, 40), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_retry_tag(odcid, 8, pkt, 20, NULL), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_retry_tag(NULL, 0, pkt, 20, tag), SHB_QUIC_CRYPTO_OK);
	CU_ASSERT_EQUAL(shb_quic_retry_verify(odcid, 8, pkt, 40), SHB_QUIC_CRYPTO_E_AUTH);
}

/* Reference: one GnuTLS AEAD call over the assembled pseudo-packet. */
static void reference_tag(const uint8_t *odcid, size_t olen, const uint8_t *pkt,
			  size_t len, uint8_t tag[16])
{
	static uint8_t pseudo[1 + 20 + 2100];
	uint8_t key[16], nonce[12];
	gnutls_aead_cipher_hd_t h;
	size_t tlen = 16;

	th_unhex(V_RETRY_INTEGRITY_KEY, key, sizeof(key));
	th_unhex(V_RETRY_INTEGRITY_NONCE, nonce, sizeof(nonce));
	gnutls_datum_t kd = { key, sizeof(key) };
	pseudo[0] = (uint8_t)olen;
	memcpy(pseudo + 1, odcid, olen);
	memcpy(pseudo + 1 + olen, pkt, len);
	CU_ASSERT_EQUAL_FATAL(gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &kd), 0);
	CU_ASSERT_EQUAL(gnutls_aead_cipher_encrypt(h, nonce, 12, pseudo, 1 + olen + len, 16,
						   NULL, 0, tag, &tlen), 0);
	gnutls_aead_cipher_deinit(h);
}

/* Every ODCID length against packet lengths crossing block boundaries. */
static void test_streaming_aad(void)
{
	static uint8_t pkt[2100];
	uint8_t odcid[20], got[16], want[16];
	static const size_t lens[] = { 0, 1, 2, 14, 15, 16, 17, 31, 32, 33, 47, 64, 65,
				       100, 1199, 2048 };
	uint32_t x = 1;

	for (size_t i = 0; i < sizeof(pkt); i++) {
		x = x * 1664525u + 1013904223u;
		pkt[i] = (uint8_t)(x >> 24);
	}
	memcpy(odcid, pkt + 500, sizeof(odcid));
	for (size_t olen = 0; olen <= 20; olen++) {
		for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			CU_ASSERT_EQUAL(shb_quic_retry_tag(odcid, olen, pkt, lens[li], got), 0);
			reference_tag(odcid, olen, pkt, lens[li], want);
			CU_ASSERT_EQUAL(memcmp(got, want, 16), 0);
		}
	}
}

CU_TestInfo shb_test_quic_retry[] = {
	{ "A.4 Retry integrity tag", test_a4_tag },
	{ "Retry key and nonce from the Retry secret", test_retry_constants },
	{ "A.4 every flipped bit fails", test_a4_every_bit },
	{ "bad input", test_bad_input },
	{ "streamed AAD equals one-shot AEAD", test_streaming_aad },
	CU_TEST_INFO_NULL,
};
