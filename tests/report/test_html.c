/* The html reporter, loaded by the core's loader and reading the core's
 * own histograms: a fixed open-loop run with seven interval samples is
 * compared byte for byte with golden/html.html, and its elements are
 * checked one by one: each time-series polyline has one point per
 * interval, each spectrum polyline one per line of the hgrm reporter's
 * spectrum of the same histogram (but the 100 % line), the axes carry the
 * expected labels, and every string from the run is escaped. Then the
 * bounds: downsampling past 1000 points, gaps, the short last interval,
 * a terminal refused, and a comparison written as one page.
 *
 * Environment (set by meson): SHB_REPORT_PLUGIN_DIR, SHB_REPORT_GOLDEN_DIR.
 * SHB_REPORT_UPDATE_GOLDEN=1 rewrites golden/html.html from the output
 * (review the diff before committing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <shb/shb.h>

#include "results/hist.h"
#include "loader/loader.h"
#include "report_host.h"

/* ---- output capture ------------------------------------------------------ */

/* ---- fixtures -------------------------------------------------------------- */

#define NIVALS 7
#define MS 1000000ull

static struct shb_loader loader;
static struct shb_histo corrected, uncorrected, connect_h, first_byte_h, empty_h;
static struct shb_histo ival_h[NIVALS];

static const char *const url = "http://127.0.0.1:8080/a?x=<b>&y=\"c\"";
static const char *const url_escaped =
	"http://127.0.0.1:8080/a?x=&lt;b&gt;&amp;y=&quot;c&quot;";

static int suite_init(void)
{
	if (rep_loader_init(&loader) < 0)
		return -1;
	struct shb_histo *all[] = {&corrected, &uncorrected, &connect_h,
				   &first_byte_h, &empty_h};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (shb_histo_init(all[i], 60000000000ull, 3) != 0)
			return -1;
	for (int i = 0; i < NIVALS; i++)
		if (shb_histo_init(&ival_h[i], 60000000000ull, 3) != 0)
			return -1;
	/* corrected: 1 us .. 1000 us, and a 40 ms tail of 10; uncorrected:
	 * the same without the tail */
	for (uint64_t us = 1; us <= 1000; us++) {
		shb_histo_record(&corrected, us * 1000);
		shb_histo_record(&uncorrected, us * 1000);
	}
	for (int i = 0; i < 10; i++) {
		shb_histo_record(&corrected, 40 * MS + (uint64_t)i * 100000);
		shb_histo_record(&uncorrected, 1 * MS);
	}
	for (uint64_t v = 1; v <= 4; v++)
		shb_histo_record(&connect_h, v * 50000);
	for (uint64_t us = 10; us <= 1010; us++)
		shb_histo_record(&first_byte_h, us * 1000);
	/* interval i: 100 + 10 i requests between (i + 1) x 100 us and 2 ms */
	for (int i = 0; i < NIVALS; i++)
		for (int k = 0; k < 100 + 10 * i; k++)
			shb_histo_record(&ival_h[i], (uint64_t)(i + 1) * 100000 +
						     (uint64_t)k * 10000);
	return 0;
}

static int suite_clean(void)
{
	shb_loader_fini(&loader);
	struct shb_histo *all[] = {&corrected, &uncorrected, &connect_h,
				   &first_byte_h, &empty_h};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		shb_histo_destroy(all[i]);
	for (int i = 0; i < NIVALS; i++)
		shb_histo_destroy(&ival_h[i]);
	return 0;
}

static struct shb_run_info run_of(void)
{
	return (struct shb_run_info){
		.struct_size = sizeof(struct shb_run_info),
		.threads = 2, .connections = 8, .parallel = 1,
		.shb_version = "0.1.0", .url = url, .method = "GET",
		.proto_name = "h1", .proto_display = "HTTP/1.1",
		.duration_target_ns = 1400 * MS,
		.start_unix_ns = 1700000000000000000ull,
		.shard_count = 1, .rate_milli = 700000,
		.interval_ns = 200 * MS,
		.label = "l<1>",
		.compare_index = 0, .compare_count = 1,
	};
}

static const struct shb_status_count statuses[] = {
	{.code = 200, .count = 1000}, {.code = 404, .count = 10},
};
/* A sample with markup, a control character, a byte that is not UTF-8
 * and a valid two-byte character. */
static const struct shb_error_count errors[] = {
	{.kind = SHB_ERRK_READ, .count = 3,
	 .sample = "<script>alert(\"x\")</script>\x01\xff caf\xc3\xa9"},
};

static struct shb_results total_of(const struct shb_run_info *run)
{
	return (struct shb_results){
		.struct_size = sizeof(struct shb_results),
		.kind = SHB_RESULTS_TOTAL, .run = run,
		.elapsed_ns = 1400 * MS, .requests_total = 1013,
		.requests_ok = 1010, .requests_errors = 3,
		.bytes_sent = 52000, .bytes_received = 90000,
		.connections_opened = 8,
		.statuses = statuses, .status_count = 2,
		.errors = errors, .error_count = 1,
		.latency = shb_histo_abi(&corrected),
		.latency_uncorrected = shb_histo_abi(&uncorrected),
		.connect = shb_histo_abi(&connect_h),
		.handshake = shb_histo_abi(&empty_h),
		.first_byte = shb_histo_abi(&first_byte_h),
		.setup_ns = 3 * MS, .requests_late = 12, .requests_unsent = 0,
		.schedule_lag_max_ns = 41 * MS,
		.errors_ex = errors, .error_ex_count = 1,
	};
}

/* An interval sample: index i of length len_ns from i x 200 ms. */
static struct shb_results ival_of(const struct shb_run_info *run, uint64_t i,
				  uint64_t len_ns, uint64_t ok, uint64_t errs,
				  const struct shb_histo *h)
{
	return (struct shb_results){
		.struct_size = sizeof(struct shb_results),
		.kind = SHB_RESULTS_INTERVAL, .run = run, .elapsed_ns = len_ns,
		.requests_total = ok + errs, .requests_ok = ok,
		.requests_errors = errs,
		.latency = shb_histo_abi(h), .latency_uncorrected = shb_histo_abi(h),
		.connect = shb_histo_abi(&empty_h),
		.handshake = shb_histo_abi(&empty_h),
		.first_byte = shb_histo_abi(&empty_h),
		.interval_index = i, .interval_start_ns = i * 200 * MS,
	};
}

/* ---- driving the reporter ------------------------------------------------ */

struct rep {
	struct shb_report_handle h;
	struct shb_ostream os;
	struct membuf out;
	void *r;
};

static void rep_open(struct rep *x, const char *name, int terminal)
{
	char err[256] = "";
	memset(x, 0, sizeof(*x));
	int rc = shb_loader_report(&loader, name, &x->h, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "\nloader: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	x->os = (struct shb_ostream){sizeof(x->os), (uint32_t)terminal, &x->out,
				     membuf_write};
	rc = x->h.vt.create(&rep_host, &x->os, NULL, &x->r, err, sizeof(err));
	CU_ASSERT_EQUAL_FATAL(rc, SHB_OK);
}

static void rep_close(struct rep *x)
{
	x->h.vt.destroy(x->r);
	free(x->out.data);
}

/* The fixed run: begin, the seven samples, end. */
static void golden_run(struct rep *x, const struct shb_run_info *run)
{
	CU_ASSERT_EQUAL(x->h.vt.begin(x->r, run), SHB_OK);
	for (int i = 0; i < NIVALS; i++) {
		struct shb_results s = ival_of(run, (uint64_t)i, 200 * MS,
					       100 + 10 * (uint64_t)i,
					       (uint64_t)(i % 2), &ival_h[i]);
		CU_ASSERT_EQUAL(x->h.vt.sample(x->r, &s), SHB_OK);
	}
	struct shb_results t = total_of(run);
	CU_ASSERT_EQUAL(x->h.vt.end(x->r, &t), SHB_OK);
}

/* ---- reading the page ----------------------------------------------------- */

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);
	for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
		n++;
	return n;
}

/* The <svg> element with this id, copied (free it), or NULL. */
static char *svg_of(const char *doc, const char *id)
{
	char key[64];
	snprintf(key, sizeof(key), "id=\"%s\"", id);
	const char *p = strstr(doc, key);
	if (!p)
		return NULL;
	while (p > doc && strncmp(p, "<svg ", 5) != 0)
		p--;
	const char *end = strstr(p, "</svg>");
	if (!end)
		return NULL;
	return strndup(p, (size_t)(end - p) + 6);
}

/* Points in each <polyline class="series CLS"> of svg, in order, into
 * counts[0..max); returns the number of polylines. Every point must be
 * "x,y" inside the chart, x ascending within a line. */
static size_t polylines(const char *svg, const char *cls, size_t *counts,
			size_t max)
{
	char key[64];
	size_t n = 0;
	snprintf(key, sizeof(key), "<polyline class=\"series %s\" points=\"", cls);
	for (const char *p = strstr(svg, key); p; p = strstr(p, key)) {
		p += strlen(key);
		size_t pts = 0;
		double lastx = -1;
		while (*p != '"') {
			double x, y;
			int used = 0;
			CU_ASSERT_EQUAL_FATAL(sscanf(p, "%lf,%lf%n", &x, &y, &used), 2);
			CU_ASSERT(x >= 72 && x <= 760 && y >= 0 && y <= 300);
			CU_ASSERT(x > lastx);
			lastx = x;
			pts++;
			p += used;
			if (*p == ' ')
				p++;
		}
		if (n < max)
			counts[n] = pts;
		n++;
	}
	return n;
}

/* The text of every <text> in the <g class="CLASS"> of svg, joined by
 * '|'. */
static void labels(const char *svg, const char *cls, char *buf, size_t len)
{
	char key[64];
	snprintf(key, sizeof(key), "<g class=\"%s\">", cls);
	buf[0] = '\0';
	const char *p = strstr(svg, key);
	const char *end = p ? strstr(p, "</g>") : NULL;
	while (p && end && (p = strstr(p, "<text ")) && p < end) {
		const char *a = strchr(p, '>') + 1, *b = strstr(a, "</text>");
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%.*s",
			 buf[0] ? "|" : "", (int)(b - a), a);
		p = b;
	}
}

/* Data lines of each spectrum the hgrm reporter writes for the same
 * results, without the 100 % lines: what the page's spectra must have. */
static void hgrm_points(const struct shb_run_info *run, size_t want[2])
{
	struct rep x;
	rep_open(&x, "hgrm", 0);
	struct shb_results t = total_of(run);
	CU_ASSERT_EQUAL(x.h.vt.begin(x.r, run), SHB_OK);
	CU_ASSERT_EQUAL(x.h.vt.end(x.r, &t), SHB_OK);
	int part = 0;
	want[0] = want[1] = 0;
	for (char *line = strtok(x.out.data, "\n"); line; line = strtok(NULL, "\n")) {
		double v, p;
		if (strncmp(line, "# uncorrected", 13) == 0)
			part = 1;
		else if (line[0] != '#' && sscanf(line, "%lf %lf", &v, &p) == 2 &&
			 p < 1.0)
			want[part]++;
	}
	rep_close(&x);
}

/* ---- tests ----------------------------------------------------------------- */

static void check_golden(const char *got)
{
	char path[4096];
	const char *dir = getenv("SHB_REPORT_GOLDEN_DIR");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/html.html", dir);
	const char *update = getenv("SHB_REPORT_UPDATE_GOLDEN");
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs(got, f);
		fclose(f);
		return;
	}
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static char want[1 << 20];
	size_t n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = '\0';
	if (strcmp(got, want) != 0) {
		size_t i = 0;
		while (got[i] && got[i] == want[i])
			i++;
		fprintf(stderr, "\nhtml differs from %s at byte %zu: got \"%.60s\"\n",
			path, i, got + i);
	}
	CU_ASSERT_STRING_EQUAL(got, want);
}

static void test_golden(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	rep_open(&x, "html", 0);
	golden_run(&x, &run);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x.out.data);
	check_golden(x.out.data);
	rep_close(&x);
}

static void test_one_point_per_interval(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	size_t c[4];
	rep_open(&x, "html", 0);
	golden_run(&x, &run);
	const char *doc = x.out.data;
	CU_ASSERT_EQUAL(count_of(doc, "<svg class=\"chart "), 3);
	char *tp = svg_of(doc, "run0-throughput"), *lat = svg_of(doc, "run0-latency");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lat);
	CU_ASSERT_EQUAL(polylines(tp, "ok", c, 4), 1);
	CU_ASSERT_EQUAL(c[0], NIVALS);
	CU_ASSERT_EQUAL(polylines(tp, "errors", c, 4), 1);
	CU_ASSERT_EQUAL(c[0], NIVALS);
	CU_ASSERT_EQUAL(polylines(lat, "p50", c, 4), 1);
	CU_ASSERT_EQUAL(c[0], NIVALS);
	CU_ASSERT_EQUAL(polylines(lat, "p99", c, 4), 1);
	CU_ASSERT_EQUAL(c[0], NIVALS);
	/* 500..800 ok/s, 0..5 errors/s: 0 to 800 in steps of 200 */
	char buf[512];
	labels(tp, "ticks-y", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0|200|400|600|800");
	labels(tp, "ticks-x", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0|0.2|0.4|0.6|0.8|1.0|1.2|1.4");
	/* the last interval's p99: about 0.7 + 1.57 ms, on a 2.5 ms axis */
	labels(lat, "ticks-y", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0|0.5|1.0|1.5|2.0|2.5");
	CU_ASSERT_PTR_NOT_NULL(strstr(doc, "<p class=\"note\">7 intervals of 0.200 s"));
	free(tp);
	free(lat);
	rep_close(&x);
}

static void test_spectrum_is_hgrm(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	size_t want[2], c[4];
	char buf[512];
	hgrm_points(&run, want);
	CU_ASSERT(want[0] > 20 && want[1] > 20);
	rep_open(&x, "html", 0);
	golden_run(&x, &run);
	char *sp = svg_of(x.out.data, "run0-spectrum");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	CU_ASSERT_EQUAL(polylines(sp, "corrected", c, 4), 1);
	CU_ASSERT_EQUAL(c[0], want[0]);
	CU_ASSERT_EQUAL(polylines(sp, "uncorrected", c, 4), 1);
	CU_ASSERT_EQUAL(c[0], want[1]);
	/* 1010 samples: the last step is short of 99.95 %, so four decades */
	labels(sp, "ticks-x", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0%|90%|99%|99.9%|99.99%");
	labels(sp, "ticks-y", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0|10|20|30|40|50");
	labels(sp, "legend", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "corrected|uncorrected");
	free(sp);
	rep_close(&x);
}

static void test_escaping(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	rep_open(&x, "html", 0);
	golden_run(&x, &run);
	const char *doc = x.out.data;
	/* title, heading and the facts table */
	CU_ASSERT_EQUAL(count_of(doc, url_escaped), 3);
	CU_ASSERT_PTR_NULL(strstr(doc, url));
	CU_ASSERT_PTR_NULL(strstr(doc, "<b>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(doc, "<h2>l&lt;1&gt;: GET "));
	CU_ASSERT_PTR_NULL(strstr(doc, "<script"));
	CU_ASSERT_PTR_NOT_NULL(strstr(doc, "<td class=\"text\">&lt;script&gt;alert(&quot;x&quot;)"
					   "&lt;/script&gt;&#xFFFD;&#xFFFD; caf\xc3\xa9</td>"));
	/* Nothing to fetch: no URL but the run's, no reference at all. */
	CU_ASSERT_EQUAL(count_of(doc, "http://"), 3);
	CU_ASSERT_EQUAL(count_of(doc, "https://"), 0);
	CU_ASSERT_EQUAL(count_of(doc, "src="), 0);
	CU_ASSERT_EQUAL(count_of(doc, "href="), 0);
	CU_ASSERT_EQUAL(count_of(doc, "url("), 0);
	CU_ASSERT_EQUAL(count_of(doc, "@import"), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(doc, "content=\"default-src 'none'; "
					   "style-src 'unsafe-inline'\""));
	rep_close(&x);
}

/* n samples of one second, each with one ok request; returns the points
 * of the throughput line (which must be one polyline). */
static size_t points_after(size_t n, struct membuf *keep)
{
	struct shb_run_info run = run_of();
	run.interval_ns = 1000 * MS;
	struct rep x;
	size_t c[2] = {0, 0};
	rep_open(&x, "html", 0);
	CU_ASSERT_EQUAL(x.h.vt.begin(x.r, &run), SHB_OK);
	for (size_t i = 0; i < n; i++) {
		struct shb_results s = ival_of(&run, i, 1000 * MS, 1, 0, &ival_h[0]);
		s.interval_start_ns = i * 1000 * MS;
		CU_ASSERT_EQUAL_FATAL(x.h.vt.sample(x.r, &s), SHB_OK);
	}
	struct shb_results t = total_of(&run);
	CU_ASSERT_EQUAL(x.h.vt.end(x.r, &t), SHB_OK);
	char *tp = svg_of(x.out.data, "run0-throughput");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
	CU_ASSERT_EQUAL(polylines(tp, "ok", c, 2), 1);
	/* one request a second in every point, however many it covers */
	char buf[256];
	labels(tp, "ticks-y", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0|0.2|0.4|0.6|0.8|1.0");
	free(tp);
	if (keep) {
		*keep = x.out;
		x.out.data = NULL;
	}
	rep_close(&x);
	return c[0];
}

static void test_downsampling(void)
{
	struct membuf m;
	CU_ASSERT_EQUAL(points_after(1000, NULL), 1000);
	/* the 1001st halves to 500 points of 2, then joins as the 501st */
	CU_ASSERT_EQUAL(points_after(1001, NULL), 501);
	/* 1000 points of 2: the fullest page, under the 100 KB the docs say */
	CU_ASSERT_EQUAL(points_after(2000, &m), 1000);
	CU_ASSERT(m.len > 30000 && m.len < 100000);
	free(m.data);
	/* 2500: 500 points of 4 for the first 2000, 125 of 4 after */
	CU_ASSERT_EQUAL(points_after(2500, &m), 625);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "2500 intervals of 1.000 s"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "To keep at most 1000 points, each "
					      "covers up to 4 consecutive intervals"));
	free(m.data);
}

/* An interval without an ok request breaks the latency lines, not the
 * throughput line. */
static void test_gap(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	size_t c[4];
	rep_open(&x, "html", 0);
	CU_ASSERT_EQUAL(x.h.vt.begin(x.r, &run), SHB_OK);
	for (int i = 0; i < NIVALS; i++) {
		struct shb_results s = ival_of(&run, (uint64_t)i, 200 * MS,
					       i == 3 ? 0 : 50, 0,
					       i == 3 ? &empty_h : &ival_h[i]);
		CU_ASSERT_EQUAL(x.h.vt.sample(x.r, &s), SHB_OK);
	}
	struct shb_results t = total_of(&run);
	CU_ASSERT_EQUAL(x.h.vt.end(x.r, &t), SHB_OK);
	char *tp = svg_of(x.out.data, "run0-throughput");
	char *lat = svg_of(x.out.data, "run0-latency");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lat);
	CU_ASSERT_EQUAL(polylines(tp, "ok", c, 4), 1);
	CU_ASSERT_EQUAL(c[0], 7);
	CU_ASSERT_EQUAL(polylines(tp, "errors", c, 4), 0);
	CU_ASSERT_EQUAL(polylines(lat, "p99", c, 4), 2);
	CU_ASSERT_EQUAL(c[0], 3);
	CU_ASSERT_EQUAL(c[1], 3);
	free(tp);
	free(lat);
	rep_close(&x);
}

/* A last interval of 1 ms joins the one before: 3 intervals, 2 points,
 * and a single point left alone also shows as a dot. */
static void test_short_tail(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	size_t c[2];
	rep_open(&x, "html", 0);
	CU_ASSERT_EQUAL(x.h.vt.begin(x.r, &run), SHB_OK);
	uint64_t len[3] = {200 * MS, 200 * MS, 1 * MS};
	for (int i = 0; i < 3; i++) {
		struct shb_results s = ival_of(&run, (uint64_t)i, len[i], 100, 0,
					       &ival_h[i]);
		CU_ASSERT_EQUAL(x.h.vt.sample(x.r, &s), SHB_OK);
	}
	struct shb_results t = total_of(&run);
	CU_ASSERT_EQUAL(x.h.vt.end(x.r, &t), SHB_OK);
	char *tp = svg_of(x.out.data, "run0-throughput");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
	CU_ASSERT_EQUAL(polylines(tp, "ok", c, 2), 1);
	CU_ASSERT_EQUAL(c[0], 2);
	CU_ASSERT_EQUAL(count_of(tp, "<circle"), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(x.out.data, "3 intervals of 0.200 s (the last "
					     "ends with the run; it was shorter"));
	free(tp);
	rep_close(&x);

	/* one interval only: one point, drawn as a dot as well */
	rep_open(&x, "html", 0);
	CU_ASSERT_EQUAL(x.h.vt.begin(x.r, &run), SHB_OK);
	struct shb_results s = ival_of(&run, 0, 5 * MS, 100, 0, &ival_h[0]);
	CU_ASSERT_EQUAL(x.h.vt.sample(x.r, &s), SHB_OK);
	CU_ASSERT_EQUAL(x.h.vt.end(x.r, &t), SHB_OK);
	tp = svg_of(x.out.data, "run0-throughput");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
	CU_ASSERT_EQUAL(polylines(tp, "ok", c, 2), 1);
	CU_ASSERT_EQUAL(c[0], 1);
	CU_ASSERT_EQUAL(count_of(tp, "<circle class=\"dot ok\""), 1);
	free(tp);
	rep_close(&x);
}

static void test_no_intervals(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	rep_open(&x, "html", 0);
	CU_ASSERT_EQUAL(x.h.vt.begin(x.r, &run), SHB_OK);
	struct shb_results t = total_of(&run);
	CU_ASSERT_EQUAL(x.h.vt.end(x.r, &t), SHB_OK);
	CU_ASSERT_EQUAL(count_of(x.out.data, "<svg class=\"chart "), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(x.out.data, "No intervals were recorded"));
	rep_close(&x);
}

/* The stat of id in the headline: its value and name, "value|name". */
static void stat_of(const char *doc, const char *id, char *buf, size_t len)
{
	char key[64];
	snprintf(key, sizeof(key), "id=\"%s\"><span class=\"value\">", id);
	const char *p = strstr(doc, key);
	buf[0] = '\0';
	if (!p)
		return;
	p += strlen(key);
	const char *e = strstr(p, "</span><span class=\"name\">");
	const char *n = e ? e + strlen("</span><span class=\"name\">") : NULL;
	const char *ne = n ? strstr(n, "</span>") : NULL;
	if (ne)
		snprintf(buf, len, "%.*s|%.*s", (int)(e - p), p, (int)(ne - n), n);
}

/* The headline comes first in the section, before the tables and charts,
 * and reads as the totals: 1010 ok in 1.4 s, p50 and p99 of the corrected
 * histogram, 3 errors of 1013 requests. A run without ok has no
 * percentiles and no rate. */
static void test_headline(void)
{
	struct shb_run_info run = run_of();
	struct rep x;
	char buf[128];
	rep_open(&x, "html", 0);
	golden_run(&x, &run);
	const char *doc = x.out.data;
	const char *hl = strstr(doc, "<div class=\"headline\" id=\"run0-headline\">");
	CU_ASSERT_PTR_NOT_NULL_FATAL(hl);
	CU_ASSERT(hl > strstr(doc, "<h2>"));
	CU_ASSERT(hl < strstr(doc, "<h3>Run</h3>"));
	CU_ASSERT(hl < strstr(doc, "<svg "));
	stat_of(doc, "run0-rate", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "721.4|ok per second");
	stat_of(doc, "run0-p50", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0.505|p50 latency, ms");
	stat_of(doc, "run0-p99", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1.000|p99 latency, ms");
	stat_of(doc, "run0-errors", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "3|errors (0.3 % of requests)");
	CU_ASSERT_PTR_NOT_NULL(strstr(doc, "<div class=\"stat bad\" id=\"run0-errors\">"));
	stat_of(doc, "run0-duration", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1.400|seconds of load");
	rep_close(&x);

	rep_open(&x, "html", 0);
	CU_ASSERT_EQUAL(x.h.vt.begin(x.r, &run), SHB_OK);
	struct shb_results t = total_of(&run);
	t.requests_total = t.requests_ok = t.requests_errors = 0;
	t.latency = shb_histo_abi(&empty_h);
	t.latency_uncorrected = NULL;
	CU_ASSERT_EQUAL(x.h.vt.end(x.r, &t), SHB_OK);
	stat_of(x.out.data, "run0-rate", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0.0|ok per second");
	stat_of(x.out.data, "run0-p99", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "-|p99 latency, ms");
	stat_of(x.out.data, "run0-errors", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0|errors (0.0 % of requests)");
	CU_ASSERT_PTR_NOT_NULL(strstr(x.out.data, "<div class=\"stat\" id=\"run0-errors\">"));
	rep_close(&x);
}

static void test_terminal_refused(void)
{
	struct shb_report_handle h;
	char err[256] = "";
	struct membuf m = {0};
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&loader, "html", &h, err, sizeof(err)), 0);
	struct shb_ostream os = {sizeof(os), 1, &m, membuf_write};
	void *r = (void *)1;
	CU_ASSERT_EQUAL(h.vt.create(&rep_host, &os, NULL, &r, err, sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "--report html:FILE"));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	CU_ASSERT_EQUAL(m.len, 0);
	CU_ASSERT_EQUAL(h.desc->flags & SHB_REPORT_WANTS_INTERVALS,
			SHB_REPORT_WANTS_INTERVALS);
}

/* ABI 1.3 comparison: one instance, two runs, one page; a comparison cut
 * short still ends the page, from destroy(). */
static void test_compare(void)
{
	struct shb_run_info a = run_of(), b = run_of();
	a.compare_count = b.compare_count = 2;
	b.compare_index = 1;
	b.url = "http://127.0.0.1:8081/";
	struct rep x;
	rep_open(&x, "html", 0);
	golden_run(&x, &a);
	CU_ASSERT_PTR_NULL(strstr(x.out.data, "</html>"));
	golden_run(&x, &b);
	const char *doc = x.out.data;
	CU_ASSERT_EQUAL(count_of(doc, "<!DOCTYPE html>"), 1);
	CU_ASSERT_EQUAL(count_of(doc, "<section class=\"run\""), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(doc, "<section class=\"run\" id=\"run-1\">\n"
					   "<h2>l&lt;1&gt;: GET http://127.0.0.1:8081/</h2>"));
	CU_ASSERT_EQUAL(count_of(doc, "id=\"run1-spectrum\""), 1);
	CU_ASSERT_EQUAL(count_of(doc, "</html>\n"), 1);
	size_t len = strlen(doc);
	CU_ASSERT(len > 8 && strcmp(doc + len - 8, "</html>\n") == 0);
	rep_close(&x);

	struct membuf m;
	rep_open(&x, "html", 0);
	golden_run(&x, &a);
	x.h.vt.destroy(x.r);
	m = x.out;
	CU_ASSERT_EQUAL(count_of(m.data, "<section class=\"run\""), 1);
	CU_ASSERT_EQUAL(count_of(m.data, "</html>\n"), 1);
	len = strlen(m.data);
	CU_ASSERT(len > 8 && strcmp(m.data + len - 8, "</html>\n") == 0);
	free(m.data);
}

static CU_TestInfo html_tests[] = {
	{"golden page", test_golden},
	{"one point per interval, axis labels", test_one_point_per_interval},
	{"spectrum points are hgrm's lines", test_spectrum_is_hgrm},
	{"run strings escaped, nothing to fetch", test_escaping},
	{"at most 1000 points", test_downsampling},
	{"an interval without ok breaks the latency lines", test_gap},
	{"a short last interval joins the one before", test_short_tail},
	{"no intervals", test_no_intervals},
	{"the headline before the tables", test_headline},
	{"a terminal is refused", test_terminal_refused},
	{"a comparison is one page", test_compare},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"report-html", suite_init, suite_clean, NULL, NULL, html_tests},
	CU_SUITE_INFO_NULL,
};
