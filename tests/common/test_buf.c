/* The capped growable buffer (common/buf.h): growth from `first` by
 * doubling, the hard cap, the sticky error, every size computation near
 * SIZE_MAX, take and clear. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "common/buf.h"

static void test_grow(void)
{
	struct shb_buf b = SHB_BUF_INIT(4, 1024);

	CU_ASSERT_EQUAL(shb_buf_put(&b, "abc", 3), SHB_BUF_OK);
	CU_ASSERT_EQUAL(b.cap, 4);
	CU_ASSERT_EQUAL(shb_buf_put(&b, "defgh", 5), SHB_BUF_OK);
	CU_ASSERT_EQUAL(b.cap, 8);
	CU_ASSERT_EQUAL(shb_buf_put_u8(&b, 'i'), SHB_BUF_OK);
	CU_ASSERT_EQUAL(b.cap, 16);
	CU_ASSERT_EQUAL(b.len, 9);
	CU_ASSERT_EQUAL(memcmp(b.p, "abcdefghi", 9), 0);
	/* Far past one doubling: 16 -> 32 -> 64 -> 128. */
	CU_ASSERT_PTR_NOT_NULL(shb_buf_room(&b, 100));
	CU_ASSERT_EQUAL(b.cap, 128);
	CU_ASSERT_EQUAL(b.len, 9);
	shb_buf_free(&b);
	CU_ASSERT_PTR_NULL(b.p);
	CU_ASSERT_EQUAL(b.len, 0);
	CU_ASSERT_EQUAL(b.cap, 0);
	CU_ASSERT_EQUAL(b.max, 1024); /* usable again */
	CU_ASSERT_EQUAL(shb_buf_put(&b, "x", 1), SHB_BUF_OK);
	shb_buf_free(&b);
}

static void test_default_first(void)
{
	struct shb_buf b;

	shb_buf_init(&b, 0, 1 << 20);
	CU_ASSERT_EQUAL(shb_buf_put_u8(&b, 1), SHB_BUF_OK);
	CU_ASSERT_EQUAL(b.cap, 64);
	shb_buf_free(&b);
}

static void test_room_commit(void)
{
	struct shb_buf b = SHB_BUF_INIT(8, 64);
	uint8_t *p = shb_buf_room(&b, 5);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memcpy(p, "hello", 5);
	shb_buf_commit(&b, 3); /* wrote 5, keeps 3 */
	CU_ASSERT_EQUAL(b.len, 3);
	CU_ASSERT_EQUAL(memcmp(b.p, "hel", 3), 0);
	/* A commit past the allocation is clamped to it. */
	shb_buf_commit(&b, 1000);
	CU_ASSERT_EQUAL(b.len, b.cap);
	CU_ASSERT_EQUAL(b.len, 8);
	shb_buf_free(&b);
}

/* The cap: an append that would pass it fails whole, leaves the content
 * as it was, and every later append fails until clear. */
static void test_cap(void)
{
	struct shb_buf b = SHB_BUF_INIT(4, 10);

	CU_ASSERT_EQUAL(shb_buf_put(&b, "012345", 6), SHB_BUF_OK);
	CU_ASSERT_EQUAL(shb_buf_put(&b, "6789A", 5), SHB_BUF_E_CAP);
	CU_ASSERT_EQUAL(b.len, 6);
	CU_ASSERT_EQUAL(memcmp(b.p, "012345", 6), 0);
	CU_ASSERT_EQUAL(b.err, SHB_BUF_E_CAP);
	CU_ASSERT_EQUAL(shb_buf_put_u8(&b, '6'), SHB_BUF_E_CAP); /* sticky */
	CU_ASSERT_PTR_NULL(shb_buf_room(&b, 1));
	CU_ASSERT_EQUAL(b.len, 6);
	shb_buf_clear(&b);
	CU_ASSERT_EQUAL(b.err, SHB_BUF_OK);
	CU_ASSERT_EQUAL(b.len, 0);
	/* Exactly max fits; the allocation is clamped to max, not 16. */
	CU_ASSERT_EQUAL(shb_buf_put(&b, "0123456789", 10), SHB_BUF_OK);
	CU_ASSERT_EQUAL(b.cap, 10);
	CU_ASSERT_EQUAL(shb_buf_put_u8(&b, 'x'), SHB_BUF_E_CAP);
	CU_ASSERT_EQUAL(b.len, 10);
	shb_buf_free(&b);
}

/* A peer that keeps sending grows the buffer to max and no further. */
static void test_cap_peer_growth(void)
{
	struct shb_buf b = SHB_BUF_INIT(16, 1000);
	uint8_t chunk[7] = {0};
	int rc = SHB_BUF_OK, appended = 0;

	for (int i = 0; i < 1000 && rc == SHB_BUF_OK; i++) {
		rc = shb_buf_put(&b, chunk, sizeof(chunk));
		appended += rc == SHB_BUF_OK;
	}
	CU_ASSERT_EQUAL(rc, SHB_BUF_E_CAP);
	CU_ASSERT_EQUAL(appended, 142); /* 142 * 7 = 994; 143 * 7 > 1000 */
	CU_ASSERT_EQUAL(b.len, 994);
	CU_ASSERT_EQUAL(b.cap, 1000);
	shb_buf_free(&b);
}

static void test_zeroed_refuses(void)
{
	struct shb_buf b;

	memset(&b, 0, sizeof(b));
	CU_ASSERT_EQUAL(shb_buf_put_u8(&b, 1), SHB_BUF_E_CAP);
	CU_ASSERT_PTR_NULL(b.p);
	shb_buf_free(&b);
}

/* Sizes next to SIZE_MAX: n larger than what is left of max, and len + n
 * that would wrap, are refused before any arithmetic can wrap. */
static void test_overflow(void)
{
	struct shb_buf b = SHB_BUF_INIT(8, SIZE_MAX);

	CU_ASSERT_EQUAL(shb_buf_put(&b, "abc", 3), SHB_BUF_OK);
	CU_ASSERT_PTR_NULL(shb_buf_room(&b, SIZE_MAX));
	CU_ASSERT_EQUAL(b.err, SHB_BUF_E_CAP);
	shb_buf_clear(&b);
	CU_ASSERT_EQUAL(shb_buf_put(&b, "abc", 3), SHB_BUF_OK);
	CU_ASSERT_PTR_NULL(shb_buf_room(&b, SIZE_MAX - 2)); /* len + n wraps to 0 */
	CU_ASSERT_EQUAL(b.err, SHB_BUF_E_CAP);
	CU_ASSERT_EQUAL(b.len, 3);
	CU_ASSERT_EQUAL(b.cap, 8);
	shb_buf_free(&b);
}

/* Doubling that would pass SIZE_MAX stops at max instead; the allocator
 * then refuses the size (the test runs with allocator_may_return_null
 * under ASan), which is SHB_BUF_E_NOMEM and leaves the content. */
static void test_doubling_near_max(void)
{
	struct shb_buf b = SHB_BUF_INIT(8, SIZE_MAX);

	CU_ASSERT_EQUAL(shb_buf_put(&b, "abcdefgh", 8), SHB_BUF_OK);
	CU_ASSERT_PTR_NULL(shb_buf_room(&b, SIZE_MAX / 2 + 1));
	CU_ASSERT_EQUAL(b.err, SHB_BUF_E_NOMEM);
	CU_ASSERT_EQUAL(b.len, 8);
	CU_ASSERT_EQUAL(b.cap, 8);
	CU_ASSERT_EQUAL(memcmp(b.p, "abcdefgh", 8), 0);
	shb_buf_free(&b);
}

static void test_take(void)
{
	struct shb_buf b = SHB_BUF_INIT(4, 64);
	size_t len = 99;
	uint8_t *p;

	CU_ASSERT_PTR_NULL(shb_buf_take(&b, &len)); /* empty */
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(shb_buf_put(&b, "hello", 5), SHB_BUF_OK);
	p = shb_buf_take(&b, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(len, 5);
	CU_ASSERT_EQUAL(memcmp(p, "hello", 5), 0);
	CU_ASSERT_PTR_NULL(b.p);
	CU_ASSERT_EQUAL(b.len, 0);
	CU_ASSERT_EQUAL(b.cap, 0);
	free(p);
	/* With an error: nothing handed over, memory freed, error kept. */
	CU_ASSERT_EQUAL(shb_buf_put(&b, "hello", 5), SHB_BUF_OK);
	CU_ASSERT_EQUAL(shb_buf_put(&b, b.p, 60), SHB_BUF_E_CAP);
	CU_ASSERT_PTR_NULL(shb_buf_take(&b, &len));
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_PTR_NULL(b.p);
	CU_ASSERT_EQUAL(b.err, SHB_BUF_E_CAP);
}

static void test_strerror(void)
{
	CU_ASSERT_STRING_EQUAL(shb_buf_strerror(SHB_BUF_OK), "ok");
	CU_ASSERT_STRING_EQUAL(shb_buf_strerror(SHB_BUF_E_NOMEM), "out of memory");
	CU_ASSERT_STRING_EQUAL(shb_buf_strerror(SHB_BUF_E_CAP), "above its cap");
	CU_ASSERT_STRING_EQUAL(shb_buf_strerror(7), "unknown buffer error");
}

static CU_TestInfo buf_tests[] = {
	{"grows from first by doubling", test_grow},
	{"first 0 is 64 octets", test_default_first},
	{"room then commit", test_room_commit},
	{"cap refuses whole, sticky until clear", test_cap},
	{"peer growth stops at the cap", test_cap_peer_growth},
	{"a zeroed buffer refuses", test_zeroed_refuses},
	{"sizes near SIZE_MAX do not wrap", test_overflow},
	{"doubling near SIZE_MAX stops at max", test_doubling_near_max},
	{"take hands the memory over", test_take},
	{"error texts", test_strerror},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"buf", NULL, NULL, NULL, NULL, buf_tests},
	CU_SUITE_INFO_NULL,
};
