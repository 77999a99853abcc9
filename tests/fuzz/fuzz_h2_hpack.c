/* The HPACK response header scanner with the connection's dynamic table,
 * fed the way h2_recv.c feeds it: one header block after another (HEADERS
 * plus CONTINUATION payloads, cut anywhere), the table carried over.
 * Input: a table limit byte (x 16 octets, capped at the HTTP/2 default),
 * a split plan applied to every block, then blocks as a two-byte length
 * and that many octets.
 *
 * Checked besides memory safety: the table never exceeds its maximum,
 * and the split run gives exactly the results of the unsplit run. */
#include <string.h>

#include "fuzz_input.h"
#include "h2_hscan.h"

#define MAX_BLOCKS 32

struct result {
	int feed_rc, end_rc, status;
	uint32_t table_size, table_count;
};

struct run {
	struct shb_h2_dtable table;
	struct shb_h2_hscan s;
	int rc;
	size_t count;
	struct result r[MAX_BLOCKS];
};

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;

	(void)last;
	u->rc = shb_h2_hscan_feed(&u->s, p, n);
	return u->rc != SHB_H2_HSCAN_OK;
}

/* One block; returns 0 when the connection would go on. */
static int block(struct run *u, const struct fz_plan *pl, const uint8_t *p,
		 size_t n)
{
	struct result *r = &u->r[u->count++];

	memset(r, 0, sizeof(*r));
	u->rc = SHB_H2_HSCAN_OK;
	shb_h2_hscan_begin(&u->s, &u->table);
	fz_feed_plan(pl, p, n, feed, u);
	r->feed_rc = u->rc;
	if (u->rc == SHB_H2_HSCAN_OK) {
		r->end_rc = shb_h2_hscan_end(&u->s);
		if (r->end_rc == SHB_H2_HSCAN_OK)
			r->status = shb_h2_hscan_status(&u->s);
	}
	r->table_size = u->table.size;
	r->table_count = u->table.count;
	FZ_CHECK(u->table.size <= u->table.max);
	FZ_CHECK(u->table.max <= u->table.limit);
	FZ_CHECK(u->table.count <= SHB_H2_DTABLE_SLOTS);
	/* a scan error is a COMPRESSION_ERROR: the connection ends */
	return r->feed_rc != SHB_H2_HSCAN_OK || r->end_rc != SHB_H2_HSCAN_OK;
}

static void run(struct run *u, uint32_t limit, const struct fz_plan *pl,
		struct fz f)
{
	memset(u, 0, sizeof(*u));
	shb_h2_dtable_init(&u->table, limit);
	while (f.n && u->count < MAX_BLOCKS) {
		size_t n;
		const uint8_t *p = fz_take(&f, fz_u16(&f), &n);

		if (block(u, pl, p, n))
			break;
	}
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	uint32_t limit = fz_u8(&f) * 16u;

	if (limit > SHB_H2_DTABLE_MAX)
		limit = SHB_H2_DTABLE_MAX;
	fz_plan_read(&f, &pl);
	run(&split, limit, &pl, f);
	run(&whole, limit, NULL, f);
	FZ_CHECK(split.count == whole.count);
	FZ_CHECK(memcmp(split.r, whole.r, split.count * sizeof(split.r[0])) == 0);
	return 0;
}
