/* The RESP2 reply reader of sdk/examples/redis (resp.c, Sans-I/O, built
 * here from the example's source): a server's byte stream, cut into
 * pieces as reads cut it, fed to resp_parse until it refuses the input.
 * Input: a flags byte (bits 0-2: max-bulk, one of 0, 1, 5, 100, 4096,
 * 65535, 1 MiB, 512 MiB), a split plan, then the stream.
 *
 * Checked besides memory safety: bytes consumed never exceed what was
 * offered, and a call consumes something unless it is given nothing;
 * every reply's bytes add up to the bytes consumed up to its end; a reply
 * is at least 3 bytes ("+\r\n"), its kind ok, nil or error, its word NUL
 * terminated printable ASCII, empty unless the reply is an error; the
 * open arrays never pass RESP_DEPTH_MAX; and the replies, the refusal
 * and its reason do not depend on the cuts. */
#include <string.h>

#include "fuzz_input.h"
#include "resp.h"

static const uint64_t maxes[8] = {
	0, 1, 5, 100, 4096, 65535, RESP_BULK_DEFAULT, RESP_BULK_LIMIT,
};

struct run {
	struct resp_parser p;
	uint64_t fed;     /* bytes consumed */
	uint64_t ended;   /* bytes consumed up to the last reply's end */
	uint64_t replies;
	uint64_t digest;  /* of every reply's kind, bytes, integer, word */
	int rc;
	const char *why;
};

static void check_reply(struct run *u, const struct resp_reply *r)
{
	size_t w = strnlen(r->word, RESP_WORD_MAX);

	FZ_CHECK(r->kind <= RESP_ERROR && r->bytes >= 3);
	FZ_CHECK(w < RESP_WORD_MAX);
	FZ_CHECK(r->kind == RESP_ERROR || w == 0);
	for (size_t i = 0; i < w; i++)
		FZ_CHECK(r->word[i] > 0x20 && r->word[i] < 0x7f);
	FZ_CHECK(u->ended + r->bytes == u->fed);
	u->ended = u->fed;
	u->replies++;
	u->digest = u->digest * 1000003u ^ (r->kind + 3u * r->bytes +
					    7u * (uint64_t)r->integer);
	for (size_t i = 0; i < w; i++)
		u->digest = u->digest * 31u + (uint8_t)r->word[i];
}

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;
	size_t at = 0;

	(void)last;
	while (at < n) {
		struct resp_reply r;
		int done;
		ptrdiff_t c = resp_parse(&u->p, p + at, n - at, &r, &done);

		FZ_CHECK(u->p.depth <= RESP_DEPTH_MAX);
		if (c < 0) {
			FZ_CHECK(u->p.err != NULL);
			u->rc = -1;
			u->why = u->p.err;
			return 1;
		}
		FZ_CHECK(c > 0 && (size_t)c <= n - at);
		FZ_CHECK(done || (size_t)c == n - at);
		at += (size_t)c;
		u->fed += (uint64_t)c;
		if (done)
			check_reply(u, &r);
	}
	return 0;
}

static void run(struct run *u, uint64_t max, const struct fz_plan *pl,
		const uint8_t *p, size_t n)
{
	memset(u, 0, sizeof(*u));
	resp_init(&u->p, max);
	fz_feed_plan(pl, p, n, feed, u);
	if (u->rc == 0)
		FZ_CHECK(u->fed == n && (u->ended == n) == !resp_in_reply(&u->p));
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct fz_plan pl;
	uint64_t max = maxes[fz_u8(&f) & 7];

	fz_plan_read(&f, &pl);
	run(&split, max, &pl, f.p, f.n);
	run(&whole, max, NULL, f.p, f.n);
	FZ_CHECK(split.rc == whole.rc && split.why == whole.why);
	FZ_CHECK(split.replies == whole.replies && split.digest == whole.digest &&
		 split.ended == whole.ended);
	if (whole.rc == 0)
		FZ_CHECK(split.p.depth == whole.p.depth &&
			 split.p.state == whole.p.state);
	return 0;
}
