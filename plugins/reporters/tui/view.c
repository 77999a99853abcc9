#include "view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- numbers ------------------------------------------------------------ */

char *shb_tui_si(char *buf, size_t len, double v)
{
	static const char suffix[] = "kMGTPE";
	if (!(v > 0)) /* 0, negative, NaN */
		v = 0;
	if (v < 9999.5) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	int k = -1;
	while (v >= 999.5 && k < 5) {
		v /= 1000;
		k++;
	}
	/* 3 significant digits; 9.995 rounds up to "10.0", 99.95 to "100" */
	if (v < 9.995)
		snprintf(buf, len, "%.2f%c", v, suffix[k]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%c", v, suffix[k]);
	else
		snprintf(buf, len, "%.0f%c", v, suffix[k]);
	return buf;
}

char *shb_tui_dur(char *buf, size_t len, uint64_t ns)
{
	static const struct { double div; const char *unit; } u[] = {
		{1e3, "us"}, {1e6, "ms"}, {1e9, "s"},
	};
	if (ns < 1000) {
		snprintf(buf, len, ns ? "%lluns" : "0", (unsigned long long)ns);
		return buf;
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		double v = (double)ns / u[i].div;
		/* the next unit once this one would print 1000 */
		if (v >= 999.5 && i + 1 < sizeof(u) / sizeof(u[0]))
			continue;
		if (i + 1 == sizeof(u) / sizeof(u[0]) && v >= 999.5)
			break;
		if (v < 9.995)
			snprintf(buf, len, "%.2f%s", v, u[i].unit);
		else if (v < 99.95)
			snprintf(buf, len, "%.1f%s", v, u[i].unit);
		else
			snprintf(buf, len, "%.0f%s", v, u[i].unit);
		return buf;
	}
	uint64_t s = (ns + 500000000u) / 1000000000u;
	if (s < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else if (s < 100 * 3600ull)
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
	else
		snprintf(buf, len, "%lluh", (unsigned long long)(s / 3600));
	return buf;
}

double shb_tui_nice_ceil(double v)
{
	if (!(v > 1))
		return 1;
	double p = pow(10, floor(log10(v)));
	/* log10 may land a hair off for exact powers of ten */
	if (p * 10 <= v)
		p *= 10;
	else if (p > v)
		p /= 10;
	static const double steps[] = {1, 2, 5, 10};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= v)
			return steps[i] * p;
	return 10 * p;
}

/* ---- bar charts ------------------------------------------------------------ */

unsigned shb_tui_units(double v, double max, unsigned rows)
{
	if (!(v > 0) || !(max > 0) || rows == 0)
		return 0;
	double u = ceil(v / max * 2 * rows);
	return u >= 2.0 * rows ? 2 * rows : (unsigned)u;
}

char shb_tui_bar_cell(unsigned units, unsigned row)
{
	if (units >= 2 * row + 2)
		return '#';
	return units == 2 * row + 1 ? '.' : ' ';
}

char shb_tui_pair_cell(unsigned lo, unsigned hi, unsigned row)
{
	if (lo >= 2 * row + 1)
		return '#';
	return hi >= 2 * row + 1 ? ':' : ' ';
}

/* ---- layout ------------------------------------------------------------------ */

int shb_tui_layout(int rows, int cols, struct shb_tui_layout *l)
{
	memset(l, 0, sizeof(*l));
	if (rows < SHB_TUI_MIN_ROWS || cols < SHB_TUI_MIN_COLS)
		return -1;
	l->head = (struct shb_tui_box){0, 0, 2, cols};
	int charts = rows - l->head.h - SHB_TUI_PANEL_ROWS;
	int rate_h = charts / 2;
	l->rate = (struct shb_tui_box){l->head.h, 0, rate_h, cols};
	l->lat = (struct shb_tui_box){l->head.h + rate_h, 0, charts - rate_h, cols};
	int py = rows - SHB_TUI_PANEL_ROWS;
	/* totals and connections get a third each, rounded down; statuses
	 * take the rest */
	int w3 = cols / 3;
	l->totals = (struct shb_tui_box){py, 0, SHB_TUI_PANEL_ROWS, w3};
	l->status = (struct shb_tui_box){py, w3, SHB_TUI_PANEL_ROWS, cols - 2 * w3};
	l->conns = (struct shb_tui_box){py, cols - w3, SHB_TUI_PANEL_ROWS, w3};
	return 0;
}

/* ---- the time series ------------------------------------------------------- */

void shb_tui_series_clear(struct shb_tui_series *s)
{
	s->head = 0;
	s->count = 0;
}

void shb_tui_series_add(struct shb_tui_series *s, const struct shb_tui_point *pt)
{
	if (s->count < SHB_TUI_POINTS) {
		s->p[(s->head + s->count++) % SHB_TUI_POINTS] = *pt;
		return;
	}
	s->p[s->head] = *pt;
	s->head = (s->head + 1) % SHB_TUI_POINTS;
}

const struct shb_tui_point *shb_tui_series_at(const struct shb_tui_series *s,
					      size_t n, size_t i)
{
	return &s->p[(s->head + s->count - n + i) % SHB_TUI_POINTS];
}

/* ---- open loop -------------------------------------------------------------- */

/* Requests (x 1000) a stage schedules in [u0, u1), both within it. */
static double stage_integral(const struct shb_stage *st, double u0, double u1)
{
	double a = (double)st->rate_from_milli, b = (double)st->rate_to_milli;
	double d = (double)st->duration_ns;
	return a * (u1 - u0) + (b - a) / (2 * d) * (u1 * u1 - u0 * u0);
}

double shb_tui_target_rate(uint64_t rate_milli, const struct shb_stage *stages,
			   size_t stage_count, uint64_t t0, uint64_t t1)
{
	if (t1 <= t0)
		return 0;
	if (!stages || !stage_count)
		return (double)rate_milli / 1000;
	double sum = 0; /* requests x 1000 x ns */
	uint64_t start = 0;
	for (size_t i = 0; i < stage_count && start < t1; i++) {
		uint64_t end = start + stages[i].duration_ns;
		uint64_t a = t0 > start ? t0 : start, b = t1 < end ? t1 : end;
		if (a < b && stages[i].duration_ns)
			sum += stage_integral(&stages[i], (double)(a - start),
					      (double)(b - start));
		start = end;
	}
	return sum / 1000 / (double)(t1 - t0);
}
