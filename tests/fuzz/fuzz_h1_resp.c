/* A response kept for req_response by the h1 plugin: the scanner with a
 * keep attached (plugins/h1/h1_scan.c), then the kept head split into
 * fields (h1_resp.c) and handed to a host. Input: a byte whose value is
 * body_max (0..255), a split plan, then the server's bytes (one
 * response; what follows it is ignored).
 *
 * Checked besides memory safety: the response handed over has the
 * scanner's status; every field is a NUL-terminated name without ':'
 * and a value without leading or trailing whitespace, inside the kept
 * head; the body kept is the first min(body bytes, body_max) octets and
 * is marked truncated exactly when more came; the split run keeps what
 * the unsplit run keeps. */
#include <string.h>

#include <shb/host.h>

#include "fuzz_input.h"
#include "h1_resp.h"
#include "h1_scan.h"

struct run {
	struct shb_h1_scan s;
	struct shb_h1_keep keep;
	struct shb_buf kvs;
	int rc;
	uint32_t fields;
	uint64_t fields_len; /* the sum of names and values */
	int delivered;
};

static struct run *cur;

static void on_response(struct shb_conn *c, uint64_t cookie,
			const struct shb_response *r)
{
	const char *lo = (const char *)cur->keep.head.p;
	const char *hi = lo + cur->keep.head.len;

	(void)c;
	FZ_CHECK(cookie == 7);
	FZ_CHECK(r->status == shb_h1_scan_status(&cur->s));
	FZ_CHECK(r->body_len == cur->keep.body.len);
	FZ_CHECK(r->body_len <= cur->keep.body_max);
	for (size_t i = 0; i < r->header_count; i++) {
		const char *k = r->headers[i].key, *v = r->headers[i].value;
		size_t vl = strlen(v);
		FZ_CHECK(k >= lo && k < hi && v >= lo && v + vl < hi);
		FZ_CHECK(k[0] && !strchr(k, ':'));
		FZ_CHECK(!vl || (v[0] != ' ' && v[0] != '\t' &&
				 v[vl - 1] != ' ' && v[vl - 1] != '\t'));
		cur->fields_len += strlen(k) + vl;
	}
	cur->fields = (uint32_t)r->header_count;
	cur->delivered = 1;
}

static const struct shb_host host = {
	.struct_size = sizeof(struct shb_host),
	.req_response = on_response,
};

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;
	size_t used = 0;

	(void)last;
	u->rc = shb_h1_scan_feed(&u->s, p, n, &used);
	FZ_CHECK(used <= n);
	return u->rc != SHB_H1_SCAN_MORE;
}

static void run(struct run *u, unsigned body_max, const struct fz_plan *pl,
		const uint8_t *p, size_t n)
{
	shb_buf_clear(&u->keep.head);
	shb_buf_clear(&u->keep.body);
	u->keep.body_max = body_max;
	u->keep.body.max = body_max ? body_max : 1;
	u->fields = u->delivered = 0;
	u->fields_len = 0;
	shb_h1_scan_begin_keep(&u->s, 0, &u->keep);
	fz_feed_plan(pl, p, n, feed, u);
	if (u->rc == SHB_H1_SCAN_MORE)
		u->rc = shb_h1_scan_eof(&u->s);
	if (u->rc != SHB_H1_SCAN_DONE)
		return;
	uint64_t body = shb_h1_scan_body_bytes(&u->s);
	FZ_CHECK(u->keep.body.len == (body < body_max ? body : body_max));
	FZ_CHECK(u->keep.truncated == (body > body_max));
	cur = u;
	shb_h1_resp_deliver(&host, NULL, 7, shb_h1_scan_status(&u->s), &u->keep,
			    &u->kvs);
	FZ_CHECK(u->delivered);
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	unsigned body_max = fz_u8(&f);

	if (!split.keep.head.max) {
		struct run *r[2] = {&split, &whole};
		for (int i = 0; i < 2; i++) {
			shb_buf_init(&r[i]->keep.head, 256, SHB_H1_MAX_SECTION + 2);
			shb_buf_init(&r[i]->keep.body, 64, 256);
			shb_buf_init(&r[i]->kvs, 256, 1u << 24);
		}
	}
	fz_plan_read(&f, &pl);
	run(&split, body_max, &pl, f.p, f.n);
	run(&whole, body_max, NULL, f.p, f.n);
	FZ_CHECK(split.rc == whole.rc);
	FZ_CHECK(split.fields == whole.fields);
	FZ_CHECK(split.fields_len == whole.fields_len);
	FZ_CHECK(split.keep.body.len == whole.keep.body.len);
	FZ_CHECK(!split.keep.body.len ||
		 memcmp(split.keep.body.p, whole.keep.body.p, split.keep.body.len) == 0);
	return 0;
}
