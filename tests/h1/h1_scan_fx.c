/* The scanner tests' driver (h1_scan_fx.h). */
#include "h1_scan_fx.h"

#include <stdlib.h>
#include <string.h>

#include "h1_tests.h"

void *h1s_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort(); /* noreturn: the compiler then knows p is valid */
	return p;
}

struct driver {
	const struct vector *v;
	struct shb_h1_scan s;
	struct outcome *o;
	int in_response; /* begin() was called for the current response */
	int stopped;
};

static void record(struct driver *d, int rc)
{
	struct got *g;

	if (d->o->count > MAX_RESP) {
		d->stopped = 1;
		return;
	}
	g = &d->o->r[d->o->count];
	g->rc = rc;
	g->status = shb_h1_scan_status(&d->s);
	g->head = shb_h1_scan_header_bytes(&d->s);
	g->body = shb_h1_scan_body_bytes(&d->s);
	g->keep_alive = shb_h1_scan_keep_alive(&d->s);
	g->framing = shb_h1_scan_framing(&d->s);
	g->reason = shb_h1_scan_reason(&d->s);
	d->o->count++;
	d->in_response = 0;
	if (rc == SHB_H1_SCAN_ERROR)
		d->stopped = 1;
}

static void feed_piece(struct driver *d, const uint8_t *p, size_t n)
{
	/* A private copy of exactly n bytes, so that ASan sees over-reads. */
	uint8_t *buf = h1s_xmalloc(n);
	size_t off = 0;

	memcpy(buf, p, n);
	while (off < n && !d->stopped) {
		size_t used = 0;
		if (!d->in_response) {
			uint32_t idx = (uint32_t)d->o->count;
			shb_h1_scan_begin(&d->s, idx < 32 && ((d->v->head_mask >> idx) & 1));
			d->in_response = 1;
		}
		int rc = shb_h1_scan_feed(&d->s, buf + off, n - off, &used);
		CU_ASSERT(used <= n - off);
		if (rc == SHB_H1_SCAN_MORE)
			CU_ASSERT(used == n - off);
		off += used;
		if (rc != SHB_H1_SCAN_MORE)
			record(d, rc);
	}
	free(buf);
}

/* Feeds v->data cut at the ascending offsets cuts[0..ncuts). */
void h1s_drive(const struct vector *v, const size_t *cuts, size_t ncuts,
		  struct outcome *o)
{
	struct driver d = {.v = v, .o = o};
	size_t from = 0;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : v->len;
		if (to > from)
			feed_piece(&d, v->data + from, to - from);
		from = to;
	}
	if (d.stopped || !d.in_response)
		return;
	if (v->eof)
		record(&d, shb_h1_scan_eof(&d.s));
	else
		o->incomplete = 1;
}

static int same_got(const struct got *a, const struct got *b)
{
	/* Counts at an error depend on where in a piece it was seen: only
	 * the verdict and the reason are defined. */
	if (a->rc == SHB_H1_SCAN_ERROR || b->rc == SHB_H1_SCAN_ERROR)
		return a->rc == b->rc && a->reason == b->reason;
	return a->rc == b->rc && a->status == b->status && a->head == b->head &&
	       a->body == b->body && a->keep_alive == b->keep_alive &&
	       a->framing == b->framing && a->reason == b->reason;
}

static int same_outcome(const struct outcome *a, const struct outcome *b)
{
	if (a->count != b->count || a->incomplete != b->incomplete)
		return 0;
	for (size_t i = 0; i < a->count; i++)
		if (!same_got(&a->r[i], &b->r[i]))
			return 0;
	return 1;
}

void h1s_check_expected(const struct vector *v, const struct outcome *o)
{
	CU_ASSERT_EQUAL(o->count, v->count);
	CU_ASSERT_FALSE(o->incomplete);
	for (size_t i = 0; i < v->count && i < o->count; i++) {
		const struct expect *e = &v->ex[i];
		const struct got *g = &o->r[i];
		if (e->error) {
			CU_ASSERT_EQUAL(g->rc, SHB_H1_SCAN_ERROR);
			CU_ASSERT_PTR_NOT_NULL_FATAL(g->reason);
			CU_ASSERT_STRING_EQUAL(g->reason, e->reason);
			continue;
		}
		CU_ASSERT_EQUAL(g->rc, SHB_H1_SCAN_DONE);
		CU_ASSERT_EQUAL(g->status, e->status);
		CU_ASSERT_EQUAL(g->body, e->body);
		CU_ASSERT_EQUAL(g->head + g->body, e->resp_len);
		CU_ASSERT_EQUAL(g->keep_alive, e->keep_alive);
		CU_ASSERT_EQUAL(g->framing, e->framing);
		CU_ASSERT_PTR_NULL(g->reason);
	}
}

static void check_splits(const struct vector *v, const struct outcome *ref)
{
	struct outcome o;
	size_t cut[2];
	size_t bad = 0;

	for (size_t i = 1; i < v->len; i++) {
		cut[0] = i;
		h1s_drive(v, cut, 1, &o);
		bad += !same_outcome(ref, &o);
	}
	if (v->len <= 400) {
		for (size_t i = 1; i < v->len; i++)
			for (size_t j = i + 1; j < v->len; j++) {
				cut[0] = i;
				cut[1] = j;
				h1s_drive(v, cut, 2, &o);
				bad += !same_outcome(ref, &o);
			}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void check_bytewise(const struct vector *v, const struct outcome *ref)
{
	struct outcome o;
	size_t *cuts = h1s_xmalloc(v->len * sizeof(*cuts));

	for (size_t i = 1; i < v->len; i++)
		cuts[i - 1] = i;
	h1s_drive(v, cuts, v->len ? v->len - 1 : 0, &o);
	CU_ASSERT(same_outcome(ref, &o));
	free(cuts);
}

void h1s_check_vector(const struct vector *v)
{
	struct outcome ref;

	h1s_drive(v, NULL, 0, &ref);
	h1s_check_expected(v, &ref);
	check_splits(v, &ref);
	check_bytewise(v, &ref);
}
