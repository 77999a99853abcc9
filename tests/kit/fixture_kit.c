/* A small line protocol to test the kit and shb-plugin-check with, built
 * once per -D variant (tests/kit/meson.build). Each request sends
 * "REQ <cookie>\n"; each line the peer sends completes the oldest request,
 * with the line as its status when it is three digits (else 200). A
 * request that waits FX_TIMEOUT ns ends as SHB_REQ_TIMEOUT. Up to 4
 * requests in flight.
 *
 * Variants, each a bug the kit or the checker must catch:
 *   FX_ID, FX_NAME     entry id and protocol name (required)
 *   FX_DONE_TWICE      issue() reports the request at once, twice
 *   FX_DONE_STASHED    prepare_request() reports the last issued cookie
 *                      (a [main] call, outside any [conn] call)
 *   FX_DONE_FROM_FINI  conn_fini() reports what is still outstanding
 *   FX_DONE_UNKNOWN    responses report cookie + 1000
 *   FX_CANCEL_KEEPS    cancel() forgets nothing: the response reports it
 *   FX_CRASH           recv() aborts on a 0xff byte
 *   FX_PAST_DEADLINE   on_timer() sets the next deadline 1 ns before now
 *   FX_SPLIT_BUG       a line that spans recv calls gets status 500
 *   FX_SPLIT_LOSES     a line that spans recv calls loses what came in
 *                      the earlier call (the value's start)
 *   FX_QUEUE_STUCK     a response reports the oldest request without
 *                      advancing the queue: with two or more in flight
 *                      (-p > 1) the next one reports it again
 *   FX_PARALLEL        capacity honours -p (the run config's parallel),
 *                      as a pipelined protocol does; otherwise up to 4
 *   FX_NO_WANT_WRITE   recv() consumes half of its input and no more
 *   FX_DGRAM           a DGRAM protocol: a datagram is one line, requests
 *                      go out one datagram each
 *   FX_TRAIN_FIRST     (with FX_DGRAM) recv_dgrams reads the first
 *                      datagram of a train and drops the others
 *   FX_CRASH_INIT      init() aborts
 *   FX_NO_TIMERS       no next_deadline and no on_timer (allowed from 1.2)
 *   FX_ONLY_ON_TIMER   on_timer without next_deadline (never allowed)
 *   FX_BAD_SCHEME      scheme_defs names "Line" (not lower case)
 *   FX_ABI_MINOR       the entry's abi_minor (default SHB_ABI_MINOR)
 *   FX_OFFER_EXT       the entry offers the extension FX_EXT_ID (a table
 *                      whose hello() logs under this plugin's id)
 *   FX_NEED_EXT        init() gets FX_EXT_ID from the host; without it
 *                      module_create refuses, and prepare_request refuses
 *                      any path but FX_EXT_PATH (as a gRPC plugin needs
 *                      h2's extension and a /package.Service/Method) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>

#ifndef FX_ABI_MINOR
#define FX_ABI_MINOR SHB_ABI_MINOR
#endif

#define FX_TIMEOUT 1000000000ull

/* FX_OFFER_EXT / FX_NEED_EXT: the extension between two fixtures. */
#define FX_EXT_ID "org.shb.test.kit.ext/1"
#define FX_EXT_PATH "/kit/ext"
struct fx_ext {
	uint32_t struct_size;
	uint32_t magic; /* FX_EXT_MAGIC */
	void (*hello)(void);
};
#define FX_EXT_MAGIC 0x6b697465u
#define FX_MAX 4

static const struct shb_host *fx_host;
#ifdef FX_NEED_EXT
static const struct fx_ext *fx_ext;
#endif

struct fx_module {
	uint32_t parallel; /* the run config's, at least 1 */
};

struct fx_conn {
	struct shb_conn *handle;
	uint32_t parallel; /* the module's */
	uint64_t cookies[FX_MAX];
	shb_tstamp issued_at[FX_MAX];
	size_t count;
	char out[FX_MAX * 32];
	size_t out_len, out_off;
	char line[64];
	size_t line_len;
	int line_split; /* the line so far came in more than one recv */
	int ready, closed;
	shb_tstamp past; /* FX_PAST_DEADLINE: the broken deadline */
};

/* FX_DONE_STASHED: the last cookie issued, and its connection. */
static struct shb_conn *stash_handle;
static uint64_t stash_cookie;

static void done(struct fx_conn *c, struct shb_conn *h, uint64_t cookie,
		 uint32_t outcome, uint32_t status, shb_tstamp now)
{
	struct shb_req_result r = {
		.struct_size = sizeof r,
		.outcome = outcome,
		.status = status,
		.rx_header_bytes = c ? c->line_len + 1 : 0,
		.ts_first_byte = now,
		.ts_done = now,
		.detail = outcome == SHB_REQ_TIMEOUT ? "no response in time" : NULL,
	};

	fx_host->req_done(h, cookie, &r);
}

/* Completes the oldest request. */
static void pop(struct fx_conn *c, uint32_t outcome, uint32_t status,
		shb_tstamp now)
{
	uint64_t cookie = c->cookies[0];

#ifndef FX_QUEUE_STUCK
	memmove(c->cookies, c->cookies + 1, (c->count - 1) * sizeof *c->cookies);
	memmove(c->issued_at, c->issued_at + 1,
		(c->count - 1) * sizeof *c->issued_at);
#endif
	c->count--;
#ifdef FX_DONE_UNKNOWN
	cookie += 1000;
#endif
	done(c, c->handle, cookie, outcome, status, now);
}

/* ---- module ------------------------------------------------------------------ */

static int fx_module_create(const struct shb_host *host,
			    const struct shb_run_config *cfg, void **module,
			    char *err, size_t errlen)
{
	struct fx_module *m;

#ifdef FX_NEED_EXT
	if (!fx_ext) {
		snprintf(err, errlen, "%s: needs the extension " FX_EXT_ID,
			 FX_NAME);
		return SHB_E_UNSUPPORTED;
	}
	fx_ext->hello();
#endif
	if (cfg->option_count) {
		snprintf(err, errlen, "%s: unknown option '%s'", FX_NAME,
			 cfg->options[0].key);
		return SHB_E_INVAL;
	}
	m = calloc(1, sizeof *m);
	if (!m)
		return SHB_E_NOMEM;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	*module = m;
	return SHB_OK;
}

static void fx_module_destroy(void *module)
{
	free(module);
}

static int fx_prepare(void *module, const struct shb_request *req,
		      void **prepared, char *err, size_t errlen)
{
#ifdef FX_NEED_EXT
	if (strcmp(req->path, FX_EXT_PATH)) {
		snprintf(err, errlen, "%s: the path must be " FX_EXT_PATH
			 ", not '%s'", FX_NAME, req->path);
		return SHB_E_INVAL;
	}
#endif
#ifdef FX_DONE_STASHED
	if (stash_handle)
		done(NULL, stash_handle, stash_cookie, SHB_REQ_OK, 200, 0);
#endif
	*prepared = module; /* nothing to compile */
	return SHB_OK;
}

/* ---- connection -------------------------------------------------------------- */

static int fx_conn_init(void *module, void *worker, void *conn,
			struct shb_conn *handle, shb_tstamp now)
{
	struct fx_conn *c = conn;
	const struct fx_module *m = module;

	c->handle = handle;
	c->parallel = m ? m->parallel : 1;
	return SHB_OK;
}

static void fx_conn_fini(void *conn)
{
#ifdef FX_DONE_FROM_FINI
	struct fx_conn *c = conn;

	while (c->count)
		pop(c, SHB_REQ_CONN_LOST, 0, 0);
#endif
}

static int fx_ready(void *conn, const struct shb_transport_info *info,
		    shb_tstamp now)
{
	struct fx_conn *c = conn;
	char line[160];

	c->ready = 1;
	/* The origin is the host's since 1.2. */
	if (SHB_HAS(fx_host, struct shb_host, conn_origin) &&
	    fx_host->conn_origin && fx_host->log_enabled(SHB_LOG_DEBUG)) {
		const struct shb_origin *o = fx_host->conn_origin(c->handle);

		snprintf(line, sizeof line, "ready %s://%s", o->scheme,
			 o->authority);
		fx_host->log(SHB_LOG_DEBUG, FX_ID, line);
	}
	return SHB_OK;
}

static void line_end(struct fx_conn *c, shb_tstamp now)
{
	const char *l = c->line;
	uint32_t status = 200;

	if (c->line_len == 3 && l[0] >= '1' && l[0] <= '9' && l[1] >= '0' &&
	    l[1] <= '9' && l[2] >= '0' && l[2] <= '9')
		status = (uint32_t)((l[0] - '0') * 100 + (l[1] - '0') * 10 +
				    (l[2] - '0'));
#ifdef FX_SPLIT_BUG
	if (c->line_split)
		status = 500;
#endif
	if (c->count)
		pop(c, SHB_REQ_OK, status, now);
	c->line_len = 0;
	c->line_split = 0;
}

static shb_ssize fx_recv(void *conn, const uint8_t *data, size_t len,
			 shb_tstamp now)
{
	struct fx_conn *c = conn;
	size_t n = len;

	if (c->closed)
		return (shb_ssize)len;
#ifdef FX_NO_WANT_WRITE
	n = len > 1 ? len / 2 : len;
#endif
	if (c->line_len) {
#ifdef FX_SPLIT_LOSES
		c->line_len = 0;
#endif
		c->line_split = 1;
	}
	for (size_t i = 0; i < n; i++) {
#ifdef FX_CRASH
		if (data[i] == 0xff)
			abort();
#endif
		if (data[i] == '\n')
			line_end(c, now);
		else if (c->line_len < sizeof c->line)
			c->line[c->line_len++] = (char)data[i];
		else
			return SHB_E_PROTO;
	}
	return (shb_ssize)n;
}

static int fx_recv_eof(void *conn, shb_tstamp now)
{
	struct fx_conn *c = conn;
	int broke = c->count > 0;

	while (c->count)
		pop(c, SHB_REQ_CONN_LOST, 0, now);
	c->closed = 1;
	return broke ? SHB_E_CLOSED : SHB_OK;
}

static shb_ssize fx_pull_send(void *conn, struct shb_vec *vecs, size_t max,
			      shb_tstamp now)
{
	struct fx_conn *c = conn;

	if (c->out_off == c->out_len || max == 0)
		return 0;
	vecs[0].base = c->out + c->out_off;
	vecs[0].len = c->out_len - c->out_off;
	return 1;
}

static void fx_sent(void *conn, size_t n, shb_tstamp now)
{
	struct fx_conn *c = conn;

	c->out_off += n;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
}

/* FX_DGRAM: each datagram a line of its own. */
__attribute__((unused))
static int fx_recv_dgrams(void *conn, struct shb_vec *dgrams, size_t count,
			  shb_tstamp now)
{
	struct fx_conn *c = conn;

#ifdef FX_TRAIN_FIRST
	if (count > 1)
		count = 1;
#endif
	for (size_t i = 0; i < count && !c->closed; i++) {
		c->line_len = 0;
		if (fx_recv(c, dgrams[i].base, dgrams[i].len, now) < 0)
			return SHB_E_PROTO;
		if (c->line_len)
			line_end(c, now);
	}
	return SHB_OK;
}

/* FX_DGRAM: one request line per datagram. */
__attribute__((unused))
static shb_ssize fx_write_dgrams(void *conn, uint8_t *buf, size_t cap,
				 size_t *segment_size, shb_tstamp now)
{
	struct fx_conn *c = conn;
	const char *p = c->out + c->out_off, *nl;
	size_t n;

	if (c->out_off == c->out_len)
		return 0;
	nl = memchr(p, '\n', c->out_len - c->out_off);
	n = nl ? (size_t)(nl - p) + 1 : c->out_len - c->out_off;
	if (n > cap)
		return SHB_E_PROTO;
	memcpy(buf, p, n);
	*segment_size = n;
	fx_sent(c, n, now);
	return (shb_ssize)n;
}

__attribute__((unused))
static shb_tstamp fx_next_deadline(const void *conn)
{
	const struct fx_conn *c = conn;

	if (c->past)
		return c->past;
	return c->count ? c->issued_at[0] + FX_TIMEOUT : SHB_TSTAMP_NONE;
}

__attribute__((unused))
static int fx_on_timer(void *conn, shb_tstamp now)
{
	struct fx_conn *c = conn;

	while (c->count && c->issued_at[0] + FX_TIMEOUT <= now)
		pop(c, SHB_REQ_TIMEOUT, 0, now);
#ifdef FX_PAST_DEADLINE
	c->past = now - 1;
#endif
	return SHB_OK;
}

static uint32_t fx_state(const void *conn)
{
	const struct fx_conn *c = conn;

	if (c->closed)
		return SHB_CS_CLOSED;
	return c->out_len > c->out_off ? SHB_CS_WANT_WRITE : 0;
}

static uint32_t fx_capacity(const void *conn)
{
	const struct fx_conn *c = conn;

	if (!c->ready || c->closed || c->out_len + 32 > sizeof c->out)
		return 0;
#ifdef FX_PARALLEL
	if (c->count >= c->parallel)
		return 0;
	if (c->parallel < FX_MAX)
		return (uint32_t)(c->parallel - c->count);
#endif
	return (uint32_t)(FX_MAX - c->count);
}

static int fx_issue(void *conn, const void *prepared, uint64_t cookie,
		    shb_tstamp now)
{
	struct fx_conn *c = conn;

	if (fx_capacity(c) == 0)
		return SHB_E_BUSY;
	c->out_len += (size_t)snprintf(c->out + c->out_len,
				       sizeof c->out - c->out_len, "REQ %llu\n",
				       (unsigned long long)cookie);
#ifdef FX_DONE_TWICE
	done(c, c->handle, cookie, SHB_REQ_LOCAL_ERROR, 0, now);
	done(c, c->handle, cookie, SHB_REQ_LOCAL_ERROR, 0, now);
	return SHB_OK;
#endif
	stash_handle = c->handle;
	stash_cookie = cookie;
	c->cookies[c->count] = cookie;
	c->issued_at[c->count] = now;
	c->count++;
	return SHB_OK;
}

static void fx_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
#ifndef FX_CANCEL_KEEPS
	struct fx_conn *c = conn;

	for (size_t i = 0; i < c->count; i++) {
		if (c->cookies[i] == cookie) {
			/* Its response still comes: close instead. */
			c->closed = 1;
			c->count = 0;
			return;
		}
	}
#endif
}

static void fx_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	struct fx_conn *c = conn;

	c->closed = 1;
}

static const struct shb_proto_vtable fx_vt = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = fx_module_create,
	.module_destroy = fx_module_destroy,
	.prepare_request = fx_prepare,
	.conn_init = fx_conn_init,
	.conn_fini = fx_conn_fini,
	.on_transport_ready = fx_ready,
	.recv = fx_recv,
	.recv_eof = fx_recv_eof,
	.pull_send = fx_pull_send,
	.sent = fx_sent,
#ifdef FX_DGRAM
	.recv_dgrams = fx_recv_dgrams,
	.write_dgrams = fx_write_dgrams,
#endif
#if !defined FX_NO_TIMERS && !defined FX_ONLY_ON_TIMER
	.next_deadline = fx_next_deadline,
#endif
#ifndef FX_NO_TIMERS
	.on_timer = fx_on_timer,
#endif
	.state = fx_state,
	.capacity = fx_capacity,
	.issue = fx_issue,
	.cancel = fx_cancel,
	.shutdown = fx_shutdown,
};

static const char *const fx_schemes[] = {"line", NULL};
static const struct shb_scheme fx_scheme_defs[] = {
#ifdef FX_BAD_SCHEME
	{"Line", 7000, 0},
#else
	{"line", 7000, 0},
#endif
	{NULL, 0, 0},
};

static const struct shb_proto_desc fx_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
#ifdef FX_DGRAM
	.transport = SHB_TRANSPORT_DGRAM,
#else
	.transport = SHB_TRANSPORT_STREAM,
#endif
	.flags = SHB_PROTO_MULTIPLEXED,
	.name = FX_NAME,
	.display_name = "Line",
	.summary = "a line protocol for the kit's tests",
	.schemes = fx_schemes,
	.conn_size = sizeof(struct fx_conn),
	.vt = &fx_vt,
	.scheme_defs = fx_scheme_defs,
};

static const struct shb_proto_desc *fx_get(uint32_t i)
{
	return i == 0 ? &fx_desc : NULL;
}

static const struct shb_proto_factory fx_factory = {
	.struct_size = sizeof(struct shb_proto_factory),
	.count = 1,
	.get = fx_get,
};

static int fx_init(const struct shb_host *host)
{
	fx_host = host;
#ifdef FX_CRASH_INIT
	abort();
#endif
#ifdef FX_NEED_EXT
	fx_ext = host->get_extension(FX_EXT_ID);
	if (fx_ext && (fx_ext->struct_size < sizeof *fx_ext ||
		       fx_ext->magic != FX_EXT_MAGIC))
		fx_ext = NULL;
#endif
	return SHB_OK;
}

#ifdef FX_NEED_EXT
static void fx_deinit(void)
{
	fx_ext = NULL;
}
#endif

#ifdef FX_OFFER_EXT
/* Called by the plugin that uses the extension, on its call stack: the
 * log line carries this plugin's id. */
static void fx_hello(void)
{
	fx_host->log(SHB_LOG_DEBUG, FX_ID, "extension used");
}

static const struct fx_ext fx_ext_table = {
	.struct_size = sizeof(struct fx_ext),
	.magic = FX_EXT_MAGIC,
	.hello = fx_hello,
};

static const void *fx_get_extension(const char *id)
{
	return strcmp(id, FX_EXT_ID) ? NULL : &fx_ext_table;
}
#endif

static const void *fx_get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_PROTOCOL) ? NULL : &fx_factory;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = FX_ABI_MINOR,
	.id = FX_ID,
	.version = "1.0",
	.init = fx_init,
#ifdef FX_NEED_EXT
	.deinit = fx_deinit,
#endif
	.get_factory = fx_get_factory,
#ifdef FX_OFFER_EXT
	.get_extension = fx_get_extension,
#endif
};
