/* The tui reporter's pure part: what goes into which text cell, without
 * ncurses, so that it is unit-tested (tests/tui): number formatting, the
 * charts' axis scaling and bar cells, the screen layout, the time series
 * the charts draw, and the open-loop target rate of an interval.
 *
 * Everything here is [main] (reporter calls) and allocation-free. */
#ifndef SHB_TUI_VIEW_H
#define SHB_TUI_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <shb/results.h>

/* ---- numbers ------------------------------------------------------------ */

/* A count or rate in at most 5 characters, C locale: "0", "999", "1000",
 * "12.3k", "123k", "1.23M", ... up to "E" (10^18). Below 10000 it is the
 * whole number rounded; above, 3 significant digits. Returns buf. */
char *shb_tui_si(char *buf, size_t len, double v);

/* A duration in nanoseconds in at most 6 characters: "0", "850ns",
 * "12.3us", "1.23ms", "123ms", "1.23s", "12.3s", "123s", "59m59s",
 * "99h59m". Returns buf. */
char *shb_tui_dur(char *buf, size_t len, uint64_t ns);

/* The smallest of 1, 2, 5 times a power of ten that is >= v: the top of
 * a chart's axis. 1 for v <= 1 (an empty chart still has a scale). */
double shb_tui_nice_ceil(double v);

/* ---- bar charts ------------------------------------------------------------ */

/* A value's bar height in half cells on a chart `rows` high whose top is
 * `max`: rounded up, so that anything above 0 shows; at most 2 * rows. */
unsigned shb_tui_units(double v, double max, unsigned rows);

/* The character of row `row` (0 = bottom) of a bar `units` half cells
 * high: '#' when the row is full, '.' when half full, else ' '. */
char shb_tui_bar_cell(unsigned units, unsigned row);

/* Row `row` of a two-part bar (latency: p50 below p99): '#' where the
 * lower part `lo` covers at least half the row, ':' where only the
 * upper part `hi` does, else ' '. */
char shb_tui_pair_cell(unsigned lo, unsigned hi, unsigned row);

/* ---- layout ------------------------------------------------------------------ */

/* A box on the screen: top-left corner, height and width, borders
 * included. */
struct shb_tui_box {
	int y, x, h, w;
};

/* Rows of the panel below the charts: borders and the lines of its
 * longest box. */
#define SHB_TUI_PANEL_ROWS 11
/* The smallest screen the view draws; below it, one line asks for more. */
#define SHB_TUI_MIN_COLS 60
#define SHB_TUI_MIN_ROWS 22

struct shb_tui_layout {
	struct shb_tui_box head;   /* two lines: the run, and its progress */
	struct shb_tui_box rate;   /* throughput chart */
	struct shb_tui_box lat;    /* latency chart */
	struct shb_tui_box totals; /* requests, rates, percentiles */
	struct shb_tui_box status; /* status codes, errors by kind */
	struct shb_tui_box conns;  /* connection gauges, open loop */
};

/* Splits a screen of rows x cols: the header, the two charts sharing
 * what the panel leaves, and the panel's three boxes side by side.
 * Returns 0, or -1 when the screen is smaller than the minimum. */
int shb_tui_layout(int rows, int cols, struct shb_tui_layout *l);

/* ---- the time series ------------------------------------------------------- */

/* The last SHB_TUI_POINTS intervals, oldest dropped first: enough for
 * the widest chart. */
#define SHB_TUI_POINTS 512

struct shb_tui_point {
	double rate;        /* requests (ok + errors) per second */
	double target;      /* open loop: the scheduled rate; else 0 */
	uint64_t p50, p99;  /* ns; 0 when nothing was ok */
	uint64_t errors;
};

struct shb_tui_series {
	struct shb_tui_point p[SHB_TUI_POINTS];
	size_t head;  /* index of the oldest */
	size_t count;
};

void shb_tui_series_clear(struct shb_tui_series *s);
void shb_tui_series_add(struct shb_tui_series *s, const struct shb_tui_point *pt);
/* The i-th of the last `n` points (0 = the oldest of them); n <= count. */
const struct shb_tui_point *shb_tui_series_at(const struct shb_tui_series *s,
					      size_t n, size_t i);

/* ---- open loop -------------------------------------------------------------- */

/* The scheduled rate in requests/s, averaged over [t0, t1) ns of the
 * measured load: -R's constant rate (`rate_milli`, requests/s x 1000)
 * or the stages' ramps (stages[0] starts when the measured load does,
 * after any warm-up; 0 after the last). 0 in closed loop (no rate, no
 * stages) and for an empty interval. */
double shb_tui_target_rate(uint64_t rate_milli, const struct shb_stage *stages,
			   size_t stage_count, uint64_t t0, uint64_t t1);

#endif
