/* Packet number truncation and recovery (RFC 9000 Sections 17.1, A.2,
 * A.3). */
#include "quic_pn.h"

unsigned shb_quic_pn_len(uint64_t full_pn, uint64_t largest_acked)
{
	uint64_t unacked;

	if (largest_acked == SHB_QUIC_PN_NONE)
		unacked = full_pn + 1;
	else if (full_pn > largest_acked)
		unacked = full_pn - largest_acked;
	else
		unacked = 1; /* never sent below what was acked; be safe */
	/* The receiver resolves the truncated number within half the window
	 * around what it expects, so the window must span twice the packets
	 * in flight: the fewest bytes with 2 * unacked <= 2^(8 * bytes). */
	for (unsigned n = 1; n < 4; n++)
		if (unacked <= UINT64_C(1) << (8 * n - 1))
			return n;
	return 4;
}

void shb_quic_pn_write(uint8_t *out, uint64_t pn, unsigned pn_len)
{
	for (unsigned i = pn_len; i-- > 0;) {
		out[i] = (uint8_t)pn;
		pn >>= 8;
	}
}

uint64_t shb_quic_pn_read(const uint8_t *in, unsigned pn_len)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < pn_len; i++)
		v = v << 8 | in[i];
	return v;
}

uint64_t shb_quic_pn_decode(uint64_t largest_pn, uint64_t truncated,
			    unsigned pn_len)
{
	/* SHB_QUIC_PN_NONE + 1 wraps to 0: nothing seen, packet 0 next. */
	uint64_t expected = largest_pn + 1;
	uint64_t win = UINT64_C(1) << (8 * pn_len);
	uint64_t hwin = win / 2;
	uint64_t cand = (expected & ~(win - 1)) | (truncated & (win - 1));

	/* Unsigned forms of A.3's "candidate <= expected - hwin" and
	 * "candidate > expected + hwin", with no wrap-around. */
	if (expected >= hwin && cand <= expected - hwin &&
	    cand < SHB_QUIC_PN_MAX + 1 - win)
		return cand + win;
	if (cand > expected + hwin && cand >= win)
		return cand - win;
	return cand;
}
