/* The response header block scanner: :status from every representation,
 * errors for dynamic references and bad size updates, every input split
 * at every offset. */
#include <stdlib.h>
#include <string.h>

#include "h2_hscan.h"
#include "h2_tests.h"
#include "http_huffman.h"

/* Scans blk[n] whole, split in two at every offset, and one octet at a
 * time; all must agree. Returns the feed/end result; *status gets the
 * status on success. */
static int scan_all_ways(const uint8_t *blk, size_t n, int *status)
{
	struct shb_h2_hscan s;
	int want_rc, want_status = 0;

	shb_h2_hscan_begin(&s);
	want_rc = shb_h2_hscan_feed(&s, blk, n);
	if (want_rc == SHB_H2_HSCAN_OK)
		want_rc = shb_h2_hscan_end(&s);
	if (want_rc == SHB_H2_HSCAN_OK)
		want_status = shb_h2_hscan_status(&s);
	for (size_t cut = 0; cut <= n; cut++) {
		int rc;

		shb_h2_hscan_begin(&s);
		rc = shb_h2_hscan_feed(&s, blk, cut);
		if (rc == SHB_H2_HSCAN_OK)
			rc = shb_h2_hscan_feed(&s, blk + cut, n - cut);
		if (rc == SHB_H2_HSCAN_OK)
			rc = shb_h2_hscan_end(&s);
		CU_ASSERT_EQUAL(rc, want_rc);
		if (rc == SHB_H2_HSCAN_OK)
			CU_ASSERT_EQUAL(shb_h2_hscan_status(&s), want_status);
	}
	{
		int rc = SHB_H2_HSCAN_OK;

		shb_h2_hscan_begin(&s);
		for (size_t i = 0; i < n && rc == SHB_H2_HSCAN_OK; i++)
			rc = shb_h2_hscan_feed(&s, blk + i, 1);
		if (rc == SHB_H2_HSCAN_OK)
			rc = shb_h2_hscan_end(&s);
		CU_ASSERT_EQUAL(rc, want_rc);
		if (rc == SHB_H2_HSCAN_OK)
			CU_ASSERT_EQUAL(shb_h2_hscan_status(&s), want_status);
	}
	*status = want_status;
	return want_rc;
}

static int scan_hex(const char *hex, int *status)
{
	uint8_t blk[512];
	long n = shb_h2_unhex(hex, strlen(hex), blk, sizeof(blk));

	CU_ASSERT_FATAL(n >= 0);
	return scan_all_ways(blk, (size_t)n, status);
}

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
		/* a size update of 0 at the start is fine */
		{"2088", 200},
		{"202088", 200},
	};
	int st;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CU_ASSERT_EQUAL(scan_hex(v[i].hex, &st), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, v[i].status);
	}
}

/* Huffman-coded name and value built with the encoder. */
static void test_huffman_name_and_value(void)
{
	uint8_t blk[64];
	size_t n = 0, k;
	int st;

	blk[n++] = 0x00;
	k = shb_huff_encode((const uint8_t *)":status", 7, blk + n + 1, 16);
	blk[n++] = (uint8_t)(0x80 | k);
	n += k;
	k = shb_huff_encode((const uint8_t *)"451", 3, blk + n + 1, 16);
	blk[n++] = (uint8_t)(0x80 | k);
	n += k;
	CU_ASSERT_EQUAL(scan_all_ways(blk, n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 451);
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
		{"be", SHB_H2_HSCAN_E_DYNAMIC},       /* 62 */
		{"ff00", SHB_H2_HSCAN_E_DYNAMIC},     /* 127 */
		{"0f2f0130", SHB_H2_HSCAN_E_DYNAMIC}, /* literal, name 62 */
		{"7f000130", SHB_H2_HSCAN_E_DYNAMIC}, /* incremental, name 63 */
		{"21", SHB_H2_HSCAN_E_SIZE_UPDATE},
		{"3fe11f", SHB_H2_HSCAN_E_SIZE_UPDATE}, /* 4096 */
		{"8820", SHB_H2_HSCAN_E_SIZE_UPDATE},   /* after a field */
		{"00", SHB_H2_HSCAN_E_TRUNCATED},
		{"0001", SHB_H2_HSCAN_E_TRUNCATED},
		{"000161", SHB_H2_HSCAN_E_TRUNCATED},
		{"00016101", SHB_H2_HSCAN_E_TRUNCATED},
		{"0f", SHB_H2_HSCAN_E_TRUNCATED},
		{"0f80", SHB_H2_HSCAN_E_TRUNCATED},
		{"007f80808080808080808001", SHB_H2_HSCAN_E_INTEGER},
		{"00" "7fffffffff0f", SHB_H2_HSCAN_E_INTEGER}, /* length > 2^32 */
	};
	int st;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CU_ASSERT_EQUAL(scan_hex(v[i].hex, &st), v[i].rc);
}

/* The RFC's response examples: C.5.1 / C.6.1 give 302; the later ones
 * use the dynamic table, which we forbid. Request examples have no
 * :status. */
static void test_appendix_c_blocks(void)
{
	static struct shb_h2_vec_appendix_c a;
	int st;

	shb_h2_vec_appendix_c(&a);
	for (size_t i = 0; i < a.ncases; i++) {
		const struct shb_h2_vec_case *c = &a.cases[i];
		int rc = scan_all_ways(c->block, c->block_len, &st);

		if (!strcmp(c->id, "C.5.1") || !strcmp(c->id, "C.6.1")) {
			CU_ASSERT_EQUAL(rc, SHB_H2_HSCAN_OK);
			CU_ASSERT_EQUAL(st, 302);
		} else if (!strncmp(c->id, "C.5", 3) || !strncmp(c->id, "C.6", 3) ||
			   !strcmp(c->id, "C.3.2") || !strcmp(c->id, "C.3.3") ||
			   !strcmp(c->id, "C.4.2") || !strcmp(c->id, "C.4.3")) {
			CU_ASSERT_EQUAL(rc, SHB_H2_HSCAN_E_DYNAMIC);
		} else {
			CU_ASSERT_EQUAL(rc, SHB_H2_HSCAN_OK);
			CU_ASSERT_EQUAL(st, 0);
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

		shb_h2_hscan_begin(&s);
		for (size_t off = 0; off < n && rc == SHB_H2_HSCAN_OK; off += piece)
			rc = shb_h2_hscan_feed(&s, blk + off,
					       n - off < piece ? n - off : piece);
		CU_ASSERT_EQUAL(rc, SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(shb_h2_hscan_end(&s), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(shb_h2_hscan_status(&s), 404);
		CU_ASSERT_EQUAL(s.field_count, fields);
	}
	free(blk);
}

CU_TestInfo shb_h2_hscan_tests[] = {
	{"static :status indices 8-14", test_static_status_indices},
	{"literal :status forms", test_literal_status_forms},
	{"Huffman name and value", test_huffman_name_and_value},
	{"malformed :status", test_malformed_status},
	{"errors: dynamic refs, size updates, truncation", test_errors},
	{"RFC 7541 Appendix C blocks", test_appendix_c_blocks},
	{"48 KB block", test_large_block},
	CU_TEST_INFO_NULL,
};
