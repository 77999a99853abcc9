/* The response header block scanner: :status from every representation,
 * the dynamic table it keeps from lengths alone (RFC 7541 Appendix C
 * table states, :status entries, size updates, eviction, oversized
 * entries, a random cross-check with the full test decoder), errors, and
 * every block split at every offset with the same resulting table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_hpack.h"
#include "h2_hscan.h"
#include "h2_tests.h"
#include "http_huffman.h"
#include "http_prefint.h"
#include "http_status.h"

/* ---- scanning helpers ------------------------------------------------- */

/* Scans blk[n] as pieces cut at cuts[0..ncuts) starting from table `in`;
 * the table ends in *out. Returns the feed/end result. */
static int scan_pieces(const struct shb_h2_dtable *in,
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
static int scan_all_ways_t(struct shb_h2_dtable *t, const uint8_t *blk,
			   size_t n, int *status)
{
	static struct shb_h2_dtable want, got;
	int want_rc, want_st, rc, st;
	size_t cuts[2];

	want_rc = scan_pieces(t, &want, blk, n, NULL, 0, &want_st);
	for (cuts[0] = 0; cuts[0] <= n; cuts[0]++) {
		rc = scan_pieces(t, &got, blk, n, cuts, 1, &st);
		same_result(rc, st, &got, want_rc, want_st, &want);
		for (cuts[1] = cuts[0]; n <= 48 && cuts[1] <= n; cuts[1]++) {
			rc = scan_pieces(t, &got, blk, n, cuts, 2, &st);
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
static int scan_all_ways(const uint8_t *blk, size_t n, int *status)
{
	struct shb_h2_dtable t;

	shb_h2_dtable_init(&t, 4096);
	return scan_all_ways_t(&t, blk, n, status);
}

static long unhex(const char *hex, uint8_t *blk, size_t cap)
{
	long n = shb_h2_unhex(hex, strlen(hex), blk, cap);

	CU_ASSERT_FATAL(n >= 0);
	return n;
}

static int scan_hex(const char *hex, int *status)
{
	uint8_t blk[512];
	long n = unhex(hex, blk, sizeof(blk));

	return scan_all_ways(blk, (size_t)n, status);
}

static int scan_hex_t(struct shb_h2_dtable *t, const char *hex, int *status)
{
	uint8_t blk[512];
	long n = unhex(hex, blk, sizeof(blk));

	return scan_all_ways_t(t, blk, (size_t)n, status);
}

/* Asserts the table holds exactly entries of these sizes, newest first;
 * name_len and status of each too when the arrays are given. */
static void table_is(const struct shb_h2_dtable *t, size_t count,
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

/* ---- a block builder ----------------------------------------------------- */

struct blk {
	uint8_t p[8192];
	size_t n;
};

static void put_int(struct blk *b, unsigned prefix, uint8_t flags, uint64_t v)
{
	size_t k = shb_prefint_encode(b->p + b->n, sizeof(b->p) - b->n, prefix,
				      flags, v);

	CU_ASSERT_FATAL(k > 0);
	b->n += k;
}

static void put_str(struct blk *b, const char *s, size_t len, int huffman)
{
	if (huffman) {
		size_t k = shb_huff_encoded_len((const uint8_t *)s, len);

		put_int(b, 7, 0x80, k);
		CU_ASSERT_FATAL(b->n + k <= sizeof(b->p));
		CU_ASSERT_EQUAL_FATAL(shb_huff_encode((const uint8_t *)s, len,
						      b->p + b->n, k),
				      k);
		b->n += k;
		return;
	}
	put_int(b, 7, 0x00, len);
	CU_ASSERT_FATAL(b->n + len <= sizeof(b->p));
	memcpy(b->p + b->n, s, len);
	b->n += len;
}

/* Literal with incremental indexing: name_index 0 for a literal name. */
static void put_indexed_literal(struct blk *b, uint64_t name_index,
				const char *name, const char *value,
				int huffman)
{
	put_int(b, 6, 0x40, name_index);
	if (!name_index)
		put_str(b, name, strlen(name), huffman);
	put_str(b, value, strlen(value), huffman);
}

/* ---- stateless forms ---------------------------------------------------- */

static void test_static_status_indices(void)
{
	static const struct {
		const char *hex;
		int status;
	} v[] = {
		{"88", 200}, {"89", 204}, {"8a", 206}, {"8b", 304},
		{"8c", 400}, {"8d", 404}, {"8e", 500},
		/* other fields around it */
		{"bb88", 200}, {"0f0d023132" "8e", 500},
	};
	int st;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CU_ASSERT_EQUAL(scan_hex(v[i].hex, &st), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, v[i].status);
	}
}

static void test_literal_status_forms(void)
{
	static const struct {
		const char *hex;
		int status;
	} v[] = {
		/* name index 8..14 with another value, each literal kind */
		{"0803343138", 418},   /* without indexing, idx 8 */
		{"1e03323939", 299},   /* never indexed, idx 14 */
		{"4c03353033", 503},   /* incremental, idx 12 */
		/* literal name ":status" */
		{"00073a73746174757303313033", 103},
		{"40073a73746174757303323034", 204},
		/* Huffman value "302" (RFC 7541 C.6.1) */
		{"48826402", 302},
		/* not a status: a literal named ":statu" */
		{"00063a737461747503313030", 0},
		/* :status-like with a longer name */
		{"00083a7374617475737303313030" "89", 204},
		/* no :status at all: trailers */
		{"400a637573746f6d2d6b65790d637573746f6d2d686561646572", 0},
		{"", 0},
		/* size updates at the start: 0, twice, up to our 4096 */
		{"2088", 200},
		{"202088", 200},
		{"3fe11f88", 200},
		{"203fe11f213fe11f8d", 404},
	};
	int st;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CU_ASSERT_EQUAL(scan_hex(v[i].hex, &st), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, v[i].status);
	}
}

/* Huffman-coded name and value built with the encoder, without and with
 * indexing. */
static void test_huffman_name_and_value(void)
{
	struct blk b;
	struct shb_h2_dtable t;
	int st;

	b.n = 0;
	put_int(&b, 4, 0x00, 0);
	put_str(&b, ":status", 7, 1);
	put_str(&b, "451", 3, 1);
	CU_ASSERT_EQUAL(scan_all_ways(b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 451);

	shb_h2_dtable_init(&t, 4096);
	b.n = 0;
	put_indexed_literal(&b, 0, ":status", "451", 1);
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 451);
	table_is(&t, 1, (const unsigned[]){42}, (const unsigned[]){7},
		 (const int[]){451});
}

static void test_malformed_status(void)
{
	static const char *const v[] = {
		"08033230",   /* truncated: error below */
		"08023230",   /* two digits */
		"080432303030", /* four digits */
		"0803323078", /* 20x */
		"0803303939", /* leading zero */
		"8888",       /* repeated */
		"880803323030", /* repeated, literal */
		"0809313030303030303030", /* long value */
	};
	int st;

	CU_ASSERT_EQUAL(scan_hex(v[0], &st), SHB_H2_HSCAN_E_TRUNCATED);
	for (size_t i = 1; i < sizeof(v) / sizeof(v[0]); i++) {
		CU_ASSERT_EQUAL(scan_hex(v[i], &st), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, -1);
	}
}

static void test_errors(void)
{
	static const struct {
		const char *hex;
		int rc;
	} v[] = {
		{"80", SHB_H2_HSCAN_E_INDEX0},
		{"be", SHB_H2_HSCAN_E_INDEX},       /* 62, empty table */
		{"ff00", SHB_H2_HSCAN_E_INDEX},     /* 127 */
		{"0f2f0130", SHB_H2_HSCAN_E_INDEX}, /* literal, name 62 */
		{"7f000130", SHB_H2_HSCAN_E_INDEX}, /* incremental, name 63 */
		{"1f30", SHB_H2_HSCAN_E_INDEX},     /* never indexed, name 63 */
		/* the entry a field inserts exists only after it */
		{"7e0161", SHB_H2_HSCAN_E_INDEX},
		{"4001610162bf", SHB_H2_HSCAN_E_INDEX}, /* one entry: 62 only */
		{"3fe21f", SHB_H2_HSCAN_E_SIZE_UPDATE}, /* 4097 */
		{"3fffffff0f", SHB_H2_HSCAN_E_SIZE_UPDATE},
		{"8820", SHB_H2_HSCAN_E_SIZE_LATE},   /* after a field */
		{"400161016220", SHB_H2_HSCAN_E_SIZE_LATE},
		{"00", SHB_H2_HSCAN_E_TRUNCATED},
		{"0001", SHB_H2_HSCAN_E_TRUNCATED},
		{"000161", SHB_H2_HSCAN_E_TRUNCATED},
		{"00016101", SHB_H2_HSCAN_E_TRUNCATED},
		{"0f", SHB_H2_HSCAN_E_TRUNCATED},
		{"0f80", SHB_H2_HSCAN_E_TRUNCATED},
		{"3f", SHB_H2_HSCAN_E_TRUNCATED},
		{"4081", SHB_H2_HSCAN_E_TRUNCATED},
		{"007f80808080808080808001", SHB_H2_HSCAN_E_INTEGER},
		{"00" "7fffffffff0f", SHB_H2_HSCAN_E_INTEGER}, /* length > 2^32 */
		/* a Huffman string that goes into the table must be valid:
		 * "a" (00011) with a zero in the padding, 11 bits of padding,
		 * and EOS */
		{"40811801620162", SHB_H2_HSCAN_E_HUFFMAN},
		{"40821fff0162", SHB_H2_HSCAN_E_HUFFMAN},
		{"40016184ffffffff", SHB_H2_HSCAN_E_HUFFMAN},
		/* and so must every other one (RFC 7541 Section 5.2), in
		 * names and values, without and never indexed */
		{"008118016288", SHB_H2_HSCAN_E_HUFFMAN},
		{"00821fff016288", SHB_H2_HSCAN_E_HUFFMAN},
		{"880f0d84ffffffff", SHB_H2_HSCAN_E_HUFFMAN},
		{"881f0d821fff", SHB_H2_HSCAN_E_HUFFMAN},
		{"0884ffffffff", SHB_H2_HSCAN_E_HUFFMAN}, /* :status value */
		/* EOS after a valid symbol, padding of zeros */
		{"000161851fffffffff", SHB_H2_HSCAN_E_HUFFMAN},
		{"0001618100", SHB_H2_HSCAN_E_HUFFMAN},
	};
	int st;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CU_ASSERT_EQUAL(scan_hex(v[i].hex, &st), v[i].rc);
}

/* ---- malformed responses (RFC 9113 Section 8.3) --------------------------- */

/* The malformed reason of blk[n] scanned on *t whole, split in two at
 * every offset and one octet at a time: all must agree. *t advances. */
static int malformed_all_ways(struct shb_h2_dtable *t, const uint8_t *blk,
			      size_t n)
{
	struct shb_h2_dtable start = *t;
	int want = -1;

	for (size_t cut = 0; cut <= n + 1; cut++) {
		struct shb_h2_hscan s;
		int rc = SHB_H2_HSCAN_OK;

		*t = start;
		shb_h2_hscan_begin(&s, t);
		if (cut <= n) {
			rc = shb_h2_hscan_feed(&s, blk, cut);
			if (rc == SHB_H2_HSCAN_OK)
				rc = shb_h2_hscan_feed(&s, blk + cut, n - cut);
		} else {
			for (size_t i = 0; i < n && rc == SHB_H2_HSCAN_OK; i++)
				rc = shb_h2_hscan_feed(&s, blk + i, 1);
		}
		if (rc == SHB_H2_HSCAN_OK)
			rc = shb_h2_hscan_end(&s);
		CU_ASSERT_EQUAL_FATAL(rc, SHB_H2_HSCAN_OK);
		if (want < 0)
			want = s.malformed;
		CU_ASSERT_EQUAL(s.malformed, want);
		CU_ASSERT_EQUAL(shb_h2_hscan_malformed(&s) == NULL,
				want == SHB_H2_HSCAN_M_NONE);
	}
	return want;
}

static int malformed_hex_t(struct shb_h2_dtable *t, const char *hex)
{
	uint8_t blk[512];
	long n = unhex(hex, blk, sizeof(blk));

	return malformed_all_ways(t, blk, (size_t)n);
}

static int malformed_hex(const char *hex)
{
	struct shb_h2_dtable t;

	shb_h2_dtable_init(&t, 4096);
	return malformed_hex_t(&t, hex);
}

/* Pseudo-headers other than :status, late ones, :status twice or bad, and
 * uppercase names, from static indices and literal names. */
static void test_malformed_forms(void)
{
	static const struct {
		const char *hex;
		int why;
	} v[] = {
		{"88", SHB_H2_HSCAN_M_NONE},
		{"880f0d023132", SHB_H2_HSCAN_M_NONE},
		{"", SHB_H2_HSCAN_M_NONE},
		{"0f0d023132", SHB_H2_HSCAN_M_NONE}, /* trailers-like */
		/* request pseudo-headers by static index: :authority,
		 * :method GET, :path /, :scheme https */
		{"8881", SHB_H2_HSCAN_M_PSEUDO},
		{"8882", SHB_H2_HSCAN_M_PSEUDO},
		{"8884", SHB_H2_HSCAN_M_PSEUDO},
		{"8887", SHB_H2_HSCAN_M_PSEUDO},
		{"82", SHB_H2_HSCAN_M_PSEUDO},
		/* by name index with a value: :method, :path */
		{"88" "0203505554", SHB_H2_HSCAN_M_PSEUDO},
		{"88" "140178", SHB_H2_HSCAN_M_PSEUDO},
		/* literal names :protocol and :foo (unknown) */
		{"88" "00093a70726f746f636f6c" "03666f6f", SHB_H2_HSCAN_M_PSEUDO},
		{"88" "00043a666f6f" "0178", SHB_H2_HSCAN_M_PSEUDO},
		/* a literal named ":statu" is not :status */
		{"00063a737461747503313030", SHB_H2_HSCAN_M_PSEUDO},
		/* a pseudo-header after a regular field */
		{"bb88", SHB_H2_HSCAN_M_PSEUDO_LATE},
		{"0f0d023132" "8e", SHB_H2_HSCAN_M_PSEUDO_LATE},
		{"0f0d023132" "0803323030", SHB_H2_HSCAN_M_PSEUDO_LATE},
		/* :status twice, or not three digits */
		{"8888", SHB_H2_HSCAN_M_STATUS_DUP},
		{"880803323030", SHB_H2_HSCAN_M_STATUS_DUP},
		{"08023230", SHB_H2_HSCAN_M_STATUS_VALUE},
		{"0803303939", SHB_H2_HSCAN_M_STATUS_VALUE},
		/* uppercase letters in literal names, first or later */
		{"88" "0003582d61" "0176", SHB_H2_HSCAN_M_UPPERCASE},
		{"88" "0003782d41" "0176", SHB_H2_HSCAN_M_UPPERCASE},
		{"88" "00097878787878787878" "5a" "0176", SHB_H2_HSCAN_M_UPPERCASE},
		/* the first reason found is the one given */
		{"bb8882", SHB_H2_HSCAN_M_PSEUDO_LATE},
		{"8288", SHB_H2_HSCAN_M_PSEUDO},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int got = malformed_hex(v[i].hex);

		if (got != v[i].why)
			fprintf(stderr, "\n  %s: %d\n", v[i].hex, got);
		CU_ASSERT_EQUAL(got, v[i].why);
	}
}

/* Huffman-coded names: ':' is found from the code's first 7 bits, and
 * uppercase letters from the decoded symbols. */
static void test_malformed_huffman_names(void)
{
	static const struct {
		const char *name;
		int why;
	} v[] = {
		{"x-custom", SHB_H2_HSCAN_M_NONE},
		{"content-type", SHB_H2_HSCAN_M_NONE},
		{"X-Custom", SHB_H2_HSCAN_M_UPPERCASE},
		{"x-customZ", SHB_H2_HSCAN_M_UPPERCASE},
		{"a-very-long-header-name-with-one-Q-in-it", SHB_H2_HSCAN_M_UPPERCASE},
		{":method", SHB_H2_HSCAN_M_PSEUDO},
		{":protocol", SHB_H2_HSCAN_M_PSEUDO},
		{":status", SHB_H2_HSCAN_M_STATUS_DUP},
	};
	struct blk b;
	struct shb_h2_dtable t;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		b.n = 0;
		put_int(&b, 7, 0x80, 8); /* :status 200 */
		put_int(&b, 4, 0x10, 0); /* never indexed, literal name */
		put_str(&b, v[i].name, strlen(v[i].name), 1);
		put_str(&b, "200", 3, 1);
		shb_h2_dtable_init(&t, 4096);
		CU_ASSERT_EQUAL(malformed_all_ways(&t, b.p, b.n), v[i].why);
	}
}

/* What an entry's name is travels with it in the dynamic table: a later
 * reference to a :method entry or an uppercase name is malformed too,
 * whole (indexed) or by name. */
static void test_malformed_through_table(void)
{
	struct shb_h2_dtable t;

	shb_h2_dtable_init(&t, 4096);
	/* :method PUT (name index 2) and "A: b" go into the table */
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "88" "4203505554"),
			SHB_H2_HSCAN_M_PSEUDO);
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "88" "4001410162"),
			SHB_H2_HSCAN_M_UPPERCASE);
	CU_ASSERT_EQUAL(t.count, 2);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->name_kind,
			SHB_H2_NAME_REGULAR | SHB_H2_NAME_UPPER);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 2)->name_kind, SHB_H2_NAME_PSEUDO);
	/* 62 is "A: b", 63 ":method: PUT" */
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "88be"), SHB_H2_HSCAN_M_UPPERCASE);
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "88bf"), SHB_H2_HSCAN_M_PSEUDO);
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "88" "0f300178"),
			SHB_H2_HSCAN_M_PSEUDO);
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "88" "0f2f0178"),
			SHB_H2_HSCAN_M_UPPERCASE);
	/* a :status entry referenced first is fine */
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "4803343138"), SHB_H2_HSCAN_M_NONE);
	CU_ASSERT_EQUAL(malformed_hex_t(&t, "be" "0f0d0130"),
			SHB_H2_HSCAN_M_NONE);
}

/* The decoded header list (name + value + 32 per field) is capped: an
 * HPACK bomb of one-octet references to a 4000-octet entry passes 65
 * of them and fails at the 66th. */
static void test_list_size_cap(void)
{
	static char value[3968];
	struct shb_h2_dtable t;
	struct blk b;
	int st;

	memset(value, 'v', sizeof(value) - 1);
	shb_h2_dtable_init(&t, 4096);
	b.n = 0;
	put_indexed_literal(&b, 0, "x", value, 0); /* 1 + 3967 + 32 */
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	table_is(&t, 1, (const unsigned[]){4000}, NULL, NULL);
	b.n = 0;
	put_int(&b, 7, 0x80, 8);
	for (int i = 0; i < 65; i++)
		put_int(&b, 7, 0x80, 62);
	/* 32 + 10 for :status 200, 65 * 4000 */
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 200);
	put_int(&b, 7, 0x80, 62);
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st),
			SHB_H2_HSCAN_E_LIST_SIZE);
	/* literal fields count their decoded lengths, Huffman ones too:
	 * 65 fields of 4000 pass, 66 do not */
	for (int huff = 0; huff <= 1; huff++) {
		size_t cap = 300000, n = 0;
		uint8_t *big = malloc(cap);

		CU_ASSERT_PTR_NOT_NULL_FATAL(big);
		for (int i = 0; i < 66; i++) {
			size_t k = shb_huff_encoded_len((const uint8_t *)value,
							sizeof(value) - 1);

			big[n++] = 0x00;
			big[n++] = 0x01;
			big[n++] = 'x';
			if (!huff) {
				n += shb_prefint_encode(big + n, 8, 7, 0x00,
							sizeof(value) - 1);
				memcpy(big + n, value, sizeof(value) - 1);
				n += sizeof(value) - 1;
			} else {
				n += shb_prefint_encode(big + n, 8, 7, 0x80, k);
				n += shb_huff_encode((const uint8_t *)value,
						     sizeof(value) - 1, big + n,
						     cap - n);
			}
			if (i == 64)
				CU_ASSERT_EQUAL(scan_pieces(&t, &t, big, n, NULL,
							    0, &st),
						SHB_H2_HSCAN_OK);
		}
		CU_ASSERT_EQUAL(scan_pieces(&t, &t, big, n, NULL, 0, &st),
				SHB_H2_HSCAN_E_LIST_SIZE);
		free(big);
	}
	CU_ASSERT_STRING_EQUAL(shb_h2_hscan_strerror(SHB_H2_HSCAN_E_LIST_SIZE),
			       "response header list above 262144 octets (cap 262144)");
}

/* ---- the dynamic table ---------------------------------------------------- */

static int status_of(const char *name, const char *value)
{
	if (strcmp(name, ":status") != 0)
		return 0;
	return shb_http_status_digits((const uint8_t *)value, strlen(value));
}

/* RFC 7541 Appendix C: every case in file order, one table per context
 * (sized as the RFC says: 256 for C.5 and C.6), the status of each block
 * and the table after it entry by entry as the RFC lists it. */
static void test_appendix_c_sequences(void)
{
	static struct shb_h2_vec_appendix_c a;
	struct shb_h2_dtable t;
	const char *context = "";
	int st, responses = 0;

	shb_h2_vec_appendix_c(&a);
	for (size_t i = 0; i < a.ncases; i++) {
		const struct shb_h2_vec_case *c = &a.cases[i];
		unsigned sizes[SHB_H2_VEC_MAX_FIELDS];
		unsigned names[SHB_H2_VEC_MAX_FIELDS];
		int statuses[SHB_H2_VEC_MAX_FIELDS];
		int want = 0;

		if (strcmp(c->context, context) != 0) {
			shb_h2_dtable_init(&t, c->max_table);
			context = c->context;
		}
		for (size_t k = 0; k < c->nfields; k++)
			if (status_of(c->fields[k].name, c->fields[k].value))
				want = status_of(c->fields[k].name,
						 c->fields[k].value);
		CU_ASSERT_EQUAL(scan_all_ways_t(&t, c->block, c->block_len, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, want);
		for (size_t k = 0; k < c->ndyn; k++) {
			sizes[k] = c->dyn_size[k];
			names[k] = (unsigned)strlen(c->dyn[k].name);
			statuses[k] = status_of(c->dyn[k].name, c->dyn[k].value);
		}
		table_is(&t, c->ndyn, sizes, names, statuses);
		CU_ASSERT_EQUAL(t.size, c->table_size);
		if (want)
			responses++;
	}
	/* C.5 and C.6: 302, 307, 200 each. */
	CU_ASSERT_EQUAL(responses, 6);
}

/* The RFC's response sequence (C.6) spot-checked by number: 302, 307
 * (its block takes three fields from the dynamic table), 200, with the
 * sizes the RFC lists; then references into what is left. */
static void test_c6_by_hand(void)
{
	static struct shb_h2_vec_appendix_c a;
	struct shb_h2_dtable t;
	const int want[3] = {302, 307, 200};
	const unsigned counts[3] = {4, 4, 3}, sizes[3] = {222, 222, 215};
	int st;

	shb_h2_vec_appendix_c(&a);
	shb_h2_dtable_init(&t, 256);
	for (size_t i = 0, k = 0; i < a.ncases; i++) {
		if (strcmp(a.cases[i].context, "C.6") != 0)
			continue;
		CU_ASSERT_EQUAL(scan_all_ways_t(&t, a.cases[i].block,
						a.cases[i].block_len, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, want[k]);
		CU_ASSERT_EQUAL(t.count, counts[k]);
		CU_ASSERT_EQUAL(t.size, sizes[k]);
		k++;
	}
	/* After C.6.3 the oldest entry is date (65 octets), index 64;
	 * index 65 is gone. */
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 3)->size, 65);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 3)->name_len, 4);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "c1", &st), SHB_H2_HSCAN_E_INDEX);
}

/* A :status kept in the dynamic table: referenced whole (indexed field)
 * and by name (with another value, with and without indexing). */
static void test_status_in_table(void)
{
	struct shb_h2_dtable t;
	struct blk b;
	int st;

	shb_h2_dtable_init(&t, 4096);
	/* :status 418 with incremental indexing (name from static 8), and
	 * an ordinary field after it. */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "4803343138" "4001780179", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	table_is(&t, 2, (const unsigned[]){34, 42}, (const unsigned[]){1, 7},
		 (const int[]){0, 418});
	/* Later blocks: 63 is the :status entry, 62 the other. */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "bf", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 0); /* trailers-like: no :status */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "bebf", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	/* twice: malformed */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "bf88", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1);
	/* its name with another value, without indexing (name 63) */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "0f3003353033", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 503);
	/* never indexed, Huffman value */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "1f30826402", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 302); /* "302" is 64 02 */
	CU_ASSERT_EQUAL(t.count, 2);
	/* with incremental indexing by its name and a Huffman value: the
	 * new entry is :status 307 of 42 octets */
	b.n = 0;
	put_indexed_literal(&b, 63, NULL, "307", 1);
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 307);
	table_is(&t, 3, (const unsigned[]){42, 34, 42},
		 (const unsigned[]){7, 1, 7}, (const int[]){307, 0, 418});
	CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 307);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	/* a literal name ":status" (Huffman) with a malformed value: the
	 * entry says so, and a reference to it is malformed too */
	b.n = 0;
	put_indexed_literal(&b, 0, ":status", "20", 1);
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->status, -1);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->size, 41);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1);
	/* but its name is still :status */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "0f2f03323035", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 205);
	/* a literal named ":statu" is not :status, in the table either */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "40063a7374617475033130308d", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 404);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->status, 0);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->name_len, 6);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 0);
}

/* Dynamic table size updates: to 0 (empties the table; inserts after it
 * in the same block are larger than the table), back up, lowering evicts
 * the oldest, several in a row, and only up to our limit. */
static void test_size_updates(void)
{
	struct shb_h2_dtable t;
	int st;

	shb_h2_dtable_init(&t, 4096);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "4803323030" "4001610162" "4001630164",
				   &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 200);
	table_is(&t, 3, (const unsigned[]){34, 34, 42}, NULL, NULL);
	/* lower to 76: the oldest (the :status entry) goes */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "3f2d" "88", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(t.max, 76);
	table_is(&t, 2, (const unsigned[]){34, 34}, NULL, NULL);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_E_INDEX);
	/* to 0, then an insert: nothing fits */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "20" "4803323030", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 200);
	CU_ASSERT_EQUAL(t.max, 0);
	table_is(&t, 0, NULL, NULL, NULL);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_E_INDEX);
	/* the maximum stays 0 over blocks until the next update */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "4001610162", &st), SHB_H2_HSCAN_OK);
	table_is(&t, 0, NULL, NULL, NULL);
	/* 0 then 4096 in one block: inserts fit again */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "20" "3fe11f" "4803323034" "be", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1); /* 204 twice */
	CU_ASSERT_EQUAL(t.max, 4096);
	table_is(&t, 1, (const unsigned[]){42}, NULL, (const int[]){204});
	CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 204);
	/* exactly one entry's size keeps it; one less evicts it */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "3f0b", &st), SHB_H2_HSCAN_OK);
	table_is(&t, 1, (const unsigned[]){42}, NULL, NULL);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "3f0a", &st), SHB_H2_HSCAN_OK);
	table_is(&t, 0, NULL, NULL, NULL);
	/* above our 4096: an error */
	CU_ASSERT_EQUAL(scan_hex_t(&t, "3fe21f", &st),
			SHB_H2_HSCAN_E_SIZE_UPDATE);
	/* a table limited to 256 (like the RFC's examples) refuses 257 */
	shb_h2_dtable_init(&t, 256);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "3fe101", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(t.max, 256);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "3fe201", &st),
			SHB_H2_HSCAN_E_SIZE_UPDATE);
	/* our table never exceeds what the ring holds */
	shb_h2_dtable_init(&t, 100000);
	CU_ASSERT_EQUAL(t.limit, SHB_H2_DTABLE_MAX);
}

/* An entry larger than the table empties it and is not added (RFC 7541
 * Section 4.4); one exactly the table's size fits alone. Plain and
 * Huffman-coded, names and values. */
static void test_oversized_entry(void)
{
	static char big[4200];
	struct shb_h2_dtable t;
	struct blk b;
	int st;

	memset(big, 'a', sizeof(big) - 1);
	for (int huff = 0; huff <= 1; huff++) {
		shb_h2_dtable_init(&t, 256);
		CU_ASSERT_EQUAL(scan_hex_t(&t, "4803323030" "4001610162", &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(t.count, 2);
		/* name 1 + value 223 + 32 = 256: fits, evicting both */
		big[223] = '\0';
		b.n = 0;
		put_indexed_literal(&b, 0, "x", big, huff);
		put_int(&b, 7, 0x80, 8);
		CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, 200);
		table_is(&t, 1, (const unsigned[]){256}, (const unsigned[]){1},
			 (const int[]){0});
		/* 257 with a static name (location, 8): empties it */
		big[223] = 'a';
		big[217] = '\0';
		b.n = 0;
		put_indexed_literal(&b, 46, NULL, big, huff);
		CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		table_is(&t, 0, NULL, NULL, NULL);
		big[217] = 'a';
		/* refill, then a huge literal name (4199 octets: counting
		 * stops early, the result is the same) */
		CU_ASSERT_EQUAL(scan_hex_t(&t, "4001610162", &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(t.count, 1);
		b.n = 0;
		put_indexed_literal(&b, 0, big, "v", huff);
		put_int(&b, 7, 0x80, 13);
		CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, 404);
		table_is(&t, 0, NULL, NULL, NULL);
		CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_E_INDEX);
		/* the next insert works as usual */
		CU_ASSERT_EQUAL(scan_hex_t(&t, "4803323030" "be", &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, -1);
		table_is(&t, 1, (const unsigned[]){42}, NULL,
			 (const int[]){200});
	}
	/* In a 4096 table: name 1 + value 4063 + 32 fits, one more does
	 * not. */
	shb_h2_dtable_init(&t, 4096);
	big[4063] = '\0';
	b.n = 0;
	put_indexed_literal(&b, 0, "x", big, 1);
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	table_is(&t, 1, (const unsigned[]){4096}, (const unsigned[]){1}, NULL);
	big[4063] = 'a';
	big[4064] = '\0';
	b.n = 0;
	put_indexed_literal(&b, 0, "x", big, 1);
	CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	table_is(&t, 0, NULL, NULL, NULL);
	big[4064] = 'a';
}

/* The ring: 128 entries of 32 octets fill a 4096 table; 300 inserts over
 * many blocks wrap it, and every index resolves to what a plain list
 * says. */
static void test_ring_wraps(void)
{
	struct shb_h2_dtable t;
	int model[400]; /* statuses, newest last */
	unsigned msize[400];
	size_t mn = 0;
	unsigned total = 0;
	int st;

	shb_h2_dtable_init(&t, 4096);
	for (int i = 0; i < 300; i++) {
		struct blk b;
		char digits[4];
		unsigned size = 32;
		int code = 0;

		b.n = 0;
		if (i % 7 == 3) {
			code = 100 + i;
			snprintf(digits, sizeof(digits), "%d", code);
			put_indexed_literal(&b, 8, NULL, digits, i % 2);
			size = 42;
		} else {
			put_indexed_literal(&b, 0, "", "", 0);
		}
		CU_ASSERT_EQUAL_FATAL(scan_all_ways_t(&t, b.p, b.n, &st),
				      SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, code);
		model[mn] = code;
		msize[mn++] = size;
		total += size;
		/* evict from the front of the model */
		{
			size_t drop = 0;

			while (total > 4096)
				total -= msize[drop++];
			memmove(model, model + drop, (mn - drop) * sizeof(int));
			memmove(msize, msize + drop, (mn - drop) * sizeof(unsigned));
			mn -= drop;
		}
		CU_ASSERT_EQUAL_FATAL(t.count, mn);
		CU_ASSERT_EQUAL(t.size, total);
	}
	CU_ASSERT(mn > 100 && mn <= 128);
	for (size_t i = 1; i <= mn; i++) {
		struct blk b;

		b.n = 0;
		put_int(&b, 7, 0x80, SHB_HPACK_STATIC_COUNT + i);
		CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, model[mn - i] ? model[mn - i] : 0);
	}
	{
		struct blk b;

		b.n = 0;
		put_int(&b, 7, 0x80, SHB_HPACK_STATIC_COUNT + mn + 1);
		CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_E_INDEX);
	}
	/* 129 minimal entries in one block: still 128 */
	{
		static struct blk b;

		b.n = 0;
		for (int i = 0; i < 129; i++)
			put_indexed_literal(&b, 0, "", "", 0);
		CU_ASSERT_EQUAL(scan_pieces(&t, &t, b.p, b.n, NULL, 0, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(t.count, 128);
		CU_ASSERT_EQUAL(t.size, 4096);
	}
}

/* References beyond the table, indexed and by name, right after the last
 * valid index. */
static void test_reference_beyond(void)
{
	struct shb_h2_dtable t;
	int st;

	shb_h2_dtable_init(&t, 4096);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "4001610162" "4001630164", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "bf", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "0f300178", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "0f310178", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "7f020178", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(scan_hex_t(&t, "ffffffff0f", &st),
			SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_STRING_EQUAL(shb_h2_hscan_strerror(SHB_H2_HSCAN_E_INDEX),
			       "HPACK index beyond the dynamic table");
}

/* ---- random blocks against the full test decoder --------------------------- */

static uint32_t rng_state = 12345;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) % n;
}

static void rnd_text(char *s, size_t len)
{
	static const char alphabet[] = "abcxyz-0123456789:/ ;=ABC";

	for (size_t i = 0; i < len; i++)
		s[i] = alphabet[rnd(sizeof(alphabet) - 1)];
	s[len] = '\0';
}

/* One random representation appended to b. */
static void rnd_field(struct blk *b, size_t dyn_count)
{
	char name[80], value[80];
	uint32_t kind = rnd(10);
	int huff = (int)rnd(2);
	uint64_t name_index = 0;

	if (kind < 2) { /* indexed */
		if (dyn_count && rnd(2))
			put_int(b, 7, 0x80, SHB_HPACK_STATIC_COUNT + 1 +
						    rnd((uint32_t)dyn_count));
		else
			put_int(b, 7, 0x80, 1 + rnd(SHB_HPACK_STATIC_COUNT));
		return;
	}
	switch (rnd(4)) {
	case 0: name_index = 8 + rnd(7); break; /* :status */
	case 1: name_index = 1 + rnd(SHB_HPACK_STATIC_COUNT); break;
	case 2:
		if (dyn_count)
			name_index = SHB_HPACK_STATIC_COUNT + 1 +
				     rnd((uint32_t)dyn_count);
		break;
	default: break;
	}
	if (rnd(3) == 0)
		snprintf(value, sizeof(value), "%u", 100 + rnd(900));
	else
		rnd_text(value, rnd(rnd(8) ? 20 : 78));
	put_int(b, kind < 7 ? 6 : 4, kind < 7 ? 0x40 : (kind == 9 ? 0x10 : 0),
		name_index);
	if (!name_index) {
		if (rnd(4) == 0)
			snprintf(name, sizeof(name), ":status");
		else
			rnd_text(name, rnd(rnd(8) ? 12 : 60));
		put_str(b, name, strlen(name), huff);
	}
	put_str(b, value, strlen(value), (int)rnd(2));
}

/* What the scanner should report for the decoder's fields. */
static int want_status(const struct shb_h2_tdec_field *f, long n)
{
	int found = 0, code = 0;

	for (long i = 0; i < n; i++) {
		if (strcmp(f[i].name, ":status") != 0)
			continue;
		if (found++)
			return -1;
		code = shb_http_status_digits((const uint8_t *)f[i].value,
					      f[i].value_len);
	}
	return code;
}

/* Random blocks, decoded by the test decoder (names and values kept) and
 * scanned: the same :status, and the same table entry by entry. The
 * table is 2048 octets so that the decoder's 64 entries suffice. */
static void test_random_against_decoder(void)
{
	static struct shb_h2_vec_static statics[62];
	static struct shb_h2_tdec d;
	static struct shb_h2_tdec_field f[40];
	struct shb_h2_dtable t;
	int st;

	shb_h2_vec_static_table(statics);
	for (int conn = 0; conn < 12; conn++) {
		shb_h2_tdec_init(&d, 2048, statics);
		shb_h2_dtable_init(&t, 2048);
		for (int blkno = 0; blkno < 40; blkno++) {
			static struct blk b;
			static struct shb_h2_tdec probe;
			uint32_t nf = 1 + rnd(12);
			long n;

			b.n = 0;
			if (rnd(6) == 0)
				put_int(&b, 5, 0x20,
					rnd(3) ? rnd(2049) : rnd(120));
			if (rnd(10) == 0)
				put_int(&b, 5, 0x20, 2048);
			/* References must stay within the table as the block
			 * so far leaves it. */
			for (uint32_t i = 0; i < nf; i++) {
				probe = d;
				CU_ASSERT_FATAL(shb_h2_tdec_decode(&probe, b.p, b.n,
								   f, 40) >= 0);
				rnd_field(&b, probe.n);
			}
			n = shb_h2_tdec_decode(&d, b.p, b.n, f, 40);
			CU_ASSERT_FATAL(n >= 0);
			if (blkno % 8 == 0) {
				CU_ASSERT_EQUAL(scan_all_ways_t(&t, b.p, b.n, &st),
						SHB_H2_HSCAN_OK);
			} else {
				CU_ASSERT_EQUAL(scan_pieces(&t, &t, b.p, b.n,
							    NULL, 0, &st),
						SHB_H2_HSCAN_OK);
			}
			CU_ASSERT_EQUAL(st, want_status(f, n));
			CU_ASSERT_EQUAL_FATAL(t.count, d.n);
			CU_ASSERT_EQUAL(t.size, d.size);
			CU_ASSERT_EQUAL(t.max, d.max);
			for (size_t i = 0; i < d.n; i++) {
				const struct shb_h2_dtable_entry *e =
					shb_h2_dtable_get(&t, i + 1);
				const struct shb_h2_tdec_entry *de = &d.entries[i];

				CU_ASSERT_EQUAL(e->name_len, strlen(de->name));
				CU_ASSERT_EQUAL(e->size, strlen(de->name) +
								 strlen(de->value) + 32);
				CU_ASSERT_EQUAL(e->status,
						strcmp(de->name, ":status")
							? 0
							: shb_http_status_digits(
								  (const uint8_t *)de->value,
								  strlen(de->value)));
			}
		}
	}
}

/* A 48 KB block of many fields, status last, scanned in pieces the size
 * of CONTINUATION frames and split at many offsets. */
static void test_large_block(void)
{
	size_t cap = 49152 + 64, n = 0, fields = 1;
	uint8_t *blk = malloc(cap);
	struct shb_h2_hscan s;
	struct shb_h2_dtable t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(blk);
	while (n + 49 < 49152) {
		/* x-hNNN: 40 octets of value, literal without indexing */
		blk[n++] = 0x00;
		blk[n++] = 6;
		memcpy(blk + n, "x-hdrs", 6);
		n += 6;
		blk[n++] = 40;
		memset(blk + n, 'v', 40);
		n += 40;
		fields++;
	}
	blk[n++] = 0x8d; /* 404 */
	for (size_t piece = 1; piece <= 16384; piece = piece * 2 + 1) {
		int rc = SHB_H2_HSCAN_OK;

		shb_h2_dtable_init(&t, 4096);
		shb_h2_hscan_begin(&s, &t);
		for (size_t off = 0; off < n && rc == SHB_H2_HSCAN_OK; off += piece)
			rc = shb_h2_hscan_feed(&s, blk + off,
					       n - off < piece ? n - off : piece);
		CU_ASSERT_EQUAL(rc, SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(shb_h2_hscan_end(&s), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(shb_h2_hscan_status(&s), 404);
		CU_ASSERT_EQUAL(s.field_count, fields);
		CU_ASSERT_EQUAL(t.count, 0);
	}
	free(blk);
}

CU_TestInfo shb_h2_hscan_tests[] = {
	{"static :status indices 8-14", test_static_status_indices},
	{"literal :status forms", test_literal_status_forms},
	{"Huffman name and value", test_huffman_name_and_value},
	{"malformed :status", test_malformed_status},
	{"errors: indices, size updates, truncation, Huffman", test_errors},
	{"malformed responses: pseudo-headers, :status, uppercase",
	 test_malformed_forms},
	{"malformed: Huffman-coded names", test_malformed_huffman_names},
	{"malformed: names kept in the dynamic table",
	 test_malformed_through_table},
	{"header list size cap (HPACK bomb)", test_list_size_cap},
	{"RFC 7541 Appendix C sequences and table states",
	 test_appendix_c_sequences},
	{"RFC 7541 C.6 by hand", test_c6_by_hand},
	{":status in the dynamic table", test_status_in_table},
	{"dynamic table size updates", test_size_updates},
	{"oversized entries empty the table", test_oversized_entry},
	{"ring of 128 entries wraps", test_ring_wraps},
	{"references beyond the table", test_reference_beyond},
	{"random blocks against the full decoder",
	 test_random_against_decoder},
	{"48 KB block", test_large_block},
	CU_TEST_INFO_NULL,
};
