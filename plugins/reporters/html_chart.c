#include "html_chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The plot area inside the chart; the margins hold labels and legend. */
#define LEFT 72
#define RIGHT 36
#define TOP 32
#define BOTTOM 52
#define PLOT_W (HTML_CHART_W - LEFT - RIGHT)
#define PLOT_H (HTML_CHART_H - TOP - BOTTOM)
#define TICKS_WANTED 6
/* Past this many decades (1 - 1e-12) a percentile axis stops: no
 * histogram holds the 10^12 samples that would need more. */
#define DECADES_MAX 12

/* ---- ticks ------------------------------------------------------------------ */

void html_ticks_of(double max, unsigned want, struct html_ticks *t)
{
	static const unsigned long long mant[3] = {1, 2, 5};
	t->m = 1;
	t->e = 0;
	t->n = 1;
	if (!(max > 0) || !isfinite(max) || want == 0)
		return;
	/* The smallest step m x 10^e that reaches max in want + 1 steps at
	 * most; the tolerance keeps 3.0000000001 (a float artefact) at 3. */
	int e0 = (int)floor(log10(max / want));
	for (int e = e0; e <= e0 + 1; e++) {
		for (int i = 0; i < 3; i++) {
			struct html_ticks c = {mant[i], e < -12 ? -12 : e > 15 ? 15 : e, 1};
			double steps = ceil(max / html_tick_value(&c, 1) - 1e-9);
			if (steps <= want + 1) {
				c.n = steps < 1 ? 1 : (unsigned)steps;
				*t = c;
				return;
			}
		}
	}
}

double html_tick_value(const struct html_ticks *t, unsigned i)
{
	return (double)i * (double)t->m * pow(10, t->e);
}

char *html_tick_label(char *buf, size_t len, const struct html_ticks *t,
		      unsigned i)
{
	unsigned long long v = (unsigned long long)i * t->m;
	if (i == 0) {
		snprintf(buf, len, "0");
	} else if (t->e >= 0) {
		for (int k = 0; k < t->e; k++)
			v *= 10;
		snprintf(buf, len, "%llu", v);
	} else {
		shb_rpt_fixed(buf, len, v, (unsigned)-t->e);
	}
	return buf;
}

char *html_decade_label(char *buf, size_t len, unsigned d)
{
	static const char nines[] = "999999999999";
	if (d == 0)
		snprintf(buf, len, "0%%");
	else if (d == 1)
		snprintf(buf, len, "90%%");
	else if (d == 2)
		snprintf(buf, len, "99%%");
	else
		snprintf(buf, len, "99.%.*s%%", (int)(d - 2 < 12 ? d - 2 : 12),
			 nines);
	return buf;
}

/* ---- coordinates -------------------------------------------------------------- */

/* One decimal, locale-independent; v is clamped to [0, hi]. */
static char *coord(char *buf, size_t len, double v, double hi)
{
	if (!(v > 0))
		v = 0;
	if (v > hi)
		v = hi;
	return shb_rpt_fixed(buf, len, shb_rpt_scale(v, 1), 1);
}

struct frame {
	const struct html_chart *c;
	struct html_ticks xt, yt; /* xt unused on a percentile axis */
	double xspan, yspan;      /* data units across the plot area */
};

static double px(const struct frame *f, double x)
{
	return LEFT + x / f->xspan * PLOT_W;
}

static double py(const struct frame *f, double y)
{
	return TOP + PLOT_H - y / f->yspan * PLOT_H;
}

static void frame_of(struct frame *f, const struct html_chart *c)
{
	f->c = c;
	html_ticks_of(c->ymax, TICKS_WANTED, &f->yt);
	f->yspan = html_tick_value(&f->yt, f->yt.n);
	if (c->xscale == HTML_X_PERCENTILE) {
		double d = ceil(c->xmax - 1e-9);
		f->xspan = d < 2 ? 2 : d > DECADES_MAX ? DECADES_MAX : d;
	} else {
		html_ticks_of(c->xmax, TICKS_WANTED, &f->xt);
		f->xspan = html_tick_value(&f->xt, f->xt.n);
	}
}

/* ---- the parts of a chart --------------------------------------------------- */

/* The x axis's ticks: decades on a percentile axis, else the nice ticks. */
static unsigned x_ticks(const struct frame *f)
{
	return f->c->xscale == HTML_X_PERCENTILE ? (unsigned)f->xspan : f->xt.n;
}

static double x_tick(const struct frame *f, unsigned i, char *label, size_t len)
{
	if (f->c->xscale == HTML_X_PERCENTILE) {
		html_decade_label(label, len, i);
		return i;
	}
	html_tick_label(label, len, &f->xt, i);
	return html_tick_value(&f->xt, i);
}

static void grid(struct shb_rpt_out *o, const struct frame *f)
{
	char a[32], label[32];
	shb_rpt_puts(o, "<g class=\"grid\">\n");
	for (unsigned i = 0; i <= f->yt.n; i++) {
		coord(a, sizeof(a), py(f, html_tick_value(&f->yt, i)), HTML_CHART_H);
		shb_rpt_printf(o, "<line x1=\"%d\" y1=\"%s\" x2=\"%d\" y2=\"%s\"/>\n",
			       LEFT, a, LEFT + PLOT_W, a);
	}
	for (unsigned i = 0; i <= x_ticks(f); i++) {
		coord(a, sizeof(a), px(f, x_tick(f, i, label, sizeof(label))),
		      HTML_CHART_W);
		shb_rpt_printf(o, "<line x1=\"%s\" y1=\"%d\" x2=\"%s\" y2=\"%d\"/>\n",
			       a, TOP, a, TOP + PLOT_H);
	}
	shb_rpt_puts(o, "</g>\n");
}

static void tick_labels(struct shb_rpt_out *o, const struct frame *f)
{
	char a[32], label[32];
	shb_rpt_puts(o, "<g class=\"ticks-y\">\n");
	for (unsigned i = 0; i <= f->yt.n; i++) {
		coord(a, sizeof(a), py(f, html_tick_value(&f->yt, i)) + 4, HTML_CHART_H);
		shb_rpt_printf(o, "<text x=\"%d\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
			       LEFT - 6, a, html_tick_label(label, sizeof(label), &f->yt, i));
	}
	shb_rpt_puts(o, "</g>\n<g class=\"ticks-x\">\n");
	for (unsigned i = 0; i <= x_ticks(f); i++) {
		coord(a, sizeof(a), px(f, x_tick(f, i, label, sizeof(label))),
		      HTML_CHART_W);
		shb_rpt_printf(o, "<text x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			       a, TOP + PLOT_H + 16, label);
	}
	shb_rpt_puts(o, "</g>\n");
}

static void axes_and_titles(struct shb_rpt_out *o, const struct html_chart *c)
{
	shb_rpt_printf(o, "<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>\n",
		       LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H,
		       LEFT, TOP, LEFT, TOP + PLOT_H);
	shb_rpt_printf(o, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" "
		       "text-anchor=\"middle\">%s</text>\n",
		       LEFT + PLOT_W / 2, HTML_CHART_H - 8, c->xlabel);
	/* The y title runs upwards: rotated, so x is minus the height. */
	shb_rpt_printf(o, "<text class=\"axis-title\" transform=\"rotate(-90)\" "
		       "x=\"%d\" y=\"16\" text-anchor=\"middle\">%s</text>\n",
		       -(TOP + PLOT_H / 2), c->ylabel);
}

static void legend(struct shb_rpt_out *o, const struct html_chart *c)
{
	int x = LEFT;
	shb_rpt_puts(o, "<g class=\"legend\">\n");
	for (size_t i = 0; i < c->nseries; i++) {
		const struct html_series *s = &c->series[i];
		shb_rpt_printf(o, "<line class=\"key %s\" x1=\"%d\" y1=\"16\" x2=\"%d\" y2=\"16\"/>"
			       "<text x=\"%d\" y=\"20\">%s</text>\n",
			       s->cls, x, x + 20, x + 26, s->name);
		/* About 10 units per character: room for the larger type
		 * of a narrow window (the page's style). */
		x += 26 + 10 * (int)strlen(s->name) + 18;
	}
	shb_rpt_puts(o, "</g>\n");
}

static void point(struct shb_rpt_out *o, const struct frame *f,
		  const struct html_series *s, size_t i, int first)
{
	char a[32], b[32];
	shb_rpt_printf(o, "%s%s,%s", first ? "" : " ",
		       coord(a, sizeof(a), px(f, s->x[i]), HTML_CHART_W),
		       coord(b, sizeof(b), py(f, s->y[i]), HTML_CHART_H));
}

/* Points [from, to) as one polyline; a lone point also as a circle. */
static void polyline(struct shb_rpt_out *o, const struct frame *f,
		     const struct html_series *s, size_t from, size_t to)
{
	char a[32], b[32];
	shb_rpt_printf(o, "<polyline class=\"series %s\" points=\"", s->cls);
	for (size_t i = from; i < to; i++)
		point(o, f, s, i, i == from);
	shb_rpt_puts(o, "\"/>\n");
	if (to - from == 1)
		shb_rpt_printf(o, "<circle class=\"dot %s\" cx=\"%s\" cy=\"%s\" r=\"3\"/>\n",
			       s->cls,
			       coord(a, sizeof(a), px(f, s->x[from]), HTML_CHART_W),
			       coord(b, sizeof(b), py(f, s->y[from]), HTML_CHART_H));
}

static void series(struct shb_rpt_out *o, const struct frame *f,
		   const struct html_series *s)
{
	size_t from = 0;
	for (size_t i = 0; i <= s->n; i++) {
		int gap = i == s->n || (s->skip && s->skip[i]);
		if (!gap)
			continue;
		if (i > from)
			polyline(o, f, s, from, i);
		from = i + 1;
	}
}

void html_chart(struct shb_rpt_out *o, const struct html_chart *c)
{
	struct frame f;
	frame_of(&f, c);
	shb_rpt_printf(o, "<svg class=\"chart %s\" id=\"%s\" viewBox=\"0 0 %d %d\" "
		       "width=\"%d\" height=\"%d\" role=\"img\" aria-labelledby=\"%s-title\">\n"
		       "<title id=\"%s-title\">%s</title>\n",
		       c->kind, c->id, HTML_CHART_W, HTML_CHART_H, HTML_CHART_W,
		       HTML_CHART_H, c->id, c->id, c->title);
	grid(o, &f);
	tick_labels(o, &f);
	axes_and_titles(o, c);
	legend(o, c);
	for (size_t i = 0; i < c->nseries; i++)
		series(o, &f, &c->series[i]);
	shb_rpt_puts(o, "</svg>\n");
}
