/* The scanner's memo of repeated Huffman values (struct shb_h2_hmemo):
 * a connection's blocks scanned with it leave exactly the tables, list
 * sizes and errors of the same blocks scanned without it, whether a
 * value repeats, only shares its wire length with one remembered, is
 * invalid, or was pushed out by newer ones. */
#include <string.h>

#include "h2_hscan.h"
#include "h2_tests.h"
#include "http_huffman.h"

/* A block of one literal with incremental indexing, name "date" (static
 * index 33), the value v (plain text, Huffman-coded here) or, with raw,
 * the octets v[n] as they are with the Huffman bit. */
static size_t date_block(uint8_t *blk, const char *v, size_t n, int raw)
{
	size_t len = 2;

	blk[0] = 0x40 | 33;
	if (raw) {
		memcpy(blk + 2, v, n);
		len += n;
	} else {
		len += shb_huff_encode((const uint8_t *)v, n, blk + 2, 64);
	}
	blk[1] = (uint8_t)(0x80 | (len - 2));
	return len;
}

struct side {
	struct shb_h2_dtable t;
	struct shb_h2_hmemo memo;
	uint64_t list_size;
};

static int scan(struct side *d, int memo, const uint8_t *blk, size_t n)
{
	struct shb_h2_hscan s;
	int rc;

	shb_h2_hscan_begin(&s, &d->t);
	if (memo)
		shb_h2_hscan_memo(&s, &d->memo);
	rc = shb_h2_hscan_feed(&s, blk, n);
	if (rc == SHB_H2_HSCAN_OK)
		rc = shb_h2_hscan_end(&s);
	d->list_size = s.list_size;
	return rc;
}

/* Scans the block with and without the memo: same result, same table,
 * same list size. Returns the result. */
static int both(struct side *with, struct side *without, const uint8_t *blk,
		size_t n)
{
	int a = scan(with, 1, blk, n), b = scan(without, 0, blk, n);

	CU_ASSERT_EQUAL(a, b);
	CU_ASSERT_EQUAL(memcmp(&with->t, &without->t, sizeof(with->t)), 0);
	CU_ASSERT_EQUAL(with->list_size, without->list_size);
	return a;
}

static void start(struct side *with, struct side *without)
{
	memset(with, 0, sizeof(*with));
	memset(without, 0, sizeof(*without));
	shb_h2_dtable_init(&with->t, SHB_H2_DTABLE_MAX);
	shb_h2_dtable_init(&without->t, SHB_H2_DTABLE_MAX);
}

/* "aaaaaaaa" and "zzzzz" are both 5 octets Huffman-coded (8 x 5 bits,
 * 5 x 7 bits) but decode to 8 and 5: each entry's size shows which
 * length was taken. */
static void test_repeats_and_equal_wire_length(void)
{
	static struct side with, without;
	uint8_t a[80], z[80];
	size_t na = date_block(a, "aaaaaaaa", 8, 0);
	size_t nz = date_block(z, "zzzzz", 5, 0);

	CU_ASSERT_EQUAL_FATAL(na, nz);
	start(&with, &without);
	CU_ASSERT_EQUAL(both(&with, &without, a, na), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.t.size, 4 + 8 + 32);
	CU_ASSERT_EQUAL(both(&with, &without, z, nz), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.t.size, 44 + 4 + 5 + 32);
	CU_ASSERT_EQUAL(both(&with, &without, a, na), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.t.size, 85 + 44);
	CU_ASSERT_EQUAL(with.list_size, 4 + 8 + 32);
	CU_ASSERT_EQUAL(both(&with, &without, z, nz), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.t.size, 129 + 41);
	CU_ASSERT_EQUAL(with.t.count, 4);
}

/* An invalid string (an EOS inside) of a remembered string's length is
 * still refused, and so is the same one again: only valid strings are
 * kept. */
static void test_invalid_never_kept(void)
{
	static struct side with, without;
	uint8_t a[80], bad[80];
	size_t na = date_block(a, "aaaaaaaa", 8, 0);
	size_t nb = date_block(bad, "\xff\xff\xff\xff\xff", 5, 1);

	CU_ASSERT_EQUAL_FATAL(na, nb);
	for (int k = 0; k < 2; k++) {
		start(&with, &without);
		CU_ASSERT_EQUAL(both(&with, &without, a, na), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(both(&with, &without, bad, nb),
				SHB_H2_HSCAN_E_HUFFMAN);
	}
}

/* Six values in turn, then the first ones again: the four slots are
 * reused oldest first, and every scan matches the one without. */
static void test_slots_reused(void)
{
	static const char *const v[] = {
		"Sun, 06 Dec 2026 06:02:20 GMT", "nginx/1.22.1", "text/plain",
		"13", "Sun, 06 Dec 2026 06:02:21 GMT", "bytes",
	};
	static struct side with, without;
	uint8_t blk[80];

	start(&with, &without);
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			size_t n = date_block(blk, v[i], strlen(v[i]), 0);

			CU_ASSERT_EQUAL(both(&with, &without, blk, n),
					SHB_H2_HSCAN_OK);
		}
	/* The newest slot holds the last value. */
	CU_ASSERT_EQUAL(with.memo.len[(with.memo.next + SHB_H2_HMEMO_SLOTS - 1) %
				      SHB_H2_HMEMO_SLOTS],
			shb_huff_encoded_len((const uint8_t *)"bytes", 5));
}

CU_TestInfo shb_h2_hmemo_tests[] = {
	{"repeated values, equal wire lengths", test_repeats_and_equal_wire_length},
	{"invalid strings are never kept", test_invalid_never_kept},
	{"slots reused oldest first", test_slots_reused},
	CU_TEST_INFO_NULL,
};
