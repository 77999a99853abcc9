/* One DNS connection (dns_conn.h). UDP may lose, repeat or reorder
 * anything: a reply is matched by its id to its slot (the id's low bits)
 * and by its question, and what matches nothing in flight is dropped and
 * counted, never an error of the connection. A query nobody answers ends
 * as a timeout after the module's wait, so that a run always ends even
 * without --timeout. A cancelled query frees its slot at once: its late
 * reply then matches nothing. */
#include <stdio.h>
#include <string.h>

#include "dns_conn.h"

/* The slots and the send queue follow the struct in the connection's
 * memory, sized by -p (ABI 1.4: conn_size_for, read after
 * module_create): nothing to allocate per connection. */
size_t dns_conn_size(const struct dns_module *m)
{
	return sizeof(struct dns_conn) + m->slots * sizeof(struct dns_slot) +
	       2u * m->slots * sizeof(uint16_t);
}

int dns_conn_init(void *module, void *worker, void *conn,
		  struct shb_conn *handle, shb_tstamp now)
{
	struct dns_conn *c = conn;

	(void)now;
	c->m = module;
	c->w = worker;
	c->h = handle;
	c->slot = (struct dns_slot *)(c + 1);
	c->sendq = (uint16_t *)(c->slot + c->m->slots);
	c->deadline = SHB_TSTAMP_NONE;
	return SHB_OK;
}

void dns_conn_fini(void *conn)
{
	(void)conn; /* all of it is the core's memory */
}

/* No handshake: queries may go as soon as the socket is ready. */
int dns_conn_ready(void *conn, const struct shb_transport_info *info,
		   shb_tstamp now)
{
	struct dns_conn *c = conn;

	(void)now;
	c->max_dgram = info && info->max_dgram ? info->max_dgram : 1200;
	c->ready = 1;
	return SHB_OK;
}

static void drop_queued(struct dns_conn *c, uint32_t k)
{
	uint32_t n = c->m->slots * 2u, o = 0;

	for (uint32_t i = 0; i < c->sq_count; i++) {
		uint16_t s = c->sendq[(c->sq_head + i) % n];

		if (s != k)
			c->sendq[(c->sq_head + o++) % n] = s;
	}
	c->sq_count = o;
}

static void slot_free(struct dns_conn *c, uint32_t k)
{
	c->slot[k].used = 0;
	c->inflight--;
	if (c->m->once && !c->inflight)
		c->closed = 1;
}

static const char *const rcode_text[] = {
	"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
	"YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH", "NOTZONE",
};

static void answer(struct dns_conn *c, uint32_t k, const struct dns_reply *r,
		   size_t bytes, shb_tstamp now)
{
	char detail[16];
	struct shb_req_result res = {
		.struct_size = sizeof res,
		.outcome = SHB_REQ_OK,
		.rx_body_bytes = bytes,
		.ts_first_byte = now,
		.ts_done = now,
		.app_space = DNS_SPACE,
		.app_ok = r->outcome == DNS_NOERROR || r->outcome == DNS_NODATA,
		.app_code = r->outcome,
	};
	uint64_t cookie = c->slot[k].cookie;

	if (!res.app_ok) {
		if (r->outcome == DNS_TRUNCATED)
			snprintf(detail, sizeof detail, "TC");
		else if (r->rcode < sizeof rcode_text / sizeof rcode_text[0])
			snprintf(detail, sizeof detail, "%s", rcode_text[r->rcode]);
		else
			snprintf(detail, sizeof detail, "RCODE%u", r->rcode);
		res.detail = detail;
	}
	slot_free(c, k);
	c->m->host->req_done(c->h, cookie, &res);
}

static void fail_query(struct dns_conn *c, uint32_t k, uint32_t outcome,
		       const char *why, shb_tstamp now)
{
	char detail[96];
	struct shb_req_result res = {
		.struct_size = sizeof res,
		.outcome = outcome,
		.ts_first_byte = SHB_TSTAMP_NONE,
		.ts_done = now,
		.detail = detail,
	};
	uint64_t cookie = c->slot[k].cookie;

	snprintf(detail, sizeof detail, "dns: %s", why);
	slot_free(c, k);
	c->m->host->req_done(c->h, cookie, &res);
}

/* The slot a reply with `id` belongs to, or -1. */
static int64_t slot_of(const struct dns_conn *c, uint16_t id)
{
	uint32_t k = id & (c->m->slots - 1);

	if (!c->slot[k].used || c->slot[k].id != id)
		return -1;
	return k;
}

static void one_reply(struct dns_conn *c, const uint8_t *p, size_t n,
		      shb_tstamp now)
{
	struct dns_reply r;
	int rc = dns_reply_read(p, n, &r);
	int64_t k = rc == 1 ? -1 : slot_of(c, r.id);

	if (k < 0) {
		c->stray++; /* late, repeated, or for another socket */
		return;
	}
	if (rc == 0 && r.qdcount && r.qhash != c->slot[k].qhash) {
		c->stray++; /* a stale reply whose id came round again */
		return;
	}
	if (rc == 0 && !r.qdcount && r.rcode == DNS_NOERROR && !r.tc) {
		r.err = "a reply without its question";
		rc = -1;
	}
	if (rc < 0)
		fail_query(c, (uint32_t)k, SHB_REQ_PROTO_ERROR, r.err, now);
	else
		answer(c, (uint32_t)k, &r, n, now);
}

int dns_conn_recv_dgrams(void *conn, struct shb_vec *dgrams, size_t count,
			 shb_tstamp now)
{
	struct dns_conn *c = conn;

	for (size_t i = 0; i < count; i++)
		one_reply(c, dgrams[i].base, dgrams[i].len, now);
	return SHB_OK;
}

/* The queries waiting, oldest first, whatever their sizes (ABI 1.4:
 * write_dgrams_v; the core sends each run of one size as one GSO
 * train). */
shb_ssize dns_conn_write_dgrams_v(void *conn, uint8_t *buf, size_t cap,
				  uint16_t *sizes, size_t max_count,
				  size_t *count, shb_tstamp now)
{
	struct dns_conn *c = conn;
	uint32_t n = c->m->slots * 2u, taken = 0;
	size_t off = 0;

	(void)now;
	while (taken < c->sq_count && taken < max_count) {
		const struct dns_slot *s = &c->slot[c->sendq[(c->sq_head + taken) % n]];

		if (off + s->len > cap)
			break;
		memcpy(buf + off, s->wire, s->len);
		off += s->len;
		sizes[taken++] = s->len;
	}
	c->sq_head = (c->sq_head + taken) % n;
	c->sq_count -= taken;
	*count = taken;
	return (shb_ssize)off;
}

shb_tstamp dns_conn_next_deadline(const void *conn)
{
	return ((const struct dns_conn *)conn)->deadline;
}

/* Times out what waited m->wait_ns, then sets the deadline to the next
 * query's: one pass over the slots per wait, not per reply. */
int dns_conn_on_timer(void *conn, shb_tstamp now)
{
	struct dns_conn *c = conn;
	shb_tstamp next = SHB_TSTAMP_NONE;

	if (c->deadline == SHB_TSTAMP_NONE || now < c->deadline)
		return SHB_OK;
	for (uint32_t k = 0; k < c->m->slots; k++) {
		struct dns_slot *s = &c->slot[k];

		if (!s->used)
			continue;
		if (now - s->sent >= c->m->wait_ns)
			fail_query(c, k, SHB_REQ_TIMEOUT, "no reply within the wait", now);
		else if (s->sent + c->m->wait_ns < next)
			next = s->sent + c->m->wait_ns;
	}
	c->deadline = next;
	return SHB_OK;
}

uint32_t dns_conn_state(const void *conn)
{
	const struct dns_conn *c = conn;
	uint32_t s = 0;

	if (c->sq_count)
		s |= SHB_CS_WANT_WRITE;
	if (c->closed && !c->sq_count)
		s |= SHB_CS_CLOSED;
	return s;
}

uint32_t dns_conn_capacity(const void *conn)
{
	const struct dns_conn *c = conn;

	if (!c->ready || c->closed || (c->m->once && c->issued))
		return 0;
	return c->m->parallel - c->inflight;
}

/* xorshift64*: ids and {rand} need spread, not secrecy. */
static uint64_t next_rand(struct dns_worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 2685821657736338717ull;
}

static int64_t free_slot(const struct dns_conn *c)
{
	for (uint32_t k = 0; k < c->m->slots; k++)
		if (!c->slot[k].used)
			return k;
	return -1;
}

int dns_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		   shb_tstamp now)
{
	struct dns_conn *c = conn;
	const struct dns_module *m = c->m;
	uint64_t seq = 0, rnd = 0, r = next_rand(c->w);
	int64_t k = free_slot(c);
	struct dns_slot *s;

	(void)prepared;
	if (!dns_conn_capacity(c) || k < 0)
		return SHB_E_BUSY;
	if (m->q.vars) {
		seq = c->w->next++ * c->w->threads + c->w->index;
		rnd = (r >> 16) % m->q.range;
	}
	s = &c->slot[k];
	s->id = (uint16_t)(((uint32_t)r & 0xffffu & ~(m->slots - 1)) | (uint32_t)k);
	s->len = (uint16_t)dns_query_encode(&m->q, s->wire, s->id, seq, rnd, &s->qhash);
	if (!s->len || s->len > c->max_dgram)
		return SHB_E_INVAL;
	s->cookie = cookie;
	s->sent = now;
	s->used = 1;
	c->inflight++;
	c->issued++;
	c->sendq[(c->sq_head + c->sq_count++) % (m->slots * 2u)] = (uint16_t)k;
	if (c->deadline == SHB_TSTAMP_NONE || now + m->wait_ns < c->deadline)
		c->deadline = now + m->wait_ns;
	return SHB_OK;
}

void dns_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct dns_conn *c = conn;

	(void)now;
	for (uint32_t k = 0; k < c->m->slots; k++)
		if (c->slot[k].used && c->slot[k].cookie == cookie) {
			drop_queued(c, k);
			slot_free(c, k);
			return;
		}
}

void dns_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	struct dns_conn *c = conn;

	(void)now;
	c->closed = 1;
	if (mode == SHB_SHUT_ABORT)
		c->sq_count = 0;
}

const char *dns_conn_error_detail(const void *conn)
{
	const struct dns_conn *c = conn;

	return c->err[0] ? c->err : NULL;
}
