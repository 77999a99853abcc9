/* The worker's timer heap (core/engine/timer_heap.c): entries come out in
 * time order, an armed id moves in place (never a second entry), removal
 * from any place keeps the heap, many equal deadlines all come out once,
 * and a long random sequence agrees with a plain array at every step. The
 * heap property and every id's recorded place are checked after each
 * change. */
#include <stdint.h>
#include <stdlib.h>
#include <CUnit/CUnit.h>

#include "engine/timer_heap.h"

static struct shb_theap h;

/* The heap property, each entry's place in pos, and exactly n armed ids. */
static int consistent(void)
{
	uint32_t armed = 0;
	for (uint32_t i = 0; i < h.n; i++) {
		if (i && h.e[(i - 1) / 2].at > h.e[i].at)
			return 0;
		if (h.e[i].id >= h.cap || h.pos[h.e[i].id] != i + 1)
			return 0;
	}
	for (uint32_t id = 0; id < h.cap; id++)
		armed += h.pos[id] != 0;
	return armed == h.n && h.n <= h.cap;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 1000 ids at scrambled times come out by time, each once. */
static void test_order(void)
{
	CU_ASSERT_FATAL(shb_theap_init(&h, 1000) == 0);
	CU_ASSERT_EQUAL(shb_theap_next(&h), UINT64_MAX);
	CU_ASSERT_EQUAL(shb_theap_pop_due(&h, UINT64_MAX), SHB_THEAP_NONE);
	for (uint32_t id = 0; id < 1000; id++)
		shb_theap_set(&h, id, (id * 7919u) % 1000 + 100);
	CU_ASSERT_EQUAL(h.n, 1000);
	CU_ASSERT(consistent());
	CU_ASSERT_EQUAL(shb_theap_next(&h), 100);
	/* Nothing before its time. */
	CU_ASSERT_EQUAL(shb_theap_pop_due(&h, 99), SHB_THEAP_NONE);
	uint8_t seen[1000] = {0};
	for (uint64_t t = 100; t < 1100; t++) {
		uint32_t id = shb_theap_pop_due(&h, t);
		CU_ASSERT_FATAL(id < 1000);
		CU_ASSERT_EQUAL((id * 7919u) % 1000 + 100, t);
		CU_ASSERT_FALSE(seen[id]);
		seen[id] = 1;
		CU_ASSERT_FALSE(shb_theap_armed(&h, id));
		CU_ASSERT_EQUAL(shb_theap_pop_due(&h, t), SHB_THEAP_NONE);
	}
	CU_ASSERT_EQUAL(h.n, 0);
	CU_ASSERT(consistent());
	shb_theap_free(&h);
}

/* Setting an armed id moves it, earlier or later; the count stays. */
static void test_update_in_place(void)
{
	CU_ASSERT_FATAL(shb_theap_init(&h, 8) == 0);
	for (uint32_t id = 0; id < 8; id++)
		shb_theap_set(&h, id, 1000 + 10 * id);
	shb_theap_set(&h, 7, 5);      /* last to first */
	CU_ASSERT_EQUAL(h.n, 8);
	CU_ASSERT(consistent());
	CU_ASSERT_EQUAL(shb_theap_at(&h, 7), 5);
	CU_ASSERT_EQUAL(h.e[0].id, 7);
	shb_theap_set(&h, 7, 2000);   /* first to last */
	shb_theap_set(&h, 0, 1035);   /* between 3 and 4 */
	shb_theap_set(&h, 3, 1030);   /* the same time: nothing moves */
	CU_ASSERT_EQUAL(h.n, 8);
	CU_ASSERT(consistent());
	static const uint32_t want[8] = {1, 2, 3, 0, 4, 5, 6, 7};
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(shb_theap_pop_due(&h, UINT64_MAX), want[i]);
	/* Set a million times over: still at most one entry per id. */
	for (uint32_t i = 0; i < 1000000; i++)
		shb_theap_set(&h, i % 8, next_rand() % 1000);
	CU_ASSERT_EQUAL(h.n, 8);
	CU_ASSERT(consistent());
	shb_theap_free(&h);
}

/* Removal of the root, the last entry, one in the middle and one not
 * armed. */
static void test_remove(void)
{
	CU_ASSERT_FATAL(shb_theap_init(&h, 16) == 0);
	for (uint32_t id = 0; id < 16; id++)
		shb_theap_set(&h, id, 100 - id);
	shb_theap_del(&h, 15); /* the root (earliest) */
	CU_ASSERT(consistent());
	shb_theap_del(&h, h.e[h.n - 1].id); /* the last place */
	CU_ASSERT(consistent());
	shb_theap_del(&h, 8);
	shb_theap_del(&h, 8); /* not armed any more: nothing */
	CU_ASSERT(consistent());
	CU_ASSERT_EQUAL(h.n, 13);
	CU_ASSERT_FALSE(shb_theap_armed(&h, 15));
	CU_ASSERT_FALSE(shb_theap_armed(&h, 8));
	CU_ASSERT_EQUAL(shb_theap_next(&h), 86); /* id 14 */
	uint64_t last = 0;
	uint32_t n = 0, id;
	while ((id = shb_theap_pop_due(&h, UINT64_MAX)) != SHB_THEAP_NONE) {
		CU_ASSERT(id != 8 && id != 15);
		CU_ASSERT(100 - id >= last);
		last = 100 - id;
		n++;
	}
	CU_ASSERT_EQUAL(n, 13);
	shb_theap_free(&h);
}

/* 50,000 connections due at the same instant: every one comes out once,
 * none before it; a second batch at the same time after some are moved. */
static void test_many_equal(void)
{
	enum { N = 50000 };
	static uint8_t seen[N];
	CU_ASSERT_FATAL(shb_theap_init(&h, N) == 0);
	for (uint32_t id = 0; id < N; id++)
		shb_theap_set(&h, id, 777);
	for (uint32_t id = 0; id < N; id += 2)
		shb_theap_set(&h, id, 778);
	CU_ASSERT(consistent());
	CU_ASSERT_EQUAL(shb_theap_pop_due(&h, 776), SHB_THEAP_NONE);
	uint32_t id, n = 0;
	while ((id = shb_theap_pop_due(&h, 777)) != SHB_THEAP_NONE) {
		CU_ASSERT_EQUAL(id % 2, 1);
		CU_ASSERT_FALSE(seen[id]);
		seen[id] = 1;
		n++;
	}
	CU_ASSERT_EQUAL(n, N / 2);
	while ((id = shb_theap_pop_due(&h, 778)) != SHB_THEAP_NONE) {
		CU_ASSERT_EQUAL(id % 2, 0);
		CU_ASSERT_FALSE(seen[id]);
		seen[id] = 1;
		n++;
	}
	CU_ASSERT_EQUAL(n, N);
	CU_ASSERT_EQUAL(h.n, 0);
	shb_theap_free(&h);
}

/* Random sets, deletes and pops against a plain array of deadlines. */
static void test_against_array(void)
{
	enum { CAP = 257 };
	uint64_t model[CAP];
	for (uint32_t i = 0; i < CAP; i++)
		model[i] = UINT64_MAX; /* not armed */
	CU_ASSERT_FATAL(shb_theap_init(&h, CAP) == 0);
	uint64_t now = 0;
	int ok = 1;
	for (uint32_t step = 0; step < 200000 && ok; step++) {
		uint32_t id = (uint32_t)(next_rand() % CAP);
		switch (next_rand() % 4) {
		case 0:
		case 1: {
			uint64_t at = now + next_rand() % 1000;
			shb_theap_set(&h, id, at);
			model[id] = at;
			break;
		}
		case 2:
			shb_theap_del(&h, id);
			model[id] = UINT64_MAX;
			break;
		default: {
			now += next_rand() % 50;
			uint64_t min = UINT64_MAX;
			for (uint32_t i = 0; i < CAP; i++)
				if (model[i] < min)
					min = model[i];
			uint32_t got = shb_theap_pop_due(&h, now);
			if (min > now) {
				ok &= got == SHB_THEAP_NONE;
			} else {
				ok &= got < CAP && model[got] == min;
				if (got < CAP)
					model[got] = UINT64_MAX;
			}
			ok &= shb_theap_next(&h) == UINT64_MAX || shb_theap_next(&h) >= min;
		}
		}
		if (step % 97 == 0)
			ok &= consistent();
	}
	CU_ASSERT(ok);
	CU_ASSERT(consistent());
	for (uint32_t i = 0; i < CAP; i++)
		CU_ASSERT_EQUAL(shb_theap_armed(&h, i), model[i] != UINT64_MAX);
	shb_theap_free(&h);
}

static CU_TestInfo heap_tests[] = {
	{"scrambled times come out in order, each once", test_order},
	{"an armed id moves in place", test_update_in_place},
	{"removal from root, last place and middle", test_remove},
	{"50,000 equal deadlines", test_many_equal},
	{"200,000 random steps against an array", test_against_array},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"timer_heap", NULL, NULL, NULL, NULL, heap_tests},
	CU_SUITE_INFO_NULL,
};
