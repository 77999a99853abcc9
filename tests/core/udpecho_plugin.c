/* A datagram test protocol for the core's UDP path: each request is one
 * 1200-byte datagram carrying its cookie, answered when a datagram with the
 * same cookie comes back (from a UDP echo server). Requests are sent as GSO
 * trains of equal datagrams; a request not answered within 200 ms is sent
 * again from on_timer. Exercises recv_dgrams, write_dgrams, capacity,
 * next_deadline/on_timer and shutdown exactly as a QUIC module would.
 *
 * ABI 1.2: conn_init finds its request through host->conn_origin (logged
 * once at info level: SHB_DEBUG=1 shows it). The first answer on a
 * connection is its handshake (SHB_CEV_HANDSHAKE_DONE). For the path
 * "/app" each answer carries an application outcome in a private space:
 * code = answers before it on the connection % 4, and code 3 is a
 * failure, so that -c 1 -n 100 gives 25 of each and 25 errors.
 *
 * Built with UDPECHO_V (shb-proto-udpechov, ABI 1.4): a connection's
 * requests alternate between 1200- and 600-byte datagrams, sent through
 * write_dgrams_v (no write_dgrams), and its pending requests are sized
 * by -p (up to 4096) through conn_size_for. conn_init refuses memory
 * closer than that to the previous connection's, so that a core that
 * reserved only conn_size is caught without a sanitizer. */
#include <stdio.h>
#include <string.h>
#include <shb/shb.h>

#define DGRAM 1200
#ifdef UDPECHO_V
#define SMALL 600
#define MAXQ 4096
#define RESEND_NS 5000000000ull /* a loaded machine must not resend */
#else
#define MAXQ 256
#define RESEND_NS 200000000ull
#endif

static const struct shb_host *host;

struct module {
	uint32_t parallel;
};

struct pending {
	uint64_t cookie;
	shb_tstamp sent;
	uint8_t used, queued;
	uint16_t len; /* of its datagram */
};

/* The prepared requests: whether answers carry app outcomes. */
struct prepared {
	int app;
};
static const struct prepared prep_plain = {0}, prep_app = {1};
static int origin_logged;

struct conn {
	struct shb_conn *h;
	const struct module *m;
	uint32_t cap;
	uint32_t inflight;
	uint32_t nqueued;
	uint8_t ready, closed, app, handshaken;
	uint64_t issued, answered;
#ifdef UDPECHO_V
	struct pending p[]; /* -p of them: conn_size_for */
#else
	struct pending p[MAXQ];
#endif
};

static int module_create(const struct shb_host *hh, const struct shb_run_config *cfg,
			 void **module, char *err, size_t errlen)
{
	static struct module m;
	(void)hh;
	if (cfg->parallel > MAXQ) {
		snprintf(err, errlen, "udpecho: -p must be at most %u", MAXQ);
		return SHB_E_INVAL;
	}
	m.parallel = cfg->parallel ? cfg->parallel : 1;
	*module = &m;
	return SHB_OK;
}

static void module_destroy(void *module) { (void)module; }

static int prepare_request(void *module, const struct shb_request *req,
			   void **prepared, char *err, size_t errlen)
{
	(void)module; (void)err; (void)errlen;
	*prepared = (void *)(strcmp(req->path, "/app") == 0 ? &prep_app : &prep_plain);
	return SHB_OK;
}

static void release_request(void *module, void *prepared) { (void)module; (void)prepared; }

static int conn_init(void *module, void *worker, void *conn, struct shb_conn *h,
		     shb_tstamp now)
{
	struct conn *c = conn;
	(void)worker; (void)now;
	c->h = h;
	c->m = module;
	c->cap = c->m->parallel;
#ifdef UDPECHO_V
	{
		/* One worker's connections, in one block (-t 1): the gap to
		 * the previous one is what the core reserved for it. */
		static const char *last;
		size_t need = sizeof(*c) + c->cap * sizeof(c->p[0]);
		const char *at = conn;
		size_t gap = !last || at == last ? need : at > last ? (size_t)(at - last) : (size_t)(last - at);
		last = at;
		if (gap < need) {
			char line[128];
			snprintf(line, sizeof(line), "connection memory %zu bytes apart, "
				 "%zu needed", gap, need);
			host->log(SHB_LOG_WARN, "udpecho", line);
			return SHB_E_STATE;
		}
	}
#endif
	if (!SHB_HAS(host, struct shb_host, conn_origin) || !host->conn_origin)
		return SHB_OK; /* a 1.1 core */
	const struct shb_origin *o = host->conn_origin(h);
	if (!o || !o->prepared)
		return SHB_E_STATE;
	c->app = ((const struct prepared *)o->prepared)->app;
	if (!__atomic_exchange_n(&origin_logged, 1, __ATOMIC_RELAXED)) {
		char line[256];
		snprintf(line, sizeof(line), "origin %u %s %s %u %s %s %u %s", o->index,
			 o->scheme, o->host, o->port, o->authority,
			 o->sni ? o->sni : "(none)", o->flags, c->app ? "app" : "plain");
		host->log(SHB_LOG_INFO, "udpecho", line);
	}
	return SHB_OK;
}

static void conn_fini(void *conn) { (void)conn; }

static int on_ready(void *conn, const struct shb_transport_info *info, shb_tstamp now)
{
	struct conn *c = conn;
	(void)now;
	if (info->max_dgram < DGRAM)
		return SHB_E_INVAL;
	c->ready = 1;
	return SHB_OK;
}

static int recv_dgrams(void *conn, struct shb_vec *d, size_t n, shb_tstamp now)
{
	struct conn *c = conn;
	for (size_t i = 0; i < n; i++) {
		uint64_t cookie;
#ifdef UDPECHO_V
		if (d[i].len != DGRAM && d[i].len != SMALL)
#else
		if (d[i].len != DGRAM)
#endif
			return SHB_E_PROTO;
		memcpy(&cookie, d[i].base, sizeof(cookie));
		for (uint32_t k = 0; k < c->cap; k++) {
			struct pending *p = &c->p[k];
			if (!p->used || p->cookie != cookie || (p->len && p->len != d[i].len))
				continue;
			struct shb_req_result r;
			memset(&r, 0, sizeof(r));
			r.struct_size = sizeof(r);
			r.outcome = SHB_REQ_OK;
			r.status = 200;
			r.rx_body_bytes = d[i].len;
			r.ts_first_byte = r.ts_done = now;
			if (c->app) {
				r.app_space = SHB_APPSPACE_PRIVATE;
				r.app_code = c->answered % 4;
				r.app_ok = r.app_code != 3;
				r.detail = r.app_ok ? NULL : "udpecho app code 3";
			}
			if (!c->handshaken) {
				struct shb_conn_event ev;
				memset(&ev, 0, sizeof(ev));
				ev.struct_size = sizeof(ev);
				ev.kind = SHB_CEV_HANDSHAKE_DONE;
				c->handshaken = 1;
				host->conn_event(c->h, &ev);
			}
			if (p->queued) {
				p->queued = 0;
				c->nqueued--;
			}
			p->used = 0;
			c->inflight--;
			c->answered++;
			host->req_done(c->h, cookie, &r);
			break;
		}
	}
	return SHB_OK;
}

#ifndef UDPECHO_V
static shb_ssize write_dgrams(void *conn, uint8_t *buf, size_t cap, size_t *seg,
			      shb_tstamp now)
{
	struct conn *c = conn;
	size_t off = 0;
	for (uint32_t k = 0; k < c->cap && off + DGRAM <= cap; k++) {
		struct pending *p = &c->p[k];
		if (!p->queued)
			continue;
		memset(buf + off, 0xab, DGRAM);
		memcpy(buf + off, &p->cookie, sizeof(p->cookie));
		p->queued = 0;
		p->sent = now;
		c->nqueued--;
		off += DGRAM;
	}
	*seg = DGRAM;
	return (shb_ssize)off;
}
#endif

#ifdef UDPECHO_V
/* Any sizes: whatever is queued, in slot order. */
static shb_ssize write_dgrams_v(void *conn, uint8_t *buf, size_t cap,
				uint16_t *sizes, size_t max, size_t *count,
				shb_tstamp now)
{
	struct conn *c = conn;
	size_t off = 0, n = 0;
	for (uint32_t k = 0; k < c->cap && n < max; k++) {
		struct pending *p = &c->p[k];
		if (!p->queued)
			continue;
		if (off + p->len > cap)
			break;
		memset(buf + off, 0xab, p->len);
		memcpy(buf + off, &p->cookie, sizeof(p->cookie));
		p->queued = 0;
		p->sent = now;
		c->nqueued--;
		off += p->len;
		sizes[n++] = p->len;
	}
	*count = n;
	return (shb_ssize)off;
}

static size_t conn_size_for(const void *module)
{
	const struct module *m = module;
	return sizeof(struct conn) + m->parallel * sizeof(struct pending);
}
#endif

static shb_tstamp next_deadline(const void *conn)
{
	const struct conn *c = conn;
	shb_tstamp d = SHB_TSTAMP_NONE;
	for (uint32_t k = 0; k < c->cap; k++)
		if (c->p[k].used && !c->p[k].queued && c->p[k].sent + RESEND_NS < d)
			d = c->p[k].sent + RESEND_NS;
	return d;
}

static int on_timer(void *conn, shb_tstamp now)
{
	struct conn *c = conn;
	for (uint32_t k = 0; k < c->cap; k++) {
		struct pending *p = &c->p[k];
		if (p->used && !p->queued && now >= p->sent + RESEND_NS) {
			p->queued = 1;
			c->nqueued++;
		}
	}
	return SHB_OK;
}

static uint32_t state(const void *conn)
{
	const struct conn *c = conn;
	return (c->nqueued ? SHB_CS_WANT_WRITE : 0) | (c->closed ? SHB_CS_CLOSED : 0);
}

static uint32_t capacity(const void *conn)
{
	const struct conn *c = conn;
	return c->ready && !c->closed ? c->cap - c->inflight : 0;
}

static int issue(void *conn, const void *prepared, uint64_t cookie, shb_tstamp now)
{
	struct conn *c = conn;
	(void)prepared; (void)now;
	for (uint32_t k = 0; k < c->cap; k++) {
		struct pending *p = &c->p[k];
		if (p->used)
			continue;
		p->used = 1;
		p->queued = 1;
		p->cookie = cookie;
#ifdef UDPECHO_V
		p->len = c->issued % 2 ? SMALL : DGRAM;
#else
		p->len = DGRAM;
#endif
		c->inflight++;
		c->nqueued++;
		c->issued++;
		return SHB_OK;
	}
	return SHB_E_BUSY;
}

static void cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	(void)conn; (void)cookie; (void)now;
}

static void shut(void *conn, uint32_t mode, shb_tstamp now)
{
	struct conn *c = conn;
	(void)mode; (void)now;
	c->closed = 1;
}

static shb_ssize pull_send(void *conn, struct shb_vec *v, size_t max, shb_tstamp now)
{
	(void)conn; (void)v; (void)max; (void)now;
	return 0;
}

static const struct shb_proto_vtable vt = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = module_create,
	.module_destroy = module_destroy,
	.prepare_request = prepare_request,
	.release_request = release_request,
	.conn_init = conn_init,
	.conn_fini = conn_fini,
	.on_transport_ready = on_ready,
	.pull_send = pull_send,
	.recv_dgrams = recv_dgrams,
#ifdef UDPECHO_V
	.conn_size_for = conn_size_for,
	.write_dgrams_v = write_dgrams_v,
#else
	.write_dgrams = write_dgrams,
#endif
	.next_deadline = next_deadline,
	.on_timer = on_timer,
	.state = state,
	.capacity = capacity,
	.issue = issue,
	.cancel = cancel,
	.shutdown = shut,
};

static const char *const schemes[] = {"http", "https", NULL};

static const struct shb_proto_desc desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_DGRAM,
	.flags = SHB_PROTO_MULTIPLEXED,
#ifdef UDPECHO_V
	.name = "udpechov",
#else
	.name = "udpecho",
#endif
	.display_name = "UDP echo (test)",
	.summary = "test protocol: one datagram per request, answered by a UDP echo server",
	.schemes = schemes,
	.conn_size = sizeof(struct conn),
	.vt = &vt,
};

static const struct shb_proto_desc *get(uint32_t i) { return i == 0 ? &desc : NULL; }
static const struct shb_proto_factory factory = {sizeof(factory), 1, get};

static int init(const struct shb_host *h) { host = h; return SHB_OK; }
static const void *get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_PROTOCOL) == 0 ? &factory : NULL;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.id = "org.shb.test.udpecho",
	.version = "1",
	.init = init,
	.get_factory = get_factory,
};
