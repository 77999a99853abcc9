/* The HTTP/1.x response scanner, fed the way h1_conn.c feeds it: a byte
 * stream of back-to-back responses, begin() again after each DONE, eof()
 * when the peer closes. Input: a flags byte (bits 0-5: response i answers
 * a HEAD; bit 7: the peer closes after the data), a split plan, then the
 * server's bytes.
 *
 * Checked besides memory safety: `used` never exceeds what was offered,
 * a complete response's head + body bytes equal the bytes it consumed,
 * and the split run gives exactly the results of the unsplit run (for a
 * malformed response: the same reason). */
#include <string.h>

#include "fuzz_input.h"
#include "h1_scan.h"

#define MAX_RESULTS 64

struct result {
	int rc;
	uint32_t status, framing, interim;
	int keep_alive;
	uint64_t head, body, content_length;
	const char *reason;
};

struct run {
	unsigned flags;
	struct shb_h1_scan s;
	size_t index;    /* responses begun */
	uint64_t used;   /* bytes consumed by the current response */
	int stopped;     /* an error ended the stream */
	size_t count;
	struct result r[MAX_RESULTS];
};

static void begin(struct run *u)
{
	unsigned head = u->index < 6 ? (u->flags >> u->index) & 1 : 0;

	shb_h1_scan_begin(&u->s, (int)head);
	u->index++;
	u->used = 0;
}

static void record(struct run *u, int rc)
{
	struct result *r;

	if (rc == SHB_H1_SCAN_DONE)
		FZ_CHECK(shb_h1_scan_header_bytes(&u->s) +
				 shb_h1_scan_body_bytes(&u->s) ==
			 u->used);
	if (u->count == MAX_RESULTS)
		return;
	r = &u->r[u->count++];
	memset(r, 0, sizeof(*r));
	r->rc = rc;
	if (rc == SHB_H1_SCAN_ERROR) {
		/* The scanner counts a malformed line up to where the piece
		 * or the line ended, so only the verdict is compared. */
		r->reason = shb_h1_scan_reason(&u->s);
		FZ_CHECK(r->reason != NULL);
		return;
	}
	r->status = shb_h1_scan_status(&u->s);
	r->framing = shb_h1_scan_framing(&u->s);
	r->interim = shb_h1_scan_interim(&u->s);
	r->keep_alive = shb_h1_scan_keep_alive(&u->s);
	r->head = shb_h1_scan_header_bytes(&u->s);
	r->body = shb_h1_scan_body_bytes(&u->s);
	r->content_length = shb_h1_scan_content_length(&u->s);
	r->reason = shb_h1_scan_reason(&u->s);
}

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;
	size_t off = 0;

	(void)last;
	while (off < n) {
		size_t used = 0;
		int rc = shb_h1_scan_feed(&u->s, p + off, n - off, &used);

		FZ_CHECK(used <= n - off);
		u->used += used;
		off += used;
		if (rc == SHB_H1_SCAN_MORE) {
			FZ_CHECK(off == n);
			break;
		}
		record(u, rc);
		if (rc == SHB_H1_SCAN_ERROR) {
			u->stopped = 1;
			return 1;
		}
		FZ_CHECK(rc == SHB_H1_SCAN_DONE && u->used > 0);
		begin(u);
	}
	return 0;
}

static void run(struct run *u, unsigned flags, const struct fz_plan *pl,
		const uint8_t *p, size_t n)
{
	memset(u, 0, sizeof(*u));
	u->flags = flags;
	begin(u);
	fz_feed_plan(pl, p, n, feed, u);
	if (!u->stopped && (flags & 0x80) && shb_h1_scan_started(&u->s))
		record(u, shb_h1_scan_eof(&u->s));
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	unsigned flags = fz_u8(&f);

	fz_plan_read(&f, &pl);
	run(&split, flags, &pl, f.p, f.n);
	run(&whole, flags, NULL, f.p, f.n);
	FZ_CHECK(split.count == whole.count);
	FZ_CHECK(memcmp(split.r, whole.r, split.count * sizeof(split.r[0])) == 0);
	return 0;
}
