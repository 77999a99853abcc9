/* ACK frames: decoding with validation, range iteration, encoding from a
 * range list (RFC 9000 Section 19.3). */
#include "quic_ack.h"
#include "quic_ack_body.h"
#include "quic_rd.h"
#include "quic_wire_err.h"

/* One Gap / ACK Range Length pair below a range whose low end is *lo:
 * the next range is hi = lo - gap - 2 down to hi - len. Returns 0 and
 * moves *lo, -1 when the pair is truncated, -2 when it goes below 0. */
static int next_range(struct shb_quic_rd *r, uint64_t *lo, uint64_t *hi)
{
	uint64_t gap, len;

	if (shb_quic_rd_varint(r, &gap) < 0 || shb_quic_rd_varint(r, &len) < 0)
		return -1;
	if (*lo < 2 || gap > *lo - 2)
		return -2;
	*hi = *lo - gap - 2;
	if (len > *hi)
		return -2;
	*lo = *hi - len;
	return 0;
}

/* Walks `count` pairs from r starting below `lo`. Each pair takes at least
 * two bytes, so a hostile count ends the loop at the end of the input. */
static int walk_ranges(struct shb_quic_rd *r, uint64_t count, uint64_t *lo,
		       const char **why)
{
	uint64_t hi;

	for (uint64_t i = 0; i < count; i++) {
		int rc = next_range(r, lo, &hi);

		if (rc == -1) {
			*why = "ACK frame truncated";
			return SHB_QUIC_E_FRAME_ENCODING;
		}
		if (rc == -2) {
			*why = "ACK range below packet number 0";
			return SHB_QUIC_E_FRAME_ENCODING;
		}
	}
	return SHB_QUIC_OK;
}

int shb_quic_ack_decode_body(struct shb_quic_rd *r, int ecn,
			     struct shb_quic_ack *a, const char **why)
{
	const uint8_t *start;
	int rc;

	if (shb_quic_rd_varint(r, &a->largest) < 0 ||
	    shb_quic_rd_varint(r, &a->delay) < 0 ||
	    shb_quic_rd_varint(r, &a->range_count) < 0 ||
	    shb_quic_rd_varint(r, &a->first_range) < 0) {
		*why = "ACK frame truncated";
		return SHB_QUIC_E_FRAME_ENCODING;
	}
	if (a->first_range > a->largest) {
		*why = "ACK range below packet number 0";
		return SHB_QUIC_E_FRAME_ENCODING;
	}
	a->smallest = a->largest - a->first_range;
	start = r->p;
	rc = walk_ranges(r, a->range_count, &a->smallest, why);
	if (rc != SHB_QUIC_OK)
		return rc;
	a->ranges = start;
	a->ranges_len = (size_t)(r->p - start);
	a->ect0 = a->ect1 = a->ce = 0;
	if (ecn && (shb_quic_rd_varint(r, &a->ect0) < 0 ||
		    shb_quic_rd_varint(r, &a->ect1) < 0 ||
		    shb_quic_rd_varint(r, &a->ce) < 0)) {
		*why = "ACK_ECN counts truncated";
		return SHB_QUIC_E_FRAME_ENCODING;
	}
	return SHB_QUIC_OK;
}

void shb_quic_ack_put_body(struct shb_quic_wr *w, int ecn,
			   const struct shb_quic_ack *a)
{
	struct shb_quic_rd r = {a->ranges, a->ranges_len};
	uint64_t lo;
	const char *why;

	if (a->first_range > a->largest || (a->ranges_len && !a->ranges)) {
		w->fail = 1;
		return;
	}
	/* The raw ranges must be exactly range_count valid pairs. */
	lo = a->largest - a->first_range;
	if (walk_ranges(&r, a->range_count, &lo, &why) != SHB_QUIC_OK ||
	    r.left != 0) {
		w->fail = 1;
		return;
	}
	shb_quic_wr_varint(w, a->largest);
	shb_quic_wr_varint(w, a->delay);
	shb_quic_wr_varint(w, a->range_count);
	shb_quic_wr_varint(w, a->first_range);
	shb_quic_wr_bytes(w, a->ranges, a->ranges_len);
	if (ecn) {
		shb_quic_wr_varint(w, a->ect0);
		shb_quic_wr_varint(w, a->ect1);
		shb_quic_wr_varint(w, a->ce);
	}
}

void shb_quic_ack_iter_init(struct shb_quic_ack_iter *it,
			    const struct shb_quic_ack *a)
{
	it->p = a->ranges;
	it->left = a->ranges ? a->ranges_len : 0;
	it->prev_lo = 0;
	it->remaining = a->range_count;
	it->largest = a->largest;
	it->first_range = a->first_range;
	it->started = 0;
	it->done = 0;
}

int shb_quic_ack_iter_next(struct shb_quic_ack_iter *it,
			   struct shb_quic_ack_range *out)
{
	struct shb_quic_rd r;
	uint64_t lo, hi;

	if (it->done)
		return 0;
	if (!it->started) {
		it->started = 1;
		if (it->first_range > it->largest) {
			it->done = 1;
			return 0;
		}
		out->hi = it->largest;
		out->lo = it->prev_lo = it->largest - it->first_range;
		return 1;
	}
	r.p = it->p;
	r.left = it->left;
	lo = it->prev_lo;
	if (it->remaining == 0 || next_range(&r, &lo, &hi) != 0) {
		it->done = 1;
		return 0;
	}
	it->p = r.p;
	it->left = r.left;
	it->remaining--;
	out->hi = hi;
	out->lo = it->prev_lo = lo;
	return 1;
}

uint64_t shb_quic_ack_delay_us(const struct shb_quic_ack *a,
			       unsigned exponent)
{
	if (exponent >= 64 || a->delay > (UINT64_MAX >> exponent))
		return UINT64_MAX;
	return a->delay << exponent;
}

/* Ranges largest first, each lo <= hi <= 2^62-1, separated by at least
 * one unacknowledged packet number. */
static int ranges_valid(const struct shb_quic_ack_range *r, size_t n)
{
	if (n == 0 || !r)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].lo > r[i].hi || r[i].hi > SHB_QUIC_VARINT_MAX)
			return 0;
		if (i && (r[i - 1].lo < 2 || r[i].hi > r[i - 1].lo - 2))
			return 0;
	}
	return 1;
}

static uint64_t delay_field(uint64_t delay_us, unsigned exponent)
{
	uint64_t v = delay_us >> exponent;

	return v > SHB_QUIC_VARINT_MAX ? SHB_QUIC_VARINT_MAX : v;
}

/* Writes (or counts, w->p == NULL) the first n ranges as one ACK frame. */
static void put_ack(struct shb_quic_wr *w, const struct shb_quic_ack_range *r,
		    size_t n, uint64_t delay)
{
	shb_quic_wr_u8(w, 0x02);
	shb_quic_wr_varint(w, r[0].hi);
	shb_quic_wr_varint(w, delay);
	shb_quic_wr_varint(w, n - 1);
	shb_quic_wr_varint(w, r[0].hi - r[0].lo);
	for (size_t i = 1; i < n && !w->fail; i++) {
		shb_quic_wr_varint(w, r[i - 1].lo - r[i].hi - 2);
		shb_quic_wr_varint(w, r[i].hi - r[i].lo);
	}
}

size_t shb_quic_ack_frame_len(const struct shb_quic_ack_range *r, size_t n,
			      uint64_t delay_us, unsigned exponent)
{
	struct shb_quic_wr w;

	if (exponent > 20 || !ranges_valid(r, n))
		return 0;
	shb_quic_wr_init(&w, NULL, 0);
	put_ack(&w, r, n, delay_field(delay_us, exponent));
	return w.fail ? 0 : w.n;
}

size_t shb_quic_ack_frame_encode(uint8_t *out, size_t cap,
				 const struct shb_quic_ack_range *r, size_t n,
				 uint64_t delay_us, unsigned exponent)
{
	struct shb_quic_wr w;

	if (!out || exponent > 20 || !ranges_valid(r, n))
		return 0;
	shb_quic_wr_init(&w, out, cap);
	put_ack(&w, r, n, delay_field(delay_us, exponent));
	return w.fail ? 0 : w.n;
}

size_t shb_quic_ack_ranges_fit(const struct shb_quic_ack_range *r, size_t n,
			       uint64_t delay_us, unsigned exponent,
			       size_t cap)
{
	uint64_t delay = delay_field(delay_us, exponent);
	size_t fixed, pairs = 0, best = 0;

	if (exponent > 20 || !ranges_valid(r, n))
		return 0;
	/* Type, Largest, Delay and First Range do not depend on how many
	 * ranges go in; the Range Count field and the pairs do. */
	fixed = 1 + shb_quic_varint_len(r[0].hi) + shb_quic_varint_len(delay) +
		shb_quic_varint_len(r[0].hi - r[0].lo);
	for (size_t k = 1; k <= n; k++) {
		if (k > 1)
			pairs += shb_quic_varint_len(r[k - 2].lo - r[k - 1].hi - 2) +
				 shb_quic_varint_len(r[k - 1].hi - r[k - 1].lo);
		if (fixed + pairs >= cap) /* the count takes >= 1 more byte */
			break;
		if (fixed + pairs + shb_quic_varint_len(k - 1) <= cap)
			best = k;
	}
	return best;
}
