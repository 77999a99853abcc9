/* QUIC packet number spaces (RFC 9000 Section 12.3) and the values the
 * loss-recovery parts share.
 *
 * Every time in plugins/h3/recovery is a uint64_t count of nanoseconds on
 * the caller's monotonic clock (it must not go backwards), passed in as
 * `now`; nothing here reads a clock. SHB_QUIC_TIME_NONE ("never") has the
 * value of the SDK's SHB_TSTAMP_NONE so that a deadline can be handed to
 * the core unchanged.
 */
#ifndef SHB_QUIC_PNS_H
#define SHB_QUIC_PNS_H

#include <stdint.h>

enum shb_quic_pns {
	SHB_QUIC_PNS_INITIAL = 0,
	SHB_QUIC_PNS_HANDSHAKE = 1,
	SHB_QUIC_PNS_APP = 2, /* 1-RTT packets (0-RTT is never sent) */
	SHB_QUIC_PNS_COUNT = 3,
};

/* The same spellings as plugins/h3/wire/quic_pn.h, so that both headers can
 * be included together (identical macro redefinitions are allowed). */
#ifndef SHB_QUIC_PN_NONE
#define SHB_QUIC_PN_NONE UINT64_MAX
#endif
#ifndef SHB_QUIC_PN_MAX
#define SHB_QUIC_PN_MAX ((UINT64_C(1) << 62) - 1)
#endif

/* Non-zero for a space index the recovery part's arrays hold. */
static inline int shb_quic_pns_valid(int space)
{
	return space >= 0 && space < SHB_QUIC_PNS_COUNT;
}

#define SHB_QUIC_TIME_NONE UINT64_MAX
#define SHB_QUIC_MS UINT64_C(1000000)

#endif
