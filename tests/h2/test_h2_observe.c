/* The org.shb.h2.proto/1 extension (shb/ext/h2.h): a connection of an
 * observed module fed scripted responses: the exact observer calls, the
 * app outcome reaching req_done, an observer that stops a stream, and a
 * module created with a host of its own. The decoded fields a scanner
 * collects for it are in test_h2_fields.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"
#include "h2_hpack.h"
#include "http_huffman.h"

/* ---- a recording observer --------------------------------------------------- */

#define MAX_CALLS 64

struct call {
	char kind; /* 'F' field, 'D' data, 'R' result */
	struct shb_conn *handle;
	uint64_t cookie;
	uint32_t flags;
	uint32_t outcome; /* 'R': the outcome h2 proposed */
	char name[32];
	char value[128];
	size_t vlen;
};

static struct {
	size_t n;
	struct call c[MAX_CALLS];
	/* what the observer does */
	int stop_data_at;    /* on_data number (1-based) that says stop */
	const char *stop_field; /* field name that says stop */
	int make_error;      /* on_result turns OK into PROTO_ERROR */
	size_t data_calls;
	uint64_t grpc_status; /* from the last grpc-status field */
	int have_status;
} ob;

static struct call *record(char kind, struct shb_conn *h, uint64_t cookie)
{
	struct call *c;

	CU_ASSERT_FATAL(ob.n < MAX_CALLS);
	c = &ob.c[ob.n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->handle = h;
	c->cookie = cookie;
	return c;
}

static int ob_field(struct shb_conn *h, uint64_t cookie, const char *name,
		    size_t nlen, const uint8_t *value, size_t vlen,
		    uint32_t flags)
{
	struct call *c = record('F', h, cookie);

	CU_ASSERT_FATAL(nlen < sizeof(c->name) && vlen < sizeof(c->value));
	memcpy(c->name, name, nlen);
	memcpy(c->value, value, vlen);
	c->vlen = vlen;
	c->flags = flags;
	if (nlen == 11 && memcmp(name, "grpc-status", 11) == 0) {
		ob.grpc_status = strtoull(c->value, NULL, 10);
		ob.have_status = 1;
	}
	if (ob.stop_field && strlen(ob.stop_field) == nlen &&
	    memcmp(ob.stop_field, name, nlen) == 0)
		return SHB_E_PROTO;
	return SHB_OK;
}

static int ob_data(struct shb_conn *h, uint64_t cookie, const uint8_t *data,
		   size_t len)
{
	struct call *c;

	ob.data_calls++;
	/* Consecutive pieces are one record, so that every split of the
	 * input records the same calls. */
	if (ob.n && ob.c[ob.n - 1].kind == 'D' && ob.c[ob.n - 1].cookie == cookie)
		c = &ob.c[ob.n - 1];
	else
		c = record('D', h, cookie);
	CU_ASSERT_FATAL(c->vlen + len < sizeof(c->value));
	memcpy(c->value + c->vlen, data, len);
	c->vlen += len;
	if (ob.stop_data_at && ob.data_calls == (size_t)ob.stop_data_at)
		return SHB_E_PROTO;
	return SHB_OK;
}

static void ob_result(struct shb_conn *h, uint64_t cookie,
		      struct shb_req_result *res)
{
	struct call *c = record('R', h, cookie);

	c->outcome = res->outcome;
	/* Members the observer may not change: h2 puts them back. */
	res->status = 999;
	res->rx_body_bytes = 12345;
	res->err_code = 77;
	/* Dropped by h2 unless the result stays OK. */
	res->app_space = SHB_APPSPACE_PRIVATE;
	res->app_code = 42;
	res->app_ok = 1;
	if (res->outcome == SHB_REQ_OK && ob.make_error) {
		res->outcome = SHB_REQ_PROTO_ERROR;
		res->detail = "observer: not a gRPC response";
		return;
	}
	if (res->outcome != SHB_REQ_OK) {
		res->outcome = SHB_REQ_OK; /* not allowed: stays an error */
		res->detail = "observer: stopped";
		return;
	}
	res->app_space = SHB_APPSPACE_NONE;
	res->app_code = 0;
	res->app_ok = 0;
	if (ob.have_status) {
		res->app_space = SHB_APPSPACE_GRPC;
		res->app_code = ob.grpc_status;
		res->app_ok = ob.grpc_status == 0;
		res->detail = ob.grpc_status ? "observer: grpc error" : NULL;
	}
	ob.have_status = 0;
}

static const struct shb_h2_observer observer = {
	.struct_size = sizeof(struct shb_h2_observer),
	.on_field = ob_field,
	.on_data = ob_data,
	.on_result = ob_result,
};

/* ---- a wrapping host: h2 must call this one, not the one from init ----- */

static size_t wrap_done, wrap_events;

static void wrap_req_done(struct shb_conn *conn, uint64_t cookie,
			  const struct shb_req_result *res)
{
	wrap_done++;
	shb_h2_kit.host.req_done(conn, cookie, res);
}

static void wrap_conn_event(struct shb_conn *conn,
			    const struct shb_conn_event *ev)
{
	wrap_events++;
	shb_h2_kit.host.conn_event(conn, ev);
}

static struct shb_host wrap_host;

static const struct shb_h2_proto_ext *get_ext(void)
{
	const struct shb_h2_proto_ext *x;

	shb_h2_test_desc(); /* init() done */
	CU_ASSERT_PTR_NOT_NULL_FATAL(shb_plugin_entry_v1.get_extension);
	x = shb_plugin_entry_v1.get_extension(SHB_EXT_H2_PROTO);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	return x;
}

/* The kit's handle of the observed connection. */
static struct shb_conn *ob_handle;

/* Like shb_h2_fx_open for a POST, with a module created on the wrapping
 * host and observed; the kit drives it (ob_handle names the connection). */
static void ob_open(struct shb_h2_fx *f, uint32_t parallel, int observed)
{
	const struct shb_h2_proto_ext *x = get_ext();
	const struct shb_proto_desc *d = x->desc;
	static const uint8_t body[] = {0, 0, 0, 0, 2, 'h', 'i'};
	struct shb_run_config cfg;
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "POST",
		.scheme = "http",
		.authority = "example.com",
		.path = "/pkg.Svc/Echo",
		.flags = SHB_REQUEST_HAS_BODY,
		.body = body,
		.body_len = sizeof(body),
	};
	char err[128] = "";

	shb_h2_test_reset(0);
	memset(&ob, 0, sizeof(ob));
	memset(f, 0, sizeof(*f));
	wrap_host = shb_h2_kit.host;
	wrap_host.req_done = wrap_req_done;
	wrap_host.conn_event = wrap_conn_event;
	wrap_done = wrap_events = 0;
	f->vt = d->vt;
	shb_h2_test_config(&cfg, 0, parallel);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f->km, &shb_h2_kit, d, &cfg),
			      SHB_OK);
	/* A wrapper plugin creates h2's module on a host of its own: the
	 * kit drives that module instead of the one it made on its host. */
	d->vt->module_destroy(f->km.module);
	CU_ASSERT_EQUAL_FATAL(d->vt->module_create(&wrap_host, &cfg,
						   &f->km.module, err,
						   sizeof(err)),
			      SHB_OK);
	f->mod = f->km.module;
	if (observed)
		CU_ASSERT_EQUAL_FATAL(x->set_observer(f->mod, &observer),
				      SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f->km, &req), SHB_OK);
	f->prep = f->km.prepared;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_worker_init(&f->km), SHB_OK);
	f->now = 1000;
	f->next_cookie = 100;
	shb_kit_clock_set(&shb_h2_kit.clock, f->now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f->kc, &f->km), SHB_OK);
	f->c = f->kc.mem;
	ob_handle = f->kc.handle;
	shb_h2_fx_ready(f);
}

/* ---- the scripted server ------------------------------------------------------ */

static void add_str(uint8_t *blk, size_t *n, const char *s, int huffman)
{
	size_t len = strlen(s);

	if (huffman) {
		size_t h = shb_huff_encoded_len((const uint8_t *)s, len);

		CU_ASSERT_FATAL(h < 127);
		blk[(*n)++] = (uint8_t)(0x80 | h);
		shb_huff_encode((const uint8_t *)s, len, blk + *n, h);
		*n += h;
		return;
	}
	CU_ASSERT_FATAL(len < 127);
	blk[(*n)++] = (uint8_t)len;
	memcpy(blk + *n, s, len);
	*n += len;
}

/* Stream 1: a head (:status 200 static, content-type indexed into the
 * table with a Huffman value, a literal new name not indexed), two DATA
 * frames (one padded) carrying one gRPC message, trailers over HEADERS +
 * CONTINUATION (grpc-status indexed with a Huffman name, grpc-message).
 * Stream 3: a Trailers-Only response (END_STREAM on its head) that takes
 * content-type and grpc-status's name from the dynamic table. */
static void script(struct shb_h2_bytes *b, const char *grpc_status)
{
	static const uint8_t padded[] = {3, 0, 0, 0, 0, 5, 'h', 0, 0, 0};
	uint8_t blk[128];
	size_t n = 0, cut;

	shb_h2_srv_settings(b, NULL, 0);
	blk[n++] = 0x88;                 /* :status 200 */
	blk[n++] = 0x40 | 31;            /* content-type, incremental */
	add_str(blk, &n, "application/grpc", 1);
	blk[n++] = 0x00;                 /* new name, without indexing */
	add_str(blk, &n, "grpc-encoding", 0);
	add_str(blk, &n, "identity", 0);
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, blk, n);
	/* "\0\0\0\0\5hello": the prefix and 'h' padded, then "ello" */
	shb_h2_srv_frame(b, SHB_H2_DATA, SHB_H2_FLAG_PADDED, 1, padded,
			 sizeof(padded));
	shb_h2_srv_data(b, 1, 0, "ello");
	n = 0;
	blk[n++] = 0x40;                 /* new name, incremental */
	add_str(blk, &n, "grpc-status", 1);
	add_str(blk, &n, grpc_status, 0);
	cut = n;
	blk[n++] = 0x00;
	add_str(blk, &n, "grpc-message", 0);
	add_str(blk, &n, "bad thing", 1);
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_STREAM, 1, blk,
			 cut);
	shb_h2_srv_frame(b, SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 1,
			 blk + cut, n - cut);
	/* stream 3: table now [62] grpc-status, [63] content-type */
	n = 0;
	blk[n++] = 0x88;
	blk[n++] = 0x80 | 63;            /* content-type: application/grpc */
	blk[n++] = 0x0f;                 /* name index 62, without indexing */
	blk[n++] = 62 - 15;
	add_str(blk, &n, "5", 0);
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 3,
			 blk, n);
}

static void call_is(size_t i, char kind, uint64_t cookie, const char *name,
		    const char *value, uint32_t flags)
{
	const struct call *c = &ob.c[i];

	CU_ASSERT_FATAL(i < ob.n);
	CU_ASSERT_EQUAL(c->kind, kind);
	CU_ASSERT_EQUAL(c->handle, ob_handle);
	CU_ASSERT_EQUAL(c->cookie, cookie);
	CU_ASSERT_EQUAL(c->flags, flags);
	if (name)
		CU_ASSERT_STRING_EQUAL(c->name, name);
	if (value) {
		CU_ASSERT_EQUAL(c->vlen, strlen(value));
		CU_ASSERT_EQUAL(memcmp(c->value, value, c->vlen), 0);
	}
}

static void check_script_calls(uint64_t c1, uint64_t c3, uint32_t st)
{
	const uint32_t H = SHB_H2_FIELD_HEADER, T = SHB_H2_FIELD_TRAILER;
	char status[4];

	snprintf(status, sizeof(status), "%u", st);
	CU_ASSERT_EQUAL(ob.n, 11);
	call_is(0, 'F', c1, ":status", "200", H);
	call_is(1, 'F', c1, "content-type", "application/grpc", H);
	call_is(2, 'F', c1, "grpc-encoding", "identity", H);
	call_is(3, 'D', c1, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.c[3].vlen, 10);
	CU_ASSERT_EQUAL(memcmp(ob.c[3].value, "\0\0\0\0\5hello", 10), 0);
	call_is(4, 'F', c1, "grpc-status", status, T);
	call_is(5, 'F', c1, "grpc-message", "bad thing", T);
	call_is(6, 'R', c1, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.c[6].outcome, SHB_REQ_OK);
	call_is(7, 'F', c3, ":status", "200", H);
	call_is(8, 'F', c3, "content-type", "application/grpc", H);
	call_is(9, 'F', c3, "grpc-status", "5", H);
	call_is(10, 'R', c3, NULL, NULL, 0);
}

static void check_script_results(uint64_t c1, uint64_t c3, uint32_t st)
{
	const struct shb_kit_done *d;

	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 2);
	CU_ASSERT_EQUAL(wrap_done, 2);
	d = shb_h2_fx_done(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->conn, ob_handle);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 200);
	CU_ASSERT_EQUAL(d->res.err_code, 0);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 10);
	CU_ASSERT_EQUAL(d->res.app_space, SHB_APPSPACE_GRPC);
	CU_ASSERT_EQUAL(d->res.app_code, st);
	CU_ASSERT_EQUAL(d->res.app_ok, st == 0);
	CU_ASSERT_STRING_EQUAL(d->detail, st ? "observer: grpc error" : "");
	d = shb_h2_fx_done(c3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 200);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 0);
	CU_ASSERT_EQUAL(d->res.app_space, SHB_APPSPACE_GRPC);
	CU_ASSERT_EQUAL(d->res.app_code, 5);
	CU_ASSERT_EQUAL(d->res.app_ok, 0);
}

/* The whole script fed at once, then split at every octet: the same
 * calls, in the same order, every time. */
static void test_observer_calls(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	uint64_t c1, c3;

	for (int st = 0; st <= 3; st += 3) {
		b.len = 0;
		script(&b, st ? "3" : "0");
		for (size_t cut = 0; cut <= b.len; cut++) {
			ob_open(&f, 4, 1);
			c1 = shb_h2_fx_issue(&f);
			c3 = shb_h2_fx_issue(&f);
			if (cut)
				CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, cut),
						(shb_ssize)cut);
			CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p + cut,
						       b.len - cut),
					(shb_ssize)(b.len - cut));
			check_script_calls(c1, c3, (uint32_t)st);
			check_script_results(c1, c3, (uint32_t)st);
			CU_ASSERT_EQUAL(wrap_events, 1); /* HANDSHAKE_DONE */
			shb_h2_fx_close(&f);
			if (CU_get_number_of_failures())
				break;
		}
	}
	shb_h2_bytes_free(&b);
}

/* The RST_STREAM(CANCEL) frame for stream 1 in what the client sent. */
static int sent_cancel(struct shb_h2_fx *f)
{
	struct shb_h2_fx_frame fr[16];
	size_t n;

	shb_h2_fx_flush(f, 0);
	n = shb_h2_fx_frames(f->sent.p, f->sent.len, fr, 16);
	for (size_t i = 0; i < n; i++)
		if (fr[i].h.type == SHB_H2_RST_STREAM && fr[i].h.stream_id == 1 &&
		    fr[i].h.length == 4 && fr[i].payload[3] == SHB_H2_CANCEL)
			return 1;
	return 0;
}

static void check_stopped(struct shb_h2_fx *f, uint64_t cookie)
{
	const struct shb_kit_done *d = shb_h2_fx_done(cookie);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_EQUAL(d->res.err_code, SHB_H2_CANCEL);
	CU_ASSERT_EQUAL(d->res.status, 0);
	CU_ASSERT_STRING_EQUAL(d->detail, "observer: stopped");
	CU_ASSERT_EQUAL(d->res.app_space, SHB_APPSPACE_NONE);
	CU_ASSERT_EQUAL(d->res.app_code, 0);
	CU_ASSERT_EQUAL(d->res.app_ok, 0);
	CU_ASSERT_TRUE(sent_cancel(f));
	/* The connection goes on. */
	CU_ASSERT_EQUAL(shb_h2_fx_state(f) & SHB_CS_CLOSED, 0);
}

/* on_data says stop on its first call: the stream is reset, nothing more
 * is shown for it, the request ends as a protocol error through
 * on_result; stream 3 is unaffected. */
static void test_observer_stops_data(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	uint64_t c1, c3;

	script(&b, "0");
	ob_open(&f, 4, 1);
	ob.stop_data_at = 1;
	c1 = shb_h2_fx_issue(&f);
	c3 = shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(ob.n, 3 + 1 + 1 + 4);
	call_is(3, 'D', c1, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.c[3].vlen, 6);
	CU_ASSERT_EQUAL(memcmp(ob.c[3].value, "\0\0\0\0\5h", 6), 0);
	call_is(4, 'R', c1, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.c[4].outcome, SHB_REQ_PROTO_ERROR);
	call_is(5, 'F', c3, ":status", "200", SHB_H2_FIELD_HEADER);
	call_is(8, 'R', c3, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.data_calls, 1);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 2);
	check_stopped(&f, c1);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c3)->res.outcome, SHB_REQ_OK);
	shb_h2_fx_close(&f);
	shb_h2_bytes_free(&b);
}

/* on_field refuses a header: the same, before any body. */
static void test_observer_stops_field(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	uint64_t c1;

	script(&b, "0");
	ob_open(&f, 4, 1);
	ob.stop_field = "content-type";
	c1 = shb_h2_fx_issue(&f);
	shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	call_is(0, 'F', c1, ":status", "200", SHB_H2_FIELD_HEADER);
	call_is(1, 'F', c1, "content-type", NULL, SHB_H2_FIELD_HEADER);
	call_is(2, 'R', c1, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.data_calls, 0);
	check_stopped(&f, c1);
	shb_h2_fx_close(&f);
	shb_h2_bytes_free(&b);
}

/* on_field refuses a trailer: the server has ended the stream and our
 * body went out, so nothing is reset; the request ends as a protocol
 * error with NO_ERROR, and a late frame on the stream is the server's
 * fault (it ended the stream). */
static void test_observer_stops_trailer(void)
{
	struct shb_h2_bytes b = {0}, late = {0};
	struct shb_h2_fx f;
	const struct shb_kit_done *d;
	uint64_t c1;

	script(&b, "0");
	ob_open(&f, 4, 1);
	ob.stop_field = "grpc-message";
	c1 = shb_h2_fx_issue(&f);
	shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	call_is(4, 'F', c1, "grpc-status", "0", SHB_H2_FIELD_TRAILER);
	call_is(5, 'F', c1, "grpc-message", "bad thing", SHB_H2_FIELD_TRAILER);
	call_is(6, 'R', c1, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.c[6].outcome, SHB_REQ_PROTO_ERROR);
	d = shb_h2_fx_done(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_EQUAL(d->res.err_code, SHB_H2_NO_ERROR);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 10);
	CU_ASSERT_STRING_EQUAL(d->detail, "observer: stopped");
	CU_ASSERT_FALSE(sent_cancel(&f));
	shb_h2_srv_data(&late, 1, 0, "x");
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, late.p, late.len), SHB_E_PROTO);
	shb_h2_fx_close(&f);
	shb_h2_bytes_free(&late);
	shb_h2_bytes_free(&b);
}

/* on_result turns an OK response into a protocol error: status and the
 * HTTP/2 error space are cleared, the observer's detail kept, what it
 * may not change put back. */
static void test_observer_makes_error(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	const struct shb_kit_done *d;
	uint64_t c1;

	script(&b, "0");
	ob_open(&f, 4, 1);
	ob.make_error = 1;
	c1 = shb_h2_fx_issue(&f);
	shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	d = shb_h2_fx_done(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.status, 0);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_NONE);
	CU_ASSERT_EQUAL(d->res.err_code, 0);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 10);
	CU_ASSERT_STRING_EQUAL(d->detail, "observer: not a gRPC response");
	CU_ASSERT_EQUAL(d->res.app_space, SHB_APPSPACE_NONE);
	CU_ASSERT_EQUAL(d->res.app_ok, 0);
	shb_h2_fx_close(&f);
	shb_h2_bytes_free(&b);
}

/* Trailers h2 refuses (a pseudo-header in them) show no field: the
 * request ends as a protocol error, on_result sees it. */
static void test_refused_trailers_hidden(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	uint8_t blk[32];
	size_t n = 0;
	uint64_t c1;

	shb_h2_srv_settings(&b, NULL, 0);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	blk[n++] = 0x00;
	add_str(blk, &n, "grpc-status", 0);
	add_str(blk, &n, "0", 0);
	blk[n++] = 0x84; /* :path / */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 blk, n);
	ob_open(&f, 4, 1);
	c1 = shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(ob.n, 4);
	call_is(0, 'F', c1, ":status", "200", SHB_H2_FIELD_HEADER);
	call_is(1, 'F', c1, "server", "nginx", SHB_H2_FIELD_HEADER);
	call_is(2, 'F', c1, "date", "now", SHB_H2_FIELD_HEADER);
	call_is(3, 'R', c1, NULL, NULL, 0);
	CU_ASSERT_EQUAL(ob.c[3].outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c1)->res.outcome, SHB_REQ_PROTO_ERROR);
	shb_h2_fx_close(&f);
	shb_h2_bytes_free(&b);
}

/* Without set_observer a module made through the extension behaves as
 * before: no calls, no app outcome; the wrapping host still gets every
 * req_done (h2 uses the host given to module_create). */
static void test_unobserved_and_host(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	uint64_t c1, c3;

	script(&b, "0");
	ob_open(&f, 4, 0);
	c1 = shb_h2_fx_issue(&f);
	c3 = shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(ob.n, 0);
	CU_ASSERT_EQUAL(wrap_done, 2);
	CU_ASSERT_EQUAL(wrap_events, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c1)->res.app_space, SHB_APPSPACE_NONE);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c1)->res.status, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c3)->res.status, 200);
	CU_ASSERT_PTR_NULL(f.c->dtable_octets);
	shb_h2_fx_close(&f);
	shb_h2_bytes_free(&b);
}

/* The entry offers exactly this id; set_observer checks its input. */
static void test_extension_entry(void)
{
	const struct shb_h2_proto_ext *x = get_ext();
	const struct shb_proto_desc *d = shb_h2_test_desc();
	struct shb_h2_observer small = observer;
	void *m;

	CU_ASSERT_STRING_EQUAL(SHB_EXT_H2_PROTO, "org.shb.h2.proto/1");
	CU_ASSERT_EQUAL(x->struct_size, sizeof(struct shb_h2_proto_ext));
	CU_ASSERT_PTR_EQUAL(x->desc, d);
	CU_ASSERT_STRING_EQUAL(x->desc->name, "h2");
	CU_ASSERT_PTR_NULL(shb_plugin_entry_v1.get_extension("org.shb.h2.proto/2"));
	CU_ASSERT_PTR_NULL(shb_plugin_entry_v1.get_extension("org.shb.h2.session/1"));
	CU_ASSERT_PTR_NULL(shb_plugin_entry_v1.get_extension(NULL));
	m = shb_h2_test_module(0, 1);
	CU_ASSERT_EQUAL(x->set_observer(m, NULL), SHB_E_INVAL);
	small.struct_size = 8;
	CU_ASSERT_EQUAL(x->set_observer(m, &small), SHB_E_INVAL);
	/* A table that ends before on_result: on_result stays NULL. */
	small.struct_size = offsetof(struct shb_h2_observer, on_result);
	CU_ASSERT_EQUAL(x->set_observer(m, &small), SHB_OK);
	CU_ASSERT_PTR_NULL(((struct shb_h2_module *)m)->obs.on_result);
	CU_ASSERT_PTR_EQUAL(((struct shb_h2_module *)m)->obs.on_data, ob_data);
	CU_ASSERT_EQUAL(x->set_observer(m, &observer), SHB_E_STATE);
	d->vt->module_destroy(m);
}

CU_TestInfo shb_h2_observe_tests[] = {
	{"extension entry and set_observer", test_extension_entry},
	{"observer calls for head, data, trailers, Trailers-Only; every split",
	 test_observer_calls},
	{"observer stops a stream from on_data", test_observer_stops_data},
	{"observer stops a stream from on_field", test_observer_stops_field},
	{"observer refuses a trailer: no reset", test_observer_stops_trailer},
	{"observer turns OK into a protocol error", test_observer_makes_error},
	{"refused trailers show no field", test_refused_trailers_hidden},
	{"unobserved module on a wrapping host", test_unobserved_and_host},
	CU_TEST_INFO_NULL,
};
