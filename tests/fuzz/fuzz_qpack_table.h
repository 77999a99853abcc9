/* A QPACK dynamic table for the QPACK fuzz targets, filled from the front
 * of the input as the server's encoder stream would fill it
 * (plugins/h3/http3/qpack_encstream.c). Input: a table byte T (0: no
 * table, the static-only decoder; else a limit of T * 256 octets), then,
 * with a table, two bytes of encoder stream length E, one byte whose
 * value modulo (E + 1) is how much of it comes before the field section
 * (the rest may unblock it), and the E octets. */
#ifndef SHB_FUZZ_QPACK_TABLE_H
#define SHB_FUZZ_QPACK_TABLE_H

#include "fuzz_input.h"
#include "qpack_encstream.h"
#include "qpack_table.h"

struct fz_qtable {
	struct shb_qpack_table t;
	struct shb_qpack_encrd r;
	const uint8_t *enc; /* encoder stream octets */
	size_t before, after; /* fed before the section, and later */
	int on;             /* a table at all */
	int failed;         /* the encoder stream was refused */
};

/* Reads the table's part of the input and feeds the first part of the
 * encoder stream. */
static inline void fz_qtable_read(struct fz *f, struct fz_qtable *q)
{
	unsigned t = fz_u8(f);
	size_t e, cut;

	q->on = t != 0;
	q->failed = 0;
	q->before = q->after = 0;
	shb_qpack_table_init(&q->t, t * 256u);
	shb_qpack_encrd_init(&q->r, q->t.limit);
	if (!q->on)
		return;
	e = fz_u16(f);
	cut = fz_u8(f);
	q->enc = fz_take(f, e, &e);
	q->before = cut % (e + 1);
	q->after = e - q->before;
	if (shb_qpack_encrd_feed(&q->r, &q->t, q->enc, q->before) < 0)
		q->failed = 1;
}

/* The rest of the encoder stream (once). */
static inline void fz_qtable_rest(struct fz_qtable *q)
{
	if (q->on && !q->failed && q->after &&
	    shb_qpack_encrd_feed(&q->r, &q->t, q->enc + q->before, q->after) < 0)
		q->failed = 1;
	q->after = 0;
}

static inline void fz_qtable_check(const struct fz_qtable *q)
{
	FZ_CHECK(q->t.size <= q->t.capacity && q->t.capacity <= q->t.limit);
	FZ_CHECK(q->t.count <= q->t.inserted);
	FZ_CHECK(q->t.oct_cap <= 2 * q->t.limit);
	FZ_CHECK(!q->failed || q->r.detail != NULL);
}

static inline void fz_qtable_free(struct fz_qtable *q)
{
	shb_qpack_encrd_fini(&q->r);
	shb_qpack_table_fini(&q->t);
}

#endif
