/* Connection fixture: see h2_fixture.h. */
#include "h2_fixture.h"

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
	char err[128];

	shb_h2_test_reset(debug);
	memset(f, 0, sizeof(*f));
	f->vt = d->vt;
	f->mod = shb_h2_test_module(run_flags, parallel);
	CU_ASSERT_EQUAL_FATAL(f->vt->prepare_request(f->mod, &req, &f->prep, err,
						     sizeof(err)),
			      SHB_OK);
	/* Exactly conn_size bytes, zeroed, as the core provides. */
	f->c = calloc(1, d->conn_size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->c);
	f->now = 1000;
	f->next_cookie = 100;
	CU_ASSERT_EQUAL_FATAL(f->vt->conn_init(f->mod, NULL, f->c, FX_HANDLE,
					       f->now),
			      SHB_OK);
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

	CU_ASSERT_EQUAL(f->vt->capacity(f->c), 0);
	CU_ASSERT_EQUAL(f->vt->on_transport_ready(f->c, &info, f->now), SHB_OK);
	CU_ASSERT(f->vt->state(f->c) & SHB_CS_WANT_WRITE);
	shb_h2_fx_flush(f, 0);
	CU_ASSERT_EQUAL_FATAL(f->sent.len, sizeof(preface));
	CU_ASSERT_EQUAL(memcmp(f->sent.p, preface, sizeof(preface)), 0);
	f->sent.len = 0;
}

void shb_h2_fx_close(struct shb_h2_fx *f)
{
	f->vt->conn_fini(f->c);
	free(f->c);
	f->vt->release_request(f->mod, f->prep);
	f->vt->module_destroy(f->mod);
	shb_h2_bytes_free(&f->sent);
}

uint64_t shb_h2_fx_issue(struct shb_h2_fx *f)
{
	uint64_t cookie = f->next_cookie++;

	CU_ASSERT_EQUAL(f->vt->issue(f->c, f->prep, cookie, f->now), SHB_OK);
	return cookie;
}

size_t shb_h2_fx_flush(struct shb_h2_fx *f, size_t chunk)
{
	size_t total = 0;
	struct shb_vec v[16];
	shb_ssize k;

	while ((k = f->vt->pull_send(f->c, v, 16, f->now)) > 0) {
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
		f->vt->sent(f->c, n, f->now);
		total += n;
	}
	CU_ASSERT_EQUAL(f->vt->state(f->c) & SHB_CS_WANT_WRITE, 0);
	return total;
}

shb_ssize shb_h2_fx_recv(struct shb_h2_fx *f, const void *p, size_t n)
{
	return f->vt->recv(f->c, p, n, f->now);
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

const struct shb_h2_test_done *shb_h2_fx_done(uint64_t cookie)
{
	for (size_t i = 0; i < shb_h2_seen.done_count; i++)
		if (shb_h2_seen.done[i].cookie == cookie)
			return &shb_h2_seen.done[i];
	return NULL;
}
