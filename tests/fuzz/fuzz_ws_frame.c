/* The WebSocket frame decoder of sdk/examples/websocket (ws_frame.c,
 * Sans-I/O, built here from the example's source): the server's bytes,
 * cut into pieces, fed to ws_dec_feed as ws_conn.c feeds them until an
 * error. Input: a flags byte (bits 0-3: the k-th begin or end callback,
 * counted from 1, returns an error of the caller's; 0 never), a split
 * plan, then the server's bytes.
 *
 * Checked besides memory safety: every data callback gets a non-empty
 * part of the piece being fed; a frame's data adds up to the length its
 * header announced before its end is reported; headers are 2, 4 or 10
 * bytes, control frames final and at most 125 bytes, opcodes defined; a
 * callback's error is returned as is; and the frames, their payload and
 * the verdict do not depend on where the bytes were cut. */
#include <string.h>

#include "fuzz_input.h"
#include "ws_frame.h"

#define MAX_FRAMES 64
#define CALLER_ERR (-100)

struct frame {
	uint32_t op, fin, hlen, ended;
	uint64_t len, got, hash;
};

struct run {
	struct ws_dec d;
	unsigned fail_at, calls;
	const uint8_t *piece; /* the piece being fed */
	size_t piece_len;
	size_t count; /* frames begun */
	struct frame f[MAX_FRAMES];
	int rc;
};

static struct frame *open_frame(struct run *u)
{
	FZ_CHECK(u->count > 0);
	return &u->f[(u->count - 1) % MAX_FRAMES];
}

static int fail_now(struct run *u)
{
	return ++u->calls == u->fail_at ? CALLER_ERR : 0;
}

static int on_begin(void *ctx, uint32_t op, uint32_t fin, uint64_t len,
		    uint32_t hlen)
{
	struct run *u = ctx;
	struct frame *f;

	FZ_CHECK(u->count == 0 || open_frame(u)->ended);
	FZ_CHECK(hlen == 2 || hlen == 4 || hlen == 10);
	FZ_CHECK(op <= WS_OP_BINARY || (op >= WS_OP_CLOSE && op <= WS_OP_PONG));
	if (op >= WS_OP_CLOSE)
		FZ_CHECK(fin && len <= WS_CONTROL_MAX);
	FZ_CHECK(len >> 63 == 0);
	u->count++;
	f = open_frame(u);
	memset(f, 0, sizeof(*f));
	f->op = op;
	f->fin = fin;
	f->len = len;
	f->hlen = hlen;
	f->hash = 1469598103934665603ull;
	return fail_now(u);
}

static int on_data(void *ctx, const uint8_t *p, size_t n)
{
	struct run *u = ctx;
	struct frame *f = open_frame(u);

	FZ_CHECK(!f->ended && n > 0);
	FZ_CHECK(p >= u->piece && n <= u->piece_len &&
		 (size_t)(p - u->piece) <= u->piece_len - n);
	FZ_CHECK(f->got + n <= f->len);
	for (size_t i = 0; i < n; i++)
		f->hash = (f->hash ^ p[i]) * 1099511628211ull;
	f->got += n;
	return 0;
}

static int on_end(void *ctx)
{
	struct run *u = ctx;
	struct frame *f = open_frame(u);

	FZ_CHECK(!f->ended && f->got == f->len);
	f->ended = 1;
	return fail_now(u);
}

static const struct ws_dec_cb cb = { on_begin, on_data, on_end };

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;

	(void)last;
	u->piece = p;
	u->piece_len = n;
	u->rc = ws_dec_feed(&u->d, p, n, &cb, u);
	FZ_CHECK(u->rc == 0 || u->rc == CALLER_ERR ||
		 (u->rc <= WS_DEC_RSV && u->rc >= WS_DEC_LENGTH));
	if (u->rc == CALLER_ERR)
		FZ_CHECK(u->calls == u->fail_at);
	return u->rc != 0;
}

static void run(struct run *u, unsigned fail_at, const struct fz_plan *pl,
		const uint8_t *p, size_t n)
{
	memset(u, 0, sizeof(*u));
	u->fail_at = fail_at;
	fz_feed_plan(pl, p, n, feed, u);
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct fz_plan pl;
	unsigned fail_at = fz_u8(&f) & 15;

	fz_plan_read(&f, &pl);
	run(&split, fail_at, &pl, f.p, f.n);
	run(&whole, fail_at, NULL, f.p, f.n);
	FZ_CHECK(split.rc == whole.rc && split.count == whole.count);
	FZ_CHECK(split.calls == whole.calls);
	FZ_CHECK(!memcmp(split.f, whole.f, sizeof(split.f)));
	return 0;
}
