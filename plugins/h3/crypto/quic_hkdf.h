/* QUIC v1 key schedule (RFC 9001 sections 5.1, 5.2 and 6.1) on GnuTLS HKDF.
 *
 * Pure functions: no state, no allocation, callable from any thread. Every
 * output buffer is written only on success. Hashes are GnuTLS MAC ids;
 * gnutls_prf_hash_get() returns a gnutls_digest_algorithm_t whose value is
 * the matching MAC id (GNUTLS_DIG_SHA256 == GNUTLS_MAC_SHA256), so it may be
 * cast. Only SHA-256 and SHA-384 are accepted: they are the only hashes of
 * the TLS 1.3 suites QUIC allows.
 */
#ifndef SHB_QUIC_HKDF_H
#define SHB_QUIC_HKDF_H

#include <stddef.h>
#include <stdint.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "quic_crypto_err.h"

#define SHB_QUIC_SECRET_MAX 48 /* SHA-384 output */
#define SHB_QUIC_KEY_MAX 32    /* AES-256 and ChaCha20 keys */
#define SHB_QUIC_IV_LEN 12
#define SHB_QUIC_TAG_LEN 16
#define SHB_QUIC_SAMPLE_LEN 16
#define SHB_QUIC_INITIAL_SECRET_LEN 32 /* Initial secrets are SHA-256 */
#define SHB_QUIC_CID_MAX 20
#define SHB_QUIC_LABEL_MAX 64

/* Output length of `hash` (32 or 48), or 0 if it is not SHA-256/SHA-384. */
size_t shb_quic_hash_len(gnutls_mac_algorithm_t hash);

/* AEAD key length of `cipher` for the four QUIC suites: 16 for
 * GNUTLS_CIPHER_AES_128_GCM and GNUTLS_CIPHER_AES_128_CCM, 32 for
 * GNUTLS_CIPHER_AES_256_GCM and GNUTLS_CIPHER_CHACHA20_POLY1305; 0 for
 * anything else (notably AES-128-CCM-8, whose 8-byte tag QUIC forbids). */
size_t shb_quic_cipher_key_len(gnutls_cipher_algorithm_t cipher);

/* HKDF-Expand-Label(secret, label, "", out_len) of TLS 1.3 (RFC 8446 7.1):
 * HKDF-Expand with info = uint16 out_len, uint8 (6 + strlen(label)),
 * "tls13 " label, uint8 0 (QUIC always uses an empty context).
 * `secret` must be exactly shb_quic_hash_len(hash) bytes; `label` is a NUL-
 * terminated string of at most SHB_QUIC_LABEL_MAX bytes; 1 <= out_len <= 255.
 * Returns SHB_QUIC_CRYPTO_OK, _E_INVAL or _E_LIB. */
int shb_quic_hkdf_expand_label(gnutls_mac_algorithm_t hash,
			       const uint8_t *secret, size_t secret_len,
			       const char *label, uint8_t *out, size_t out_len);

/* The Initial secrets of QUIC v1 (RFC 9001 5.2) for the Destination
 * Connection ID of the client's first Initial (or the one a Retry gave):
 * initial = HKDF-Extract(SHA-256, salt = v1 salt, IKM = dcid), then
 * "client in" and "server in", 32 bytes each. dcid_len <= SHB_QUIC_CID_MAX
 * (0 is accepted: a Retry may carry an empty Source Connection ID).
 * Returns SHB_QUIC_CRYPTO_OK, _E_INVAL or _E_LIB. */
int shb_quic_initial_secrets(const uint8_t *dcid, size_t dcid_len,
			     uint8_t client[SHB_QUIC_INITIAL_SECRET_LEN],
			     uint8_t server[SHB_QUIC_INITIAL_SECRET_LEN]);

/* Packet-protection material from one traffic secret (RFC 9001 5.1):
 * key = "quic key" (key_len bytes), iv = "quic iv" (12 bytes),
 * hp = "quic hp" (key_len bytes). key_len is shb_quic_cipher_key_len() of
 * the suite (16 or 32). `key` and `hp` must hold key_len bytes.
 * Returns SHB_QUIC_CRYPTO_OK, _E_INVAL or _E_LIB. */
int shb_quic_packet_keys(gnutls_mac_algorithm_t hash,
			 const uint8_t *secret, size_t secret_len,
			 size_t key_len, uint8_t *key,
			 uint8_t iv[SHB_QUIC_IV_LEN], uint8_t *hp);

/* The next 1-RTT generation's secret (RFC 9001 6.1):
 * HKDF-Expand-Label(secret, "quic ku", "", secret_len). `out` holds
 * secret_len bytes and may not overlap `secret`.
 * Returns SHB_QUIC_CRYPTO_OK, _E_INVAL or _E_LIB. */
int shb_quic_next_secret(gnutls_mac_algorithm_t hash,
			 const uint8_t *secret, size_t secret_len,
			 uint8_t *out);

#endif
