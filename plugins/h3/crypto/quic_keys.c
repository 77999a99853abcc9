/* QUIC packet protection: GnuTLS AEAD (its AES-GCM is the fastest available
 * here) and nettle single-block ciphers for header protection (GnuTLS has no
 * AES-ECB). */
#include "quic_keys.h"

#include <string.h>

static enum shb_quic_hp_alg hp_alg_for(gnutls_cipher_algorithm_t cipher)
{
	switch (cipher) {
	case GNUTLS_CIPHER_AES_128_GCM:
	case GNUTLS_CIPHER_AES_128_CCM:
		return SHB_QUIC_HP_AES128;
	case GNUTLS_CIPHER_AES_256_GCM:
		return SHB_QUIC_HP_AES256;
	case GNUTLS_CIPHER_CHACHA20_POLY1305:
		return SHB_QUIC_HP_CHACHA20;
	default:
		return SHB_QUIC_HP_NONE;
	}
}

static void hp_set_key(struct shb_quic_keys *k, const uint8_t *hp)
{
	switch (k->hp_alg) {
	case SHB_QUIC_HP_AES128:
		aes128_set_encrypt_key(&k->hp.aes128, hp);
		break;
	case SHB_QUIC_HP_AES256:
		aes256_set_encrypt_key(&k->hp.aes256, hp);
		break;
	case SHB_QUIC_HP_CHACHA20:
		chacha_set_key(&k->hp.chacha, hp);
		break;
	default:
		break;
	}
}

void shb_quic_keys_deinit(struct shb_quic_keys *k)
{
	if (!k)
		return;
	if (k->aead)
		gnutls_aead_cipher_deinit(k->aead);
	gnutls_memset(k, 0, sizeof(*k));
}

/* Puts `key` into k's AEAD handle: re-keys an existing handle of the same
 * cipher (no allocation), otherwise replaces the handle. */
static int aead_install(struct shb_quic_keys *k, gnutls_cipher_algorithm_t cipher,
			const uint8_t *key, size_t key_len)
{
	gnutls_datum_t d = { .data = (unsigned char *)key, .size = (unsigned)key_len };

	if (k->aead && k->cipher == cipher)
		return gnutls_aead_cipher_set_key(k->aead, &d) < 0 ?
		       SHB_QUIC_CRYPTO_E_LIB : SHB_QUIC_CRYPTO_OK;
	if (k->aead) {
		gnutls_aead_cipher_deinit(k->aead);
		k->aead = NULL;
	}
	if (gnutls_aead_cipher_init(&k->aead, cipher, &d) < 0) {
		k->aead = NULL;
		return SHB_QUIC_CRYPTO_E_LIB;
	}
	return SHB_QUIC_CRYPTO_OK;
}

/* Common tail of init and update: `hp` is the new header-protection key, or
 * NULL to keep the one already in k (key update). */
static int keys_install(struct shb_quic_keys *k, gnutls_cipher_algorithm_t cipher,
			gnutls_mac_algorithm_t hash, const uint8_t *secret,
			size_t secret_len, const uint8_t *key, size_t key_len,
			const uint8_t iv[SHB_QUIC_IV_LEN], const uint8_t *hp)
{
	int rc = aead_install(k, cipher, key, key_len);

	if (rc != SHB_QUIC_CRYPTO_OK) {
		shb_quic_keys_deinit(k);
		return rc;
	}
	k->cipher = cipher;
	k->hash = hash;
	k->key_len = (uint8_t)key_len;
	memcpy(k->iv, iv, SHB_QUIC_IV_LEN);
	memcpy(k->secret, secret, secret_len);
	k->secret_len = (uint8_t)secret_len;
	if (hp) {
		k->hp_alg = (uint8_t)hp_alg_for(cipher);
		hp_set_key(k, hp);
	}
	return SHB_QUIC_CRYPTO_OK;
}

int shb_quic_keys_init(struct shb_quic_keys *k, gnutls_cipher_algorithm_t cipher,
		       gnutls_mac_algorithm_t hash,
		       const uint8_t *secret, size_t secret_len)
{
	uint8_t key[SHB_QUIC_KEY_MAX], iv[SHB_QUIC_IV_LEN], hp[SHB_QUIC_KEY_MAX];
	size_t key_len = shb_quic_cipher_key_len(cipher);
	int rc;

	if (!k)
		return SHB_QUIC_CRYPTO_E_INVAL;
	if (key_len == 0 || !secret) {
		shb_quic_keys_deinit(k);
		return SHB_QUIC_CRYPTO_E_INVAL;
	}
	rc = shb_quic_packet_keys(hash, secret, secret_len, key_len, key, iv, hp);
	if (rc == SHB_QUIC_CRYPTO_OK)
		rc = keys_install(k, cipher, hash, secret, secret_len, key, key_len, iv, hp);
	else
		shb_quic_keys_deinit(k);
	gnutls_memset(key, 0, sizeof(key));
	gnutls_memset(hp, 0, sizeof(hp));
	return rc;
}

int shb_quic_keys_init_initial(struct shb_quic_keys *client,
			       struct shb_quic_keys *server,
			       const uint8_t *dcid, size_t dcid_len)
{
	uint8_t cs[SHB_QUIC_INITIAL_SECRET_LEN], ss[SHB_QUIC_INITIAL_SECRET_LEN];
	int rc = shb_quic_initial_secrets(dcid, dcid_len, cs, ss);

	if (rc == SHB_QUIC_CRYPTO_OK && client)
		rc = shb_quic_keys_init(client, GNUTLS_CIPHER_AES_128_GCM,
					GNUTLS_MAC_SHA256, cs, sizeof(cs));
	if (rc == SHB_QUIC_CRYPTO_OK && server)
		rc = shb_quic_keys_init(server, GNUTLS_CIPHER_AES_128_GCM,
					GNUTLS_MAC_SHA256, ss, sizeof(ss));
	if (rc != SHB_QUIC_CRYPTO_OK) {
		shb_quic_keys_deinit(client);
		shb_quic_keys_deinit(server);
	}
	gnutls_memset(cs, 0, sizeof(cs));
	gnutls_memset(ss, 0, sizeof(ss));
	return rc;
}

int shb_quic_keys_update(struct shb_quic_keys *next,
			 const struct shb_quic_keys *cur)
{
	uint8_t secret[SHB_QUIC_SECRET_MAX], key[SHB_QUIC_KEY_MAX];
	uint8_t iv[SHB_QUIC_IV_LEN];
	int rc;

	if (!next || next == cur)
		return SHB_QUIC_CRYPTO_E_INVAL;
	if (!shb_quic_keys_ready(cur))
		return SHB_QUIC_CRYPTO_E_NOKEY;
	rc = shb_quic_next_secret(cur->hash, cur->secret, cur->secret_len, secret);
	if (rc == SHB_QUIC_CRYPTO_OK)
		rc = shb_quic_hkdf_expand_label(cur->hash, secret, cur->secret_len,
						"quic key", key, cur->key_len);
	if (rc == SHB_QUIC_CRYPTO_OK)
		rc = shb_quic_hkdf_expand_label(cur->hash, secret, cur->secret_len,
						"quic iv", iv, sizeof(iv));
	if (rc == SHB_QUIC_CRYPTO_OK) {
		/* RFC 9001 6.1: the header-protection key is not updated. */
		next->hp = cur->hp;
		next->hp_alg = cur->hp_alg;
		rc = keys_install(next, cur->cipher, cur->hash, secret, cur->secret_len,
				  key, cur->key_len, iv, NULL);
	} else {
		shb_quic_keys_deinit(next);
	}
	gnutls_memset(secret, 0, sizeof(secret));
	gnutls_memset(key, 0, sizeof(key));
	return rc;
}

gnutls_cipher_algorithm_t shb_quic_keys_cipher(const struct shb_quic_keys *k)
{
	return shb_quic_keys_ready(k) ? k->cipher : GNUTLS_CIPHER_UNKNOWN;
}

/* RFC 9001 5.3: the packet number, big-endian and left-padded to the IV
 * length, XORed into the IV. */
static void make_nonce(const struct shb_quic_keys *k, uint64_t pn,
		       uint8_t nonce[SHB_QUIC_IV_LEN])
{
	memcpy(nonce, k->iv, SHB_QUIC_IV_LEN);
	for (int i = 0; i < 8; i++)
		nonce[SHB_QUIC_IV_LEN - 1 - i] ^= (uint8_t)(pn >> (8 * i));
}

int shb_quic_seal(const struct shb_quic_keys *k, uint64_t pn, uint8_t *pkt,
		  size_t hdr_len, size_t payload_len, size_t cap)
{
	uint8_t nonce[SHB_QUIC_IV_LEN];
	size_t out_len;

	if (!shb_quic_keys_ready(k))
		return SHB_QUIC_CRYPTO_E_NOKEY;
	if (!pkt || pn > SHB_QUIC_KEYS_PN_MAX || hdr_len == 0 || cap > INT32_MAX ||
	    hdr_len > cap || payload_len > cap - hdr_len ||
	    SHB_QUIC_TAG_LEN > cap - hdr_len - payload_len)
		return SHB_QUIC_CRYPTO_E_INVAL;
	make_nonce(k, pn, nonce);
	out_len = cap - hdr_len;
	if (gnutls_aead_cipher_encrypt(k->aead, nonce, sizeof(nonce), pkt, hdr_len,
				       SHB_QUIC_TAG_LEN, pkt + hdr_len, payload_len,
				       pkt + hdr_len, &out_len) < 0)
		return SHB_QUIC_CRYPTO_E_LIB;
	return (int)(hdr_len + payload_len + SHB_QUIC_TAG_LEN);
}

int shb_quic_open(const struct shb_quic_keys *k, uint64_t pn, uint8_t *pkt,
		  size_t hdr_len, size_t pkt_len)
{
	uint8_t nonce[SHB_QUIC_IV_LEN];
	size_t ct_len, pt_len;
	int ret;

	if (!shb_quic_keys_ready(k))
		return SHB_QUIC_CRYPTO_E_NOKEY;
	if (!pkt || pn > SHB_QUIC_KEYS_PN_MAX || hdr_len == 0 || pkt_len > INT32_MAX ||
	    hdr_len > pkt_len || pkt_len - hdr_len < SHB_QUIC_TAG_LEN)
		return SHB_QUIC_CRYPTO_E_INVAL;
	ct_len = pkt_len - hdr_len;
	pt_len = ct_len - SHB_QUIC_TAG_LEN;
	make_nonce(k, pn, nonce);
	ret = gnutls_aead_cipher_decrypt(k->aead, nonce, sizeof(nonce), pkt, hdr_len,
					 SHB_QUIC_TAG_LEN, pkt + hdr_len, ct_len,
					 pkt + hdr_len, &pt_len);
	if (ret < 0) {
		/* Unauthenticated plaintext may be there already (the AES-NI
		 * path decrypts before it compares tags): never let it out. */
		memset(pkt + hdr_len, 0, ct_len);
		return ret == GNUTLS_E_DECRYPTION_FAILED ? SHB_QUIC_CRYPTO_E_AUTH
							 : SHB_QUIC_CRYPTO_E_LIB;
	}
	return (int)(ct_len - SHB_QUIC_TAG_LEN);
}

int shb_quic_hp_mask(const struct shb_quic_keys *k,
		     const uint8_t sample[SHB_QUIC_SAMPLE_LEN], uint8_t mask[5])
{
	static const uint8_t zeros[5];
	uint8_t block[SHB_QUIC_SAMPLE_LEN];
	struct chacha_ctx c;

	if (!shb_quic_keys_ready(k))
		return SHB_QUIC_CRYPTO_E_NOKEY;
	switch (k->hp_alg) {
	case SHB_QUIC_HP_AES128:
		aes128_encrypt(&k->hp.aes128, sizeof(block), block, sample);
		memcpy(mask, block, 5);
		return SHB_QUIC_CRYPTO_OK;
	case SHB_QUIC_HP_AES256:
		aes256_encrypt(&k->hp.aes256, sizeof(block), block, sample);
		memcpy(mask, block, 5);
		return SHB_QUIC_CRYPTO_OK;
	case SHB_QUIC_HP_CHACHA20:
		/* A copy, so that the context stays const and reentrant.
		 * The nonce first: setting it resets the block counter. */
		c = k->hp.chacha;
		chacha_set_nonce96(&c, sample + 4);
		chacha_set_counter32(&c, sample);
		chacha_crypt32(&c, sizeof(zeros), mask, zeros);
		return SHB_QUIC_CRYPTO_OK;
	default:
		return SHB_QUIC_CRYPTO_E_NOKEY;
	}
}

/* Shared by apply and remove: validates the geometry and computes the mask
 * from the sample at pn_offset + 4. */
static int hp_prepare(const struct shb_quic_keys *k, const uint8_t *pkt,
		      size_t pkt_len, size_t pn_offset, uint8_t mask[5])
{
	if (!shb_quic_keys_ready(k))
		return SHB_QUIC_CRYPTO_E_NOKEY;
	if (!pkt || pn_offset == 0 || pn_offset > pkt_len ||
	    pkt_len - pn_offset < 4 + SHB_QUIC_SAMPLE_LEN)
		return SHB_QUIC_CRYPTO_E_INVAL;
	return shb_quic_hp_mask(k, pkt + pn_offset + 4, mask);
}

/* Long headers protect 4 bits of the first byte, short headers 5. */
static uint8_t first_byte_bits(uint8_t first)
{
	return (first & 0x80) ? 0x0f : 0x1f;
}

int shb_quic_hp_apply(const struct shb_quic_keys *k, uint8_t *pkt,
		      size_t pkt_len, size_t pn_offset)
{
	uint8_t mask[5];
	int rc = hp_prepare(k, pkt, pkt_len, pn_offset, mask);

	if (rc != SHB_QUIC_CRYPTO_OK)
		return rc;
	size_t pn_len = (size_t)(pkt[0] & 0x03) + 1;
	pkt[0] ^= mask[0] & first_byte_bits(pkt[0]);
	for (size_t i = 0; i < pn_len; i++)
		pkt[pn_offset + i] ^= mask[1 + i];
	return SHB_QUIC_CRYPTO_OK;
}

int shb_quic_hp_remove(const struct shb_quic_keys *k, uint8_t *pkt,
		       size_t pkt_len, size_t pn_offset, uint64_t *truncated_pn)
{
	uint8_t mask[5];
	uint64_t pn = 0;
	int rc = hp_prepare(k, pkt, pkt_len, pn_offset, mask);

	if (rc != SHB_QUIC_CRYPTO_OK)
		return rc;
	pkt[0] ^= mask[0] & first_byte_bits(pkt[0]);
	size_t pn_len = (size_t)(pkt[0] & 0x03) + 1;
	for (size_t i = 0; i < pn_len; i++) {
		pkt[pn_offset + i] ^= mask[1 + i];
		pn = (pn << 8) | pkt[pn_offset + i];
	}
	if (truncated_pn)
		*truncated_pn = pn;
	return (int)pn_len;
}

int shb_quic_protect(const struct shb_quic_keys *k, uint64_t pn, uint8_t *pkt,
		     size_t pn_offset, size_t payload_len, size_t cap)
{
	size_t pn_len, hdr_len;
	int len, rc;

	if (!shb_quic_keys_ready(k))
		return SHB_QUIC_CRYPTO_E_NOKEY;
	if (!pkt || pn_offset == 0 || pn_offset >= cap)
		return SHB_QUIC_CRYPTO_E_INVAL;
	pn_len = (size_t)(pkt[0] & 0x03) + 1;
	hdr_len = pn_offset + pn_len;
	/* Check the sample before sealing so that a failure writes nothing. */
	if (hdr_len > cap || payload_len > cap - hdr_len ||
	    pn_len + payload_len + SHB_QUIC_TAG_LEN < 4 + SHB_QUIC_SAMPLE_LEN)
		return SHB_QUIC_CRYPTO_E_INVAL;
	len = shb_quic_seal(k, pn, pkt, hdr_len, payload_len, cap);
	if (len < 0)
		return len;
	rc = shb_quic_hp_apply(k, pkt, (size_t)len, pn_offset);
	return rc < 0 ? rc : len;
}
