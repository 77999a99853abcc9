/* The proxy's answer to CONNECT (core/engine/proxy.c shb_proxy_read_head), read
 * the way conn_stream.c reads it: the bytes that arrived so far are
 * appended to one buffer and the whole buffer is parsed again after each
 * receive, until the head is complete or refused. Input: a flags byte
 * (bit 0: the payload is repeated to just under the 16 KiB head cap, so
 * that the cap itself is reached), a split plan, then the proxy's bytes.
 *
 * Checked besides memory safety: a complete head is never longer than
 * what was offered nor the cap and ends with its empty line (so the
 * caller's strcspn for the status line stays inside it), its status has
 * three digits, "wait for more" happens only under the cap, an error has
 * a message, and the result does not depend on how the bytes were cut. */
#include <string.h>

#include "fuzz_input.h"
#include "engine/proxy.h"

struct result {
	long n;
	unsigned status;
};

struct run {
	uint8_t *buf; /* exactly `len` bytes: no NUL after them */
	size_t len;
	struct result r;
	int done;
};

static void check(const struct run *u, long n, unsigned status,
		  const char *err)
{
	FZ_CHECK(n >= -1);
	if (n < 0) {
		FZ_CHECK(err[0] != '\0');
		return;
	}
	if (n == 0) {
		FZ_CHECK(u->len < SHB_PROXY_HEAD_MAX);
		return;
	}
	FZ_CHECK((size_t)n <= u->len && n <= SHB_PROXY_HEAD_MAX);
	FZ_CHECK(u->buf[n - 1] == '\n');
	FZ_CHECK(memchr(u->buf, '\n', (size_t)n) != NULL);
	FZ_CHECK(status <= 999 && (status >= 200 || status < 100));
}

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;
	uint8_t *b = malloc(u->len + n ? u->len + n : 1);
	char err[256] = "";
	unsigned status = 0;
	long r;

	(void)last;
	FZ_CHECK(b != NULL);
	if (u->len)
		memcpy(b, u->buf, u->len);
	if (n)
		memcpy(b + u->len, p, n);
	free(u->buf);
	u->buf = b;
	u->len += n;
	r = shb_proxy_read_head(u->buf, u->len, &status, err, sizeof err);
	check(u, r, status, err);
	if (r == 0)
		return 0;
	u->r.n = r;
	u->r.status = r > 0 ? status : 0;
	u->done = 1;
	return 1;
}

static void run(struct run *u, const struct fz_plan *pl, const uint8_t *p,
		size_t n)
{
	memset(u, 0, sizeof *u);
	fz_feed_plan(pl, p, n, feed, u);
	free(u->buf);
	u->buf = NULL;
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct fz_plan pl;
	unsigned flags = fz_u8(&f);
	uint8_t *rep = NULL;
	const uint8_t *p;
	size_t n;

	fz_plan_read(&f, &pl);
	p = f.p;
	n = f.n;
	if ((flags & 1) && n) {
		size_t want = SHB_PROXY_HEAD_MAX - 64 + (flags >> 1);

		rep = malloc(want);
		FZ_CHECK(rep != NULL);
		for (size_t i = 0; i < want; i++)
			rep[i] = p[i % n];
		p = rep;
		n = want;
		/* conn_stream.c parses the whole backlog after each receive:
		 * a byte at a time over 16 KiB is 2^27 steps per input. */
		pl.bytewise = 0;
	}
	run(&split, &pl, p, n);
	run(&whole, NULL, p, n);
	FZ_CHECK(split.done == whole.done);
	FZ_CHECK(split.r.n == whole.r.n && split.r.status == whole.r.status);
	free(rep);
	return 0;
}
