/* Receive-side ACK tracker: ranges under reordering and duplicates, the
 * 32-range cap, trimming, owed/pending, the ACK Delay field, and a
 * randomised comparison with a model that recomputes the ranges from a
 * plain array of received flags. */
#include <string.h>

#include "quic_ackrx.h"
#include "recovery_tests.h"

/* Checks that a's ranges are exactly want[0..n) (largest first). */
static void expect_ranges(const struct shb_quic_ackrx *a,
			  const struct shb_quic_ack_range *want, uint32_t n)
{
	struct shb_quic_ack_view v;

	if (n == 0) {
		CU_ASSERT_EQUAL(shb_quic_ackrx_view(a, T0, &v), -1);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(shb_quic_ackrx_view(a, T0, &v), 0);
	CU_ASSERT_EQUAL_FATAL(v.count, n);
	CU_ASSERT_EQUAL(v.largest, want[0].hi);
	for (uint32_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(v.ranges[i].lo, want[i].lo);
		CU_ASSERT_EQUAL(v.ranges[i].hi, want[i].hi);
	}
}

static void test_in_order(void)
{
	struct shb_quic_ackrx a;

	shb_quic_ackrx_init(&a);
	CU_ASSERT_EQUAL(shb_quic_ackrx_largest(&a), SHB_QUIC_PN_NONE);
	CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
	CU_ASSERT_FALSE(shb_quic_ackrx_pending(&a));
	expect_ranges(&a, NULL, 0);
	for (uint64_t pn = 0; pn < 10; pn++)
		CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, pn, 1, T0 + pn),
				SHB_QUIC_ACKRX_NEW);
	const struct shb_quic_ack_range want[] = {{0, 9}};

	expect_ranges(&a, want, 1);
	CU_ASSERT_EQUAL(shb_quic_ackrx_largest(&a), 9);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
	CU_ASSERT_TRUE(shb_quic_ackrx_pending(&a));
	shb_quic_ackrx_on_ack_sent(&a);
	CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
	CU_ASSERT_FALSE(shb_quic_ackrx_pending(&a));
	/* The ranges stay until trimmed: the next ACK repeats them. */
	expect_ranges(&a, want, 1);
}

static void test_duplicates(void)
{
	struct shb_quic_ackrx a;

	shb_quic_ackrx_init(&a);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 5, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	shb_quic_ackrx_on_ack_sent(&a);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 5, 1, T0 + MS),
			SHB_QUIC_ACKRX_DUPLICATE);
	/* A duplicate changes nothing: no ACK owed, delay still from T0. */
	CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
	CU_ASSERT_FALSE(shb_quic_ackrx_pending(&a));
	struct shb_quic_ack_view v;

	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0 + 8 * MS, &v), 0);
	CU_ASSERT_EQUAL(v.ack_delay, 1000);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, SHB_QUIC_PN_MAX + 1, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, SHB_QUIC_PN_NONE, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_ackrx_largest(&a), 5);
}

static void test_reorder_merge(void)
{
	struct shb_quic_ackrx a;

	shb_quic_ackrx_init(&a);
	const uint64_t order[] = {5, 3, 4, 1, 0, 9};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, order[i], 1, T0),
				SHB_QUIC_ACKRX_NEW);
	const struct shb_quic_ack_range w1[] = {{9, 9}, {3, 5}, {0, 1}};

	expect_ranges(&a, w1, 3);
	/* 2 joins the two ranges below; 7 sits alone; 8 joins 7 and 9. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 2, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 7, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	const struct shb_quic_ack_range w2[] = {{9, 9}, {7, 7}, {0, 5}};

	expect_ranges(&a, w2, 3);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 8, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 4, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	const struct shb_quic_ack_range w3[] = {{7, 9}, {0, 5}};

	expect_ranges(&a, w3, 2);
	CU_ASSERT_EQUAL(shb_quic_ackrx_largest(&a), 9);
}

/* Only ack-eliciting packets make an ACK owed; the delay counts from the
 * arrival of the largest packet number, not of the latest packet. */
static void test_owed_pending_delay(void)
{
	struct shb_quic_ackrx a;
	struct shb_quic_ack_view v;

	shb_quic_ackrx_init(&a);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 3, 0, T0),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
	CU_ASSERT_TRUE(shb_quic_ackrx_pending(&a));
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 1, 1, T0 + 5 * MS),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
	/* 800 us after the largest (3) arrived: 800 >> 3 = 100. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0 + 800000, &v), 0);
	CU_ASSERT_EQUAL(v.largest, 3);
	CU_ASSERT_EQUAL(v.ack_delay, 100);
	/* 7999 ns is 7 us: 7 >> 3 = 0. A clock before the arrival gives 0. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0 + 7999, &v), 0);
	CU_ASSERT_EQUAL(v.ack_delay, 0);
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0 - 1, &v), 0);
	CU_ASSERT_EQUAL(v.ack_delay, 0);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 4, 0, T0 + 10 * MS),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0 + 10 * MS + 80000, &v), 0);
	CU_ASSERT_EQUAL(v.ack_delay, 10);
}

/* 32 ranges: even packet numbers 0, 2, ..., 62. */
static void fill_32(struct shb_quic_ackrx *a)
{
	shb_quic_ackrx_init(a);
	for (uint64_t pn = 0; pn < 64; pn += 2)
		CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(a, pn, 1, T0),
				SHB_QUIC_ACKRX_NEW);
}

static void test_range_cap(void)
{
	struct shb_quic_ackrx a;
	struct shb_quic_ack_view v;

	fill_32(&a);
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0, &v), 0);
	CU_ASSERT_EQUAL(v.count, 32);
	/* A 33rd range forgets the oldest, [0,0]; 0 is then refused. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 100, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0, &v), 0);
	CU_ASSERT_EQUAL(v.count, 32);
	CU_ASSERT_EQUAL(v.ranges[0].lo, 100);
	CU_ASSERT_EQUAL(v.ranges[31].lo, 2);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 0, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	/* 1 extends [2,2] downwards: no new range needed, so accepted. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 1, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0, &v), 0);
	CU_ASSERT_EQUAL(v.ranges[31].lo, 1);
	CU_ASSERT_EQUAL(v.ranges[31].hi, 2);
	/* 3 joins [1,2] and [4,4]: one range fewer. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 3, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0, &v), 0);
	CU_ASSERT_EQUAL(v.count, 31);
	CU_ASSERT_EQUAL(v.ranges[30].lo, 1);
	CU_ASSERT_EQUAL(v.ranges[30].hi, 4);
	/* There is room again, but 0 stays refused: it was forgotten. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 0, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0, &v), 0);
	CU_ASSERT_EQUAL(v.count, 31);
}

/* Full, and the packet would be a new smallest range: refused, nothing
 * forgotten. */
static void test_range_cap_oldest_refused(void)
{
	struct shb_quic_ackrx a;
	struct shb_quic_ack_view v;

	shb_quic_ackrx_init(&a);
	for (uint64_t pn = 10; pn < 74; pn += 2)
		CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, pn, 1, T0),
				SHB_QUIC_ACKRX_NEW);
	shb_quic_ackrx_on_ack_sent(&a);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 5, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
	CU_ASSERT_EQUAL(shb_quic_ackrx_view(&a, T0, &v), 0);
	CU_ASSERT_EQUAL(v.count, 32);
	CU_ASSERT_EQUAL(v.ranges[31].lo, 10);
	/* ... but one adjacent to the smallest range still fits. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 9, 1, T0),
			SHB_QUIC_ACKRX_NEW);
}

static void test_trim(void)
{
	struct shb_quic_ackrx a;

	shb_quic_ackrx_init(&a);
	const uint64_t pns[] = {1, 2, 5, 6, 7, 10, 11, 12};

	for (size_t i = 0; i < sizeof(pns) / sizeof(pns[0]); i++)
		shb_quic_ackrx_on_packet(&a, pns[i], 1, T0);
	shb_quic_ackrx_trim(&a, 6);
	const struct shb_quic_ack_range w[] = {{10, 12}, {7, 7}};

	expect_ranges(&a, w, 2);
	/* Everything <= 6 is refused from now on, even never-seen 3. */
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 3, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 6, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 8, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	const struct shb_quic_ack_range w2[] = {{10, 12}, {7, 8}};

	expect_ranges(&a, w2, 2);
	/* A lower trim later changes nothing. */
	shb_quic_ackrx_trim(&a, 2);
	expect_ranges(&a, w2, 2);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
	/* Trimming everything leaves nothing to acknowledge or owe, but the
	 * largest stays for packet number decoding. */
	shb_quic_ackrx_trim(&a, 12);
	expect_ranges(&a, NULL, 0);
	CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
	CU_ASSERT_FALSE(shb_quic_ackrx_pending(&a));
	CU_ASSERT_EQUAL(shb_quic_ackrx_largest(&a), 12);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 12, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_ackrx_on_packet(&a, 13, 1, T0),
			SHB_QUIC_ACKRX_NEW);
	const struct shb_quic_ack_range w3[] = {{13, 13}};

	expect_ranges(&a, w3, 1);
}

/* ---- model ------------------------------------------------------------- */

#define MODEL_N 400

struct model {
	uint8_t got[MODEL_N];
	uint64_t floor;
	struct shb_quic_ack_range r[MODEL_N];
	uint32_t n;
};

static void model_ranges(struct model *m)
{
	m->n = 0;
	for (int64_t pn = MODEL_N - 1; pn >= 0; pn--) {
		if (!m->got[pn])
			continue;
		if (m->n > 0 && m->r[m->n - 1].lo == (uint64_t)pn + 1) {
			m->r[m->n - 1].lo = (uint64_t)pn;
		} else {
			m->r[m->n].lo = m->r[m->n].hi = (uint64_t)pn;
			m->n++;
		}
	}
}

static int model_packet(struct model *m, uint64_t pn)
{
	if (pn < m->floor || m->got[pn])
		return SHB_QUIC_ACKRX_DUPLICATE;
	m->got[pn] = 1;
	model_ranges(m);
	if (m->n <= SHB_QUIC_ACKRX_MAX_RANGES)
		return SHB_QUIC_ACKRX_NEW;
	struct shb_quic_ack_range low = m->r[m->n - 1];

	if (low.lo == pn && low.hi == pn) {
		m->got[pn] = 0;
		model_ranges(m);
		return SHB_QUIC_ACKRX_DUPLICATE;
	}
	for (uint64_t p = low.lo; p <= low.hi; p++)
		m->got[p] = 0;
	m->floor = low.hi + 1;
	model_ranges(m);
	return SHB_QUIC_ACKRX_NEW;
}

static void model_trim(struct model *m, uint64_t pn)
{
	for (uint64_t p = 0; p <= pn && p < MODEL_N; p++)
		m->got[p] = 0;
	if (pn + 1 > m->floor)
		m->floor = pn + 1;
	model_ranges(m);
}

/* Packets arrive in a window that slides forward with reordering,
 * duplicates and holes that never fill; trims happen now and then. */
static void test_model_random(void)
{
	static struct model m;
	uint64_t seed = 0x9e3779b97f4a7c15u;
	uint32_t checked = 0, cap_hits = 0;

	for (int round = 0; round < 40; round++) {
		struct shb_quic_ackrx a;
		uint64_t base = 0, floor_seen = 0;

		shb_quic_ackrx_init(&a);
		memset(&m, 0, sizeof(m));
		for (int step = 0; step < 600; step++) {
			uint64_t x = rh_rand(&seed);

			if (x % 29 == 0 && base > 10) {
				uint64_t t = base - 1 - (x >> 8) % 10;

				shb_quic_ackrx_trim(&a, t);
				model_trim(&m, t);
			} else {
				uint64_t pn = base + (x >> 8) % 12;

				/* Now and then a very late packet. */
				if ((x >> 50) % 16 == 0)
					pn = (x >> 8) % (base + 1);
				if (pn >= MODEL_N)
					break;
				/* Holes that never fill: 1 in 4 packet numbers
				 * (odd rounds), enough to hit the range cap. */
				if ((pn * 2654435761u) % 4 == 3 && round % 2)
					continue;
				CU_ASSERT_EQUAL(
					shb_quic_ackrx_on_packet(&a, pn, 1, T0),
					model_packet(&m, pn));
				if ((x >> 40) % 3 == 0)
					base++;
			}
			model_ranges(&m);
			uint32_t n = m.n;

			expect_ranges(&a, m.r, n);
			checked++;
			if (m.floor > floor_seen) {
				floor_seen = m.floor;
				cap_hits++;
			}
		}
	}
	CU_ASSERT(checked > 10000);
	CU_ASSERT(cap_hits > 20);
}

/* The decimating policy: after 2 ack-eliciting packets during the start,
 * after `every` past it, at once out of order, and at `delay` after the
 * first unacknowledged one otherwise; non-eliciting packets never count. */
static void test_policy(void)
{
	const uint64_t delay = 1000000;
	struct shb_quic_ackrx a;
	uint64_t pn = 0;

	shb_quic_ackrx_init(&a);
	shb_quic_ackrx_set_policy(&a, 10, delay);
	CU_ASSERT_EQUAL(shb_quic_ackrx_deadline(&a), SHB_QUIC_TIME_NONE);
	/* Start: every second ack-eliciting packet. */
	for (unsigned i = 0; i < SHB_QUIC_ACK_START_PKTS; i += 2) {
		shb_quic_ackrx_on_packet(&a, pn++, 1, T0);
		CU_ASSERT_FALSE_FATAL(shb_quic_ackrx_owed(&a));
		CU_ASSERT_EQUAL(shb_quic_ackrx_deadline(&a), T0 + delay);
		shb_quic_ackrx_on_packet(&a, pn++, 0, T0); /* does not count */
		CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
		shb_quic_ackrx_on_packet(&a, pn++, 1, T0);
		CU_ASSERT_TRUE_FATAL(shb_quic_ackrx_owed(&a));
		CU_ASSERT_EQUAL(shb_quic_ackrx_deadline(&a), SHB_QUIC_TIME_NONE);
		shb_quic_ackrx_on_ack_sent(&a);
	}
	/* Past it: the tenth. */
	for (unsigned i = 1; i < 10; i++) {
		shb_quic_ackrx_on_packet(&a, pn++, 1, T0 + i);
		CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
		CU_ASSERT_TRUE(shb_quic_ackrx_pending(&a));
	}
	CU_ASSERT_EQUAL(shb_quic_ackrx_deadline(&a), T0 + 1 + delay);
	shb_quic_ackrx_on_packet(&a, pn++, 1, T0 + 10);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
	shb_quic_ackrx_on_ack_sent(&a);
	/* The timer: not before its time, owed at it. */
	shb_quic_ackrx_on_packet(&a, pn++, 1, T0 + 100);
	shb_quic_ackrx_on_timer(&a, T0 + 99 + delay);
	CU_ASSERT_FALSE(shb_quic_ackrx_owed(&a));
	shb_quic_ackrx_on_timer(&a, T0 + 100 + delay);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
	shb_quic_ackrx_on_ack_sent(&a);
	/* A gap opened: at once; the packet filling it: at once too. */
	shb_quic_ackrx_on_packet(&a, pn + 1, 1, T0 + 200);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
	shb_quic_ackrx_on_ack_sent(&a);
	shb_quic_ackrx_on_packet(&a, pn, 1, T0 + 201);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
	shb_quic_ackrx_on_ack_sent(&a);
	/* Trimming everything leaves nothing waiting. */
	shb_quic_ackrx_on_packet(&a, pn + 2, 1, T0 + 300);
	CU_ASSERT_NOT_EQUAL(shb_quic_ackrx_deadline(&a), SHB_QUIC_TIME_NONE);
	shb_quic_ackrx_trim(&a, pn + 2);
	CU_ASSERT_EQUAL(shb_quic_ackrx_deadline(&a), SHB_QUIC_TIME_NONE);
	CU_ASSERT_FALSE(shb_quic_ackrx_pending(&a));
	/* init undoes the policy: every ack-eliciting packet again. */
	shb_quic_ackrx_init(&a);
	shb_quic_ackrx_on_packet(&a, 0, 1, T0);
	CU_ASSERT_TRUE(shb_quic_ackrx_owed(&a));
}

CU_TestInfo shb_rec_ackrx_tests[] = {
	{"in order, owed cleared by ACK sent", test_in_order},
	{"duplicates and out-of-range pns", test_duplicates},
	{"reordering merges ranges", test_reorder_merge},
	{"owed vs pending, ACK delay field", test_owed_pending_delay},
	{"32-range cap forgets the oldest", test_range_cap},
	{"32-range cap refuses a new oldest", test_range_cap_oldest_refused},
	{"trim after our ACK is acknowledged", test_trim},
	{"random arrivals vs reference model", test_model_random},
	{"decimation: start, every 10, timer, out of order", test_policy},
	CU_TEST_INFO_NULL,
};
