/* Reading a fuzzer input: a few control bytes at the front, then the
 * payload the parser sees. Shared by every target in tests/fuzz.
 *
 * A split plan lets the fuzzer choose where a stream parser's input is cut
 * into pieces, so that the code keeping state across pieces is fuzzed as
 * much as the grammar: one plan byte (bits 0-1: number of cuts, 0..3;
 * bit 2: feed one byte at a time instead), then two bytes per cut whose
 * value modulo (payload length + 1) is the cut's offset. */
#ifndef SHB_FUZZ_INPUT_H
#define SHB_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct fz {
	const uint8_t *p;
	size_t n;
};

/* Stops the run with a message: libFuzzer records the input as a crash. */
#define FZ_CHECK(cond)                                                         \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			abort();                                               \
		}                                                              \
	} while (0)

/* The next byte, 0 once the input is used up. */
static inline unsigned fz_u8(struct fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline unsigned fz_u16(struct fz *f)
{
	unsigned lo = fz_u8(f);

	return lo | fz_u8(f) << 8;
}

/* Up to `want` bytes from the front; *got says how many there were. */
static inline const uint8_t *fz_take(struct fz *f, size_t want, size_t *got)
{
	const uint8_t *p = f->p;

	if (want > f->n)
		want = f->n;
	f->p += want;
	f->n -= want;
	*got = want;
	return p;
}

#define FZ_MAX_CUTS 3

struct fz_plan {
	unsigned cuts;
	unsigned bytewise;
	unsigned raw[FZ_MAX_CUTS];
};

static inline void fz_plan_read(struct fz *f, struct fz_plan *pl)
{
	unsigned b = fz_u8(f);

	pl->cuts = b & 3;
	pl->bytewise = (b >> 2) & 1;
	for (unsigned i = 0; i < pl->cuts; i++)
		pl->raw[i] = fz_u16(f);
}

/* The plan applied to a payload of `len` bytes: piece i is
 * [at[i], at[i + 1]) for i < count. Empty pieces are kept: a parser must
 * accept them. */
struct fz_pieces {
	size_t at[FZ_MAX_CUTS + 2];
	size_t count;
};

static inline void fz_pieces(const struct fz_plan *pl, size_t len,
			     struct fz_pieces *out)
{
	size_t n = 0;

	out->at[n++] = 0;
	for (unsigned i = 0; i < pl->cuts; i++) {
		size_t c = pl->raw[i] % (len + 1), k = n;

		/* insertion keeps the offsets sorted */
		while (k > 1 && out->at[k - 1] > c) {
			out->at[k] = out->at[k - 1];
			k--;
		}
		out->at[k] = c;
		n++;
	}
	out->at[n] = len;
	out->count = n;
}

/* The whole payload as one piece, for comparing with a split run. */
static inline void fz_pieces_whole(size_t len, struct fz_pieces *out)
{
	out->at[0] = 0;
	out->at[1] = len;
	out->count = 1;
}

/* Calls feed(ctx, p, n) for each piece of the plan (or each byte); stops
 * when it returns non-zero and returns that. */
static inline int fz_feed_plan(const struct fz_plan *pl, const uint8_t *p,
			       size_t len,
			       int (*feed)(void *ctx, const uint8_t *p,
					   size_t n, int last),
			       void *ctx)
{
	struct fz_pieces pc;
	int rc;

	if (pl && pl->bytewise) {
		for (size_t i = 0; i < len; i++)
			if ((rc = feed(ctx, p + i, 1, i + 1 == len)) != 0)
				return rc;
		return len ? 0 : feed(ctx, p, 0, 1);
	}
	if (pl)
		fz_pieces(pl, len, &pc);
	else
		fz_pieces_whole(len, &pc);
	for (size_t i = 0; i < pc.count; i++) {
		rc = feed(ctx, p + pc.at[i], pc.at[i + 1] - pc.at[i],
			  i + 1 == pc.count);
		if (rc != 0)
			return rc;
	}
	return 0;
}

#endif
