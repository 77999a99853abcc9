/* The split driver (split.h): one input, every way of cutting it, one
 * outcome. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_int.h"

void shb_kit_outcome_fini(struct shb_kit_outcome *o)
{
	free(o->results);
	memset(o, 0, sizeof *o);
}

void shb_kit_split_fini(struct shb_kit_split *s)
{
	shb_kit_outcome_fini(&s->ref);
}

static int setup_conn(struct shb_kit_split *s, struct shb_kit_conn *c)
{
	int rc = shb_kit_conn_init(c, s->m);

	if (rc != SHB_OK) {
		snprintf(s->mismatch, sizeof s->mismatch,
			 "conn_init failed (%d)", rc);
		return -1;
	}
	rc = shb_kit_conn_ready(c, NULL);
	if (rc != SHB_OK) {
		snprintf(s->mismatch, sizeof s->mismatch,
			 "on_transport_ready failed (%d)", rc);
		shb_kit_conn_fini(c);
		return -1;
	}
	if (s->setup && s->setup(c, s->user)) {
		snprintf(s->mismatch, sizeof s->mismatch, "set-up failed");
		shb_kit_conn_fini(c);
		return -1;
	}
	return 0;
}

static void collect(struct shb_kit_split *s, struct shb_kit_conn *c,
		    size_t first, struct shb_kit_outcome *out)
{
	struct shb_kit_host *kh = s->m->kh;
	size_t n = kh->done_count - first;

	out->results = calloc(n ? n : 1, sizeof *out->results);
	if (out->results) {
		/* kh->done is NULL until the first completion. */
		if (n)
			memcpy(out->results, kh->done + first, n * sizeof *out->results);
		out->result_count = n;
	}
	out->closed = c->state & SHB_CS_CLOSED;
	out->outstanding = c->outstanding_count;
}

int shb_kit_split_feed(struct shb_kit_split *s, const uint8_t *data,
		       size_t len, const size_t *cuts, size_t ncuts,
		       struct shb_kit_outcome *out)
{
	struct shb_kit_conn c;
	size_t prev = 0, first;
	int rc = SHB_OK;

	memset(out, 0, sizeof *out);
	if (setup_conn(s, &c))
		return -1;
	first = s->m->kh->done_count;
	for (size_t i = 0; i <= ncuts && rc == SHB_OK; i++) {
		size_t end = i < ncuts ? cuts[i] : len;

		if (end <= prev || end > len)
			continue;
		rc = shb_kit_conn_feed(&c, data + prev, end - prev);
		prev = end;
	}
	if (rc == SHB_OK && s->eof && !(c.state & SHB_CS_CLOSED))
		rc = shb_kit_conn_recv_eof(&c);
	out->rc = rc;
	collect(s, &c, first, out);
	shb_kit_conn_fini(&c);
	s->feeds++;
	return 0;
}

int shb_kit_outcome_diff(const struct shb_kit_outcome *ref,
			 const struct shb_kit_outcome *o, const char *what,
			 char *buf, size_t n)
{
	if (o->result_count != ref->result_count) {
		snprintf(buf, n, "%s: %zu results, whole feed gave %zu", what,
			 o->result_count, ref->result_count);
		return 1;
	}
	for (size_t i = 0; i < o->result_count; i++) {
		const struct shb_kit_done *a = &o->results[i], *b = &ref->results[i];
		const struct shb_req_result *x = &a->res, *y = &b->res;

#define FIELD(name, val_a, val_b)                                              \
	if ((val_a) != (val_b)) {                                              \
		snprintf(buf, n, "%s: result %zu %s %llu, whole feed gave %llu", \
			 what, i, name, (unsigned long long)(val_a),           \
			 (unsigned long long)(val_b));                         \
		return 1;                                                      \
	}
		FIELD("cookie", a->cookie, b->cookie)
		FIELD("outcome", x->outcome, y->outcome)
		FIELD("status", x->status, y->status)
		FIELD("err_space", x->err_space, y->err_space)
		FIELD("err_code", x->err_code, y->err_code)
		FIELD("rx_header_bytes", x->rx_header_bytes, y->rx_header_bytes)
		FIELD("rx_body_bytes", x->rx_body_bytes, y->rx_body_bytes)
		FIELD("app_space", x->app_space, y->app_space)
		FIELD("app_ok", x->app_ok, y->app_ok)
		FIELD("app_code", x->app_code, y->app_code)
#undef FIELD
		if (strcmp(a->detail, b->detail)) {
			snprintf(buf, n, "%s: result %zu detail '%s', whole "
					 "feed gave '%s'",
				 what, i, a->detail, b->detail);
			return 1;
		}
	}
	if (o->rc != ref->rc) {
		snprintf(buf, n, "%s: return code %d, whole feed gave %d", what,
			 o->rc, ref->rc);
		return 1;
	}
	if (o->closed != ref->closed) {
		snprintf(buf, n, "%s: %sCLOSED, whole feed %sCLOSED", what,
			 o->closed ? "" : "not ", ref->closed ? "" : "not ");
		return 1;
	}
	if (o->outstanding != ref->outstanding) {
		snprintf(buf, n, "%s: %zu requests outstanding, whole feed %zu",
			 what, o->outstanding, ref->outstanding);
		return 1;
	}
	return 0;
}

/* Feeds with `cuts` and compares; 0 same, 1 different, -1 set-up failed. */
static int try_cuts(struct shb_kit_split *s, const uint8_t *data, size_t len,
		    const size_t *cuts, size_t ncuts, const char *what)
{
	struct shb_kit_outcome o;
	int d;

	if (shb_kit_split_feed(s, data, len, cuts, ncuts, &o))
		return -1;
	d = shb_kit_outcome_diff(&s->ref, &o, what, s->mismatch,
				 sizeof s->mismatch);
	shb_kit_outcome_fini(&o);
	return d;
}

int shb_kit_split_check(struct shb_kit_split *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t *cuts, offsets, step_num = 1, step_den = 1;
	char what[64];
	int rc;

	s->mismatch[0] = '\0';
	s->feeds = 0;
	shb_kit_outcome_fini(&s->ref);
	if (shb_kit_split_feed(s, p, len, NULL, 0, &s->ref))
		return -1;
	if (len < 2)
		return 0;
	/* In two, at every offset (or max_len of them, spread evenly). */
	offsets = len - 1;
	if (s->max_len && offsets > s->max_len) {
		step_num = offsets;
		step_den = s->max_len;
		offsets = s->max_len;
	}
	for (size_t k = 0; k < offsets; k++) {
		size_t at = 1 + k * step_num / step_den;

		snprintf(what, sizeof what, "split at %zu", at);
		rc = try_cuts(s, p, len, &at, 1, what);
		if (rc)
			return rc;
	}
	/* One byte at a time. */
	cuts = malloc((len - 1) * sizeof *cuts);
	if (!cuts) {
		snprintf(s->mismatch, sizeof s->mismatch, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < len - 1; i++)
		cuts[i] = i + 1;
	rc = try_cuts(s, p, len, cuts, len - 1, "1-byte pieces");
	free(cuts);
	return rc;
}
