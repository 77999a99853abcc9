/* Connection fixture: see h2_fixture.h. */
#include "h2_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void shb_h2_bytes_add(struct shb_h2_bytes *b, const void *p, size_t n)
{
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap - b->len < n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b->p);
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

void shb_h2_bytes_free(struct shb_h2_bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void shb_h2_fx_open(struct shb_h2_fx *f, uint32_t run_flags,
		    uint32_t parallel, const uint8_t *body, size_t body_len,
		    const struct shb_kv *headers, size_t header_count,
		    int debug)
{
	const struct shb_proto_desc *d = shb_h2_test_desc();
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = body ? "POST" : "GET",
		.scheme = "http",
		.authority = "example.com",
		.path = "/",
		.headers = headers,
		.header_count = header_count,
		.flags = body ? SHB_REQUEST_HAS_BODY : 0,
		.body = body,
		.body_len = body_len,
	};
	struct shb_run_config cfg;

	shb_h2_test_reset(debug);
	memset(f, 0, sizeof(*f));
	f->vt = d->vt;
	shb_h2_test_config(&cfg, run_flags, parallel);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f->km, &shb_h2_kit, d, &cfg),
			      SHB_OK);
	f->mod = f->km.module;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f->km, &req), SHB_OK);
	f->prep = f->km.prepared;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_worker_init(&f->km), SHB_OK);
	f->now = 1000;
	f->next_cookie = 100;
	/* The kit gives the connection exactly conn_size zeroed bytes, as
	 * the core does, so that ASan checks the bounds. */
	shb_kit_clock_set(&shb_h2_kit.clock, f->now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f->kc, &f->km), SHB_OK);
	f->c = f->kc.mem;
}

/* ---- the vtable through the kit ----------------------------------------- */

static struct shb_kit_conn *at_now(struct shb_h2_fx *f)
{
	shb_kit_clock_set(&shb_h2_kit.clock, f->now);
	return &f->kc;
}

uint32_t shb_h2_fx_state(struct shb_h2_fx *f)
{
	shb_kit_conn_poll(&f->kc);
	return f->kc.state;
}

uint32_t shb_h2_fx_capacity(struct shb_h2_fx *f)
{
	shb_kit_conn_poll(&f->kc);
	return f->kc.capacity;
}

shb_tstamp shb_h2_fx_next_deadline(struct shb_h2_fx *f)
{
	shb_kit_conn_poll(&f->kc);
	return f->kc.deadline;
}

const char *shb_h2_fx_error_detail(struct shb_h2_fx *f)
{
	return shb_kit_conn_error_detail(&f->kc);
}

int shb_h2_fx_issue_rc(struct shb_h2_fx *f, uint64_t cookie)
{
	return shb_kit_conn_issue(at_now(f), f->prep, cookie);
}

void shb_h2_fx_cancel(struct shb_h2_fx *f, uint64_t cookie)
{
	shb_kit_conn_cancel(at_now(f), cookie);
}

void shb_h2_fx_shutdown(struct shb_h2_fx *f, uint32_t mode)
{
	shb_kit_conn_shutdown(at_now(f), mode);
}

int shb_h2_fx_recv_eof(struct shb_h2_fx *f)
{
	return shb_kit_conn_recv_eof(at_now(f));
}

int shb_h2_fx_on_timer(struct shb_h2_fx *f)
{
	return shb_kit_conn_on_timer(at_now(f));
}

shb_ssize shb_h2_fx_pull_send(struct shb_h2_fx *f, struct shb_vec *v,
			      size_t max)
{
	return shb_kit_conn_pull_send(at_now(f), v, max);
}

void shb_h2_fx_sent(struct shb_h2_fx *f, size_t n)
{
	shb_kit_conn_sent(at_now(f), n);
}

void shb_h2_fx_ready(struct shb_h2_fx *f)
{
	static const uint8_t preface[] = {
		'P', 'R', 'I', ' ', '*', ' ', 'H', 'T', 'T', 'P', '/', '2',
		'.', '0', '\r', '\n', '\r', '\n', 'S', 'M', '\r', '\n', '\r',
		'\n',
		/* SETTINGS: push 0, window 2^31-1; no HEADER_TABLE_SIZE,
		 * so our decoder's table is the default 4096 */
		0x00, 0x00, 0x0c, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x04, 0x7f, 0xff, 0xff, 0xff,
		/* WINDOW_UPDATE 0 +(2^31-1-65535) */
		0x00, 0x00, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x7f, 0xff, 0x00, 0x00,
	};
	struct shb_transport_info info = {
		.struct_size = sizeof(info),
		.alpn = "h2",
	};

	CU_ASSERT_EQUAL(shb_h2_fx_capacity(f), 0);
	CU_ASSERT_EQUAL(shb_kit_conn_ready(at_now(f), &info), SHB_OK);
	CU_ASSERT(shb_h2_fx_state(f) & SHB_CS_WANT_WRITE);
	shb_h2_fx_flush(f, 0);
	CU_ASSERT_EQUAL_FATAL(f->sent.len, sizeof(preface));
	CU_ASSERT_EQUAL(memcmp(f->sent.p, preface, sizeof(preface)), 0);
	f->sent.len = 0;
}

void shb_h2_fx_close(struct shb_h2_fx *f)
{
	shb_kit_conn_fini(at_now(f));
	shb_kit_module_destroy(&f->km);
	shb_h2_bytes_free(&f->sent);
	for (size_t i = 0; i < shb_h2_kit.done_count; i++)
		CU_ASSERT_EQUAL(shb_h2_kit.done[i].res.struct_size,
				sizeof(struct shb_req_result));
	for (size_t i = 0; i < shb_h2_kit.event_count; i++)
		CU_ASSERT_EQUAL(shb_h2_kit.events[i].ev.struct_size,
				sizeof(struct shb_conn_event));
	CU_ASSERT_EQUAL(shb_kit_host_dump_violations(&shb_h2_kit, "h2: "), 0);
}

uint64_t shb_h2_fx_issue(struct shb_h2_fx *f)
{
	uint64_t cookie = f->next_cookie++;

	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(f, cookie), SHB_OK);
	return cookie;
}

size_t shb_h2_fx_flush(struct shb_h2_fx *f, size_t chunk)
{
	size_t total = 0;
	struct shb_vec v[16];
	shb_ssize k;

	while ((k = shb_h2_fx_pull_send(f, v, 16)) > 0) {
		size_t n = 0;

		for (shb_ssize i = 0; i < k; i++) {
			size_t take = v[i].len;

			if (chunk && take > chunk - n)
				take = chunk - n;
			shb_h2_bytes_add(&f->sent, v[i].base, take);
			n += take;
			if (take < v[i].len)
				break;
		}
		CU_ASSERT_FATAL(n > 0);
		shb_h2_fx_sent(f, n);
		total += n;
	}
	CU_ASSERT_EQUAL(shb_h2_fx_state(f) & SHB_CS_WANT_WRITE, 0);
	return total;
}

shb_ssize shb_h2_fx_recv(struct shb_h2_fx *f, const void *p, size_t n)
{
	/* The kit passes a private copy: over-reads show under ASan. */
	return shb_kit_conn_recv(at_now(f), p, n);
}

size_t shb_h2_fx_frames(const uint8_t *p, size_t n,
			struct shb_h2_fx_frame *fr, size_t max)
{
	size_t off = 0, k = 0;

	while (off < n) {
		CU_ASSERT_FATAL(n - off >= SHB_H2_FRAME_HEADER_LEN && k < max);
		shb_h2_frame_header_parse(p + off, &fr[k].h);
		off += SHB_H2_FRAME_HEADER_LEN;
		CU_ASSERT_FATAL(n - off >= fr[k].h.length);
		fr[k].payload = p + off;
		off += fr[k].h.length;
		k++;
	}
	return k;
}

void shb_h2_srv_frame(struct shb_h2_bytes *b, uint8_t type, uint8_t flags,
		      uint32_t sid, const void *payload, size_t len)
{
	uint8_t h[SHB_H2_FRAME_HEADER_LEN];

	shb_h2_frame_header_write(h, (uint32_t)len, type, flags, sid);
	shb_h2_bytes_add(b, h, sizeof(h));
	shb_h2_bytes_add(b, payload, len);
}

void shb_h2_srv_settings(struct shb_h2_bytes *b,
			 const struct shb_h2_setting_kv *kv, size_t n)
{
	uint8_t p[9 + 6 * 16];

	CU_ASSERT_FATAL(n <= 16);
	shb_h2_bytes_add(b, p, shb_h2_write_settings(p, kv, n));
}

void shb_h2_srv_status(struct shb_h2_bytes *b, uint32_t sid, uint8_t flags,
		       int status)
{
	/* the status (pseudo-headers come first), server: nginx, a date */
	uint8_t blk[64];
	size_t n = 0;
	static const int idx[] = {200, 204, 206, 304, 400, 404, 500};

	for (int i = 0; i < 7; i++)
		if (idx[i] == status) {
			blk[n++] = (uint8_t)(0x88 + i);
			status = 0;
		}
	if (status) {
		blk[n++] = 0x08;
		blk[n++] = 3;
		blk[n++] = (uint8_t)('0' + status / 100);
		blk[n++] = (uint8_t)('0' + status / 10 % 10);
		blk[n++] = (uint8_t)('0' + status % 10);
	}
	blk[n++] = 0x76; /* incremental, name 54 (server) */
	blk[n++] = 5;
	memcpy(blk + n, "nginx", 5);
	n += 5;
	blk[n++] = 0x0f; /* without indexing, name 33 (date) */
	blk[n++] = 33 - 15;
	blk[n++] = 3;
	memcpy(blk + n, "now", 3);
	n += 3;
	shb_h2_srv_frame(b, SHB_H2_HEADERS, flags, sid, blk, n);
}

void shb_h2_srv_data(struct shb_h2_bytes *b, uint32_t sid, uint8_t flags,
		     const char *text)
{
	shb_h2_srv_frame(b, SHB_H2_DATA, flags, sid, text, strlen(text));
}

void shb_h2_srv_u32(struct shb_h2_bytes *b, uint8_t type, uint32_t sid,
		    uint32_t v)
{
	uint8_t p[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
			(uint8_t)(v >> 8), (uint8_t)v};

	shb_h2_srv_frame(b, type, 0, sid, p, 4);
}

void shb_h2_srv_goaway(struct shb_h2_bytes *b, uint32_t last, uint32_t code,
		       const char *debug)
{
	uint8_t p[128];
	size_t n = strlen(debug);

	CU_ASSERT_FATAL(n <= 120);
	shb_h2_write_goaway(p, last, code);
	memcpy(p + 17, debug, n);
	shb_h2_srv_frame(b, SHB_H2_GOAWAY, 0, 0, p + 9, 8 + n);
}

const struct shb_kit_done *shb_h2_fx_done(uint64_t cookie)
{
	return shb_kit_done_find(&shb_h2_kit, cookie);
}

/* ---- steps the connection tests share ---- */

const struct shb_h2_setting_kv shb_h2_fx_nginx_settings[] = {
	{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 128},
	{SHB_H2_SET_INITIAL_WINDOW_SIZE, 65536},
	{SHB_H2_SET_MAX_FRAME_SIZE, 16777215},
};

/* Server SETTINGS fed and our ACK checked and dropped. */
void shb_h2_fx_hello(struct shb_h2_fx *f)
{
	struct shb_h2_bytes b = {0};
	static const uint8_t ack[] = {0, 0, 0, 4, 1, 0, 0, 0, 0};

	/* What was queued before goes out first. */
	shb_h2_fx_flush(f, 0);
	f->sent.len = 0;
	shb_h2_srv_settings(&b, shb_h2_fx_nginx_settings, 3);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_bytes_free(&b);
	shb_h2_fx_flush(f, 0);
	CU_ASSERT_EQUAL_FATAL(f->sent.len, sizeof(ack));
	CU_ASSERT_EQUAL(memcmp(f->sent.p, ack, sizeof(ack)), 0);
	f->sent.len = 0;
}

/* Feeds `in` after the server's SETTINGS (unless raw) and expects a
 * connection error whose detail contains `text`, a GOAWAY with `code`,
 * and a CLOSED state; also split at every offset. */
void shb_h2_fx_conn_error_step(const struct shb_h2_bytes *in, int raw,
				   uint32_t code, const char *text,
				   size_t step)
{
	for (size_t cut = 0; cut <= in->len;
	     cut = cut == in->len || cut + step <= in->len ? cut + step
							   : in->len) {
		struct shb_h2_fx f;
		struct shb_h2_fx_frame fr[8];
		shb_ssize r1, r2 = 0;
		size_t n;

		shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
		shb_h2_fx_ready(&f);
		shb_h2_fx_issue(&f);
		if (!raw)
			shb_h2_fx_hello(&f);
		shb_h2_fx_flush(&f, 0);
		f.sent.len = 0;
		r1 = shb_h2_fx_recv(&f, in->p, cut);
		if (r1 >= 0)
			r2 = shb_h2_fx_recv(&f, in->p + cut, in->len - cut);
		CU_ASSERT(r1 == SHB_E_PROTO || (r1 == (shb_ssize)cut && r2 == SHB_E_PROTO));
		CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
		CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_error_detail(&f));
		if (!strstr(shb_h2_fx_error_detail(&f), text))
			fprintf(stderr, "\n  detail: %s\n", shb_h2_fx_error_detail(&f));
		CU_ASSERT_PTR_NOT_NULL(strstr(shb_h2_fx_error_detail(&f), text));
		CU_ASSERT_EQUAL(strncmp(shb_h2_fx_error_detail(&f), "h2: ", 4), 0);
		/* The core completes the stream itself. */
		CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
		shb_h2_fx_flush(&f, 0);
		n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8);
		CU_ASSERT_FATAL(n >= 1);
		CU_ASSERT_EQUAL(fr[n - 1].h.type, SHB_H2_GOAWAY);
		CU_ASSERT_EQUAL(memcmp(fr[n - 1].payload, "\0\0\0\0", 4), 0);
		CU_ASSERT_EQUAL(fr[n - 1].payload[7], code);
		/* Nothing more is read. */
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, "junk", 4), 4);
		shb_h2_fx_close(&f);
	}
}

void shb_h2_fx_conn_error(const struct shb_h2_bytes *in, int raw,
			      uint32_t code, const char *text)
{
	shb_h2_fx_conn_error_step(in, raw, code, text, 1);
}

void shb_h2_fx_conn_error_frame(uint8_t type, uint8_t flags, uint32_t sid,
			     const void *p, size_t n, uint32_t code,
			     const char *text)
{
	struct shb_h2_bytes b = {0};

	shb_h2_srv_frame(&b, type, flags, sid, p, n);
	shb_h2_fx_conn_error(&b, 0, code, text);
	shb_h2_bytes_free(&b);
}

/* Malformed responses reset only their stream. */
void shb_h2_fx_stream_error(const struct shb_h2_bytes *b, const char *detail)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	const struct shb_kit_done *d;
	uint64_t c1, c2;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	c1 = shb_h2_fx_issue(&f);
	c2 = shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b->p, b->len), (shb_ssize)b->len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 1);
	d = shb_h2_fx_done(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_STRING_EQUAL(d->detail, detail);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_RST_STREAM);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 1);
	/* The other stream and the connection carry on. */
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), 0);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 3);
	{
		struct shb_h2_bytes ok = {0};

		shb_h2_srv_status(&ok, 3, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, ok.p, ok.len), (shb_ssize)ok.len);
		CU_ASSERT_EQUAL(shb_h2_fx_done(c2)->res.status, 200);
		shb_h2_bytes_free(&ok);
	}
	shb_h2_fx_close(&f);
}
