/* QUIC packet numbers on the wire (RFC 9000 Sections 17.1 and A.2, A.3).
 *
 * A packet number is 0..2^62-1 per packet number space but is sent
 * truncated to 1-4 bytes. The sender picks the length from the distance to
 * the largest packet number the peer has acknowledged; the receiver
 * rebuilds the full number from the largest one it has processed.
 */
#ifndef SHB_QUIC_PN_H
#define SHB_QUIC_PN_H

#include <stddef.h>
#include <stdint.h>

#define SHB_QUIC_PN_MAX ((UINT64_C(1) << 62) - 1)

/* "No packet yet": pass as largest_acked before the peer acknowledged
 * anything in the space, or as largest_pn before any packet of the space
 * was processed. */
#define SHB_QUIC_PN_NONE UINT64_MAX

/* Bytes (1..4) to send full_pn with: the fewest whose range covers twice
 * the number of packets not yet acknowledged (RFC 9000 Section 17.1 and the
 * sample algorithm of A.2). largest_acked is the largest packet number the
 * peer acknowledged in this space, or SHB_QUIC_PN_NONE. Returns 4 when even
 * 4 bytes are not enough (the caller must never let 2^31 packets go
 * unacknowledged; nothing sane does). */
unsigned shb_quic_pn_len(uint64_t full_pn, uint64_t largest_acked);

/* Writes the low pn_len (1..4) bytes of pn big-endian at out. */
void shb_quic_pn_write(uint8_t *out, uint64_t pn, unsigned pn_len);

/* Reads a pn_len (1..4) byte big-endian truncated packet number. */
uint64_t shb_quic_pn_read(const uint8_t *in, unsigned pn_len);

/* The full packet number closest to the next expected one whose low
 * 8 * pn_len bits are `truncated` (RFC 9000 A.3). largest_pn is the largest
 * packet number processed in the space, or SHB_QUIC_PN_NONE. pn_len is
 * 1..4 (from the unprotected first byte); `truncated` must fit in it. */
uint64_t shb_quic_pn_decode(uint64_t largest_pn, uint64_t truncated,
			    unsigned pn_len);

#endif
