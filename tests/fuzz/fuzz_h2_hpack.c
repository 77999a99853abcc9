/* The HPACK response header scanner with the connection's dynamic table,
 * fed the way h2_recv_headers.c feeds it: one header block after another
 * (HEADERS plus CONTINUATION payloads, cut anywhere), the table carried
 * over.
 * Input: a table limit byte (x 16 octets, capped at the HTTP/2 default;
 * 0xfe and 0xff: 65536, the table a profile such as chrome announces,
 * with its allocated slots; an odd byte also decodes every field, with
 * the table's octets, as for an observer of org.shb.h2.proto/1), a split
 * plan applied to every
 * block, then blocks as a two-byte length and that many octets.
 *
 * Checked besides memory safety: the table never exceeds its maximum,
 * and the split run gives exactly the results (status, why malformed,
 * list size, table size and count, and decoded fields) of
 * the unsplit run, which alone remembers repeated Huffman values and
 * blocks (shb_h2_hscan_memo) as a connection does; and so does a third
 * run, split the same way and with the memo, that begins each block not
 * collected as the plugin does, by shb_h2_hscan_start with its first
 * piece. */
#include <string.h>

#include "fuzz_input.h"
#include "h2_hscan.h"

#define MAX_BLOCKS 32

struct result {
	int feed_rc, end_rc, status;
	const char *malformed;
	uint64_t list_size;
	uint32_t table_size, table_count;
	uint32_t fields;     /* decoded fields, when collecting */
	uint64_t field_hash; /* FNV-1a of their records */
};

struct run {
	struct shb_h2_dtable table;
	struct shb_h2_hscan s;
	int collect;
	uint8_t ring[SHB_H2_DTABLE_CAP]; /* shb_h2_dtable_ring() of the largest */
	struct shb_h2_fields fields;
	struct shb_h2_hmemo memo;
	int use_memo;
	int use_start; /* blocks begin with their first piece */
	int started;   /* this block's scanner was begun */
	int rc;
	size_t count;
	struct result r[MAX_BLOCKS];
};

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;

	(void)last;
	if (u->use_start && !u->started)
		u->rc = shb_h2_hscan_start(&u->s, &u->table, &u->memo, p, n);
	else
		u->rc = shb_h2_hscan_feed(&u->s, p, n);
	u->started = 1;
	return u->rc != SHB_H2_HSCAN_OK;
}

/* One block; returns 0 when the connection would go on. */
static int block(struct run *u, const struct fz_plan *pl, const uint8_t *p,
		 size_t n)
{
	struct result *r = &u->r[u->count++];

	memset(r, 0, sizeof(*r));
	u->rc = SHB_H2_HSCAN_OK;
	u->started = 0;
	if (!u->use_start) {
		shb_h2_hscan_begin(&u->s, &u->table);
		if (u->use_memo)
			shb_h2_hscan_memo(&u->s, &u->memo);
		if (u->collect)
			shb_h2_hscan_collect(&u->s, &u->fields);
		u->started = 1;
	}
	fz_feed_plan(pl, p, n, feed, u);
	if (!u->started) { /* no piece: begun at its end */
		shb_h2_hscan_begin(&u->s, &u->table);
		shb_h2_hscan_memo(&u->s, &u->memo);
	}
	r->feed_rc = u->rc;
	if (u->rc == SHB_H2_HSCAN_OK) {
		r->end_rc = shb_h2_hscan_end(&u->s);
		if (r->end_rc == SHB_H2_HSCAN_OK) {
			r->status = shb_h2_hscan_status(&u->s);
			r->malformed = shb_h2_hscan_malformed(&u->s);
			r->list_size = u->s.list_size;
		}
	}
	if (u->collect && r->feed_rc == SHB_H2_HSCAN_OK &&
	    r->end_rc == SHB_H2_HSCAN_OK) {
		const uint8_t *name, *value;
		size_t off = 0, nlen, vlen;

		r->field_hash = 14695981039346656037ull;
		while (shb_h2_fields_next(&u->fields, &off, &name, &nlen,
					  &value, &vlen)) {
			for (size_t i = 0; i < nlen + vlen; i++)
				r->field_hash = (r->field_hash ^ name[i]) *
						1099511628211ull;
			r->fields++;
		}
		FZ_CHECK(r->fields == u->fields.count);
		FZ_CHECK(off == u->fields.b.len);
	}
	r->table_size = u->table.size;
	r->table_count = u->table.count;
	FZ_CHECK(u->table.size <= u->table.max);
	FZ_CHECK(u->table.max <= u->table.limit);
	FZ_CHECK(u->table.count <= u->table.mask + 1);
	/* a scan error is a COMPRESSION_ERROR: the connection ends */
	return r->feed_rc != SHB_H2_HSCAN_OK || r->end_rc != SHB_H2_HSCAN_OK;
}

static void run(struct run *u, uint32_t limit, int collect,
		const struct fz_plan *pl, int start, struct fz f)
{
	shb_h2_fields_free(&u->fields);
	shb_h2_dtable_free(&u->table);
	memset(u, 0, sizeof(*u));
	FZ_CHECK(shb_h2_dtable_init_big(&u->table, limit) == 0);
	u->collect = collect;
	u->use_memo = pl == NULL || start;
	u->use_start = start;
	if (collect)
		shb_h2_dtable_keep_octets(&u->table, u->ring);
	while (f.n && u->count < MAX_BLOCKS) {
		size_t n;
		const uint8_t *p = fz_take(&f, fz_u16(&f), &n);

		if (block(u, pl, p, n))
			break;
	}
}

static struct run split, whole, started;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	uint8_t first = fz_u8(&f);
	uint32_t limit = first * 16u;
	int collect = first & 1;

	if (first >= 0xfe)
		limit = SHB_H2_DTABLE_CAP;
	else if (limit > SHB_H2_DTABLE_MAX)
		limit = SHB_H2_DTABLE_MAX;
	fz_plan_read(&f, &pl);
	run(&split, limit, collect, &pl, 0, f);
	run(&whole, limit, collect, NULL, 0, f);
	FZ_CHECK(split.count == whole.count);
	FZ_CHECK(memcmp(split.r, whole.r, split.count * sizeof(split.r[0])) == 0);
	if (!collect) { /* the plugin collects with begin, never start */
		run(&started, limit, collect, &pl, 1, f);
		FZ_CHECK(started.count == whole.count);
		FZ_CHECK(memcmp(started.r, whole.r,
				started.count * sizeof(started.r[0])) == 0);
	}
	return 0;
}
