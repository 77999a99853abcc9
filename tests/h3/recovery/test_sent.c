/* Sent-packet ring: order, lookup, settling from the head, the reserve,
 * eviction of ACK-only records, contiguous reference slices across the
 * wrap of the reference array, and growth from a small start. */
#include <string.h>

#include "quic_sent.h"
#include "recovery_tests.h"

static struct shb_quic_sent recs[512];
static struct shb_quic_frame_ref refs[70000];

static struct shb_quic_sent *push(struct shb_quic_sent_ring *g, uint64_t pn,
				  int eliciting, uint16_t nrefs)
{
	struct shb_quic_frame_ref r[16];
	struct shb_quic_sent p = {
		.pn = pn,
		.time_sent = T0 + pn,
		.size = SZ,
		.nrefs = nrefs,
		.ack_largest = SHB_QUIC_PN_NONE,
		.flags = eliciting ? SHB_QUIC_SENT_ACK_ELICITING : 0,
	};

	for (uint16_t i = 0; i < nrefs && i < 16; i++)
		r[i] = (struct shb_quic_frame_ref){
			.id = pn, .offset = i, .len = 1, .kind = 3};
	return shb_quic_sent_ring_push(g, &p, r);
}

static void test_order_and_find(void)
{
	struct shb_quic_sent_ring g;

	shb_quic_sent_ring_init(&g, recs, 8, refs, 16);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g, 5), UINT32_MAX);
	const uint64_t pns[] = {2, 3, 5, 8, 9};

	for (int i = 0; i < 5; i++)
		CU_ASSERT_PTR_NOT_NULL(push(&g, pns[i], 1, 0));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_count(&g), 5);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g, 1), UINT32_MAX);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g, 2), 0);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g, 4), 1);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g, 7), 2);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g, 8), 3);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g, 1000), 4);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_at(&g, 2)->pn, 5);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_at(&g, 2)->state,
			SHB_QUIC_SENT_OUTSTANDING);
	/* Settled records leave from the head only. */
	shb_quic_sent_ring_at(&g, 1)->state = SHB_QUIC_SENT_ACKED;
	shb_quic_sent_ring_pop_settled(&g);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_count(&g), 5);
	shb_quic_sent_ring_at(&g, 0)->state = SHB_QUIC_SENT_LOST;
	shb_quic_sent_ring_pop_settled(&g);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_count(&g), 3);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_at(&g, 0)->pn, 5);
	/* Wrap the record array: 3 + 5 more = 8 = full. */
	for (uint64_t pn = 10; pn < 15; pn++)
		CU_ASSERT_PTR_NOT_NULL(push(&g, pn, 1, 0));
	CU_ASSERT_PTR_NULL(push(&g, 15, 1, 0));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_count(&g), 8);
	for (uint32_t i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(shb_quic_sent_ring_find(&g,
				shb_quic_sent_ring_at(&g, i)->pn), i);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_at(&g, 7)->pn, 14);
}

static void test_reserve(void)
{
	struct shb_quic_sent_ring g;
	uint32_t max = 99;

	shb_quic_sent_ring_init(&g, recs, 4, refs, 8);
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 2, &max));
	CU_ASSERT_EQUAL(max, 8);
	push(&g, 0, 1, 0);
	push(&g, 1, 1, 0);
	CU_ASSERT_FALSE(shb_quic_sent_ring_fits(&g, 2, NULL));
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 1, NULL));
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, NULL));
	push(&g, 2, 1, 0);
	push(&g, 3, 1, 0);
	CU_ASSERT_FALSE(shb_quic_sent_ring_fits(&g, 0, &max));
	CU_ASSERT_PTR_NULL(push(&g, 4, 0, 0));
}

/* ACK-only records at the head make way; an ack-eliciting one does not. */
static void test_evict_ack_only(void)
{
	struct shb_quic_sent_ring g;

	shb_quic_sent_ring_init(&g, recs, 4, refs, 8);
	for (uint64_t pn = 0; pn < 4; pn++)
		push(&g, pn, 0, 0);
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, NULL));
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 2, NULL));
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 3, NULL));
	CU_ASSERT_FALSE(shb_quic_sent_ring_fits(&g, 4, NULL));
	CU_ASSERT_PTR_NOT_NULL(push(&g, 4, 1, 2));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_count(&g), 4);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_at(&g, 0)->pn, 1);

	shb_quic_sent_ring_init(&g, recs, 4, refs, 8);
	push(&g, 0, 1, 0);
	for (uint64_t pn = 1; pn < 4; pn++)
		push(&g, pn, 0, 0);
	CU_ASSERT_FALSE(shb_quic_sent_ring_fits(&g, 0, NULL));
	CU_ASSERT_PTR_NULL(push(&g, 4, 0, 0));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_at(&g, 0)->pn, 0);
}

static void test_ref_slices(void)
{
	struct shb_quic_sent_ring g;
	uint32_t max;

	shb_quic_sent_ring_init(&g, recs, 8, refs, 10);
	struct shb_quic_sent *a = push(&g, 0, 1, 4);
	struct shb_quic_sent *b = push(&g, 1, 1, 4);

	CU_ASSERT_PTR_EQUAL(shb_quic_sent_ring_refs(&g, a), &refs[0]);
	CU_ASSERT_PTR_EQUAL(shb_quic_sent_ring_refs(&g, b), &refs[4]);
	/* 2 free slots at the end, none at the start. */
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, &max));
	CU_ASSERT_EQUAL(max, 2);
	CU_ASSERT_PTR_NULL(push(&g, 2, 1, 3));
	/* Once the first record settles, a 3-slice goes to the start rather
	 * than wrapping: slices are always contiguous. */
	a->state = SHB_QUIC_SENT_ACKED;
	shb_quic_sent_ring_pop_settled(&g);
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, &max));
	CU_ASSERT_EQUAL(max, 4);
	struct shb_quic_sent *c = push(&g, 2, 1, 3);

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	const struct shb_quic_frame_ref *cr = shb_quic_sent_ring_refs(&g, c);

	CU_ASSERT_PTR_EQUAL(cr, &refs[0]);
	CU_ASSERT_EQUAL(cr[0].id, 2);
	CU_ASSERT_EQUAL(cr[2].offset, 2);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_refs(&g, b)[3].offset, 3);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_refs(&g, b)[3].id, 1);
	/* Only 1 slot is left between slices (b holds 4..7, c 0..2, and
	 * 8..9 were skipped). */
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, &max));
	CU_ASSERT_EQUAL(max, 1);
	CU_ASSERT_PTR_NULL(shb_quic_sent_ring_refs(&g,
			push(&g, 3, 1, 0)));
	/* An empty ring starts again at the array's start. */
	for (uint32_t i = 0; i < shb_quic_sent_ring_count(&g); i++)
		shb_quic_sent_ring_at(&g, i)->state = SHB_QUIC_SENT_LOST;
	shb_quic_sent_ring_pop_settled(&g);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_count(&g), 0);
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, &max));
	CU_ASSERT_EQUAL(max, 10);
	CU_ASSERT_PTR_EQUAL(shb_quic_sent_ring_refs(&g, push(&g, 4, 1, 10)),
			    &refs[0]);
	/* No reference storage at all: only reference-free records. */
	shb_quic_sent_ring_init(&g, recs, 8, refs, 0);
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, &max));
	CU_ASSERT_EQUAL(max, 0);
	CU_ASSERT_PTR_NULL(push(&g, 0, 1, 1));
	CU_ASSERT_PTR_NOT_NULL(push(&g, 0, 1, 0));
	/* nrefs is 16 bits: the limit reported never exceeds it. */
	shb_quic_sent_ring_init(&g, recs, 8, refs, 70000);
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 0, &max));
	CU_ASSERT_EQUAL(max, UINT16_MAX);
}

static void check_contents(struct shb_quic_sent_ring *g)
{
	for (uint32_t i = 0; i < shb_quic_sent_ring_count(g); i++) {
		const struct shb_quic_sent *s = shb_quic_sent_ring_at(g, i);
		const struct shb_quic_frame_ref *r = shb_quic_sent_ring_refs(g, s);

		if (i > 0)
			CU_ASSERT_FATAL(shb_quic_sent_ring_at(g, i - 1)->pn < s->pn);
		for (uint16_t k = 0; k < s->nrefs; k++) {
			CU_ASSERT_FATAL(r[k].id == s->pn);
			CU_ASSERT_FATAL(r[k].offset == k);
		}
	}
}

/* Many pushes and settles in random order keep pn order, counts and
 * reference contents intact. */
static void test_random_churn(void)
{
	struct shb_quic_sent_ring g;
	uint64_t seed = 777, next = 0;
	uint32_t pushed = 0;

	shb_quic_sent_ring_init(&g, recs, 16, refs, 37);
	for (int step = 0; step < 20000; step++) {
		uint64_t x = rh_rand(&seed);
		uint32_t max;

		if (x % 3 != 0 && shb_quic_sent_ring_fits(&g, 0, &max)) {
			uint16_t n = (uint16_t)((x >> 8) % 8);

			if (n > max)
				n = (uint16_t)max;
			CU_ASSERT_PTR_NOT_NULL_FATAL(push(&g, next++, 1, n));
			pushed++;
		} else if (shb_quic_sent_ring_count(&g) > 0) {
			uint32_t i = (uint32_t)((x >> 16) %
						shb_quic_sent_ring_count(&g));

			shb_quic_sent_ring_at(&g, i)->state =
				SHB_QUIC_SENT_ACKED;
			shb_quic_sent_ring_pop_settled(&g);
		}
		check_contents(&g);
	}
	CU_ASSERT(pushed > 5000);
}

/* A ring given 512 records and 2048 references uses 32 and 128 until more
 * packets are in flight, grows by doubling with records wrapped and slices
 * placed anywhere, keeps them all, and stops at the storage given. */
static void test_growth(void)
{
	struct shb_quic_sent_ring g;
	uint32_t max;
	uint64_t pn = 0;

	shb_quic_sent_ring_init(&g, recs, 512, refs, 2048);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_cap(&g), 32);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_ref_cap(&g), 128);
	/* fits() answers for the full size. */
	CU_ASSERT_TRUE(shb_quic_sent_ring_fits(&g, 500, &max));
	CU_ASSERT_EQUAL(max, 2048);
	/* Wrap both arrays at their start size: 20 records settle. */
	for (; pn < 30; pn++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(push(&g, pn, 1, 3));
	for (uint32_t i = 0; i < 20; i++)
		shb_quic_sent_ring_at(&g, i)->state = SHB_QUIC_SENT_ACKED;
	shb_quic_sent_ring_pop_settled(&g);
	for (; pn < 52; pn++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(push(&g, pn, 1, 5));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_count(&g), 32);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_cap(&g), 32);
	check_contents(&g);
	/* Full of ack-eliciting records: the next one doubles the records;
	 * many references at once double the references. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(push(&g, pn++, 1, 7));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_cap(&g), 64);
	check_contents(&g);
	CU_ASSERT_PTR_NOT_NULL_FATAL(push(&g, pn++, 1, 16));
	CU_ASSERT(shb_quic_sent_ring_ref_cap(&g) >= 256);
	check_contents(&g);
	/* ACK-only head records go before anything grows. */
	shb_quic_sent_ring_init(&g, recs, 512, refs, 2048);
	for (pn = 0; pn < 32; pn++)
		push(&g, pn, 0, 0);
	CU_ASSERT_PTR_NOT_NULL(push(&g, pn++, 1, 1));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_cap(&g), 32);
	/* Up to the storage, and no further. */
	shb_quic_sent_ring_init(&g, recs, 512, refs, 2048);
	for (pn = 0; pn < 512; pn++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(push(&g, pn, 1, 4));
	CU_ASSERT_EQUAL(shb_quic_sent_ring_cap(&g), 512);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_ref_cap(&g), 2048);
	CU_ASSERT_FALSE(shb_quic_sent_ring_fits(&g, 0, NULL));
	CU_ASSERT_PTR_NULL(push(&g, pn, 1, 1));
	check_contents(&g);
	/* Sizes that do not halve evenly start whole. */
	shb_quic_sent_ring_init(&g, recs, 48, refs, 96);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_cap(&g), 48);
	CU_ASSERT_EQUAL(shb_quic_sent_ring_ref_cap(&g), 96);
}

/* Random churn with growth: records wrapped at every size, slices at
 * every offset when the arrays double. */
static void test_random_growth(void)
{
	struct shb_quic_sent_ring g;
	uint64_t seed = 4242, next = 0;

	for (int round = 0; round < 20; round++) {
		shb_quic_sent_ring_init(&g, recs, 512, refs, 4096);
		for (int step = 0; step < 3000; step++) {
			uint64_t x = rh_rand(&seed);
			uint32_t max;
			/* Settle less often as the round goes on: in-flight
			 * grows, and so do the arrays. */
			int settle = (int)(x % 1000) < 450 - step / 10;

			if (!settle && shb_quic_sent_ring_fits(&g, 0, &max)) {
				uint16_t n = (uint16_t)((x >> 8) % 17);

				if (n > max)
					n = (uint16_t)max;
				CU_ASSERT_PTR_NOT_NULL_FATAL(push(&g, next++,
								  (x >> 40) % 4 != 0, n));
			} else if (shb_quic_sent_ring_count(&g) > 0) {
				uint32_t i = (uint32_t)((x >> 16) %
							shb_quic_sent_ring_count(&g));

				shb_quic_sent_ring_at(&g, i)->state = SHB_QUIC_SENT_ACKED;
				shb_quic_sent_ring_pop_settled(&g);
			}
			/* Every step while small, then now and then (a full
			 * check of 512 records is the slow part under ASan). */
			if (shb_quic_sent_ring_count(&g) < 64 || step % 16 == 0)
				check_contents(&g);
		}
		check_contents(&g);
	}
	CU_ASSERT_EQUAL(shb_quic_sent_ring_cap(&g), 512);
}

CU_TestInfo shb_rec_sent_tests[] = {
	{"pn order, find, settle from the head", test_order_and_find},
	{"reserve for probes", test_reserve},
	{"ACK-only head records are evicted", test_evict_ack_only},
	{"contiguous reference slices", test_ref_slices},
	{"random churn keeps contents", test_random_churn},
	{"growth from a small start", test_growth},
	{"random churn while growing", test_random_growth},
	CU_TEST_INFO_NULL,
};
