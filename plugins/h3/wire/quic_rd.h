/* Internal to plugins/h3/wire: a bounds-checked cursor over received bytes
 * and a matching writer. Every read checks the bytes left before touching
 * one, so a decoder built from these cannot read past its input. Not part
 * of the interface other parts use. */
#ifndef SHB_QUIC_RD_H
#define SHB_QUIC_RD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "quic_varint.h"

struct shb_quic_rd {
	const uint8_t *p;
	size_t left;
};

/* Moves on n bytes (n <= left); skips the arithmetic for n == 0 so that a
 * NULL cursor over nothing stays NULL without undefined behaviour. */
static inline void shb_quic_rd_skip(struct shb_quic_rd *r, size_t n)
{
	if (n) {
		r->p += n;
		r->left -= n;
	}
}

/* 0 and *v on success, -1 when the input ends first. */
static inline int shb_quic_rd_varint(struct shb_quic_rd *r, uint64_t *v)
{
	size_t n = shb_quic_varint_decode(r->p, r->left, v);

	if (!n)
		return -1;
	shb_quic_rd_skip(r, n);
	return 0;
}

static inline int shb_quic_rd_u8(struct shb_quic_rd *r, uint8_t *v)
{
	if (r->left < 1)
		return -1;
	*v = r->p[0];
	shb_quic_rd_skip(r, 1);
	return 0;
}

static inline int shb_quic_rd_u32(struct shb_quic_rd *r, uint32_t *v)
{
	if (r->left < 4)
		return -1;
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 |
	     (uint32_t)r->p[2] << 8 | r->p[3];
	shb_quic_rd_skip(r, 4);
	return 0;
}

/* Borrows the next n bytes (n may come straight from the wire, so it is a
 * uint64_t and compared before any conversion). */
static inline int shb_quic_rd_bytes(struct shb_quic_rd *r, uint64_t n,
				    const uint8_t **out)
{
	if (n > r->left)
		return -1;
	*out = r->p;
	shb_quic_rd_skip(r, (size_t)n);
	return 0;
}

/* Writer. With p == NULL it only counts, so that an encoder and its size
 * function are the same code and cannot disagree. */
struct shb_quic_wr {
	uint8_t *p;	/* NULL: count only */
	size_t left;
	size_t n;	/* bytes written (or counted) so far */
	int fail;	/* sticky: a write did not fit or a value was invalid */
};

static inline void shb_quic_wr_init(struct shb_quic_wr *w, uint8_t *out,
				    size_t cap)
{
	w->p = out;
	w->left = out ? cap : SIZE_MAX;
	w->n = 0;
	w->fail = 0;
}

/* Reserves n bytes; returns where to write them (NULL when counting or on
 * failure). */
static inline uint8_t *shb_quic_wr_take(struct shb_quic_wr *w, size_t n)
{
	uint8_t *at = w->p;

	if (w->fail || n > w->left) {
		w->fail = 1;
		return NULL;
	}
	w->left -= n;
	w->n += n;
	if (at && n)
		w->p += n;
	return at;
}

static inline void shb_quic_wr_varint(struct shb_quic_wr *w, uint64_t v)
{
	size_t len = shb_quic_varint_len(v);
	uint8_t *at;

	if (!len) {
		w->fail = 1;
		return;
	}
	at = shb_quic_wr_take(w, len);
	if (at)
		shb_quic_varint_encode_n(at, len, v, len);
}

static inline void shb_quic_wr_bytes(struct shb_quic_wr *w, const void *src,
				     size_t n)
{
	uint8_t *at = shb_quic_wr_take(w, n);

	if (at && n)
		memcpy(at, src, n);
}

static inline void shb_quic_wr_zeros(struct shb_quic_wr *w, size_t n)
{
	uint8_t *at = shb_quic_wr_take(w, n);

	if (at && n)
		memset(at, 0, n);
}

static inline void shb_quic_wr_u8(struct shb_quic_wr *w, uint8_t v)
{
	shb_quic_wr_bytes(w, &v, 1);
}

#endif
