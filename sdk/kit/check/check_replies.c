/* shb-plugin-check: replies. Each reply of the corpus (check_corpus.c) is
 * fed to connections with requests issued, at every -p of --parallel:
 *
 *   replies   whole, then (STREAM) split in two at every offset and one
 *             byte at a time, or (DGRAM) in trains of mixed sizes and one
 *             datagram per call: the same results every time, one per
 *             request (a reply that is not a sequence answers one);
 *   cancel    a request cancelled before its reply or halfway through it,
 *             the replies fed after: the cancelled cookie never reported;
 *   timeouts  on_timer with now past next_deadline, then the replies fed
 *             late: no rule broken.
 *
 * The host's rules (req_done exactly once, never for a cancelled cookie)
 * are checked on every feed. While replies are fed, random_secure()
 * answers zero bytes, so that a reply may depend on what a module
 * randomises (a WebSocket key, a DNS id): a corpus is written for zeros.
 * A reply that completes no request checks nothing: a FAIL, never a
 * silent pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_replies.h"

#define PARALLEL_PROBE 1024u /* the core's -p limit */
#define PARALLEL_CAP 64u     /* the most requests the checker issues */

int chk_zero_random(void *buf, size_t len)
{
	memset(buf, 0, len);
	return SHB_OK;
}

int chk_rig_open(struct chk_rig *r, struct chk *k, const char *group)
{
	char name[64];

	memset(r, 0, sizeof *r);
	r->k = k;
	snprintf(r->check, sizeof r->check, "%s", group);
	if (chk_load(k, group))
		return -1;
	k->kh.random = chk_zero_random;
	if (!chk_proto(k, k->index)) { /* found by another process */
		chk_line(k, "FAIL", r->check, "no descriptor %u", k->index);
		chk_unload(k);
		return -1;
	}
	chk_name(name, sizeof name, chk_proto(k, k->index)->name);
	snprintf(r->check, sizeof r->check, "%s %s", group, name);
	chk_corpus_get(k, chk_proto(k, k->index), &r->c);
	r->dgram = chk_proto(k, k->index)->transport == SHB_TRANSPORT_DGRAM;
	return 0;
}

/* Feeds one datagram vector or a stream chunk. */
int chk_rig_feed(struct chk_rig *r, struct shb_kit_conn *c,
		 const uint8_t *p, size_t len)
{
	struct shb_vec v = {(void *)p, len};
	int rc;

	if (c->state & SHB_CS_CLOSED)
		return SHB_E_CLOSED;
	rc = r->dgram ? shb_kit_conn_recv_dgrams(c, &v, 1)
		      : shb_kit_conn_feed(c, p, len);
	chk_flush(c);
	return rc;
}

/* The connection where replies apply: the handshake fed, then up to
 * r->want requests issued (cookies 1, 2, ...), their bytes flushed. */
static int setup(struct shb_kit_conn *c, void *user)
{
	struct chk_rig *r = user;

	chk_flush(c);
	if (r->c.handshake &&
	    chk_rig_feed(r, c, r->c.handshake, r->c.handshake_len) != SHB_OK)
		return 1;
	r->issued = 0;
	while (r->issued < r->want && c->capacity > 0 &&
	       shb_kit_conn_issue(c, NULL, r->issued + 1) == SHB_OK)
		r->issued++;
	chk_flush(c);
	return 0;
}

int chk_rig_conn(struct chk_rig *r, struct shb_kit_conn *c)
{
	int rc = shb_kit_conn_init(c, &r->m);

	if (rc != SHB_OK) {
		chk_line(r->k, "FAIL", r->check, "conn_init returned %d", rc);
		return -1;
	}
	rc = shb_kit_conn_ready(c, NULL);
	if (rc != SHB_OK) {
		chk_line(r->k, "FAIL", r->check, "on_transport_ready returned "
			 "%d", rc);
		shb_kit_conn_fini(c);
		return -1;
	}
	if (setup(c, r)) {
		chk_line(r->k, "FAIL", r->check, "%s/handshake: the module "
			 "refused it", r->c.dir);
		shb_kit_conn_fini(c);
		return -1;
	}
	return 0;
}

/* A module at -p `p` (0: the most a connection takes, found with -p
 * PARALLEL_PROBE); r->p and r->want set, and r->issued from a first
 * connection. 0; 1 when no request could be issued (nothing printed, no
 * module left); -1 after a FAIL line. */
int chk_rig_module(struct chk_rig *r, uint32_t p, shb_tstamp timeout)
{
	struct shb_kit_conn c;

	if (chk_module_open_cfg(r->k, r->check, &r->m,
				p ? p : PARALLEL_PROBE, timeout))
		return -1;
	r->want = p ? p : PARALLEL_CAP;
	/* A train carries one datagram per request. */
	if (r->dgram && r->want > CHK_TRAIN_MAX)
		r->want = CHK_TRAIN_MAX;
	if (chk_rig_conn(r, &c)) {
		shb_kit_module_destroy(&r->m);
		return -1;
	}
	shb_kit_conn_fini(&c);
	r->p = p ? p : r->issued;
	if (r->issued == 0) {
		shb_kit_module_destroy(&r->m);
		return 1;
	}
	return 0;
}

/* The bytes that answer r->issued requests: a sequence as it is, a
 * single reply once per request; DGRAM, the datagram of each. */
int chk_rig_data(struct chk_rig *r, const struct chk_reply *rep,
		 struct chk_data *d)
{
	size_t times = rep->seq ? 1 : r->issued;

	memset(d, 0, sizeof *d);
	d->p = malloc(rep->len * times);
	if (!d->p)
		return -1;
	for (size_t i = 0; i < times; i++) {
		memcpy(d->p + i * rep->len, rep->p, rep->len);
		if (i < CHK_TRAIN_MAX)
			d->dgram[d->ndgrams++] = rep->len;
	}
	d->len = rep->len * times;
	return 0;
}

/* For DGRAM trains of mixed sizes: the datagrams of the next replies
 * too, one per request, starting at reply `first`. */
int chk_rig_train(struct chk_rig *r, size_t first, struct chk_data *d)
{
	size_t total = 0;

	memset(d, 0, sizeof *d);
	for (size_t i = 0; i < r->issued && i < CHK_TRAIN_MAX; i++)
		total += r->c.r[(first + i) % r->c.n].len;
	d->p = malloc(total ? total : 1);
	if (!d->p)
		return -1;
	for (size_t i = 0; i < r->issued && i < CHK_TRAIN_MAX; i++) {
		const struct chk_reply *rep = &r->c.r[(first + i) % r->c.n];

		memcpy(d->p + d->len, rep->p, rep->len);
		d->len += rep->len;
		d->dgram[d->ndgrams++] = rep->len;
	}
	return 0;
}

int chk_violation_ctx_rig(struct chk_rig *r, size_t before, const char *ctx)
{
	struct shb_kit_host *kh = &r->k->kh;

	if (kh->violation_count == before)
		return 0;
	chk_line(r->k, "FAIL", r->check, "%s (%s)", kh->violations[before],
		 ctx);
	return 1;
}

/* The -p values to run at, in order, without repeats once resolved. */
static unsigned plist(struct chk *k, uint32_t *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < k->nparallel; i++) {
		int seen = 0;

		for (unsigned j = 0; j < n; j++)
			seen |= out[j] == k->parallel[i];
		if (!seen)
			out[n++] = k->parallel[i];
	}
	return n;
}

/* Runs `fn` for every -p of --parallel; stops at the first failure. */
int chk_rig_each_p(struct chk_rig *r, int (*fn)(struct chk_rig *r))
{
	uint32_t ps[CHK_MAX_PARALLEL], done[CHK_MAX_PARALLEL];
	unsigned n = plist(r->k, ps), ndone = 0;

	for (unsigned i = 0; i < n && !r->k->fails; i++) {
		int again = 0, rc = chk_rig_module(r, ps[i], 0);

		if (rc == 1)
			chk_line(r->k, "FAIL", r->check, "no request could be "
				 "issued at -p %u after on_transport_ready%s "
				 "(capacity 0)%s", ps[i] ? ps[i] : PARALLEL_PROBE,
				 r->c.handshake ? " and the handshake" : "",
				 r->c.handshake ? "" : ": a protocol with a "
				 "handshake needs DIR/handshake");
		if (rc)
			return -1;
		for (unsigned j = 0; j < ndone; j++)
			again |= done[j] == r->p;
		if (!again) {
			done[ndone++] = r->p;
			snprintf(r->plist + strlen(r->plist),
				 sizeof r->plist - strlen(r->plist), "%s%u",
				 ndone > 1 ? "," : "", r->p);
			fn(r);
		}
		shb_kit_module_destroy(&r->m);
	}
	return r->k->fails ? -1 : 0;
}

/* No reply to check with: said in one line, never a silent pass. */
int chk_rig_nothing(struct chk_rig *r)
{
	if (r->c.n)
		return 0;
	chk_line(r->k, "WARN", r->check, "nothing to check with: no --replies "
		 "DIR, and the checker knows replies for HTTP/1.1 and HTTP/2 "
		 "only");
	return 1;
}

/* ---- replies: whole and split ------------------------------------------------- */

/* STREAM: whole, in two at every offset, one byte at a time. */
static int split_stream(struct chk_rig *r, struct chk_data *d,
			struct shb_kit_outcome *ref, char *mismatch, size_t n)
{
	struct shb_kit_split s = {
		.m = &r->m, .setup = setup, .user = r,
		.max_len = CHK_SPLIT_OFFSETS,
	};
	int rc = shb_kit_split_check(&s, d->p, d->len);

	r->feeds += s.feeds;
	snprintf(mismatch, n, "%s", s.mismatch);
	*ref = s.ref;
	return rc;
}

static int check_one(struct chk_rig *r, const struct chk_reply *rep,
		     size_t first)
{
	struct chk *k = r->k;
	size_t before = k->kh.violation_count;
	struct shb_kit_outcome ref;
	struct chk_data d;
	char mismatch[512], ctx[160];
	int rc;

	snprintf(ctx, sizeof ctx, "reply '%s' at -p %u", rep->name, r->p);
	if (r->dgram ? chk_rig_train(r, first, &d) : chk_rig_data(r, rep, &d))
		return chk_line(k, "FAIL", r->check, "out of memory"), 1;
	memset(&ref, 0, sizeof ref);
	rc = r->dgram ? chk_split_dgrams(r, &d, &ref, mismatch, sizeof mismatch)
		      : split_stream(r, &d, &ref, mismatch, sizeof mismatch);
	free(d.p);
	if (chk_violation_ctx_rig(r, before, ctx)) {
		/* it wrote the FAIL line of the violation */
	} else if (rc < 0)
		chk_line(k, "FAIL", r->check, "%s: %s", ctx, mismatch);
	else if (ref.result_count == 0)
		chk_line(k, "FAIL", r->check, "%s completed no request: it "
			 "checks nothing (a reply to this module's request, "
			 "written for zero random bytes?)", ctx);
	else if (!rep->seq && ref.result_count != r->issued)
		chk_line(k, "FAIL", r->check, "%s: %zu result%s for %u "
			 "request%s, a reply fed for each", ctx,
			 ref.result_count, ref.result_count == 1 ? "" : "s",
			 r->issued, r->issued == 1 ? "" : "s");
	else if (rc)
		chk_line(k, "FAIL", r->check, "%s: %s", ctx, mismatch);
	r->results += ref.result_count;
	shb_kit_outcome_fini(&ref);
	return k->fails != 0;
}

static int replies_at_p(struct chk_rig *r)
{
	for (size_t i = 0; i < r->c.n; i++)
		if (check_one(r, &r->c.r[i], i))
			return 1;
	return 0;
}

int chk_group_replies(struct chk *k)
{
	static struct chk_rig r;

	if (chk_rig_open(&r, k, "replies"))
		return k->fails ? k->fails : 1;
	if (!chk_rig_nothing(&r) && !chk_rig_each_p(&r, replies_at_p))
		chk_line(k, "PASS", r.check, "%zu repl%s at -p %s: %llu feeds "
			 "(%s), %llu results, the same every time",
			 r.c.n, r.c.n == 1 ? "y" : "ies", r.plist,
			 (unsigned long long)r.feeds,
			 r.dgram ? "trains of mixed sizes, one datagram per call"
				 : "whole, in two at every offset, byte by byte",
			 (unsigned long long)r.results);
	chk_unload(k);
	return k->fails;
}
