/* CRYPTO stream reassembly: see quic_crecv.h. Handshake data is a few
 * kilobytes per connection, so the per-byte bit bookkeeping costs
 * nothing measurable and keeps the code obviously right. */
#include "quic_crecv.h"

#include <string.h>

void shb_quic_crecv_init(struct shb_quic_crecv *r, uint8_t *storage,
			 uint32_t cap)
{
	r->buf = storage;
	r->bits = storage + cap;
	r->cap = cap;
	r->held = 0;
	r->off = 0;
	memset(r->bits, 0, cap / 8);
}

static int bit_get(const struct shb_quic_crecv *r, uint64_t o)
{
	uint32_t i = (uint32_t)(o % r->cap);

	return (r->bits[i >> 3] >> (i & 7)) & 1;
}

static void bit_set(struct shb_quic_crecv *r, uint64_t o, int v)
{
	uint32_t i = (uint32_t)(o % r->cap);
	uint8_t m = (uint8_t)(1u << (i & 7));

	if (v)
		r->bits[i >> 3] |= m;
	else
		r->bits[i >> 3] &= (uint8_t)~m;
}

/* Moves `off` on by n delivered bytes, dropping any held copy of them. */
static void advance(struct shb_quic_crecv *r, uint64_t n)
{
	for (uint64_t o = r->off; o < r->off + n && r->held; o++) {
		if (bit_get(r, o)) {
			bit_set(r, o, 0);
			r->held--;
		}
	}
	r->off += n;
}

/* Delivers the held bytes that now continue the stream. */
static int drain(struct shb_quic_crecv *r, shb_quic_crecv_fn fn, void *ctx)
{
	while (r->held && bit_get(r, r->off)) {
		uint32_t start = (uint32_t)(r->off % r->cap);
		uint32_t n = 0;

		/* One piece per run that does not wrap around the ring. */
		while (start + n < r->cap && bit_get(r, r->off + n))
			n++;
		for (uint32_t i = 0; i < n; i++)
			bit_set(r, r->off + i, 0);
		r->held -= n;
		r->off += n;
		int rc = fn(ctx, r->buf + start, n);

		if (rc < 0)
			return rc;
	}
	return SHB_QUIC_CRECV_OK;
}

int shb_quic_crecv_feed(struct shb_quic_crecv *r, uint64_t off,
			const uint8_t *data, size_t len, shb_quic_crecv_fn fn,
			void *ctx)
{
	uint64_t end = off + len;

	if (end <= r->off)
		return SHB_QUIC_CRECV_OK; /* all seen before */
	if (end > r->off + r->cap)
		return SHB_QUIC_CRECV_E_FULL;
	if (off < r->off) {
		data += r->off - off;
		off = r->off;
	}
	if (off == r->off) {
		size_t n = (size_t)(end - off);

		advance(r, n);
		int rc = fn(ctx, data, n);

		if (rc < 0)
			return rc;
		return drain(r, fn, ctx);
	}
	for (uint64_t o = off; o < end; o++) {
		if (!bit_get(r, o)) {
			r->buf[o % r->cap] = data[o - off];
			bit_set(r, o, 1);
			r->held++;
		}
	}
	return SHB_QUIC_CRECV_OK;
}
