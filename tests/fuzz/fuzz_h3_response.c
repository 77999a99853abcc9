/* An HTTP/3 request stream's response side (plugins/h3/http3/
 * h3_response.c: frame headers, HEADERS through QPACK, DATA, trailers,
 * unknown frames), fed the stream's bytes in pieces as the plugin does,
 * the last piece with FIN when the input asks. Input: a flags byte (bit 0:
 * FIN at the end), a split plan, then the stream's bytes.
 *
 * Checked besides memory safety: an error carries its code and reason, a
 * complete response's head + body bytes are the stream's size, and the
 * split run gives exactly the result of the unsplit run. */
#include <string.h>

#include "fuzz_input.h"
#include "h3_response.h"

struct run {
	struct shb_h3_resp r;
	int fin;
	int rc;
};

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;

	u->rc = shb_h3_resp_feed(&u->r, p, n, last && u->fin);
	if (u->rc < 0)
		FZ_CHECK(u->r.detail != NULL);
	if (u->rc == SHB_H3_RESP_DONE)
		FZ_CHECK(last && u->fin && u->r.status >= 200);
	return u->rc != SHB_H3_RESP_MORE;
}

static void run(struct run *u, int fin, const struct fz_plan *pl,
		const uint8_t *p, size_t n)
{
	memset(u, 0, sizeof(*u));
	shb_h3_resp_init(&u->r);
	u->fin = fin;
	fz_feed_plan(pl, p, n, feed, u);
	if (u->rc == SHB_H3_RESP_DONE)
		FZ_CHECK(u->r.header_bytes + u->r.body_bytes == n);
	/* once ended, it stays ended and takes nothing */
	if (u->rc != SHB_H3_RESP_MORE)
		FZ_CHECK(shb_h3_resp_feed(&u->r, p, n, 1) == u->rc);
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	int fin = fz_u8(&f) & 1;

	fz_plan_read(&f, &pl);
	run(&split, fin, &pl, f.p, f.n);
	run(&whole, fin, NULL, f.p, f.n);
	FZ_CHECK(split.rc == whole.rc);
	FZ_CHECK(split.r.status == whole.r.status);
	FZ_CHECK(split.r.interim == whole.r.interim);
	FZ_CHECK(split.r.error == whole.r.error);
	FZ_CHECK(split.r.detail == whole.r.detail);
	if (split.rc >= 0) {
		FZ_CHECK(split.r.header_bytes == whole.r.header_bytes);
		FZ_CHECK(split.r.body_bytes == whole.r.body_bytes);
	}
	return 0;
}
