/* Token-bucket pacer; see quic_pacer.h for the policy. */
#include "quic_pacer.h"

#include "quic_pns.h"

/* a * b / c, rounded down (up when `up`), without overflowing: operands
 * too large for 64 bits lose low bits of a and c together, which keeps
 * their ratio; that only happens for idle times of days. */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c, int up)
{
	while (b && a > UINT64_MAX / b) {
		a >>= 1;
		c >>= 1;
	}
	if (c == 0)
		return UINT64_MAX;
	uint64_t q = a * b / c;

	return up && q * c != a * b ? q + 1 : q;
}

void shb_quic_pacer_init(struct shb_quic_pacer *p, uint64_t burst,
			 uint32_t max_datagram, int enabled)
{
	if (max_datagram == 0)
		max_datagram = 1200;
	if (burst == 0)
		burst = 10 * (uint64_t)max_datagram;
	if (burst < max_datagram)
		burst = max_datagram;
	p->tokens = burst;
	p->last = SHB_QUIC_TIME_NONE;
	p->burst = burst;
	p->max_datagram = max_datagram;
	p->enabled = enabled != 0;
}

struct shb_quic_pace_rate shb_quic_pacer_rate(uint64_t cwnd, uint64_t srtt,
					      int slow_start)
{
	struct shb_quic_pace_rate r;

	if (srtt == 0)
		srtt = 1;
	if (cwnd > UINT64_MAX / 8)
		cwnd = UINT64_MAX / 8;
	if (srtt > UINT64_MAX / 8)
		srtt = UINT64_MAX / 8;
	/* N = 2 in slow start, 5/4 afterwards. */
	r.bytes = slow_start ? 2 * cwnd : 5 * cwnd;
	r.ns = slow_start ? srtt : 4 * srtt;
	return r;
}

uint64_t shb_quic_pacer_bucket(const struct shb_quic_pacer *p,
			       struct shb_quic_pace_rate rate)
{
	uint64_t b = muldiv(SHB_QUIC_PACER_QUANTUM_NS, rate.bytes, rate.ns, 0);
	uint64_t max = (uint64_t)SHB_QUIC_PACER_MAX_BURST * p->max_datagram;

	if (b > max)
		b = max;
	return b > p->burst ? b : p->burst;
}

/* The bucket as of `now`: *tokens and the time they are counted at. */
static void refill(const struct shb_quic_pacer *p, uint64_t now,
		   struct shb_quic_pace_rate rate, uint64_t *tokens,
		   uint64_t *last)
{
	*tokens = p->tokens;
	*last = p->last;
	if (p->last == SHB_QUIC_TIME_NONE || now <= p->last || rate.bytes == 0)
		return;
	uint64_t cap = shb_quic_pacer_bucket(p, rate);
	uint64_t room = cap > p->tokens ? cap - p->tokens : 0;
	uint64_t add = muldiv(now - p->last, rate.bytes, rate.ns, 0);

	if (add >= room) {
		*tokens = p->tokens > cap ? p->tokens : cap;
		*last = now;
		return;
	}
	/* Move by the time the counted bytes took, not to now: the rest of
	 * the interval still counts at the next refill. */
	*tokens += add;
	*last += muldiv(add, rate.ns, rate.bytes, 0);
}

void shb_quic_pacer_on_sent(struct shb_quic_pacer *p, uint64_t bytes,
			    uint64_t now, struct shb_quic_pace_rate rate)
{
	uint64_t tokens, last;

	if (!p->enabled)
		return;
	if (p->last == SHB_QUIC_TIME_NONE)
		p->last = now;
	refill(p, now, rate, &tokens, &last);
	p->tokens = tokens > bytes ? tokens - bytes : 0;
	/* A packet sent with a clock that went back counts from its time. */
	p->last = last > now ? now : last;
}

uint64_t shb_quic_pacer_next(const struct shb_quic_pacer *p,
			     struct shb_quic_pace_rate rate)
{
	if (!p->enabled || p->last == SHB_QUIC_TIME_NONE ||
	    p->tokens >= p->max_datagram)
		return p->enabled && p->last != SHB_QUIC_TIME_NONE ? p->last : 0;
	if (rate.bytes == 0)
		return SHB_QUIC_TIME_NONE;
	uint64_t wait = muldiv(p->max_datagram - p->tokens, rate.ns,
			       rate.bytes, 1);

	return wait > UINT64_MAX - p->last ? SHB_QUIC_TIME_NONE
					   : p->last + wait;
}

uint64_t shb_quic_pacer_tokens(const struct shb_quic_pacer *p, uint64_t now,
			       struct shb_quic_pace_rate rate)
{
	uint64_t tokens, last;

	refill(p, now, rate, &tokens, &last);
	return tokens;
}
