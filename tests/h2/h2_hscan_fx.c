/* The scanner tests' helpers (h2_hscan_fx.h). */
#include "h2_hscan_fx.h"

#include <stdlib.h>
#include <string.h>

#include "h2_tests.h"
#include "http_huffman.h"
#include "http_prefint.h"

/* Scans blk[n] as pieces cut at cuts[0..ncuts) starting from table `in`;
 * the table ends in *out. Returns the feed/end result. */
int hs_scan_pieces(const struct shb_h2_dtable *in,
		       struct shb_h2_dtable *out, const uint8_t *blk,
		       size_t n, const size_t *cuts, size_t ncuts, int *status)
{
	struct shb_h2_hscan s;
	size_t from = 0;
	int rc = SHB_H2_HSCAN_OK;

	if (out != in)
		*out = *in;
	shb_h2_hscan_begin(&s, out);
	for (size_t i = 0; i <= ncuts && rc == SHB_H2_HSCAN_OK; i++) {
		size_t to = i < ncuts ? cuts[i] : n;

		rc = shb_h2_hscan_feed(&s, blk + from, to - from);
		from = to;
	}
	if (rc == SHB_H2_HSCAN_OK)
		rc = shb_h2_hscan_end(&s);
	*status = rc == SHB_H2_HSCAN_OK ? shb_h2_hscan_status(&s) : 0;
	return rc;
}

/* Checks one way of scanning against the reference result. */
static void same_result(int rc, int st, const struct shb_h2_dtable *t,
			int want_rc, int want_st,
			const struct shb_h2_dtable *want_t)
{
	CU_ASSERT_EQUAL(rc, want_rc);
	if (rc != SHB_H2_HSCAN_OK || want_rc != SHB_H2_HSCAN_OK)
		return;
	CU_ASSERT_EQUAL(st, want_st);
	CU_ASSERT_EQUAL(memcmp(t, want_t, sizeof(*t)), 0);
}

/* Scans blk[n] on table *t whole, in two pieces split at every offset,
 * in three at every pair of offsets (small blocks), and one octet at a
 * time: all must agree on the result, the status and the table left
 * behind, which becomes *t. Returns the result; *status the status. */
int hs_scan_all_ways_t(struct shb_h2_dtable *t, const uint8_t *blk,
			   size_t n, int *status)
{
	static struct shb_h2_dtable want, got;
	int want_rc, want_st, rc, st;
	size_t cuts[2];

	want_rc = hs_scan_pieces(t, &want, blk, n, NULL, 0, &want_st);
	for (cuts[0] = 0; cuts[0] <= n; cuts[0]++) {
		rc = hs_scan_pieces(t, &got, blk, n, cuts, 1, &st);
		same_result(rc, st, &got, want_rc, want_st, &want);
		for (cuts[1] = cuts[0]; n <= 48 && cuts[1] <= n; cuts[1]++) {
			rc = hs_scan_pieces(t, &got, blk, n, cuts, 2, &st);
			same_result(rc, st, &got, want_rc, want_st, &want);
		}
	}
	{
		struct shb_h2_hscan s;

		got = *t;
		shb_h2_hscan_begin(&s, &got);
		rc = SHB_H2_HSCAN_OK;
		for (size_t i = 0; i < n && rc == SHB_H2_HSCAN_OK; i++)
			rc = shb_h2_hscan_feed(&s, blk + i, 1);
		if (rc == SHB_H2_HSCAN_OK)
			rc = shb_h2_hscan_end(&s);
		st = rc == SHB_H2_HSCAN_OK ? shb_h2_hscan_status(&s) : 0;
		same_result(rc, st, &got, want_rc, want_st, &want);
	}
	*t = want;
	*status = want_st;
	return want_rc;
}

/* The same on a fresh table of the default size. */
int hs_scan_all_ways(const uint8_t *blk, size_t n, int *status)
{
	struct shb_h2_dtable t;

	shb_h2_dtable_init(&t, 4096);
	return hs_scan_all_ways_t(&t, blk, n, status);
}

long hs_unhex(const char *hex, uint8_t *blk, size_t cap)
{
	long n = shb_h2_unhex(hex, strlen(hex), blk, cap);

	CU_ASSERT_FATAL(n >= 0);
	return n;
}

int hs_scan_hex(const char *hex, int *status)
{
	uint8_t blk[512];
	long n = hs_unhex(hex, blk, sizeof(blk));

	return hs_scan_all_ways(blk, (size_t)n, status);
}

int hs_scan_hex_t(struct shb_h2_dtable *t, const char *hex, int *status)
{
	uint8_t blk[512];
	long n = hs_unhex(hex, blk, sizeof(blk));

	return hs_scan_all_ways_t(t, blk, (size_t)n, status);
}

/* Asserts the table holds exactly entries of these sizes, newest first;
 * name_len and status of each too when the arrays are given. */
void hs_table_is(const struct shb_h2_dtable *t, size_t count,
		     const unsigned *sizes, const unsigned *name_lens,
		     const int *statuses)
{
	unsigned total = 0;

	CU_ASSERT_EQUAL_FATAL(t->count, count);
	for (size_t i = 0; i < count; i++) {
		const struct shb_h2_dtable_entry *e = shb_h2_dtable_get(t, i + 1);

		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_EQUAL(e->size, sizes[i]);
		if (name_lens)
			CU_ASSERT_EQUAL(e->name_len, name_lens[i]);
		if (statuses)
			CU_ASSERT_EQUAL(e->status, statuses[i]);
		total += sizes[i];
	}
	CU_ASSERT_EQUAL(t->size, total);
	CU_ASSERT_PTR_NULL(shb_h2_dtable_get(t, count + 1));
	CU_ASSERT_PTR_NULL(shb_h2_dtable_get(t, 0));
}

void hs_put_int(struct hs_blk *b, unsigned prefix, uint8_t flags, uint64_t v)
{
	size_t k = shb_prefint_encode(b->p + b->n, sizeof(b->p) - b->n, prefix,
				      flags, v);

	CU_ASSERT_FATAL(k > 0);
	b->n += k;
}

void hs_put_str(struct hs_blk *b, const char *s, size_t len, int huffman)
{
	if (huffman) {
		size_t k = shb_huff_encoded_len((const uint8_t *)s, len);

		hs_put_int(b, 7, 0x80, k);
		CU_ASSERT_FATAL(b->n + k <= sizeof(b->p));
		CU_ASSERT_EQUAL_FATAL(shb_huff_encode((const uint8_t *)s, len,
						      b->p + b->n, k),
				      k);
		b->n += k;
		return;
	}
	hs_put_int(b, 7, 0x00, len);
	CU_ASSERT_FATAL(b->n + len <= sizeof(b->p));
	memcpy(b->p + b->n, s, len);
	b->n += len;
}

/* Literal with incremental indexing: name_index 0 for a literal name. */
void hs_put_indexed_literal(struct hs_blk *b, uint64_t name_index,
				const char *name, const char *value,
				int huffman)
{
	hs_put_int(b, 6, 0x40, name_index);
	if (!name_index)
		hs_put_str(b, name, strlen(name), huffman);
	hs_put_str(b, value, strlen(value), huffman);
}
