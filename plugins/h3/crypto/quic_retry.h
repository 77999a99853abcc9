/* Retry Integrity Tag of QUIC v1 (RFC 9001 section 5.8).
 *
 * tag = AEAD_AES_128_GCM(K, N, plaintext = empty, AAD = Retry Pseudo-Packet)
 * with the fixed v1 key K and nonce N, where the pseudo-packet is
 *   uint8 ODCID length, ODCID, the Retry packet without its last 16 bytes.
 * ODCID is the Destination Connection ID of the client's first Initial.
 *
 * Stateless, thread-safe and allocation-free (nettle GCM on the stack, the
 * pseudo-packet is never assembled in memory), for any packet length.
 * Parsing the Retry header (token, SCID) is the wire part's job.
 */
#ifndef SHB_QUIC_RETRY_H
#define SHB_QUIC_RETRY_H

#include <stddef.h>
#include <stdint.h>

#include "quic_crypto_err.h"

#define SHB_QUIC_RETRY_TAG_LEN 16

/* Computes the tag for a Retry packet whose bytes without the tag are
 * pkt[0 .. len). odcid_len <= 20. Returns SHB_QUIC_CRYPTO_OK or _E_INVAL. */
int shb_quic_retry_tag(const uint8_t *odcid, size_t odcid_len,
		       const uint8_t *pkt, size_t len,
		       uint8_t tag[SHB_QUIC_RETRY_TAG_LEN]);

/* Verifies a whole received Retry packet pkt[0 .. pkt_len) (tag in the last
 * 16 bytes) in constant time. Returns SHB_QUIC_CRYPTO_OK when the tag is
 * right, _E_AUTH when it is not (discard the packet), _E_INVAL when the
 * packet is not longer than a tag or odcid_len > 20. */
int shb_quic_retry_verify(const uint8_t *odcid, size_t odcid_len,
			  const uint8_t *pkt, size_t pkt_len);

#endif
