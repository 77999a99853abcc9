/* One Redis connection. Redis answers a connection's commands in the
 * order they came, so the requests in flight are a ring, oldest first:
 * each whole reply the parser finds ends the oldest. A cancelled request
 * keeps its slot until its reply arrives (it cannot be taken back once
 * sent), and that reply is dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis_conn.h"

int redis_conn_init(void *module, void *worker, void *conn,
		    struct shb_conn *handle, shb_tstamp now)
{
	struct redis_conn *c = conn;

	(void)now;
	c->m = module;
	c->w = worker;
	c->h = handle;
	c->ring = calloc(c->m->parallel, sizeof *c->ring);
	if (!c->ring)
		return SHB_E_NOMEM;
	resp_init(&c->rp, c->m->max_bulk);
	return SHB_OK;
}

void redis_conn_fini(void *conn)
{
	struct redis_conn *c = conn;

	free(c->ring);
	redis_buf_free(&c->out[0]);
	redis_buf_free(&c->out[1]);
}

/* The queue issue() and the hello append to. */
static struct redis_buf *pending(struct redis_conn *c)
{
	return &c->out[c->cur ^ 1];
}

int redis_conn_ready(void *conn, const struct shb_transport_info *info,
		     shb_tstamp now)
{
	struct redis_conn *c = conn;
	const struct shb_origin *o = c->m->host->conn_origin(c->h);

	(void)info;
	(void)now;
	c->hello = o ? o->prepared : NULL;
	if (c->hello && c->hello->hello_count) {
		if (redis_buf_put(pending(c), c->hello->hello.p, c->hello->hello.len))
			return SHB_E_NOMEM;
		c->hello_left = c->hello->hello_count;
		return SHB_OK;
	}
	c->ready = 1;
	return SHB_OK;
}

/* A reply to AUTH or SELECT: an error ends the connection, naming the
 * command and the error's first word only (never the password). */
static int hello_reply(struct redis_conn *c, const struct resp_reply *r)
{
	const char *name = c->hello->hello_names[c->hello->hello_count - c->hello_left];

	if (r->kind == RESP_ERROR) {
		snprintf(c->err, sizeof c->err, "redis: %s refused: %s", name,
			 r->word[0] ? r->word : "error");
		return SHB_E_PROTO;
	}
	if (--c->hello_left == 0)
		c->ready = 1;
	return SHB_OK;
}

static int reply_done(struct redis_conn *c, const struct resp_reply *r,
		      shb_tstamp now)
{
	struct redis_slot s;
	struct shb_req_result res = {
		.struct_size = sizeof res,
		.outcome = SHB_REQ_OK,
		.rx_body_bytes = r->bytes,
		.ts_first_byte = c->first,
		.ts_done = now,
		.app_space = REDIS_SPACE,
		.app_ok = r->kind != RESP_ERROR,
		.app_code = r->kind,
	};

	if (c->hello_left)
		return hello_reply(c, r);
	if (!c->count) {
		snprintf(c->err, sizeof c->err, "redis: a reply nothing asked for");
		return SHB_E_PROTO;
	}
	s = c->ring[c->head];
	c->head = (c->head + 1) % c->m->parallel;
	c->count--;
	if (c->m->once && !c->count)
		c->closed = 1;
	if (s.cancelled)
		return SHB_OK;
	if (r->kind == RESP_ERROR)
		res.detail = r->word[0] ? r->word : "error";
	c->m->host->req_done(c->h, s.cookie, &res);
	return SHB_OK;
}

shb_ssize redis_conn_recv(void *conn, const uint8_t *data, size_t len,
			  shb_tstamp now)
{
	struct redis_conn *c = conn;
	size_t i = 0;

	while (i < len) {
		struct resp_reply r;
		int done;
		ptrdiff_t n;

		if (!resp_in_reply(&c->rp))
			c->first = now;
		n = resp_parse(&c->rp, data + i, len - i, &r, &done);
		if (n < 0) {
			snprintf(c->err, sizeof c->err, "redis: %s", c->rp.err);
			return SHB_E_PROTO;
		}
		i += (size_t)n;
		if (done) {
			int rc = reply_done(c, &r, now);

			if (rc < 0)
				return rc;
		}
	}
	return (shb_ssize)len;
}

int redis_conn_recv_eof(void *conn, shb_tstamp now)
{
	struct redis_conn *c = conn;
	uint32_t left = c->count + c->hello_left;

	(void)now;
	c->closed = 1;
	if (!left && !resp_in_reply(&c->rp))
		return SHB_OK;
	snprintf(c->err, sizeof c->err,
		 "redis: the server closed the connection with %u replies to come",
		 left);
	return SHB_E_CLOSED;
}

shb_ssize redis_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
			       shb_tstamp now)
{
	struct redis_conn *c = conn;
	struct redis_buf *b = &c->out[c->cur];

	(void)now;
	if (c->off == b->len) {
		b->len = 0;
		c->off = 0;
		if (pending(c)->len) {
			c->cur ^= 1;
			b = &c->out[c->cur];
		}
	}
	if (!max || c->off == b->len)
		return 0;
	vecs[0].base = b->p + c->off;
	vecs[0].len = b->len - c->off;
	return 1;
}

void redis_conn_sent(void *conn, size_t n, shb_tstamp now)
{
	struct redis_conn *c = conn;
	struct redis_buf *b = &c->out[c->cur];

	(void)now;
	c->off += n <= b->len - c->off ? n : b->len - c->off;
}

uint32_t redis_conn_state(const void *conn)
{
	const struct redis_conn *c = conn;
	uint32_t s = 0;

	if (c->off < c->out[c->cur].len || c->out[c->cur ^ 1].len)
		s |= SHB_CS_WANT_WRITE;
	if (c->closed)
		s |= SHB_CS_CLOSED;
	return s;
}

uint32_t redis_conn_capacity(const void *conn)
{
	const struct redis_conn *c = conn;

	if (!c->ready || c->closed || (c->m->once && c->issued))
		return 0;
	if (c->m->once)
		return 1;
	return c->m->parallel - c->count;
}

/* xorshift64*: {rand} needs spread, not secrecy. */
static uint64_t next_rand(struct redis_worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 2685821657736338717ull;
}

int redis_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		     shb_tstamp now)
{
	struct redis_conn *c = conn;
	const struct redis_module *m = c->m;
	uint64_t seq = 0, rnd = 0;

	(void)prepared;
	(void)now;
	if (!redis_conn_capacity(c))
		return SHB_E_BUSY;
	if (m->cmd.vars) {
		seq = c->w->next++ * c->w->threads + c->w->index;
		rnd = next_rand(c->w) % m->range;
	}
	if (redis_cmd_encode(&m->cmd, pending(c), seq, rnd))
		return SHB_E_NOMEM;
	c->ring[(c->head + c->count) % m->parallel] =
		(struct redis_slot){.cookie = cookie};
	c->count++;
	c->issued++;
	/* The pipeline's depth this command joins (itself included): how far
	 * -p is used, which the server's answers decide. */
	if (SHB_HAS(m->host, struct shb_host, metric_record) && m->host->metric_record)
		m->host->metric_record(c->h, REDIS_METRIC_DEPTH, c->count);
	return SHB_OK;
}

void redis_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct redis_conn *c = conn;

	(void)now;
	for (uint32_t i = 0; i < c->count; i++) {
		struct redis_slot *s = &c->ring[(c->head + i) % c->m->parallel];

		if (s->cookie == cookie && !s->cancelled) {
			s->cancelled = 1;
			return;
		}
	}
}

void redis_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	(void)mode;
	(void)now;
	((struct redis_conn *)conn)->closed = 1;
}

const char *redis_conn_error_detail(const void *conn)
{
	const struct redis_conn *c = conn;

	return c->err[0] ? c->err : NULL;
}
