/* shb-plugin-check: what the peer sends. Random input (seeded), truncated
 * valid-looking input and timers, each on fresh connections, must never
 * crash the module or break a rule of the fake host: every issued request
 * completed exactly once or still outstanding at conn_fini (and then not
 * reported), deadlines never 0 and never in the past after on_timer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MS 1000000ull
#define RANDOM_MAX_LEN 512
#define CUTS_PER_INPUT 160
#define DEADLINE_STEPS 200

/* ---- a reproducible generator ---------------------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ---- one connection -------------------------------------------------------------- */

struct run {
	struct chk *k;
	struct shb_kit_module m;
	const char *check;
	uint64_t cookie;
	uint64_t results;
	uint64_t conns;
	const struct chk_corpus *seeds; /* its handshake goes first */
};

/* A connection with requests issued (as many as it takes, at most 4) and
 * its first output collected. 0, or -1 after a FAIL line. */
static int conn_open(struct run *r, struct shb_kit_conn *c)
{
	int rc = shb_kit_conn_init(c, &r->m);

	if (rc != SHB_OK) {
		chk_line(r->k, "FAIL", r->check, "conn_init returned %d", rc);
		return -1;
	}
	r->conns++;
	if (shb_kit_conn_ready(c, NULL) == SHB_OK) {
		if (r->seeds && r->seeds->handshake) {
			struct shb_vec v = {(void *)r->seeds->handshake,
					    r->seeds->handshake_len};

			chk_flush(c);
			if (c->m->desc->transport == SHB_TRANSPORT_STREAM)
				shb_kit_conn_feed(c, v.base, v.len);
			else
				shb_kit_conn_recv_dgrams(c, &v, 1);
		}
		for (int i = 0; i < 4 && c->capacity > 0; i++)
			if (shb_kit_conn_issue(c, NULL, ++r->cookie) != SHB_OK)
				break;
	}
	chk_flush(c);
	return 0;
}

static int feed(struct shb_kit_conn *c, const uint8_t *p, size_t len,
		uint64_t *rs)
{
	if (c->state & SHB_CS_CLOSED)
		return SHB_E_CLOSED;
	if (c->m->desc->transport == SHB_TRANSPORT_STREAM)
		return shb_kit_conn_feed(c, p, len);
	/* DGRAM: one to three datagrams, each at most max_dgram. */
	{
		struct shb_vec v[3];
		size_t n = 0, off = 0, max = c->m->max_dgram;

		while (off < len && n < 3) {
			size_t take = len - off;

			if (take > max)
				take = max;
			if (rs && n < 2 && take > 1)
				take = 1 + rnd(rs) % take;
			v[n].base = (void *)(p + off);
			v[n].len = take;
			off += take;
			n++;
		}
		return n ? shb_kit_conn_recv_dgrams(c, v, n) : SHB_OK;
	}
}

static void conn_close(struct run *r, struct shb_kit_conn *c, int eof)
{
	if (eof && c->m->desc->transport == SHB_TRANSPORT_STREAM &&
	    !(c->state & SHB_CS_CLOSED))
		shb_kit_conn_recv_eof(c);
	shb_kit_conn_fini(c);
}

static int run_open(struct run *r, struct chk *k, const char *group,
		    char *check, size_t n)
{
	char name[64];

	memset(r, 0, sizeof *r);
	r->k = k;
	r->check = check;
	snprintf(check, n, "%s", group);
	if (chk_load(k, group))
		return -1;
	/* A corpus is written for zero random bytes (check_replies.c). */
	if (k->replies_dir)
		k->kh.random = chk_zero_random;
	chk_name(name, sizeof name, chk_proto(k, k->index)
					    ? chk_proto(k, k->index)->name : NULL);
	snprintf(check, n, "%s %s", group, name);
	if (chk_module_open(k, check, &r->m)) {
		chk_unload(k);
		return -1;
	}
	return 0;
}

static void run_close(struct run *r)
{
	r->results = r->k->kh.done_count;
	shb_kit_module_destroy(&r->m);
}

/* ---- random ------------------------------------------------------------------------ */

int chk_group_random(struct chk *k)
{
	struct run r;
	static struct chk_corpus seeds;
	uint8_t buf[RANDOM_MAX_LEN];
	char check[96];
	uint64_t rs = k->seed * 0x9e3779b97f4a7c15ull + k->index + 1;
	unsigned it;

	if (run_open(&r, k, "random", check, sizeof check))
		return k->fails ? k->fails : 1;
	chk_corpus_get(k, r.m.desc, &seeds);
	r.seeds = &seeds;
	for (it = 0; it < k->iterations && !k->kh.violation_count; it++) {
		struct shb_kit_conn c;
		unsigned chunks = 1 + (unsigned)(rnd(&rs) % 4);

		if (conn_open(&r, &c))
			break;
		/* Half the time, the module's own bytes or a known reply
		 * with some bytes changed: parsers get past the first byte. */
		for (unsigned i = 0; i < chunks; i++) {
			size_t len = rnd(&rs) % sizeof buf;
			uint64_t kind = rnd(&rs) % 4;
			const uint8_t *src = NULL;
			size_t srclen = 0;
			int rc;

			for (size_t j = 0; j < len; j++)
				buf[j] = (uint8_t)rnd(&rs);
			if (kind == 1 && seeds.n) {
				struct chk_reply *s = &seeds.r[rnd(&rs) % seeds.n];

				src = s->p;
				srclen = s->len;
			} else if (kind == 2 && c.out_len) {
				src = c.out;
				srclen = c.out_len;
			}
			if (src) {
				len = srclen < sizeof buf ? srclen : sizeof buf;
				memcpy(buf, src, len);
				for (int f = 0; f < 3 && len; f++)
					buf[rnd(&rs) % len] = (uint8_t)rnd(&rs);
			}
			rc = feed(&c, buf, len, &rs);
			chk_flush(&c);
			shb_kit_clock_advance(&k->kh.clock, rnd(&rs) % (50 * MS));
			if (rc >= 0)
				rc = shb_kit_conn_run_timers(&c);
			chk_flush(&c);
			if (rc < 0 || (c.state & SHB_CS_CLOSED))
				break;
		}
		conn_close(&r, &c, rnd(&rs) % 2);
	}
	run_close(&r);
	if (k->kh.violation_count) {
		chk_line(k, "FAIL", check, "%s (connection %u, --seed %llu)",
			 k->kh.violations[0], it, (unsigned long long)k->seed);
	} else if (!k->fails) {
		chk_line(k, "PASS", check, "%llu connections of random input "
			 "(--seed %llu): %llu results, no rule broken",
			 (unsigned long long)r.conns,
			 (unsigned long long)k->seed,
			 (unsigned long long)r.results);
		/* Garbage alone reaches no reply path: say so. */
		if (!seeds.n)
			chk_line(k, "WARN", check, "no reply to start from (no "
				 "--replies DIR, none known for this protocol): "
				 "only random bytes were fed");
	}
	chk_unload(k);
	return k->fails;
}

/* ---- truncated ----------------------------------------------------------------------- */

/* Feeds in[0..cut) for every cut (at most CUTS_PER_INPUT, spread), on a
 * fresh connection each, then EOF. */
static void truncations(struct run *r, const uint8_t *p, size_t len,
			uint64_t *cuts)
{
	size_t steps = len < CUTS_PER_INPUT ? len : CUTS_PER_INPUT;

	for (size_t s = 1; s <= steps && !r->k->kh.violation_count; s++) {
		struct shb_kit_conn c;
		size_t cut = s * len / steps;

		if (conn_open(r, &c))
			return;
		feed(&c, p, cut, NULL);
		chk_flush(&c);
		shb_kit_conn_run_timers(&c);
		conn_close(r, &c, 1);
		(*cuts)++;
	}
}

int chk_group_truncated(struct chk *k)
{
	struct run r;
	static struct chk_corpus seeds;
	struct shb_kit_conn c;
	uint8_t *own = NULL;
	size_t own_len = 0;
	uint64_t cuts = 0;
	char check[96];

	if (run_open(&r, k, "truncated", check, sizeof check))
		return k->fails ? k->fails : 1;
	chk_corpus_get(k, r.m.desc, &seeds);
	r.seeds = &seeds;
	/* The module's own first flight, echoed: framing it understands. */
	if (conn_open(&r, &c) == 0) {
		own_len = c.out_len;
		own = malloc(own_len ? own_len : 1);
		if (own)
			memcpy(own, c.out, own_len);
		conn_close(&r, &c, 0);
	}
	for (size_t i = 0; i < seeds.n; i++)
		truncations(&r, seeds.r[i].p, seeds.r[i].len, &cuts);
	if (own && own_len)
		truncations(&r, own, own_len, &cuts);
	free(own);
	run_close(&r);
	if (!chk_violations(k, check) && !k->fails)
		chk_line(k, "PASS", check, "%zu repl%s and %zu bytes of "
			 "the module's own output, cut at %llu offsets: no rule "
			 "broken", seeds.n, seeds.n == 1 ? "y" : "ies", own_len,
			 (unsigned long long)cuts);
	chk_unload(k);
	return k->fails;
}

/* ---- deadlines ------------------------------------------------------------------------- */

int chk_group_deadlines(struct chk *k)
{
	struct run r;
	struct shb_kit_conn c;
	shb_tstamp start;
	unsigned steps = 0;
	uint64_t fired = 0;
	const char *end = "still open";
	char check[96];

	if (run_open(&r, k, "deadlines", check, sizeof check))
		return k->fails ? k->fails : 1;
	if (!r.m.vt->next_deadline) {
		chk_line(k, "INFO", check, "no timers (next_deadline and "
			 "on_timer left out)");
		run_close(&r);
		chk_unload(k);
		return k->fails;
	}
	start = k->kh.clock.now;
	if (conn_open(&r, &c) == 0) {
		/* No peer answers: every timer the module set fires. */
		while (steps < DEADLINE_STEPS && !k->kh.violation_count) {
			int rc;

			if (c.deadline == SHB_TSTAMP_NONE) {
				end = "no deadline left";
				break;
			}
			rc = shb_kit_conn_advance_to_deadline(&c);
			chk_flush(&c);
			steps++;
			if (rc < 0) {
				end = "on_timer ended the connection";
				break;
			}
			if (c.state & SHB_CS_CLOSED) {
				end = "CLOSED";
				break;
			}
		}
		fired = c.timers_fired;
		conn_close(&r, &c, 0);
	}
	run_close(&r);
	if (!chk_violations(k, check) && !k->fails)
		chk_line(k, "PASS", check, "%llu timer%s fired over %.3f s, then "
			 "%s; no deadline 0 or in the past",
			 (unsigned long long)fired, fired == 1 ? "" : "s",
			 (double)(k->kh.clock.now - start) / 1e9, end);
	chk_unload(k);
	return k->fails;
}
