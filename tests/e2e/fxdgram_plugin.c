/* A datagram test protocol that reports the limits the core gives it, for
 * tests/e2e/schemes.sh: its descriptor says max_dgram FX_MAX_DGRAM and
 * max_train FX_MAX_TRAIN; its one request fails in write_dgrams with the
 * detail "max_dgram M, train C bytes" (M from shb_transport_info, C the
 * buffer write_dgrams was offered), which the report shows as the
 * protocol error's sample. Nothing is ever sent.
 *
 * Built with FX_QUERY (shb-proto-fxquery, for tests/e2e/connect-errors.sh)
 * it is a query protocol instead, FX_QUERIES requests at once: each is
 * one 5-byte datagram "query", and each datagram that comes back answers
 * the oldest (status 200).
 *
 * Built with FX_BADV (shb-proto-fxbadv, ABI 1.4) its request is written
 * by write_dgrams_v as a train whose sizes (5 and 5) do not add up to
 * what it returns (11): the core must refuse the train, not send it. */
#include <stdio.h>
#include <string.h>
#include <shb/shb.h>

#ifndef FX_MAX_DGRAM
#define FX_MAX_DGRAM 1400
#endif
#ifndef FX_MAX_TRAIN
#define FX_MAX_TRAIN 3
#endif
#define FX_QUERIES 8

struct conn {
	uint32_t max_dgram;
	int want;
	char detail[96];
	struct shb_conn *handle; /* FX_QUERY */
	uint64_t cookie[FX_QUERIES]; /* oldest first */
	int inflight, tosend;
};

static const struct shb_host *host;

static int module_create(const struct shb_host *h,
			 const struct shb_run_config *cfg, void **module,
			 char *err, size_t errlen)
{
	static int m;

	(void)h, (void)cfg, (void)err, (void)errlen;
	*module = &m;
	return SHB_OK;
}

static void module_destroy(void *module)
{
	(void)module;
}

static int prepare_request(void *module, const struct shb_request *req,
			   void **prepared, char *err, size_t errlen)
{
	static int p;

	(void)module, (void)req, (void)err, (void)errlen;
	*prepared = &p;
	return SHB_OK;
}

static int conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now)
{
	struct conn *c = conn;

	(void)module, (void)worker, (void)now;
	c->handle = handle;
	return SHB_OK;
}

static void conn_fini(void *conn)
{
	(void)conn;
}

static int on_transport_ready(void *conn, const struct shb_transport_info *info,
			      shb_tstamp now)
{
	struct conn *c = conn;

	(void)now;
	c->max_dgram = info->max_dgram;
	return SHB_OK;
}

static int recv_dgrams(void *conn, struct shb_vec *dgrams, size_t count,
		       shb_tstamp now)
{
	struct conn *c = conn;

	(void)dgrams, (void)now;
#ifdef FX_QUERY
	for (size_t i = 0; i < count && c->inflight; i++) {
		struct shb_req_result r = {
			.struct_size = sizeof(r), .outcome = SHB_REQ_OK, .status = 200,
		};
		uint64_t k = c->cookie[0];
		memmove(c->cookie, c->cookie + 1, --c->inflight * sizeof(k));
		host->req_done(c->handle, k, &r);
	}
#else
	(void)c, (void)count;
#endif
	return SHB_OK;
}

static shb_ssize write_dgrams(void *conn, uint8_t *buf, size_t cap,
			      size_t *segment_size, shb_tstamp now)
{
	struct conn *c = conn;

	(void)buf, (void)segment_size, (void)now;
#ifdef FX_QUERY
	size_t n = 0;
	for (; c->tosend && n + 5 <= cap; c->tosend--, n += 5)
		memcpy(buf + n, "query", 5);
	*segment_size = 5;
	return (shb_ssize)n;
#endif
	if (!c->want)
		return 0;
	snprintf(c->detail, sizeof(c->detail), "max_dgram %u, train %zu bytes",
		 (unsigned)c->max_dgram, cap);
	return SHB_E_PROTO;
}

#ifdef FX_BADV
static shb_ssize write_dgrams_v(void *conn, uint8_t *buf, size_t cap,
				uint16_t *sizes, size_t max_count, size_t *count,
				shb_tstamp now)
{
	struct conn *c = conn;

	(void)cap, (void)max_count, (void)now;
	if (!c->want)
		return 0;
	memset(buf, 'v', 11);
	sizes[0] = sizes[1] = 5;
	*count = 2;
	return 11;
}
#endif

static shb_tstamp next_deadline(const void *conn)
{
	(void)conn;
	return SHB_TSTAMP_NONE;
}

static int on_timer(void *conn, shb_tstamp now)
{
	(void)conn, (void)now;
	return SHB_OK;
}

static uint32_t state(const void *conn)
{
	const struct conn *c = conn;

	return c->want || c->tosend ? SHB_CS_WANT_WRITE : 0;
}

static uint32_t capacity(const void *conn)
{
	const struct conn *c = conn;

	return c->want ? 0 : FX_QUERIES - (uint32_t)c->inflight;
}

static int issue(void *conn, const void *prepared, uint64_t cookie,
		 shb_tstamp now)
{
	struct conn *c = conn;

	(void)prepared, (void)now;
#ifdef FX_QUERY
	if (c->inflight == FX_QUERIES)
		return SHB_E_PROTO;
	c->cookie[c->inflight++] = cookie;
	c->tosend++;
	return SHB_OK;
#else
	(void)cookie;
#endif
	c->want = 1;
	return SHB_OK;
}

static const char *error_detail(const void *conn)
{
	const struct conn *c = conn;

	return c->detail;
}

static const struct shb_proto_vtable vt = {
	.struct_size = sizeof(vt),
	.module_create = module_create,
	.module_destroy = module_destroy,
	.prepare_request = prepare_request,
	.conn_init = conn_init,
	.conn_fini = conn_fini,
	.on_transport_ready = on_transport_ready,
	.recv_dgrams = recv_dgrams,
	.write_dgrams = write_dgrams,
	.next_deadline = next_deadline,
	.on_timer = on_timer,
	.state = state,
	.capacity = capacity,
	.issue = issue,
	.error_detail = error_detail,
#ifdef FX_BADV
	.write_dgrams_v = write_dgrams_v,
#endif
};

static const char *const schemes[] = {"http", "https", NULL};

static const struct shb_proto_desc desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_DGRAM,
	.name = "fxdgram",
	.summary = "test protocol reporting its datagram limits",
	.schemes = schemes,
	.conn_size = sizeof(struct conn),
	.vt = &vt,
	.max_dgram = FX_MAX_DGRAM,
	.max_train = FX_MAX_TRAIN,
#ifdef FX_QUERY
	.flags = SHB_PROTO_MULTIPLEXED,
#endif
};

static const struct shb_proto_desc *get(uint32_t i)
{
	return i == 0 ? &desc : NULL;
}

static const struct shb_proto_factory factory = {sizeof(factory), 1, get};

static int init(const struct shb_host *h)
{
	host = h;
	return SHB_OK;
}

static const void *get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_PROTOCOL) == 0 ? &factory : NULL;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.id = "org.shb.test.fxdgram",
	.version = "1",
	.init = init,
	.get_factory = get_factory,
};
