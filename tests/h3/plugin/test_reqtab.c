/* The request table against a plain array model: random adds, finds and
 * removals with stream IDs that collide on purpose. */
#include <string.h>

#include "h3p_tests.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_sizes(void)
{
	struct shb_h3_reqtab t;

	CU_ASSERT_EQUAL(shb_h3_reqtab_init(&t, 0), -1);
	CU_ASSERT_EQUAL(shb_h3_reqtab_init(&t, 65537), -1);
	CU_ASSERT_EQUAL(shb_h3_reqtab_init(&t, 1), 0);
	CU_ASSERT_EQUAL(t.mask, 1);
	CU_ASSERT_PTR_NOT_NULL(shb_h3_reqtab_add(&t, 0));
	CU_ASSERT_PTR_NULL(shb_h3_reqtab_add(&t, 4)); /* limit 1 */
	shb_h3_reqtab_free(&t);
	CU_ASSERT_EQUAL(shb_h3_reqtab_init(&t, 5), 0);
	CU_ASSERT_EQUAL(t.mask, 15);
	shb_h3_reqtab_free(&t);
	CU_ASSERT_EQUAL(shb_h3_reqtab_init(&t, 1024), 0);
	CU_ASSERT_EQUAL(t.mask, 2047);
	shb_h3_reqtab_free(&t);
}

/* Removing from the middle of a run keeps every other entry findable,
 * including those that wrapped around the end of the table. */
static void test_wraparound(void)
{
	struct shb_h3_reqtab t;
	/* limit 2 -> 4 slots; ids 12, 28, 44 all have home slot 3 */
	CU_ASSERT_EQUAL_FATAL(shb_h3_reqtab_init(&t, 2), 0);
	t.limit = 3; /* fill 3 of 4 slots to force wrapping */
	shb_h3_reqtab_add(&t, 12)->cookie = 1;
	shb_h3_reqtab_add(&t, 28)->cookie = 2;
	shb_h3_reqtab_add(&t, 44)->cookie = 3;
	CU_ASSERT_EQUAL(t.slot[3].id, 12);
	CU_ASSERT_EQUAL(t.slot[0].id, 28);
	CU_ASSERT_EQUAL(t.slot[1].id, 44);
	shb_h3_reqtab_remove(&t, shb_h3_reqtab_find(&t, 12));
	CU_ASSERT_EQUAL(shb_h3_reqtab_find(&t, 28)->cookie, 2);
	CU_ASSERT_EQUAL(shb_h3_reqtab_find(&t, 44)->cookie, 3);
	CU_ASSERT_PTR_NULL(shb_h3_reqtab_find(&t, 12));
	CU_ASSERT_EQUAL(t.slot[3].id, 28); /* shifted back home */
	CU_ASSERT_EQUAL(shb_h3_reqtab_find_cookie(&t, 3)->id, 44);
	CU_ASSERT_PTR_NULL(shb_h3_reqtab_find_cookie(&t, 1));
	CU_ASSERT_EQUAL(t.count, 2);
	shb_h3_reqtab_free(&t);
}

static void test_model(void)
{
	enum { LIMIT = 24, ROUNDS = 200000 };
	struct shb_h3_reqtab t;
	uint64_t model[LIMIT];
	size_t n = 0;
	uint64_t next_id = 0;

	CU_ASSERT_EQUAL_FATAL(shb_h3_reqtab_init(&t, LIMIT), 0);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t x = next_rand();
		if (n < LIMIT && (x & 1)) {
			/* IDs mostly sequential, sometimes far ahead so that
			 * runs wrap and collide */
			next_id += (x & 0x30) ? 4 : 4 * (64 + (x >> 40) % 64);
			struct shb_h3_req *q = shb_h3_reqtab_add(&t, next_id);
			CU_ASSERT_PTR_NOT_NULL_FATAL(q);
			q->cookie = next_id * 3;
			model[n++] = next_id;
		} else if (n) {
			size_t k = (size_t)((x >> 8) % n);
			struct shb_h3_req *q = shb_h3_reqtab_find(&t, model[k]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(q);
			CU_ASSERT_EQUAL(q->cookie, model[k] * 3);
			shb_h3_reqtab_remove(&t, q);
			model[k] = model[--n];
		}
		CU_ASSERT_EQUAL_FATAL(t.count, n);
		if (r % 97 == 0) {
			for (size_t k = 0; k < n; k++) {
				struct shb_h3_req *q = shb_h3_reqtab_find(&t, model[k]);
				CU_ASSERT_FATAL(q && q->id == model[k] && q->cookie == model[k] * 3);
			}
			CU_ASSERT_PTR_NULL(shb_h3_reqtab_find(&t, next_id + 4));
		}
	}
	if (n == LIMIT)
		CU_ASSERT_PTR_NULL(shb_h3_reqtab_add(&t, next_id + 4));
	shb_h3_reqtab_free(&t);
}

CU_TestInfo shb_h3p_reqtab_tests[] = {
	{"sizes and limit", test_sizes},
	{"removal with wraparound", test_wraparound},
	{"random operations against a model", test_model},
	CU_TEST_INFO_NULL,
};
