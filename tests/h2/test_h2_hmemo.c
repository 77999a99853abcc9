/* The scanner's memo (struct shb_h2_hmemo) of repeated Huffman values
 * and of the last block: a connection's blocks scanned with it leave
 * exactly the tables, list sizes, statuses and errors of the same blocks
 * scanned without it, whether a value repeats, only shares its wire
 * length with one remembered, is invalid, or was pushed out by newer
 * ones; whether a block repeats on the same table, on a table changed
 * under an index it reads, or on one of another maximum; and so do the
 * same blocks begun by shb_h2_hscan_start. */
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
	int status;
};

/* memo: 0 none, 1 begin, memo and feed, 2 the same by start. */
static int scan(struct side *d, int memo, const uint8_t *blk, size_t n)
{
	struct shb_h2_hscan s;
	int rc;

	/* What start must not read before it writes: a scanner left as
	 * another block's was. */
	memset(&s, 0x5a, sizeof(s));
	if (memo == 2) {
		rc = shb_h2_hscan_start(&s, &d->t, &d->memo, blk, n);
	} else {
		shb_h2_hscan_begin(&s, &d->t);
		if (memo)
			shb_h2_hscan_memo(&s, &d->memo);
		rc = shb_h2_hscan_feed(&s, blk, n);
	}
	if (rc == SHB_H2_HSCAN_OK)
		rc = shb_h2_hscan_end(&s);
	d->list_size = s.list_size;
	d->status = rc == SHB_H2_HSCAN_OK ? shb_h2_hscan_status(&s) : 0;
	return rc;
}

/* The same connection as `with`, its blocks begun by
 * shb_h2_hscan_start. */
static struct side started;

/* Scans the block with and without the memo, and with it by start: same
 * result, same table, same list size; start takes from the memo what
 * begin and feed take. Returns the result. */
static int both(struct side *with, struct side *without, const uint8_t *blk,
		size_t n)
{
	int a = scan(with, 1, blk, n), b = scan(without, 0, blk, n);
	int c = scan(&started, 2, blk, n);

	CU_ASSERT_EQUAL(a, b);
	CU_ASSERT_EQUAL(memcmp(&with->t, &without->t, sizeof(with->t)), 0);
	CU_ASSERT_EQUAL(with->list_size, without->list_size);
	CU_ASSERT_EQUAL(with->status, without->status);
	CU_ASSERT_EQUAL(c, a);
	CU_ASSERT_EQUAL(memcmp(&started.t, &with->t, sizeof(started.t)), 0);
	CU_ASSERT_EQUAL(started.list_size, with->list_size);
	CU_ASSERT_EQUAL(started.status, with->status);
	CU_ASSERT_EQUAL(started.memo.bhits, with->memo.bhits);
	return a;
}

static void start(struct side *with, struct side *without)
{
	memset(with, 0, sizeof(*with));
	memset(without, 0, sizeof(*without));
	memset(&started, 0, sizeof(started));
	shb_h2_dtable_init(&with->t, SHB_H2_DTABLE_MAX);
	shb_h2_dtable_init(&without->t, SHB_H2_DTABLE_MAX);
	shb_h2_dtable_init(&started.t, SHB_H2_DTABLE_MAX);
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

/* :status with incremental indexing (static name 8), value v. */
static const uint8_t status_404[] = {0x48, 3, '4', '0', '4'};
/* A size update (to 4096, no change), then :status 503 with indexing:
 * not kept by the memo, which keeps the block before. */
static const uint8_t status_503[] = {0x3f, 0xe1, 0x1f, 0x48, 3, '5', '0', '3'};
static const uint8_t newest[] = {0xbe}; /* index 62: the newest entry */

/* h2o's way: an indexed block repeats. It is taken from the memo while
 * the table stays; once a block the memo does not keep inserts what is
 * now index 62, it is scanned again and reads the new entry (503, not
 * the kept 404). */
static void test_block_repeats_until_table_changes(void)
{
	static struct side with, without;

	start(&with, &without);
	CU_ASSERT_EQUAL(both(&with, &without, status_404, 5), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(both(&with, &without, newest, 1), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.status, 404);
	CU_ASSERT_EQUAL(with.memo.bhits, 0);
	CU_ASSERT_EQUAL(both(&with, &without, newest, 1), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.status, 404);
	CU_ASSERT_EQUAL(with.list_size, 7 + 3 + 32);
	CU_ASSERT_EQUAL(with.memo.bhits, 1);
	CU_ASSERT_EQUAL(both(&with, &without, status_503, sizeof(status_503)),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(both(&with, &without, newest, 1), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.status, 503);
	CU_ASSERT_EQUAL(with.memo.bhits, 1);
	CU_ASSERT_EQUAL(both(&with, &without, newest, 1), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.status, 503);
	CU_ASSERT_EQUAL(with.memo.bhits, 2);
}

/* HAProxy's way: the same two literals with indexing in every block,
 * never reading the table. Each repeat is taken from the memo and its
 * inserts made again, evictions and all: 200 blocks leave the table the
 * scan without the memo leaves (both() compares it after each). */
static void test_block_inserts_replayed(void)
{
	static const uint8_t blk[] = {
		0x88, 0x5c, 0x02, '1', '3', 0x5f, 0x0a,
		't', 'e', 'x', 't', '/', 'p', 'l', 'a', 'i', 'n',
	};
	static struct side with, without;

	start(&with, &without);
	for (int i = 0; i < 200; i++) {
		CU_ASSERT_EQUAL(both(&with, &without, blk, sizeof(blk)),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(with.status, 200);
	}
	CU_ASSERT_EQUAL(with.memo.bhits, 199);
	/* 4096 / (48 + 54) entries of the two: 80 fit, 40 of each. */
	CU_ASSERT_EQUAL(with.t.count, 80);
	CU_ASSERT_EQUAL(with.t.size, 40 * (48 + 54));
}

/* A block with a size update is never kept; one kept under another
 * maximum is scanned again (with a maximum of 40, the 42-octet :status
 * entry no longer fits and empties the table). */
static void test_block_resize_and_max(void)
{
	static const uint8_t resize_40[] = {0x3f, 0x09};   /* max 40 */
	static const uint8_t resize_4096[] = {0x3f, 0xe1, 0x1f};
	static struct side with, without;

	start(&with, &without);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(both(&with, &without, resize_4096, 3),
				SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.memo.bhits, 0);
	CU_ASSERT_EQUAL(both(&with, &without, status_404, 5), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(both(&with, &without, status_404, 5), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.memo.bhits, 1);
	CU_ASSERT_EQUAL(with.t.count, 2);
	CU_ASSERT_EQUAL(both(&with, &without, resize_40, 2), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(both(&with, &without, status_404, 5), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(with.memo.bhits, 1);
	CU_ASSERT_EQUAL(with.t.count, 0);
	CU_ASSERT_EQUAL(with.status, 404);
}

CU_TestInfo shb_h2_hmemo_tests[] = {
	{"repeated values, equal wire lengths", test_repeats_and_equal_wire_length},
	{"invalid strings are never kept", test_invalid_never_kept},
	{"slots reused oldest first", test_slots_reused},
	{"a block repeats until the table changes", test_block_repeats_until_table_changes},
	{"a repeated block's inserts are made again", test_block_inserts_replayed},
	{"size updates and another maximum", test_block_resize_and_max},
	CU_TEST_INFO_NULL,
};
