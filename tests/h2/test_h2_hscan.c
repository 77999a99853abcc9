/* The response header block scanner: :status from every representation,
 * the dynamic table it keeps from lengths alone (RFC 7541 Appendix C
 * table states, :status entries, size updates, eviction, oversized
 * entries, a random cross-check with the full test decoder), errors, and
 * every block split at every offset with the same resulting table. This
 * file: the stateless forms and malformed responses; test_h2_hscan_table.c
 * the dynamic table and the random cross-check; h2_hscan_fx.c the
 * scanning helpers and the block builder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_hpack.h"
#include "h2_hscan.h"
#include "h2_hscan_fx.h"
#include "h2_tests.h"
#include "http_huffman.h"
#include "http_prefint.h"
#include "http_status.h"

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
		CU_ASSERT_EQUAL(hs_scan_hex(v[i].hex, &st), SHB_H2_HSCAN_OK);
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
		CU_ASSERT_EQUAL(hs_scan_hex(v[i].hex, &st), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, v[i].status);
	}
}

/* Huffman-coded name and value built with the encoder, without and with
 * indexing. */
static void test_huffman_name_and_value(void)
{
	struct hs_blk b;
	struct shb_h2_dtable t;
	int st;

	b.n = 0;
	hs_put_int(&b, 4, 0x00, 0);
	hs_put_str(&b, ":status", 7, 1);
	hs_put_str(&b, "451", 3, 1);
	CU_ASSERT_EQUAL(hs_scan_all_ways(b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 451);

	shb_h2_dtable_init(&t, 4096);
	b.n = 0;
	hs_put_indexed_literal(&b, 0, ":status", "451", 1);
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 451);
	hs_table_is(&t, 1, (const unsigned[]){42}, (const unsigned[]){7},
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

	CU_ASSERT_EQUAL(hs_scan_hex(v[0], &st), SHB_H2_HSCAN_E_TRUNCATED);
	for (size_t i = 1; i < sizeof(v) / sizeof(v[0]); i++) {
		CU_ASSERT_EQUAL(hs_scan_hex(v[i], &st), SHB_H2_HSCAN_OK);
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
		CU_ASSERT_EQUAL(hs_scan_hex(v[i].hex, &st), v[i].rc);
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
	long n = hs_unhex(hex, blk, sizeof(blk));

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
	struct hs_blk b;
	struct shb_h2_dtable t;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		b.n = 0;
		hs_put_int(&b, 7, 0x80, 8); /* :status 200 */
		hs_put_int(&b, 4, 0x10, 0); /* never indexed, literal name */
		hs_put_str(&b, v[i].name, strlen(v[i].name), 1);
		hs_put_str(&b, "200", 3, 1);
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
	struct hs_blk b;
	int st;

	memset(value, 'v', sizeof(value) - 1);
	shb_h2_dtable_init(&t, 4096);
	b.n = 0;
	hs_put_indexed_literal(&b, 0, "x", value, 0); /* 1 + 3967 + 32 */
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	hs_table_is(&t, 1, (const unsigned[]){4000}, NULL, NULL);
	b.n = 0;
	hs_put_int(&b, 7, 0x80, 8);
	for (int i = 0; i < 65; i++)
		hs_put_int(&b, 7, 0x80, 62);
	/* 32 + 10 for :status 200, 65 * 4000 */
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 200);
	hs_put_int(&b, 7, 0x80, 62);
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
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
				CU_ASSERT_EQUAL(hs_scan_pieces(&t, &t, big, n, NULL,
							    0, &st),
						SHB_H2_HSCAN_OK);
		}
		CU_ASSERT_EQUAL(hs_scan_pieces(&t, &t, big, n, NULL, 0, &st),
				SHB_H2_HSCAN_E_LIST_SIZE);
		free(big);
	}
	CU_ASSERT_STRING_EQUAL(shb_h2_hscan_strerror(SHB_H2_HSCAN_E_LIST_SIZE),
			       "response header list above 262144 octets (cap 262144)");
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
	CU_TEST_INFO_NULL,
};
