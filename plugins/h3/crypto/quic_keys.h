/* QUIC packet protection for one direction at one encryption level
 * (RFC 9001 section 5): AEAD seal/open in place, header protection, and the
 * key update of section 6.
 *
 * A struct shb_quic_keys is a fixed-size value owned by the caller (embed it
 * in the connection: one per direction per level, plus the next and previous
 * 1-RTT generations for key update). It holds one GnuTLS AEAD handle, created
 * when keys are first installed, and a nettle context for header protection;
 * nothing else is allocated, and nothing at all is allocated by the
 * per-packet functions. Installing keys into a context that already holds a
 * handle for the same cipher re-keys that handle instead of creating one, so
 * rotating a fixed set of slots through key updates allocates nothing either.
 *
 * Lifecycle:
 *   struct shb_quic_keys k = SHB_QUIC_KEYS_EMPTY;   (or memset 0)
 *   shb_quic_keys_init(&k, cipher, hash, secret, len);  any number of times
 *   ... shb_quic_protect / shb_quic_hp_remove + shb_quic_open ...
 *   shb_quic_keys_deinit(&k);   frees the handle, wipes the secrets
 * The struct may be moved or swapped by plain assignment (the handle pointer
 * moves with it) as long as exactly one copy is deinitialised, and a moved-
 * from copy is not used again. A context is not thread-safe: use it from the
 * one thread that owns the connection. Every function tolerates an empty
 * context and returns SHB_QUIC_CRYPTO_E_NOKEY.
 *
 * Packet layout used below ("pkt" is the first byte of one QUIC packet, not
 * of the datagram; coalesced packets are protected one at a time):
 *   pkt[0 .. pn_offset)           first byte .. Length field (long header)
 *                                 or first byte + DCID (short header)
 *   pkt[pn_offset .. hdr_len)     packet number, pn_len = (pkt[0] & 3) + 1
 *                                 bytes, hdr_len = pn_offset + pn_len
 *   pkt[hdr_len .. +payload)      frames (plaintext) / ciphertext
 *   then SHB_QUIC_TAG_LEN bytes   AEAD tag
 * The header (pkt[0 .. hdr_len), unprotected) is the AAD. The header-
 * protection sample is the 16 bytes at pn_offset + 4, so the packet must
 * satisfy pn_offset + 4 + 16 <= packet length: pad the payload to at least
 * 4 - pn_len bytes (RFC 9001 5.4.2). A long header is recognised by bit 0x80
 * of pkt[0]; its Length field must already be final when sealing, because it
 * is part of the AAD.
 */
#ifndef SHB_QUIC_KEYS_H
#define SHB_QUIC_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <nettle/aes.h>
#include <nettle/chacha.h>

#include "quic_crypto_err.h"
#include "quic_hkdf.h"

#define SHB_QUIC_KEYS_PN_MAX ((UINT64_C(1) << 62) - 1)

/* Header-protection algorithm in use (internal, visible for the size). */
enum shb_quic_hp_alg {
	SHB_QUIC_HP_NONE = 0,
	SHB_QUIC_HP_AES128,
	SHB_QUIC_HP_AES256,
	SHB_QUIC_HP_CHACHA20,
};

/* All fields are private: use the functions below. */
struct shb_quic_keys {
	gnutls_aead_cipher_hd_t aead;	/* NULL: no keys */
	union {
		struct aes128_ctx aes128;
		struct aes256_ctx aes256;
		struct chacha_ctx chacha;
	} hp;
	uint8_t iv[SHB_QUIC_IV_LEN];
	uint8_t secret[SHB_QUIC_SECRET_MAX];	/* for the next generation */
	uint8_t secret_len;
	uint8_t key_len;
	uint8_t hp_alg;				/* enum shb_quic_hp_alg */
	gnutls_cipher_algorithm_t cipher;
	gnutls_mac_algorithm_t hash;
};

#define SHB_QUIC_KEYS_EMPTY ((struct shb_quic_keys){ 0 })

/* Installs the keys of one traffic secret: key, iv and hp derived with
 * shb_quic_packet_keys(), the secret kept for shb_quic_keys_update().
 * cipher: one of the four QUIC suites (see shb_quic_cipher_key_len);
 * hash: GNUTLS_MAC_SHA256 or GNUTLS_MAC_SHA384; secret_len must equal the
 * hash length. `k` must be empty (zeroed) or hold earlier keys, which are
 * replaced (the AEAD handle is re-keyed when the cipher is the same).
 * On failure `k` is left empty. The secret is copied; the caller may wipe
 * its copy afterwards.
 * Returns SHB_QUIC_CRYPTO_OK, _E_INVAL or _E_LIB. */
int shb_quic_keys_init(struct shb_quic_keys *k, gnutls_cipher_algorithm_t cipher,
		       gnutls_mac_algorithm_t hash,
		       const uint8_t *secret, size_t secret_len);

/* Installs the Initial keys (AES-128-GCM, SHA-256) for `dcid`:
 * `client` gets the "client in" keys, `server` the "server in" keys (a
 * client seals with `client` and opens with `server`). Call again with the
 * new DCID after a Retry. Either may be NULL to skip it. On failure both are
 * left empty. Returns SHB_QUIC_CRYPTO_OK, _E_INVAL or _E_LIB. */
int shb_quic_keys_init_initial(struct shb_quic_keys *client,
			       struct shb_quic_keys *server,
			       const uint8_t *dcid, size_t dcid_len);

/* Key update (RFC 9001 6): installs into `next` the generation after `cur`:
 * secret' = HKDF-Expand-Label(secret, "quic ku", "", hash length), then
 * "quic key" and "quic iv" from it; the header-protection key is copied
 * unchanged. `next` must not be `cur`; it may be empty or hold any older
 * generation (its handle is reused when the cipher matches).
 * Returns SHB_QUIC_CRYPTO_OK, _E_NOKEY (cur empty), _E_INVAL or _E_LIB. */
int shb_quic_keys_update(struct shb_quic_keys *next,
			 const struct shb_quic_keys *cur);

/* Frees the AEAD handle and wipes every key byte; `k` is empty afterwards.
 * Safe on an empty context and on NULL. */
void shb_quic_keys_deinit(struct shb_quic_keys *k);

/* True when keys are installed. */
static inline bool shb_quic_keys_ready(const struct shb_quic_keys *k)
{
	return k && k->aead != NULL;
}

/* The suite of installed keys (GNUTLS_CIPHER_UNKNOWN when empty). */
gnutls_cipher_algorithm_t shb_quic_keys_cipher(const struct shb_quic_keys *k);

/* AEAD seal in place. pkt[0 .. hdr_len) is the unprotected header (AAD) and
 * pkt[hdr_len .. hdr_len + payload_len) the plaintext; the ciphertext
 * replaces the plaintext and the 16-byte tag follows it. cap is the size of
 * the buffer at pkt; it must be at least hdr_len + payload_len + 16.
 * nonce = iv XOR pn (pn <= SHB_QUIC_KEYS_PN_MAX, the full packet number).
 * Returns the packet length hdr_len + payload_len + 16, or _E_NOKEY,
 * _E_INVAL (nothing written) or _E_LIB. */
int shb_quic_seal(const struct shb_quic_keys *k, uint64_t pn, uint8_t *pkt,
		  size_t hdr_len, size_t payload_len, size_t cap);

/* AEAD open in place. pkt[0 .. hdr_len) is the header with header
 * protection already removed (AAD), pkt[hdr_len .. pkt_len) the ciphertext
 * including the tag; pn is the full (decoded) packet number.
 * On success the plaintext is at pkt + hdr_len and its length is returned.
 * On SHB_QUIC_CRYPTO_E_AUTH (tag mismatch: wrong keys, wrong packet number,
 * or a forged/corrupted packet) the ciphertext region has been overwritten
 * with zeros, because GnuTLS may already have written unauthenticated
 * plaintext there: choose the keys (key phase) before calling. Other
 * returns: _E_NOKEY, _E_INVAL (ciphertext shorter than a tag; buffer
 * untouched). */
int shb_quic_open(const struct shb_quic_keys *k, uint64_t pn, uint8_t *pkt,
		  size_t hdr_len, size_t pkt_len);

/* The 5-byte header-protection mask for a 16-byte sample (RFC 9001 5.4.3
 * AES-ECB, 5.4.4 ChaCha20 with counter = LE32(sample[0..4)), nonce =
 * sample[4..16)). Returns SHB_QUIC_CRYPTO_OK or _E_NOKEY. */
int shb_quic_hp_mask(const struct shb_quic_keys *k,
		     const uint8_t sample[SHB_QUIC_SAMPLE_LEN], uint8_t mask[5]);

/* Applies header protection to a sealed packet of pkt_len bytes whose
 * packet number starts at pn_offset; pn_len is read from the still
 * unprotected pkt[0]. Masks pkt[0] with 0x0f (long header) or 0x1f (short)
 * and the pn_len packet-number bytes.
 * Returns SHB_QUIC_CRYPTO_OK, _E_NOKEY or _E_INVAL (no room for the sample,
 * pn_offset 0; packet untouched). */
int shb_quic_hp_apply(const struct shb_quic_keys *k, uint8_t *pkt,
		      size_t pkt_len, size_t pn_offset);

/* Removes header protection from a received packet of pkt_len bytes whose
 * packet number starts at pn_offset (known from the unprotected part of the
 * header: for a long header, the end of the Length field, and pkt_len =
 * pn_offset + Length; for a short header 1 + DCID length, and pkt_len the
 * rest of the datagram). Unmasks pkt[0] and then the pn_len bytes that the
 * unmasked pkt[0] announces. *truncated_pn receives the packet number as
 * sent (pn_len bytes, big-endian): the caller decodes the full number
 * against the largest one received (RFC 9000 A.3), then calls
 * shb_quic_open() with hdr_len = pn_offset + pn_len.
 * The header-protection key never changes with key updates, so this works
 * before the key phase is known.
 * Returns pn_len (1..4), or _E_NOKEY or _E_INVAL (packet too short for the
 * sample, pn_offset 0; packet untouched). */
int shb_quic_hp_remove(const struct shb_quic_keys *k, uint8_t *pkt,
		       size_t pkt_len, size_t pn_offset, uint64_t *truncated_pn);

/* Seal then header protection: the usual way to finish a packet.
 * pkt[0] must carry the packet-number length bits, pkt[pn_offset ..
 * pn_offset + pn_len) the truncated packet number, and the plaintext of
 * payload_len bytes must follow; pn is the full packet number. cap as for
 * shb_quic_seal. Returns the packet length (header + payload + 16) or a
 * negative code as shb_quic_seal / shb_quic_hp_apply (on _E_INVAL nothing
 * was written). */
int shb_quic_protect(const struct shb_quic_keys *k, uint64_t pn, uint8_t *pkt,
		     size_t pn_offset, size_t payload_len, size_t cap);

#endif
