/* plugins/reporters/tui/view.c: every value checked exactly. */
#include <string.h>
#include <CUnit/CUnit.h>

#include "view.h"

static void si_is(double v, const char *want)
{
	char buf[16];
	CU_ASSERT_STRING_EQUAL(shb_tui_si(buf, sizeof(buf), v), want);
	CU_ASSERT(strlen(buf) <= 5);
}

static void test_si(void)
{
	si_is(0, "0");
	si_is(-3, "0");
	si_is(0.4, "0");
	si_is(0.5, "0"); /* printf rounds half to even */
	si_is(1.5, "2");
	si_is(999, "999");
	si_is(9999, "9999");
	si_is(9999.4, "9999");
	si_is(9999.5, "10.0k");
	si_is(12345, "12.3k");
	si_is(99949, "99.9k");
	si_is(99950, "100k");
	si_is(123456, "123k");
	si_is(999499, "999k");
	si_is(999500, "1.00M");
	si_is(1234567, "1.23M");
	si_is(2.5e9, "2.50G");
	si_is(1e18, "1.00E");
	si_is(5e20, "500E");
}

static void dur_is(uint64_t ns, const char *want)
{
	char buf[16];
	CU_ASSERT_STRING_EQUAL(shb_tui_dur(buf, sizeof(buf), ns), want);
	CU_ASSERT(strlen(buf) <= 6);
}

static void test_dur(void)
{
	dur_is(0, "0");
	dur_is(1, "1ns");
	dur_is(999, "999ns");
	dur_is(1000, "1.00us");
	dur_is(12345, "12.3us");
	dur_is(999499, "999us");
	dur_is(999500, "1.00ms");
	dur_is(1234567, "1.23ms");
	dur_is(250000000, "250ms");
	dur_is(999999999, "1.00s");
	dur_is(12340000000ull, "12.3s");
	dur_is(999400000000ull, "999s");
	dur_is(999500000000ull, "16m40s");
	dur_is(3599000000000ull, "59m59s");
	dur_is(3600000000000ull, "1h00m");
	dur_is(359999000000000ull, "99h59m");
	dur_is(360000000000000ull, "100h");
}

static void test_nice_ceil(void)
{
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(0), 1);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(-5), 1);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(1), 1);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(1.01), 2);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(2), 2);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(2.1), 5);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(5), 5);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(7), 10);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(10), 10);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(11), 20);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(1000), 1000);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(1001), 2000);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(12345), 20000);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(45000), 50000);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(50001), 100000);
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(1e6), 1e6);
	/* latency in ns: 3.2 ms tops at 5 ms */
	CU_ASSERT_EQUAL(shb_tui_nice_ceil(3200000), 5000000);
}

static void test_units_and_cells(void)
{
	/* 10 rows = 20 half cells */
	CU_ASSERT_EQUAL(shb_tui_units(0, 100, 10), 0);
	CU_ASSERT_EQUAL(shb_tui_units(-1, 100, 10), 0);
	CU_ASSERT_EQUAL(shb_tui_units(5, 0, 10), 0);
	CU_ASSERT_EQUAL(shb_tui_units(5, 100, 0), 0);
	CU_ASSERT_EQUAL(shb_tui_units(0.001, 100, 10), 1); /* visible */
	CU_ASSERT_EQUAL(shb_tui_units(5, 100, 10), 1);
	CU_ASSERT_EQUAL(shb_tui_units(5.1, 100, 10), 2);
	CU_ASSERT_EQUAL(shb_tui_units(50, 100, 10), 10);
	CU_ASSERT_EQUAL(shb_tui_units(100, 100, 10), 20);
	CU_ASSERT_EQUAL(shb_tui_units(250, 100, 10), 20); /* clamped */

	/* 3 half cells: row 0 full, row 1 half, row 2 empty */
	CU_ASSERT_EQUAL(shb_tui_bar_cell(3, 0), '#');
	CU_ASSERT_EQUAL(shb_tui_bar_cell(3, 1), '.');
	CU_ASSERT_EQUAL(shb_tui_bar_cell(3, 2), ' ');
	CU_ASSERT_EQUAL(shb_tui_bar_cell(0, 0), ' ');
	CU_ASSERT_EQUAL(shb_tui_bar_cell(1, 0), '.');
	CU_ASSERT_EQUAL(shb_tui_bar_cell(2, 0), '#');

	/* p50 1 half cell, p99 5: '#', ':', ':', ' ' */
	CU_ASSERT_EQUAL(shb_tui_pair_cell(1, 5, 0), '#');
	CU_ASSERT_EQUAL(shb_tui_pair_cell(1, 5, 1), ':');
	CU_ASSERT_EQUAL(shb_tui_pair_cell(1, 5, 2), ':');
	CU_ASSERT_EQUAL(shb_tui_pair_cell(1, 5, 3), ' ');
	CU_ASSERT_EQUAL(shb_tui_pair_cell(4, 4, 1), '#');
	CU_ASSERT_EQUAL(shb_tui_pair_cell(4, 4, 2), ' ');
	CU_ASSERT_EQUAL(shb_tui_pair_cell(0, 0, 0), ' ');
}

/* Boxes inside the screen, side by side or stacked, never overlapping. */
static int inside(const struct shb_tui_box *b, int rows, int cols)
{
	return b->y >= 0 && b->x >= 0 && b->h > 0 && b->w > 0 &&
	       b->y + b->h <= rows && b->x + b->w <= cols;
}

static int overlap(const struct shb_tui_box *a, const struct shb_tui_box *b)
{
	return a->x < b->x + b->w && b->x < a->x + a->w &&
	       a->y < b->y + b->h && b->y < a->y + a->h;
}

static void layout_sane(int rows, int cols)
{
	struct shb_tui_layout l;
	CU_ASSERT_EQUAL_FATAL(shb_tui_layout(rows, cols, &l), 0);
	const struct shb_tui_box *b[] = {&l.head, &l.rate, &l.lat, &l.totals,
					 &l.status, &l.conns};
	int area = 0;
	for (int i = 0; i < 6; i++) {
		CU_ASSERT(inside(b[i], rows, cols));
		area += b[i]->h * b[i]->w;
		for (int j = i + 1; j < 6; j++)
			CU_ASSERT(!overlap(b[i], b[j]));
	}
	CU_ASSERT_EQUAL(area, rows * cols); /* the whole screen is used */
}

static void test_layout(void)
{
	struct shb_tui_layout l;
	CU_ASSERT_EQUAL_FATAL(shb_tui_layout(40, 120, &l), 0);
	/* 40 rows: header 2, panel 11, charts 13 and 14 */
	CU_ASSERT_EQUAL(l.head.h, 2);
	CU_ASSERT_EQUAL(l.rate.y, 2);
	CU_ASSERT_EQUAL(l.rate.h, 13);
	CU_ASSERT_EQUAL(l.lat.y, 15);
	CU_ASSERT_EQUAL(l.lat.h, 14);
	CU_ASSERT_EQUAL(l.totals.y, 29);
	CU_ASSERT_EQUAL(l.totals.h, SHB_TUI_PANEL_ROWS);
	CU_ASSERT_EQUAL(l.totals.w, 40);
	CU_ASSERT_EQUAL(l.status.x, 40);
	CU_ASSERT_EQUAL(l.status.w, 40);
	CU_ASSERT_EQUAL(l.conns.x, 80);
	CU_ASSERT_EQUAL(l.conns.w, 40);
	layout_sane(40, 120);
	layout_sane(24, 80);
	layout_sane(SHB_TUI_MIN_ROWS, SHB_TUI_MIN_COLS);
	layout_sane(61, 211);
	layout_sane(1000, 1000);
	/* 100 columns: 33 + 34 + 33 */
	CU_ASSERT_EQUAL_FATAL(shb_tui_layout(30, 100, &l), 0);
	CU_ASSERT_EQUAL(l.status.w, 34);
	CU_ASSERT_EQUAL(l.conns.x, 67);
	CU_ASSERT_EQUAL(shb_tui_layout(SHB_TUI_MIN_ROWS - 1, 200, &l), -1);
	CU_ASSERT_EQUAL(shb_tui_layout(200, SHB_TUI_MIN_COLS - 1, &l), -1);
	CU_ASSERT_EQUAL(shb_tui_layout(0, 0, &l), -1);
}

static void test_series(void)
{
	static struct shb_tui_series s;
	shb_tui_series_clear(&s);
	for (int i = 0; i < 5; i++) {
		struct shb_tui_point p = {.rate = i};
		shb_tui_series_add(&s, &p);
	}
	CU_ASSERT_EQUAL(s.count, 5);
	CU_ASSERT_EQUAL(shb_tui_series_at(&s, 5, 0)->rate, 0);
	CU_ASSERT_EQUAL(shb_tui_series_at(&s, 3, 0)->rate, 2);
	CU_ASSERT_EQUAL(shb_tui_series_at(&s, 3, 2)->rate, 4);
	/* full: the oldest go first */
	for (int i = 5; i < SHB_TUI_POINTS + 7; i++) {
		struct shb_tui_point p = {.rate = i};
		shb_tui_series_add(&s, &p);
	}
	CU_ASSERT_EQUAL(s.count, SHB_TUI_POINTS);
	CU_ASSERT_EQUAL(shb_tui_series_at(&s, SHB_TUI_POINTS, 0)->rate, 7);
	CU_ASSERT_EQUAL(shb_tui_series_at(&s, 1, 0)->rate, SHB_TUI_POINTS + 6);
	CU_ASSERT_EQUAL(shb_tui_series_at(&s, 2, 0)->rate, SHB_TUI_POINTS + 5);
	shb_tui_series_clear(&s);
	CU_ASSERT_EQUAL(s.count, 0);
}

static void test_target_rate(void)
{
	const uint64_t S = 1000000000ull;
	/* closed loop, an empty interval */
	CU_ASSERT_EQUAL(shb_tui_target_rate(0, NULL, 0, 0, S), 0);
	CU_ASSERT_EQUAL(shb_tui_target_rate(5000, NULL, 0, S, S), 0);
	/* -R 1000.5 */
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(1000500, NULL, 0, 7 * S, 8 * S),
			       1000.5, 1e-9);
	/* --stages 10s:1000,10s:1000,10s:0: ramp 0 -> 1000, hold, ramp to 0 */
	struct shb_stage st[] = {
		{10 * S, 0, 1000000},
		{10 * S, 1000000, 1000000},
		{10 * S, 1000000, 0},
	};
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(0, st, 3, 0, S), 50, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(0, st, 3, 9 * S, 10 * S), 950, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(0, st, 3, 0, 10 * S), 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(0, st, 3, 12 * S, 13 * S), 1000, 1e-9);
	/* across two stages: 9.5..10.5 s = (0.5 s at 975 avg + 0.5 s at 1000) */
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(0, st, 3, 9500000000ull,
						   10500000000ull), 987.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(0, st, 3, 0, 30 * S), 2000.0 / 3,
			       1e-9);
	/* after the last stage */
	CU_ASSERT_EQUAL(shb_tui_target_rate(0, st, 3, 30 * S, 31 * S), 0);
	CU_ASSERT_DOUBLE_EQUAL(shb_tui_target_rate(0, st, 3, 29 * S, 31 * S), 25,
			       1e-9);
}

static CU_TestInfo view_tests[] = {
	{"counts and rates in 5 characters", test_si},
	{"durations in 6 characters", test_dur},
	{"axis tops at 1, 2, 5 x 10^k", test_nice_ceil},
	{"bar heights and cells", test_units_and_cells},
	{"layout at several sizes", test_layout},
	{"the series ring", test_series},
	{"open-loop target rate of an interval", test_target_rate},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"tui-view", NULL, NULL, NULL, NULL, view_tests},
	CU_SUITE_INFO_NULL,
};
