/* See fuzz_h2_host.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/ext/h2.h>

#include "fuzz_h2_host.h"
#include "fuzz_input.h"
#include "fuzz_plugin.h"

enum { C_FREE = 0, C_OPEN, C_DONE, C_CANCELLED };

static uint8_t cookie_state[H2FZ_MAX_COOKIES];
static int debug_on, in_fini, observe_on;
static volatile uint8_t sink;

static void fz_log(uint32_t level, const char *plugin_id, const char *msg)
{
	FZ_CHECK(!in_fini && plugin_id && msg);
	FZ_CHECK(strlen(msg) < 4096);
}

static int32_t fz_log_enabled(uint32_t level)
{
	return level <= SHB_LOG_WARN || debug_on;
}

static void fz_req_done(struct shb_conn *conn, uint64_t cookie,
			const struct shb_req_result *res)
{
	FZ_CHECK(!in_fini);
	FZ_CHECK(res->struct_size == sizeof(*res));
	FZ_CHECK(cookie > 0 && cookie < H2FZ_MAX_COOKIES);
	FZ_CHECK(cookie_state[cookie] == C_OPEN);
	cookie_state[cookie] = C_DONE;
	if (res->detail)
		FZ_CHECK(strlen(res->detail) < 4096);
	/* Only an observer sets an app outcome, only on an OK response. */
	FZ_CHECK(res->app_space == SHB_APPSPACE_NONE ||
		 (observe_on && res->outcome == SHB_REQ_OK));
	if (res->outcome == SHB_REQ_OK)
		FZ_CHECK(res->status >= 200 && res->status <= 999);
}

static void fz_conn_event(struct shb_conn *conn,
			  const struct shb_conn_event *ev)
{
	FZ_CHECK(!in_fini);
	FZ_CHECK(ev->struct_size == sizeof(*ev));
	if (ev->detail)
		FZ_CHECK(strlen(ev->detail) < 4096);
}

/* 1.4: the Akamai fingerprint, once per connection, printable and short. */
static void fz_conn_fingerprint(struct shb_conn *conn, uint32_t kind,
				const char *text)
{
	FZ_CHECK(!in_fini && kind == SHB_FP_H2_AKAMAI && text);
	FZ_CHECK(strlen(text) > 0 && strlen(text) <= SHB_CONN_FP_MAX);
	for (const char *c = text; *c; c++)
		FZ_CHECK(*c >= 0x20 && *c <= 0x7e);
}

static const struct shb_host host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "fuzz",
	.log = fz_log,
	.log_enabled = fz_log_enabled,
	.req_done = fz_req_done,
	.conn_event = fz_conn_event,
	.conn_fingerprint = fz_conn_fingerprint,
};

static const struct shb_proto_desc *desc(void)
{
	return fz_plugin_desc(&host);
}

/* ---- the observer (h2fz_observe) ---- */

#define FZ_HANDLE ((struct shb_conn *)(uintptr_t)0x5eed)

static void observed_call(struct shb_conn *h, uint64_t cookie)
{
	FZ_CHECK(!in_fini);
	FZ_CHECK(h == FZ_HANDLE);
	FZ_CHECK(cookie > 0 && cookie < H2FZ_MAX_COOKIES);
	FZ_CHECK(cookie_state[cookie] == C_OPEN);
}

static void touch(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sink ^= p[i];
}

static int ob_field(struct shb_conn *h, uint64_t cookie, const char *name,
		    size_t nlen, const uint8_t *value, size_t vlen,
		    uint32_t flags)
{
	observed_call(h, cookie);
	FZ_CHECK(flags == SHB_H2_FIELD_HEADER || flags == SHB_H2_FIELD_TRAILER);
	/* Within the decoded list cap (h2_hscan.h). */
	FZ_CHECK(nlen + vlen <= 256u * 1024u);
	touch((const uint8_t *)name, nlen);
	touch(value, vlen);
	return vlen && value[0] == 'Z' ? SHB_E_PROTO : SHB_OK;
}

static int ob_data(struct shb_conn *h, uint64_t cookie, const uint8_t *p,
		   size_t n)
{
	observed_call(h, cookie);
	FZ_CHECK(n > 0);
	touch(p, n);
	return p[0] == 'Z' ? SHB_E_PROTO : SHB_OK;
}

static void ob_result(struct shb_conn *h, uint64_t cookie,
		      struct shb_req_result *res)
{
	observed_call(h, cookie);
	if (res->outcome != SHB_REQ_OK)
		return;
	res->app_space = SHB_APPSPACE_GRPC;
	res->app_code = res->rx_body_bytes % 17;
	res->app_ok = res->app_code == 0;
	res->detail = res->app_ok ? NULL : "fuzz: app error";
	/* Now and then an OK response the application refuses. */
	if (res->rx_body_bytes % 5 == 1)
		res->outcome = SHB_REQ_PROTO_ERROR;
}

static const struct shb_h2_observer observer = {
	.struct_size = sizeof(struct shb_h2_observer),
	.on_field = ob_field,
	.on_data = ob_data,
	.on_result = ob_result,
};

void h2fz_observe(int on)
{
	observe_on = !!on;
}

/* --proto-opt profile=firefox: a 65536-octet decoder table, small
 * windows topped up at half, PRIORITY frames and streams from 15. */
static int firefox_on;

void h2fz_profile(int firefox)
{
	firefox_on = !!firefox;
}

/* Modules and prepared requests are immutable: made once per kind. */
static void *module(uint32_t parallel, int debug)
{
	static void *mods[2][2][2][17];
	static const struct shb_kv firefox = {"profile", "firefox"};
	const struct shb_proto_desc *d = desc();
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = debug ? SHB_RUN_DEBUG : 0,
		.connections = 1,
		.parallel = parallel,
		.threads = 1,
		.port = 80,
		.scheme = "http",
		.host = "example.com",
		.authority = "example.com",
		.options = firefox_on ? &firefox : NULL,
		.option_count = firefox_on ? 1 : 0,
	};
	char err[128];

	void **m = &mods[firefox_on][observe_on][debug][parallel];

	if (!*m) {
		FZ_CHECK(d->vt->module_create(&host, &cfg, m, err,
					      sizeof(err)) == SHB_OK);
		if (observe_on) {
			const struct shb_h2_proto_ext *x =
				shb_plugin_entry_v1.get_extension(SHB_EXT_H2_PROTO);

			FZ_CHECK(x && x->set_observer(*m, &observer) == SHB_OK);
		}
	}
	return *m;
}

static void *prepared(void *mod, int post)
{
	static const uint8_t body[] = "a=1&b=2";
	static const struct shb_kv hdrs[] = {{"accept", "*/*"}};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = post ? "POST" : "GET",
		.scheme = "http",
		.authority = "example.com",
		.path = "/fuzz?x=1",
		.headers = hdrs,
		.header_count = 1,
		.flags = post ? SHB_REQUEST_HAS_BODY : 0,
		.body = post ? body : NULL,
		.body_len = post ? sizeof(body) - 1 : 0,
	};
	char err[128];
	void *p = NULL;

	FZ_CHECK(desc()->vt->prepare_request(mod, &req, &p, err,
					     sizeof(err)) == SHB_OK);
	return p;
}

void h2fz_open(struct h2fz *z, uint32_t parallel, int post, int debug)
{
	static void *preps[2][2][17][2];
	const struct shb_proto_desc *d = desc();
	struct shb_transport_info info = {
		.struct_size = sizeof(info),
		.alpn = "h2",
	};

	if (parallel < 1 || parallel > 16)
		parallel = 1;
	debug = !!debug;
	post = !!post;
	memset(z, 0, sizeof(*z));
	memset(cookie_state, 0, sizeof(cookie_state));
	debug_on = debug;
	z->vt = d->vt;
	z->mod = module(parallel, debug);
	if (!preps[observe_on][debug][parallel][post])
		preps[observe_on][debug][parallel][post] = prepared(z->mod, post);
	z->prep = preps[observe_on][debug][parallel][post];
	z->c = calloc(1, d->conn_size);
	FZ_CHECK(z->c);
	z->now = 1000000000;
	z->next_cookie = 1;
	FZ_CHECK(z->vt->conn_init(z->mod, NULL, z->c, FZ_HANDLE, z->now) ==
		 SHB_OK);
	FZ_CHECK(z->vt->on_transport_ready(z->c, &info, z->now) == SHB_OK);
	h2fz_flush(z, 0);
}

void h2fz_close(struct h2fz *z)
{
	in_fini = 1;
	z->vt->conn_fini(z->c);
	in_fini = 0;
	free(z->c);
	z->c = NULL;
}

/* After a negative code the core lets a last frame out, then stops. */
static void broke(struct h2fz *z, long rc)
{
	const char *d = z->vt->error_detail(z->c);

	FZ_CHECK(rc < 0);
	if (d)
		FZ_CHECK(strlen(d) < 4096);
	z->broken = 1;
	if (rc > SHB_E_FATAL && (z->vt->state(z->c) & SHB_CS_WANT_WRITE))
		h2fz_flush(z, 0);
}

void h2fz_flush(struct h2fz *z, size_t chunk)
{
	struct shb_vec v[16];
	shb_ssize k;
	unsigned rounds = 0;

	while ((k = z->vt->pull_send(z->c, v, 16, z->now)) > 0) {
		size_t n = 0;

		FZ_CHECK(k <= 16);
		for (shb_ssize i = 0; i < k; i++) {
			size_t take = v[i].len;

			FZ_CHECK(v[i].base || !v[i].len);
			if (chunk && take > chunk - n)
				take = chunk - n;
			/* read what is sent, as send() would: ASan then
			 * catches a vec into freed or moved memory */
			for (size_t b = 0; b < take; b++)
				sink += ((const uint8_t *)v[i].base)[b];
			n += take;
			if (take < v[i].len)
				break;
		}
		FZ_CHECK(n > 0);
		z->vt->sent(z->c, n, z->now);
		FZ_CHECK(++rounds < 1000000);
	}
	FZ_CHECK(k == 0);
}

void h2fz_recv(struct h2fz *z, const uint8_t *p, size_t n)
{
	unsigned stuck = 0;

	while (!z->broken) {
		shb_ssize k = z->vt->recv(z->c, p, n, z->now);

		if (k < 0) {
			broke(z, k);
			return;
		}
		FZ_CHECK((size_t)k <= n);
		p += k;
		n -= (size_t)k;
		if (!n)
			return;
		/* it took less: it must have output to send first */
		FZ_CHECK(z->vt->state(z->c) & SHB_CS_WANT_WRITE);
		h2fz_flush(z, 0);
		stuck = k ? 0 : stuck + 1;
		FZ_CHECK(stuck < 4);
	}
}

void h2fz_issue(struct h2fz *z, unsigned count)
{
	while (count-- && !z->broken && z->vt->capacity(z->c) &&
	       z->next_cookie < H2FZ_MAX_COOKIES) {
		uint64_t ck = z->next_cookie++;
		int rc;

		cookie_state[ck] = C_OPEN;
		rc = z->vt->issue(z->c, z->prep, ck, z->now);
		if (rc < 0) {
			cookie_state[ck] = C_FREE;
			FZ_CHECK(rc != SHB_E_BUSY);
			broke(z, rc);
		}
	}
}

void h2fz_cancel(struct h2fz *z, unsigned i)
{
	uint64_t ck = 1 + i % H2FZ_MAX_COOKIES;

	if (z->broken || !z->vt->cancel || ck >= z->next_cookie ||
	    cookie_state[ck] != C_OPEN)
		return;
	cookie_state[ck] = C_CANCELLED;
	z->vt->cancel(z->c, ck, z->now);
}

void h2fz_advance(struct h2fz *z, shb_tstamp ns)
{
	shb_tstamp dl;
	int rc;

	z->now += ns;
	if (z->broken)
		return;
	/* A protocol without timers (ABI 1.2) has neither member. */
	if (!z->vt->next_deadline)
		return;
	dl = z->vt->next_deadline(z->c);
	if (dl == SHB_TSTAMP_NONE || dl > z->now)
		return;
	rc = z->vt->on_timer(z->c, z->now);
	if (rc < 0)
		broke(z, rc);
}

void h2fz_eof(struct h2fz *z)
{
	int rc;

	if (z->broken)
		return;
	rc = z->vt->recv_eof(z->c, z->now);
	if (rc < 0)
		broke(z, rc);
	z->broken = 1; /* nothing follows an end of stream */
}

void h2fz_shutdown(struct h2fz *z, uint32_t mode)
{
	if (z->broken)
		return;
	z->vt->shutdown(z->c, mode, z->now);
	if (mode == SHB_SHUT_ABORT)
		z->broken = 1;
	else
		h2fz_flush(z, 0);
}
