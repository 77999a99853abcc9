/* shb-plugin-check: datagram trains cut differently, cancels with replies
 * arriving afterwards, and timeouts (now past next_deadline) with replies
 * arriving late. See check_replies.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_replies.h"

#define MS 1000000ull
#define CANCEL_VICTIMS 4
#define TIMEOUT_NS (1000ull * MS)
#define PAST_NS (250ull * MS) /* how far past the deadline on_timer runs */
#define TIMER_STEPS 64

/* Feeds datagrams [from, to) of d, `per_call` at a time, or stream bytes
 * [from, to). Stops when the connection closes or breaks. */
static int feed_range(struct chk_rig *r, struct shb_kit_conn *c,
		      const struct chk_data *d, size_t from, size_t to,
		      size_t per_call)
{
	struct shb_vec v[CHK_TRAIN_MAX];
	size_t off = 0;
	int rc = SHB_OK;

	if (!r->dgram)
		return to > from ? chk_rig_feed(r, c, d->p + from, to - from)
				 : SHB_OK;
	for (size_t i = 0; i < from; i++)
		off += d->dgram[i];
	while (from < to && rc == SHB_OK && !(c->state & SHB_CS_CLOSED)) {
		size_t n = 0;

		for (; n < per_call && from < to; n++, from++) {
			v[n].base = d->p + off;
			v[n].len = d->dgram[from];
			off += d->dgram[from];
		}
		rc = shb_kit_conn_recv_dgrams(c, v, n);
		chk_flush(c);
	}
	return rc;
}

/* One connection fed the whole train in calls of `per_call`. */
static int dgram_outcome(struct chk_rig *r, const struct chk_data *d,
			 size_t per_call, struct shb_kit_outcome *o)
{
	struct shb_kit_host *kh = &r->k->kh;
	struct shb_kit_conn c;
	size_t first, n;

	memset(o, 0, sizeof *o);
	if (chk_rig_conn(r, &c))
		return -1;
	first = kh->done_count;
	o->rc = feed_range(r, &c, d, 0, d->ndgrams, per_call);
	if (o->rc > 0)
		o->rc = SHB_OK;
	n = kh->done_count - first;
	o->results = calloc(n ? n : 1, sizeof *o->results);
	if (o->results) {
		memcpy(o->results, kh->done + first, n * sizeof *o->results);
		o->result_count = n;
	}
	o->closed = c.state & SHB_CS_CLOSED;
	o->outstanding = c.outstanding_count;
	shb_kit_conn_fini(&c);
	r->feeds++;
	return 0;
}

int chk_split_dgrams(struct chk_rig *r, const struct chk_data *d,
		     struct shb_kit_outcome *ref, char *mismatch, size_t n)
{
	static const size_t per_call[] = {1, 2, 3};
	char what[64];

	mismatch[0] = '\0';
	if (dgram_outcome(r, d, CHK_TRAIN_MAX, ref)) {
		snprintf(mismatch, n, "a connection could not be set up");
		return -1;
	}
	for (size_t i = 0; i < sizeof per_call / sizeof per_call[0]; i++) {
		struct shb_kit_outcome o;
		int diff;

		if (per_call[i] >= d->ndgrams)
			break;
		if (dgram_outcome(r, d, per_call[i], &o)) {
			snprintf(mismatch, n, "a connection could not be set up");
			return -1;
		}
		snprintf(what, sizeof what, "%zu datagram%s per call",
			 per_call[i], per_call[i] == 1 ? "" : "s");
		diff = shb_kit_outcome_diff(ref, &o, what, mismatch, n);
		shb_kit_outcome_fini(&o);
		if (diff)
			return 1;
	}
	return 0;
}

/* ---- cancel -------------------------------------------------------------------- */

/* Cookie `victim` cancelled before the reply (halfway 0) or after half
 * of it; the rest fed after. 1 after a FAIL line. */
static int cancel_one(struct chk_rig *r, const struct chk_reply *rep,
		      const struct chk_data *d, uint32_t victim, int halfway)
{
	size_t before = r->k->kh.violation_count;
	size_t end = r->dgram ? d->ndgrams : d->len, half = halfway ? end / 2 : 0;
	struct shb_kit_conn c;
	char ctx[192];

	if (chk_rig_conn(r, &c))
		return 1;
	r->conns++;
	feed_range(r, &c, d, 0, half, 1);
	shb_kit_conn_cancel(&c, victim);
	chk_flush(&c);
	feed_range(r, &c, d, half, end, 1);
	shb_kit_conn_fini(&c);
	snprintf(ctx, sizeof ctx, "reply '%s' fed %s cookie %u was cancelled, "
		 "-p %u", rep->name, halfway ? "half before and half after"
					     : "after", victim, r->p);
	return chk_violation_ctx_rig(r, before, ctx);
}

static int cancel_at_p(struct chk_rig *r)
{
	for (size_t i = 0; i < r->c.n; i++) {
		const struct chk_reply *rep = &r->c.r[i];
		struct chk_data d;
		int bad = 0;

		if (r->dgram ? chk_rig_train(r, i, &d) : chk_rig_data(r, rep, &d))
			return chk_line(r->k, "FAIL", r->check, "out of memory"), 1;
		for (uint32_t v = 1; v <= r->issued && v <= CANCEL_VICTIMS &&
				     !bad; v++)
			bad = cancel_one(r, rep, &d, v, 0) ||
			      cancel_one(r, rep, &d, v, 1);
		free(d.p);
		if (bad)
			return 1;
	}
	return 0;
}

int chk_group_cancel(struct chk *k)
{
	static struct chk_rig r;

	if (chk_rig_open(&r, k, "cancel"))
		return k->fails ? k->fails : 1;
	if (!SHB_HAS(chk_proto(k, k->index)->vt, struct shb_proto_vtable,
		     cancel) || !chk_proto(k, k->index)->vt->cancel) {
		chk_line(k, "INFO", r.check, "no cancel member: the core "
			 "closes the connection instead");
		goto out;
	}
	if (chk_rig_nothing(&r))
		goto out;
	if (!chk_rig_each_p(&r, cancel_at_p))
		chk_line(k, "PASS", r.check, "%llu connections at -p %s: a "
			 "request cancelled before or halfway through the "
			 "replies, the rest fed after; no cancelled cookie "
			 "reported", (unsigned long long)r.conns, r.plist);
out:
	chk_unload(k);
	return k->fails;
}

/* ---- timeouts ---------------------------------------------------------------------- */

/* On a connection with requests outstanding: on_timer at now past each
 * deadline, then the replies fed late. */
static int timeouts_conn(struct chk_rig *r, uint64_t *fired, size_t *ended,
			 int *deadline)
{
	struct shb_kit_host *kh = &r->k->kh;
	size_t before = kh->violation_count, first = kh->done_count;
	struct shb_kit_conn c;
	struct chk_data d = {0};
	char ctx[160];

	if (chk_rig_conn(r, &c))
		return 1;
	*deadline = c.deadline != SHB_TSTAMP_NONE;
	for (int i = 0; i < TIMER_STEPS && c.deadline != SHB_TSTAMP_NONE &&
			!(c.state & SHB_CS_CLOSED) &&
			kh->violation_count == before; i++) {
		shb_tstamp now = kh->clock.now;

		shb_kit_clock_advance(&kh->clock, (c.deadline > now
						   ? c.deadline - now : 0) +
							  PAST_NS);
		if (shb_kit_conn_run_timers(&c) < 0)
			break;
		chk_flush(&c);
	}
	*fired = c.timers_fired;
	*ended = kh->done_count - first;
	if (r->c.n && kh->violation_count == before &&
	    (r->dgram ? chk_rig_train(r, 0, &d) == 0
		      : chk_rig_data(r, &r->c.r[0], &d) == 0)) {
		feed_range(r, &c, &d, 0, r->dgram ? d.ndgrams : d.len, 1);
		free(d.p);
	}
	shb_kit_conn_fini(&c);
	snprintf(ctx, sizeof ctx, "on_timer %llu ms past the deadline, -p %u, "
		 "a %llu ms request timeout", PAST_NS / MS, r->p,
		 TIMEOUT_NS / MS);
	return chk_violation_ctx_rig(r, before, ctx);
}

int chk_group_timeouts(struct chk *k)
{
	static struct chk_rig r;
	uint64_t fired = 0;
	size_t ended = 0;
	int deadline = 0;

	if (chk_rig_open(&r, k, "timeouts"))
		return k->fails ? k->fails : 1;
	if (!chk_proto(k, k->index)->vt->next_deadline) {
		chk_line(k, "INFO", r.check, "no timers (next_deadline and "
			 "on_timer left out)");
		goto out;
	}
	switch (chk_rig_module(&r, 0, TIMEOUT_NS)) {
	case 0:
		break;
	case 1:
		chk_line(k, "INFO", r.check, "no request could be issued after "
			 "on_transport_ready%s (capacity 0): no timeout checked",
			 r.c.handshake ? " and the handshake" : "");
		goto out;
	default:
		goto out;
	}
	if (!timeouts_conn(&r, &fired, &ended, &deadline) && !deadline)
		chk_line(k, "INFO", r.check, "no deadline with %u request%s "
			 "outstanding and a %llu ms request timeout (the core "
			 "ends %s)", r.issued, r.issued == 1 ? "" : "s",
			 TIMEOUT_NS / MS, r.issued == 1 ? "it" : "them");
	else if (!k->fails)
		chk_line(k, "PASS", r.check, "%u requests, on_timer %llu ms past "
			 "each deadline: %llu timer%s fired, %zu requests ended, "
			 "%s; no rule broken", r.issued, PAST_NS / MS,
			 (unsigned long long)fired, fired == 1 ? "" : "s",
			 ended, r.c.n ? "a reply fed late" : "no reply fed");
	shb_kit_module_destroy(&r.m);
out:
	chk_unload(k);
	return k->fails;
}
