/* The "tui" reporter: a full-screen live view of the run on the terminal
 * of stdout, drawn with ncurses (`shb --tui`, or --report tui).
 *
 * It takes interval results (WANTS_INTERVALS: every second unless
 * --interval says otherwise) and redraws the whole screen on each
 * sample(), never per request: throughput and latency (p50 under p99) as
 * bar charts over time, the last interval's percentiles, the status codes
 * and errors by kind counted so far, the connection gauges (ABI 1.3) and,
 * under open loop, the scheduled against the achieved rate. end() draws
 * the run's totals; then, when stdin is a terminal too and the run was
 * not interrupted, the screen stays until a key is pressed or `hold`
 * seconds pass (option hold=SECONDS, default 30, 0: leave at once). It
 * then restores the terminal (endwin), and the reporters after it (the
 * core puts this one first) print their reports on the normal screen.
 *
 * Keys while running: q stops the run as Ctrl-C does (the report of what
 * was measured follows). A resize is taken at the next sample: the screen
 * is laid out again for the new size.
 *
 * It draws on the terminal of stdout, never through the core's stream:
 * shb refuses --tui and --report tui when stdout is no terminal; with a
 * stream that is no terminal (another host, the plugin checker) every
 * call succeeds and nothing is drawn or written.
 *
 * ncurses is linked into this module only, never into the core. */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report_common.h"
#include "report_metrics.h"
#include "view.h"

/* term.c: kept apart, as term.h defines macros named like variables
 * ("lines", "columns"). 1 when terminfo knows $TERM for fd. */
int shb_tui_term_known(int fd);

#define HOLD_DEFAULT_S 30u
#define HOLD_MAX_S 3600u
#define KEY_POLL_MS 250
#define STATUS_SLOTS 1000
/* the percentiles of the totals box: p50, p90, p99, then max */
#define NPCT 3

static const uint32_t box_ppm[NPCT] = {500000, 900000, 990000};
static const char *const box_pct_name[NPCT] = {"p50", "p90", "p99"};

struct tui {
	const struct shb_host *host;
	const struct shb_run_info *info; /* from begin(), until destroy */
	unsigned hold_s;
	SCREEN *scr;      /* from the first begin() */
	int on;           /* in curses mode (between begin and end) */
	int keys;         /* stdin is a terminal: keys are read */
	int headless;     /* no terminal to draw on: every call does nothing */
	int stop_asked;   /* q was pressed: SIGINT raised */
	int final;        /* end() drew the totals */
	int interrupted;
	struct shb_tui_series series;
	/* Counted from the samples since the load started; end() replaces
	 * them with the totals. */
	uint64_t elapsed_ns, total, ok, errors, opened;
	uint64_t status[STATUS_SLOTS];
	uint64_t err_kind[SHB_ERRK_EX_COUNT];
	int have_gauges;
	uint64_t active, connecting; /* the last gauges (ABI 1.3) */
	/* The last interval (or, once final, the run) */
	uint64_t span_ns;  /* its length */
	double rate, target;
	uint64_t pct[NPCT], max;
	uint64_t lat_count;
	/* open loop, from end() */
	uint64_t late, unsent, lag_max;
	/* 1.4: the protocol's metrics so far (once final, the run's): a
	 * counter's sum or a histogram's count */
	uint32_t nmetric;
	char metric_name[SHB_METRIC_MAX][33];
	uint64_t metric_total[SHB_METRIC_MAX];
};

/* ---- options ----------------------------------------------------------------- */

static int set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;
	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* "hold=SECONDS": the only option. */
static int parse_options(const char *opts, unsigned *hold, char *err,
			 size_t errlen)
{
	*hold = HOLD_DEFAULT_S;
	for (const char *p = opts; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n > 5 && strncmp(p, "hold=", 5) == 0) {
			unsigned long v = 0;
			size_t i = 5;
			for (; i < n && p[i] >= '0' && p[i] <= '9' && v <= HOLD_MAX_S; i++)
				v = v * 10 + (unsigned long)(p[i] - '0');
			if (i < n || v > HOLD_MAX_S)
				return set_err(err, errlen, SHB_E_INVAL,
					       "hold=%.*s: expected whole "
					       "seconds, 0 to %u", (int)(n - 5),
					       p + 5, HOLD_MAX_S);
			*hold = (unsigned)v;
		} else {
			return set_err(err, errlen, SHB_E_INVAL,
				       "unknown option \"%.*s\" (known: "
				       "hold=SECONDS)", (int)(n > 40 ? 40 : n), p);
		}
		p += n;
		if (*p)
			p++;
	}
	return SHB_OK;
}

/* ---- drawing helpers ---------------------------------------------------------- */

/* Text at (y, x), cut at `w` cells. */
static void put(int y, int x, int w, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(int y, int x, int w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	if (w <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mvaddnstr(y, x, buf, w);
}

/* A label on the left and a value right-aligned on line `line` of a
 * box's inside. */
static void kv(const struct shb_tui_box *b, int line, const char *key,
	       const char *val)
{
	int w = b->w - 4;
	if (line >= b->h - 2 || w <= 0)
		return;
	put(b->y + 1 + line, b->x + 2, w, "%-*s", w, key);
	int vl = (int)strlen(val);
	if (vl > w)
		vl = w;
	mvaddnstr(b->y + 1 + line, b->x + 2 + w - vl, val, vl);
}

static void frame(const struct shb_tui_box *b, const char *title)
{
	int y1 = b->y + b->h - 1, x1 = b->x + b->w - 1;
	mvhline(b->y, b->x + 1, ACS_HLINE, b->w - 2);
	mvhline(y1, b->x + 1, ACS_HLINE, b->w - 2);
	mvvline(b->y + 1, b->x, ACS_VLINE, b->h - 2);
	mvvline(b->y + 1, x1, ACS_VLINE, b->h - 2);
	mvaddch(b->y, b->x, ACS_ULCORNER);
	mvaddch(b->y, x1, ACS_URCORNER);
	mvaddch(y1, b->x, ACS_LLCORNER);
	mvaddch(y1, x1, ACS_LRCORNER);
	attron(A_BOLD);
	put(b->y, b->x + 2, b->w - 4, " %s ", title);
	attroff(A_BOLD);
}

static int open_loop(const struct tui *t)
{
	return t->info && SHB_RPT_HAS(t->info, struct shb_run_info, stage_count) &&
	       (t->info->rate_milli || t->info->stage_count);
}

/* ---- the panels ---------------------------------------------------------------- */

static void draw_head(const struct tui *t, const struct shb_tui_box *b)
{
	const struct shb_run_info *in = t->info;
	char el[16], of[16], eta[16], n[16], cmp[96] = "";
	/* A comparison: which run of how many, and its label. */
	if (SHB_RPT_HAS(in, struct shb_run_info, compare_count) &&
	    in->compare_count > 1)
		snprintf(cmp, sizeof(cmp), "run %u of %u%s%s  ", in->compare_index + 1,
			 in->compare_count, in->label ? ": " : "",
			 in->label ? in->label : "");
	/* 1.4: no method for a protocol without HTTP (its name follows) */
	put(b->y, 0, b->w, " shb %s  %s%s%s%s  %s  %u threads, %u connections%s",
	    shb_rpt_str(in->shb_version), cmp,
	    shb_rpt_http(in) ? shb_rpt_str(in->method) : "",
	    shb_rpt_http(in) ? " " : "",
	    shb_rpt_str(in->url), shb_rpt_str(in->proto_display), in->threads,
	    in->connections, open_loop(t) ? ", open loop" : "");
	const char *state = t->final ? (t->interrupted ? "interrupted" : "done")
			    : t->series.count ? "running"
			    : SHB_RPT_HAS(in, struct shb_run_info, warmup_ns) &&
			      in->warmup_ns ? "setting up, then warm-up"
					    : "setting up";
	shb_tui_dur(el, sizeof(el), t->elapsed_ns);
	char prog[128] = "";
	if (in->duration_target_ns) {
		uint64_t d = in->duration_target_ns;
		shb_tui_dur(of, sizeof(of), d);
		shb_tui_dur(eta, sizeof(eta), d > t->elapsed_ns ? d - t->elapsed_ns : 0);
		snprintf(prog, sizeof(prog), "elapsed %s of %s  ETA %s", el, of,
			 t->final ? "0" : eta);
	} else if (in->requests_target) {
		uint64_t left = in->requests_target > t->total ?
				in->requests_target - t->total : 0;
		snprintf(prog, sizeof(prog), "elapsed %s  %s of ", el,
			 shb_tui_si(n, sizeof(n), (double)t->total));
		size_t pl = strlen(prog);
		snprintf(prog + pl, sizeof(prog) - pl, "%s requests  ETA %s",
			 shb_tui_si(n, sizeof(n), (double)in->requests_target),
			 t->final ? "0" :
			 t->rate > 0 ? shb_tui_dur(eta, sizeof(eta),
						   (uint64_t)((double)left / t->rate * 1e9))
				     : "?");
	} else {
		snprintf(prog, sizeof(prog), "elapsed %s", el);
	}
	const char *hint = t->final ? (t->keys && !t->interrupted && t->hold_s ?
				       "press a key to leave" : "") :
				      "q or Ctrl-C: stop";
	attron(A_BOLD);
	put(b->y + 1, 1, b->w - 1, "[%s]", state);
	attroff(A_BOLD);
	put(b->y + 1, 3 + (int)strlen(state) + 1, b->w - 5 - (int)strlen(state),
	    "%s", prog);
	int hl = (int)strlen(hint);
	if (hl && b->w - hl - 1 > 50)
		put(b->y + 1, b->w - hl - 1, hl, "%s", hint);
}

/* The chart's inside: the y axis labels take `lw` columns on the left,
 * the newest interval is the rightmost column. */
struct chart {
	int y, x, h, w; /* the bars' area */
	size_t n;       /* points shown */
};

static struct chart chart_area(const struct tui *t, const struct shb_tui_box *b,
			       int lw)
{
	struct chart c = {b->y + 1, b->x + 1 + lw + 1, b->h - 2, b->w - lw - 3, 0};
	if (c.h < 1 || c.w < 1)
		c.h = c.w = 0;
	c.n = t->series.count < (size_t)c.w ? t->series.count : (size_t)c.w;
	return c;
}

/* Labels of the top, the middle and the bottom row, and the axis; a
 * middle that rounds to the bottom's is left out. */
static void y_axis(const struct shb_tui_box *b, const struct chart *c, int lw,
		   const char *top, const char *mid, const char *bottom)
{
	mvvline(c->y, c->x - 1, ACS_VLINE, c->h);
	put(c->y, b->x + 1, lw, "%*s", lw, top);
	if (c->h >= 5 && strcmp(mid, bottom) != 0)
		put(c->y + c->h / 2, b->x + 1, lw, "%*s", lw, mid);
	put(c->y + c->h - 1, b->x + 1, lw, "%*s", lw, bottom);
}

static void draw_rate(const struct tui *t, const struct shb_tui_box *b)
{
	const int lw = 5;
	struct chart c = chart_area(t, b, lw);
	char now[16], tg[16], title[96];
	shb_tui_si(now, sizeof(now), t->rate);
	if (open_loop(t))
		snprintf(title, sizeof(title), "Throughput, req/s: %s, target %s "
			 "(- on the chart)", now, shb_tui_si(tg, sizeof(tg), t->target));
	else
		snprintf(title, sizeof(title), "Throughput, req/s: %s", now);
	frame(b, title);
	if (!c.h)
		return;
	double max = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct shb_tui_point *p = shb_tui_series_at(&t->series, c.n, i);
		max = p->rate > max ? p->rate : max;
		max = p->target > max ? p->target : max;
	}
	max = shb_tui_nice_ceil(max);
	char top[16], mid[16];
	y_axis(b, &c, lw, shb_tui_si(top, sizeof(top), max),
	       shb_tui_si(mid, sizeof(mid), max / 2), "0");
	int x0 = c.x + c.w - (int)c.n;
	for (size_t i = 0; i < c.n; i++) {
		const struct shb_tui_point *p = shb_tui_series_at(&t->series, c.n, i);
		unsigned u = shb_tui_units(p->rate, max, (unsigned)c.h);
		unsigned tu = shb_tui_units(p->target, max, (unsigned)c.h);
		for (int r = 0; r < c.h; r++) {
			char ch = shb_tui_bar_cell(u, (unsigned)r);
			if (ch == ' ' && tu && (tu - 1) / 2 == (unsigned)r)
				ch = '-';
			mvaddch(c.y + c.h - 1 - r, x0 + (int)i, (chtype)ch);
		}
	}
}

static void draw_latency(const struct tui *t, const struct shb_tui_box *b)
{
	const int lw = 6;
	struct chart c = chart_area(t, b, lw);
	char p50[16], p99[16], title[96];
	if (t->lat_count)
		snprintf(title, sizeof(title), "Latency: p50 %s (#), p99 %s (:)",
			 shb_tui_dur(p50, sizeof(p50), t->pct[0]),
			 shb_tui_dur(p99, sizeof(p99), t->pct[2]));
	else
		snprintf(title, sizeof(title), "Latency: p50 (#), p99 (:)");
	frame(b, title);
	if (!c.h)
		return;
	uint64_t max = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct shb_tui_point *p = shb_tui_series_at(&t->series, c.n, i);
		max = p->p99 > max ? p->p99 : max;
	}
	double top = shb_tui_nice_ceil((double)max);
	char a[16] = "", m[16] = "";
	if (max) /* no request ok yet: no scale to show */
		shb_tui_dur(a, sizeof(a), (uint64_t)top),
		shb_tui_dur(m, sizeof(m), (uint64_t)(top / 2));
	y_axis(b, &c, lw, a, m, "0");
	int x0 = c.x + c.w - (int)c.n;
	for (size_t i = 0; i < c.n; i++) {
		const struct shb_tui_point *p = shb_tui_series_at(&t->series, c.n, i);
		unsigned lo = shb_tui_units((double)p->p50, top, (unsigned)c.h);
		unsigned hi = shb_tui_units((double)p->p99, top, (unsigned)c.h);
		for (int r = 0; r < c.h; r++)
			mvaddch(c.y + c.h - 1 - r, x0 + (int)i,
				(chtype)shb_tui_pair_cell(lo, hi, (unsigned)r));
	}
}

static void draw_totals(const struct tui *t, const struct shb_tui_box *b)
{
	char v[32], d[16];
	frame(b, t->final ? "Totals of the run" : "Totals so far");
	kv(b, 0, "requests", shb_rpt_fixed(v, sizeof(v), t->total, 0));
	kv(b, 1, "ok", shb_rpt_fixed(v, sizeof(v), t->ok, 0));
	kv(b, 2, "errors", shb_rpt_fixed(v, sizeof(v), t->errors, 0));
	double avg = t->elapsed_ns ? (double)t->total * 1e9 / (double)t->elapsed_ns : 0;
	kv(b, 3, "req/s (average)", shb_rpt_fixed(v, sizeof(v), shb_rpt_scale(avg, 0), 0));
	snprintf(v, sizeof(v), "%s", shb_tui_dur(d, sizeof(d), t->span_ns));
	kv(b, 4, t->final ? "latency of the run" : "latency, last", t->final ? "" : v);
	for (int i = 0; i < NPCT; i++)
		kv(b, 5 + i, box_pct_name[i],
		   t->lat_count ? shb_tui_dur(d, sizeof(d), t->pct[i]) : "-");
	kv(b, 5 + NPCT, "max", t->lat_count ? shb_tui_dur(d, sizeof(d), t->max) : "-");
}

static void draw_status(const struct tui *t, const struct shb_tui_box *b)
{
	char v[32];
	int nlines = b->h - 2, line = 0;
	frame(b, shb_rpt_http(t->info) ? "Status codes, errors" : "Errors");
	size_t nstat = 0, nerr = 0;
	for (int c = 100; c < STATUS_SLOTS; c++)
		nstat += t->status[c] != 0;
	for (int k = 0; k < SHB_ERRK_EX_COUNT; k++)
		nerr += t->err_kind[k] != 0;
	if (!nstat && !nerr)
		kv(b, line++, "none yet", "");
	size_t left = nstat + nerr;
	for (int c = 100; c < STATUS_SLOTS && line < nlines; c++) {
		if (!t->status[c])
			continue;
		if (left > 1 && line == nlines - 1)
			break;
		char key[32];
		snprintf(key, sizeof(key), "status %d", c);
		kv(b, line++, key, shb_rpt_fixed(v, sizeof(v), t->status[c], 0));
		left--;
	}
	for (int k = 0; k < SHB_ERRK_EX_COUNT && line < nlines; k++) {
		if (!t->err_kind[k])
			continue;
		if (left > 1 && line == nlines - 1)
			break;
		char key[40];
		snprintf(key, sizeof(key), "error %s", shb_err_kind_names[k]);
		kv(b, line++, key, shb_rpt_fixed(v, sizeof(v), t->err_kind[k], 0));
		left--;
	}
	if (left) {
		snprintf(v, sizeof(v), "%zu more", left);
		kv(b, line++, "...", v);
	}
	/* 1.4: the protocol's metrics, in the lines left */
	for (uint32_t i = 0; i < t->nmetric && line < nlines; i++)
		kv(b, line++, t->metric_name[i],
		   shb_rpt_fixed(v, sizeof(v), t->metric_total[i], 0));
}

static void draw_conns(const struct tui *t, const struct shb_tui_box *b)
{
	char v[32], d[16];
	frame(b, "Connections");
	kv(b, 0, "open", t->have_gauges ? shb_rpt_fixed(v, sizeof(v), t->active, 0) : "?");
	kv(b, 1, "connecting", t->have_gauges ?
	   shb_rpt_fixed(v, sizeof(v), t->connecting, 0) : "?");
	kv(b, 2, "opened in all", shb_rpt_fixed(v, sizeof(v), t->opened, 0));
	if (!open_loop(t)) {
		kv(b, 4, "closed loop", "");
		return;
	}
	kv(b, 4, "rate: target", shb_rpt_fixed(v, sizeof(v), shb_rpt_scale(t->target, 0), 0));
	kv(b, 5, "      achieved", shb_rpt_fixed(v, sizeof(v), shb_rpt_scale(t->rate, 0), 0));
	if (!t->final)
		return;
	kv(b, 6, "late", shb_rpt_fixed(v, sizeof(v), t->late, 0));
	kv(b, 7, "never sent", shb_rpt_fixed(v, sizeof(v), t->unsent, 0));
	kv(b, 8, "lag max", shb_tui_dur(d, sizeof(d), t->lag_max));
}

/* The whole screen, at the terminal's size of now; after a resize every
 * cell is sent again (clear), as the terminal may have kept or moved
 * some of the old ones. */
static void draw(const struct tui *t, int resized)
{
	struct shb_tui_layout l;
	if (resized)
		clear();
	else
		erase();
	if (shb_tui_layout(LINES, COLS, &l) < 0) {
		put(0, 0, COLS, "shb: the terminal is %dx%d; the view needs %dx%d",
		    COLS, LINES, SHB_TUI_MIN_COLS, SHB_TUI_MIN_ROWS);
	} else {
		draw_head(t, &l.head);
		draw_rate(t, &l.rate);
		draw_latency(t, &l.lat);
		draw_totals(t, &l.totals);
		draw_status(t, &l.status);
		draw_conns(t, &l.conns);
	}
	refresh();
}

/* A changed window size: ncurses takes SIGWINCH itself when it could
 * install its handler (then getch() returns KEY_RESIZE); asking the
 * terminal covers the case where it could not, and a stdin that is no
 * terminal. */
static int follow_size(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col &&
	    is_term_resized(ws.ws_row, ws.ws_col)) {
		resize_term(ws.ws_row, ws.ws_col);
		return 1;
	}
	return 0;
}

/* Keys typed since the last sample; 1 if the size changed. q asks the
 * core to stop once: a second SIGINT a second later would mean "exit now",
 * leaving the terminal as ncurses set it. */
static int read_keys(struct tui *t)
{
	int resized = 0;
	for (int ch; (ch = getch()) != ERR;) {
		if (ch == KEY_RESIZE) {
			resized = 1;
		} else if ((ch == 'q' || ch == 'Q') && !t->stop_asked) {
			t->stop_asked = 1;
			raise(SIGINT); /* the core's stop: as Ctrl-C */
		}
	}
	return resized;
}

/* ---- the reporter ------------------------------------------------------------ */

static int tui_create(const struct shb_host *host, const struct shb_ostream *out,
		      const char *options, void **rep, char *err, size_t errlen)
{
	unsigned hold;
	int rc = parse_options(options, &hold, err, errlen);
	if (!rep)
		return SHB_E_INVAL;
	*rep = NULL;
	if (rc < 0)
		return rc;
	if (!out || !SHB_HAS(out, struct shb_ostream, write))
		return set_err(err, errlen, SHB_E_INVAL, "no usable output stream");
	/* shb refuses --tui and --report tui without a terminal on stdout
	 * before this; another host (shb merge to a pipe, the plugin
	 * checker's memory stream) gets a reporter that draws nothing. */
	int headless = !out->is_terminal || !isatty(STDOUT_FILENO);
	/* The terminal type is checked now, before anything is drawn, so
	 * that an unknown TERM is one line and exit 2. */
	if (!headless && !shb_tui_term_known(STDOUT_FILENO))
		return set_err(err, errlen, SHB_E_UNSUPPORTED,
			       "the terminal type TERM=%.40s is unknown to "
			       "terminfo", getenv("TERM") ? getenv("TERM") : "");
	struct tui *t = calloc(1, sizeof(*t));
	if (!t)
		return set_err(err, errlen, SHB_E_NOMEM, "out of memory");
	t->host = host;
	t->hold_s = hold;
	t->headless = headless;
	*rep = t;
	return SHB_OK;
}

/* Per run (a comparison calls begin ... end once per target). */
static void reset_run(struct tui *t, const struct shb_run_info *info)
{
	SCREEN *scr = t->scr;
	const struct shb_host *host = t->host;
	unsigned hold = t->hold_s;
	int keys = t->keys, headless = t->headless;
	memset(t, 0, sizeof(*t));
	t->scr = scr;
	t->host = host;
	t->hold_s = hold;
	t->keys = keys;
	t->headless = headless;
	t->info = info;
}

static int tui_begin(void *rep, const struct shb_run_info *info)
{
	struct tui *t = rep;
	if (!t || !info || !SHB_HAS(info, struct shb_run_info, duration_target_ns))
		return SHB_E_INVAL;
	reset_run(t, info);
	if (t->headless)
		return SHB_OK;
	if (!t->scr) {
		t->keys = isatty(STDIN_FILENO);
		t->scr = newterm(NULL, stdout, stdin);
		if (!t->scr)
			return SHB_E_UNSUPPORTED;
		cbreak(); /* Ctrl-C stays a signal: the core's stop */
		noecho();
		nodelay(stdscr, TRUE);
		keypad(stdscr, TRUE);
		curs_set(0);
	}
	t->on = 1;
	draw(t, 0);
	return SHB_OK;
}

static void add_statuses(struct tui *t, const struct shb_results *r)
{
	for (size_t i = 0; r->statuses && i < r->status_count; i++)
		if (r->statuses[i].code < STATUS_SLOTS)
			t->status[r->statuses[i].code] += r->statuses[i].count;
}

static void add_errors(struct tui *t, const struct shb_results *r)
{
	struct shb_rpt_errors e;
	shb_rpt_sum_errors(r, &e);
	for (int k = 0; k < e.kinds; k++)
		t->err_kind[k] += e.count[k];
	t->err_kind[SHB_ERRK_PROTOCOL] += e.other; /* none a 1.2 core adds */
}

/* An interval's metrics add to the totals; the run's replace them. */
static void add_metrics(struct tui *t, const struct shb_results *r)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	if (t->final)
		memset(t->metric_total, 0, sizeof(t->metric_total));
	t->nmetric = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		snprintf(t->metric_name[i], sizeof(t->metric_name[i]), "%s",
			 shb_rpt_str(m[i].name));
		t->metric_total[i] += m[i].count;
	}
}

static void read_gauges(struct tui *t, const struct shb_results *r)
{
	t->have_gauges = SHB_RPT_HAS(r, struct shb_results, connections_connecting);
	if (t->have_gauges) {
		t->active = r->connections_active;
		t->connecting = r->connections_connecting;
	}
}

static void read_latency(struct tui *t, const struct shb_hist *h)
{
	const struct shb_hist_ops *ops = t->host->hist;
	t->lat_count = h ? ops->count(h) : 0;
	for (int i = 0; i < NPCT; i++)
		t->pct[i] = t->lat_count ? ops->value_at_ppm(h, box_ppm[i]) : 0;
	t->max = t->lat_count ? ops->max(h) : 0;
}

static int tui_sample(void *rep, const struct shb_results *r)
{
	struct tui *t = rep;
	if (!t || !r || !SHB_HAS(r, struct shb_results, interval_start_ns) ||
	    r->kind != SHB_RESULTS_INTERVAL)
		return SHB_E_INVAL;
	if (t->headless)
		return SHB_OK;
	if (!t->on)
		return SHB_E_STATE;
	const struct shb_run_info *in = t->info;
	uint64_t len = r->elapsed_ns, t0 = r->interval_start_ns;
	t->elapsed_ns = t0 + len;
	t->span_ns = len;
	t->total += r->requests_total;
	t->ok += r->requests_ok;
	t->errors += r->requests_errors;
	t->opened += r->connections_opened;
	add_statuses(t, r);
	add_errors(t, r);
	add_metrics(t, r);
	read_gauges(t, r);
	read_latency(t, r->latency);
	t->rate = len ? (double)r->requests_total * 1e9 / (double)len : 0;
	t->target = open_loop(t) ? shb_tui_target_rate(in->rate_milli, in->stages,
						       in->stage_count, t0, t0 + len) : 0;
	struct shb_tui_point p = {t->rate, t->target, t->pct[0], t->pct[2],
				  r->requests_errors};
	shb_tui_series_add(&t->series, &p);
	int resized = read_keys(t);
	resized |= follow_size();
	draw(t, resized);
	return SHB_OK;
}

/* Until a key or `hold` seconds; raw mode, so that Ctrl-C is a key. A
 * signal (SIGTERM, or SIGINT from elsewhere: the core's handler takes it)
 * interrupts the wait and ends it too. */
static void hold_screen(struct tui *t)
{
	raw();
	nodelay(stdscr, FALSE);
	timeout(KEY_POLL_MS);
	for (unsigned long ms = 0; ms < t->hold_s * 1000ul; ms += KEY_POLL_MS) {
		errno = 0;
		int ch = getch();
		if (ch == ERR && errno == EINTR)
			break;
		if (ch == KEY_RESIZE || follow_size()) {
			draw(t, 1);
			continue;
		}
		if (ch != ERR)
			break;
	}
	noraw();
	cbreak();
}

static int tui_end(void *rep, const struct shb_results *r)
{
	struct tui *t = rep;
	if (!t || !r || !SHB_HAS(r, struct shb_results, latency))
		return SHB_E_INVAL;
	if (t->headless)
		return SHB_OK;
	if (!t->on)
		return SHB_E_STATE;
	t->final = 1;
	t->interrupted = r->interrupted != 0;
	t->elapsed_ns = r->elapsed_ns;
	t->span_ns = r->elapsed_ns;
	t->total = r->requests_total;
	t->ok = r->requests_ok;
	t->errors = r->requests_errors;
	t->opened = r->connections_opened;
	memset(t->status, 0, sizeof(t->status));
	memset(t->err_kind, 0, sizeof(t->err_kind));
	add_statuses(t, r);
	add_errors(t, r);
	add_metrics(t, r);
	read_gauges(t, r);
	read_latency(t, r->latency);
	t->rate = r->elapsed_ns ? (double)r->requests_total * 1e9 / (double)r->elapsed_ns : 0;
	if (open_loop(t)) {
		t->target = shb_tui_target_rate(t->info->rate_milli, t->info->stages,
						t->info->stage_count, 0, r->elapsed_ns);
		t->late = r->requests_late;
		t->unsent = r->requests_unsent;
		t->lag_max = r->schedule_lag_max_ns;
	}
	draw(t, follow_size());
	int last = !SHB_RPT_HAS(t->info, struct shb_run_info, compare_count) ||
		   t->info->compare_index + 1 >= t->info->compare_count;
	if (last && t->keys && !t->interrupted && t->hold_s)
		hold_screen(t);
	endwin();
	t->on = 0;
	return SHB_OK;
}

static void tui_destroy(void *rep)
{
	struct tui *t = rep;
	if (!t)
		return;
	if (t->on)
		endwin();
	if (t->scr)
		delscreen(t->scr);
	free(t);
}

static const struct shb_report_vtable tui_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = tui_create,
	.begin = tui_begin,
	.sample = tui_sample,
	.end = tui_end,
	.destroy = tui_destroy,
};

static const struct shb_option_def tui_option_defs[] = {
	{"hold", "SECONDS", "keep the final screen until a key, at most this "
			    "long (default 30; 0: leave at once)"},
	{NULL, NULL, NULL},
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = SHB_REPORT_WANTS_INTERVALS,
	.name = "tui",
	.summary = "full-screen live view on the terminal (shb --tui); "
		   "option: hold=SECONDS",
	.vt = &tui_vt,
	.option_defs = tui_option_defs,
};

SHB_PLUGIN_DEFINE_FULL("org.shb.report.tui", SHB_VERSION_STRING, "shb", NULL, "MIT",
		       shb_rpt_init, NULL, NULL, SHB_NO_PROTOCOLS,
		       SHB_REPORTERS(&shb_rpt_module_desc));
