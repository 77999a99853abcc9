/* QUIC v1 key schedule on gnutls_hkdf_extract/_expand. */
#include "quic_hkdf.h"

#include <string.h>

/* RFC 9001 5.2: the QUIC v1 initial salt. */
static const uint8_t quic_v1_salt[20] = {
	0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
	0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a,
};

size_t shb_quic_hash_len(gnutls_mac_algorithm_t hash)
{
	switch (hash) {
	case GNUTLS_MAC_SHA256:
		return 32;
	case GNUTLS_MAC_SHA384:
		return 48;
	default:
		return 0;
	}
}

size_t shb_quic_cipher_key_len(gnutls_cipher_algorithm_t cipher)
{
	switch (cipher) {
	case GNUTLS_CIPHER_AES_128_GCM:
	case GNUTLS_CIPHER_AES_128_CCM:
		return 16;
	case GNUTLS_CIPHER_AES_256_GCM:
	case GNUTLS_CIPHER_CHACHA20_POLY1305:
		return 32;
	default:
		return 0;
	}
}

int shb_quic_hkdf_expand_label(gnutls_mac_algorithm_t hash,
			       const uint8_t *secret, size_t secret_len,
			       const char *label, uint8_t *out, size_t out_len)
{
	static const char prefix[] = "tls13 ";
	const size_t plen = sizeof(prefix) - 1;
	uint8_t info[2 + 1 + 6 + SHB_QUIC_LABEL_MAX + 1];
	size_t llen, n = 0;

	if (!secret || !label || !out || out_len == 0 || out_len > 255)
		return SHB_QUIC_CRYPTO_E_INVAL;
	if (shb_quic_hash_len(hash) == 0 || secret_len != shb_quic_hash_len(hash))
		return SHB_QUIC_CRYPTO_E_INVAL;
	llen = strlen(label);
	if (llen > SHB_QUIC_LABEL_MAX)
		return SHB_QUIC_CRYPTO_E_INVAL;

	info[n++] = (uint8_t)(out_len >> 8);
	info[n++] = (uint8_t)out_len;
	info[n++] = (uint8_t)(plen + llen);
	memcpy(info + n, prefix, plen);
	n += plen;
	memcpy(info + n, label, llen);
	n += llen;
	info[n++] = 0; /* empty context */

	gnutls_datum_t key = { .data = (unsigned char *)secret,
			       .size = (unsigned)secret_len };
	gnutls_datum_t inf = { .data = info, .size = (unsigned)n };
	if (gnutls_hkdf_expand(hash, &key, &inf, out, out_len) < 0)
		return SHB_QUIC_CRYPTO_E_LIB;
	return SHB_QUIC_CRYPTO_OK;
}

int shb_quic_initial_secrets(const uint8_t *dcid, size_t dcid_len,
			     uint8_t client[SHB_QUIC_INITIAL_SECRET_LEN],
			     uint8_t server[SHB_QUIC_INITIAL_SECRET_LEN])
{
	/* GnuTLS rejects a NULL datum even when it is empty. */
	static const uint8_t no_cid[1];
	uint8_t initial[SHB_QUIC_INITIAL_SECRET_LEN];
	uint8_t c[SHB_QUIC_INITIAL_SECRET_LEN], s[SHB_QUIC_INITIAL_SECRET_LEN];
	int rc;

	if ((!dcid && dcid_len) || dcid_len > SHB_QUIC_CID_MAX || !client || !server)
		return SHB_QUIC_CRYPTO_E_INVAL;
	gnutls_datum_t ikm = { .data = (unsigned char *)(dcid_len ? dcid : no_cid),
			       .size = (unsigned)dcid_len };
	gnutls_datum_t salt = { .data = (unsigned char *)quic_v1_salt,
				.size = sizeof(quic_v1_salt) };
	if (gnutls_hkdf_extract(GNUTLS_MAC_SHA256, &ikm, &salt, initial) < 0)
		return SHB_QUIC_CRYPTO_E_LIB;
	rc = shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, initial, sizeof(initial),
					"client in", c, sizeof(c));
	if (rc == SHB_QUIC_CRYPTO_OK)
		rc = shb_quic_hkdf_expand_label(GNUTLS_MAC_SHA256, initial,
						sizeof(initial), "server in", s, sizeof(s));
	if (rc == SHB_QUIC_CRYPTO_OK) {
		memcpy(client, c, sizeof(c));
		memcpy(server, s, sizeof(s));
	}
	gnutls_memset(initial, 0, sizeof(initial));
	gnutls_memset(c, 0, sizeof(c));
	gnutls_memset(s, 0, sizeof(s));
	return rc;
}

int shb_quic_packet_keys(gnutls_mac_algorithm_t hash,
			 const uint8_t *secret, size_t secret_len,
			 size_t key_len, uint8_t *key,
			 uint8_t iv[SHB_QUIC_IV_LEN], uint8_t *hp)
{
	uint8_t k[SHB_QUIC_KEY_MAX], v[SHB_QUIC_IV_LEN], h[SHB_QUIC_KEY_MAX];
	int rc;

	if ((key_len != 16 && key_len != 32) || !key || !iv || !hp)
		return SHB_QUIC_CRYPTO_E_INVAL;
	rc = shb_quic_hkdf_expand_label(hash, secret, secret_len, "quic key", k, key_len);
	if (rc == SHB_QUIC_CRYPTO_OK)
		rc = shb_quic_hkdf_expand_label(hash, secret, secret_len, "quic iv",
						v, sizeof(v));
	if (rc == SHB_QUIC_CRYPTO_OK)
		rc = shb_quic_hkdf_expand_label(hash, secret, secret_len, "quic hp",
						h, key_len);
	if (rc == SHB_QUIC_CRYPTO_OK) {
		memcpy(key, k, key_len);
		memcpy(iv, v, sizeof(v));
		memcpy(hp, h, key_len);
	}
	gnutls_memset(k, 0, sizeof(k));
	gnutls_memset(h, 0, sizeof(h));
	return rc;
}

int shb_quic_next_secret(gnutls_mac_algorithm_t hash,
			 const uint8_t *secret, size_t secret_len,
			 uint8_t *out)
{
	uintptr_t o = (uintptr_t)out, s = (uintptr_t)secret;

	if (!out || (secret && o < s + secret_len && s < o + secret_len))
		return SHB_QUIC_CRYPTO_E_INVAL;
	return shb_quic_hkdf_expand_label(hash, secret, secret_len, "quic ku",
					  out, secret_len);
}
