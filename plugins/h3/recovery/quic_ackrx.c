/* Receive-side ACK ranges: a small sorted array, largest range first, so
 * that the common case (the next packet in order) touches r[0] only. */
#include <string.h>

#include "quic_ackrx.h"

void shb_quic_ackrx_init(struct shb_quic_ackrx *a)
{
	memset(a, 0, sizeof(*a));
	a->largest = SHB_QUIC_PN_NONE;
	a->due = SHB_QUIC_TIME_NONE;
}

void shb_quic_ackrx_set_policy(struct shb_quic_ackrx *a, uint32_t every,
			       uint64_t delay)
{
	a->every = every;
	a->delay = delay;
}

uint64_t shb_quic_ackrx_deadline(const struct shb_quic_ackrx *a)
{
	return a->unacked && !a->owed ? a->due : SHB_QUIC_TIME_NONE;
}

void shb_quic_ackrx_on_timer(struct shb_quic_ackrx *a, uint64_t now)
{
	if (a->unacked && now >= a->due)
		a->owed = 1;
}

/* An ack-eliciting packet arrived: owed now, or once `due` passes. */
static void on_eliciting(struct shb_quic_ackrx *a, int in_order, uint64_t now)
{
	uint32_t every = a->eliciting < SHB_QUIC_ACK_START_PKTS ? 2 : a->every;

	if (a->eliciting < SHB_QUIC_ACK_START_PKTS)
		a->eliciting++;
	if (a->unacked++ == 0)
		a->due = now + a->delay;
	if (a->every <= 1 || !in_order || a->unacked >= every)
		a->owed = 1;
}

static void remove_at(struct shb_quic_ackrx *a, uint32_t i)
{
	memmove(&a->r[i], &a->r[i + 1], (a->n - i - 1) * sizeof(a->r[0]));
	a->n--;
}

/* Raising the floor past a forgotten range is what makes forgetting safe:
 * its packet numbers can never be taken for new ones. */
static void raise_floor(struct shb_quic_ackrx *a, uint64_t above)
{
	if (above + 1 > a->floor)
		a->floor = above + 1;
}

/* Puts [pn, pn] at index i (between r[i-1], above, and r[i], below),
 * forgetting the smallest range if that makes one too many. Returns 0, or
 * -1 when every slot is in use and the new range would be the smallest. */
static int insert_at(struct shb_quic_ackrx *a, uint32_t i, uint64_t pn)
{
	if (a->n == SHB_QUIC_ACKRX_MAX_RANGES) {
		if (i == a->n)
			return -1;
		raise_floor(a, a->r[a->n - 1].hi);
		a->n--;
	}
	memmove(&a->r[i + 1], &a->r[i], (a->n - i) * sizeof(a->r[0]));
	a->r[i].lo = pn;
	a->r[i].hi = pn;
	a->n++;
	return 0;
}

/* Adds pn to the ranges. Returns 0, or -1 if it is already there or cannot
 * be kept. */
static int add(struct shb_quic_ackrx *a, uint64_t pn)
{
	uint32_t i = 0;

	/* First range whose lo <= pn: pn lies in it or between it and the
	 * one above. */
	while (i < a->n && a->r[i].lo > pn)
		i++;
	if (i < a->n && pn <= a->r[i].hi)
		return -1;
	int joins_above = i > 0 && a->r[i - 1].lo == pn + 1;
	int joins_below = i < a->n && a->r[i].hi + 1 == pn;

	if (joins_above && joins_below) {
		a->r[i - 1].lo = a->r[i].lo;
		remove_at(a, i);
	} else if (joins_above) {
		a->r[i - 1].lo = pn;
	} else if (joins_below) {
		a->r[i].hi = pn;
	} else {
		return insert_at(a, i, pn);
	}
	return 0;
}

int shb_quic_ackrx_on_packet(struct shb_quic_ackrx *a, uint64_t pn,
			     int ack_eliciting, uint64_t now)
{
	if (pn > SHB_QUIC_PN_MAX || pn < a->floor)
		return SHB_QUIC_ACKRX_DUPLICATE;
	if (add(a, pn) != 0)
		return SHB_QUIC_ACKRX_DUPLICATE;
	/* In order: the next after the largest (or the very first). */
	int in_order = a->largest == SHB_QUIC_PN_NONE || pn == a->largest + 1;

	if (a->largest == SHB_QUIC_PN_NONE || pn > a->largest) {
		a->largest = pn;
		a->largest_time = now;
	}
	a->pending = 1;
	if (ack_eliciting)
		on_eliciting(a, in_order, now);
	return SHB_QUIC_ACKRX_NEW;
}

uint64_t shb_quic_ackrx_largest(const struct shb_quic_ackrx *a)
{
	return a->largest;
}

int shb_quic_ackrx_owed(const struct shb_quic_ackrx *a)
{
	return a->owed;
}

int shb_quic_ackrx_pending(const struct shb_quic_ackrx *a)
{
	return a->pending;
}

int shb_quic_ackrx_view(const struct shb_quic_ackrx *a, uint64_t now,
			struct shb_quic_ack_view *out)
{
	if (a->n == 0)
		return -1;
	/* The largest range always holds `largest`: trimming removes it only
	 * together with everything below, and the cap drops the smallest. */
	uint64_t delay_ns = now > a->largest_time ? now - a->largest_time : 0;

	out->largest = a->r[0].hi;
	out->ack_delay = (delay_ns / 1000) >> SHB_QUIC_ACK_DELAY_EXPONENT;
	out->ranges = a->r;
	out->count = a->n;
	return 0;
}

void shb_quic_ackrx_on_ack_sent(struct shb_quic_ackrx *a)
{
	a->owed = 0;
	a->pending = 0;
	a->unacked = 0;
	a->due = SHB_QUIC_TIME_NONE;
}

void shb_quic_ackrx_trim(struct shb_quic_ackrx *a, uint64_t pn)
{
	if (pn > SHB_QUIC_PN_MAX)
		return;
	while (a->n > 0 && a->r[a->n - 1].hi <= pn)
		a->n--;
	if (a->n > 0 && a->r[a->n - 1].lo <= pn)
		a->r[a->n - 1].lo = pn + 1;
	raise_floor(a, pn);
	if (a->n == 0)
		shb_quic_ackrx_on_ack_sent(a);
}
