/* The reporter tests' fake core (report_fake.h). */
#include "report_fake.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

/* ---- the fake histogram ------------------------------------------------------ */

static const uint32_t pct_ppm[PCTS] = {100000, 250000, 500000, 750000, 900000,
				       950000, 990000, 999000, 999900};
const char *const pct_key[PCTS] = {"p10", "p25", "p50", "p75", "p90",
					  "p95", "p99", "p99.9", "p99.99"};

int bad_ppm_asked;

static uint64_t h_count(const struct shb_hist *h) { return h->count; }
static uint64_t h_min(const struct shb_hist *h) { return h->min; }
static uint64_t h_max(const struct shb_hist *h) { return h->max; }
static uint64_t h_mean(const struct shb_hist *h) { return h->mean; }
static uint64_t h_stddev(const struct shb_hist *h) { return h->stddev; }

static uint64_t h_value_at_ppm(const struct shb_hist *h, uint32_t ppm)
{
	for (int i = 0; i < PCTS; i++)
		if (pct_ppm[i] == ppm)
			return h->pct[i];
	for (int i = 0; i < 2; i++)
		if (h->xppm[i] && h->xppm[i] == ppm)
			return h->xval[i];
	bad_ppm_asked = 1;
	return UINT64_MAX;
}

static const struct shb_hist_ops hist_ops = {
	.struct_size = sizeof(struct shb_hist_ops),
	.count = h_count,
	.min = h_min,
	.max = h_max,
	.mean = h_mean,
	.stddev = h_stddev,
	.value_at_ppm = h_value_at_ppm,
	.foreach_bucket = NULL,
};

struct ext_run ext_run = {.struct_size = 24};
int ext_run_hidden;

static const void *get_extension(const char *id)
{
	if (!ext_run_hidden && strcmp(id, "shb.ext.run/1") == 0)
		return &ext_run;
	return NULL;
}

const struct shb_host host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "0.1.0",
	.get_extension = get_extension,
	.hist = &hist_ops,
};


/* ---- a memory ostream ------------------------------------------------------------ */

shb_ssize mem_write(void *ctx, const void *buf, size_t len)
{
	struct membuf *m = ctx;
	m->writes++;
	if (m->fail_at && m->writes >= m->fail_at)
		return m->fail_rc;
	if (m->chunk && len > m->chunk)
		len = m->chunk;
	if (m->len + len + 1 > m->cap) {
		size_t cap = (m->len + len + 1) * 2;
		char *p = realloc(m->data, cap);
		if (!p)
			return SHB_E_NOMEM;
		m->data = p;
		m->cap = cap;
	}
	memcpy(m->data + m->len, buf, len);
	m->len += len;
	m->data[m->len] = '\0';
	return (shb_ssize)len;
}

void mem_free(struct membuf *m)
{
	free(m->data);
	memset(m, 0, sizeof(*m));
}

/* ---- loading ----------------------------------------------------------------------- */

struct plugin plugins[] = {
	{.name = "text"}, {.name = "json"}, {.name = "csv"},
};

static int open_plugin(struct plugin *p)
{
	const char *dir = getenv("SHB_REPORT_PLUGIN_DIR");
	char path[PATH_MAX];
	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/shb-report-%s.so", dir, p->name);
	p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	p->entry = dlsym(p->dl, SHB_PLUGIN_ENTRY_SYMBOL);
	return p->entry ? 0 : -1;
}

/* Each suite's: the plugins stay open from one suite to the next, so
 * that they are initialised once, by the first test. */
int suite_init(void)
{
	for (int i = 0; i < P_COUNT; i++)
		if (!plugins[i].dl && open_plugin(&plugins[i]) != 0)
			return -1;
	return 0;
}

/* The last suite's. */
int suite_clean(void)
{
	for (int i = 0; i < P_COUNT; i++)
		if (plugins[i].dl)
			dlclose(plugins[i].dl);
	return 0;
}

/* Every test but the first starts from an initialised plugin. */
const struct shb_report_desc *ready(int which)
{
	struct plugin *p = &plugins[which];
	if (!p->desc) {
		if (p->entry->init(&host) != SHB_OK)
			return NULL;
		const struct shb_report_factory *f =
			p->entry->get_factory(SHB_FACTORY_REPORTER);
		p->desc = f ? f->get(0) : NULL;
	}
	return p->desc;
}

/* create/begin/end/destroy into `m`; returns end()'s result, or the first
 * earlier failure. */
int run_reporter(int which, const char *options,
			const struct shb_results *r, struct membuf *m)
{
	const struct shb_report_desc *d = ready(which);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct shb_ostream os = {
		.struct_size = sizeof(os), .is_terminal = 0, .ctx = m,
		.write = mem_write,
	};
	void *rep = NULL;
	char err[256] = "";
	int rc = d->vt->create(&host, &os, options, &rep, err, sizeof(err));
	if (rc != SHB_OK)
		return rc;
	rc = d->vt->begin(rep, r->run);
	if (rc == SHB_OK)
		rc = d->vt->end(rep, r);
	d->vt->destroy(rep);
	return rc;
}

/* ---- golden files -------------------------------------------------------------------- */

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			char *p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

void golden_path(char *path, size_t len, const char *name)
{
	const char *dir = getenv("SHB_REPORT_GOLDEN_DIR");
	snprintf(path, len, "%s/%s", dir ? dir : ".", name);
}

/* Compares `m` with golden/<name>, or rewrites it in update mode; prints
 * both on a mismatch so that the failure is readable. */
void check_golden(const struct membuf *m, const char *name)
{
	char path[PATH_MAX];
	golden_path(path, sizeof(path), name);
	const char *update = getenv("SHB_REPORT_UPDATE_GOLDEN");
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "wb");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_EQUAL(fwrite(m->data, 1, m->len, f), m->len);
		fclose(f);
		return;
	}
	size_t len = 0;
	char *want = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	int same = len == m->len && memcmp(want, m->data, len) == 0;
	CU_ASSERT_TRUE(same);
	if (!same)
		fprintf(stderr, "\n--- %s (expected)\n%s--- got\n%.*s---\n", name,
			want, (int)m->len, m->data ? m->data : "");
	free(want);
}

void golden_case(int which, const struct shb_results *r,
			const char *name)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(which, NULL, r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	check_golden(&m, name);
	mem_free(&m);
}

/* ---- JSON field checks ----------------------------------------------------------------- */

/* `path` is '/'-separated (keys such as "p99.9" contain dots). */
json_t *jpath(json_t *root, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *v = root;
	for (char *save = NULL, *k = strtok_r(buf, "/", &save); k && v;
	     k = strtok_r(NULL, "/", &save))
		v = json_object_get(v, k);
	return v;
}

void j_int(json_t *root, const char *path, long long want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_integer(v));
	CU_ASSERT_EQUAL(json_integer_value(v), want);
	if (!json_is_integer(v) || json_integer_value(v) != want)
		fprintf(stderr, "\n%s: want %lld\n", path, want);
}

void j_real(json_t *root, const char *path, double want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_real(v));
	double got = json_real_value(v);
	/* 15 significant digits are printed */
	CU_ASSERT_TRUE(fabs(got - want) <= fabs(want) * 1e-14);
	if (!json_is_real(v) || fabs(got - want) > fabs(want) * 1e-14)
		fprintf(stderr, "\n%s: want %.17g got %.17g\n", path, want, got);
}

void j_str(json_t *root, const char *path, const char *want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_string(v));
	CU_ASSERT_STRING_EQUAL(json_string_value(v) ? json_string_value(v) : "",
			       want);
}

void j_bool(json_t *root, const char *path, int want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_boolean(v));
	CU_ASSERT_EQUAL(json_is_true(v), want);
}

void j_null(json_t *root, const char *path)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_PTR_NOT_NULL(v);
	CU_ASSERT_TRUE(json_is_null(v));
}

/* The object at `path` has exactly these keys, in this order. */
void j_keys(json_t *root, const char *path, const char *const *keys)
{
	json_t *obj = path ? jpath(root, path) : root;
	CU_ASSERT_TRUE_FATAL(json_is_object(obj));
	size_t i = 0;
	for (void *it = json_object_iter(obj); it;
	     it = json_object_iter_next(obj, it), i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(keys[i]);
		CU_ASSERT_STRING_EQUAL(json_object_iter_key(it), keys[i]);
	}
	CU_ASSERT_PTR_NULL(keys[i]);
}

static const char *const top_keys[] = {
	"schemaVersion", "shbVersion", "startTime", "url", "method", "protocol",
	"protocolName", "threads", "connections", "parallel", "tls",
	"tlsVerify", "requestsTarget", "durationTargetSeconds",
	"warmupSeconds", "warmupRequests", "durationSeconds", "interrupted", "requests", "requestsPerSec",
	"bytesReceived", "bytesReceivedPerSec", "bytesSent", "bytesSentPerSec",
	"connectionsOpened", "statusCodes", "errors", "errorSamples",
	"latencySeconds", "histogramUnit", "latencyHistogram", NULL,
};
static const char *const request_keys[] = {
	"total", "ok", "errors", "connectErrors", "retried", NULL,
};
const char *const error_keys[] = {
	"connect", "tls", "read", "write", "timeout", "protocol", NULL,
};
static const char *const latency_keys[] = {
	"min", "mean", "stddev", "max", "percentiles", NULL,
};

json_t *run_json(const struct shb_results *r, const char *golden)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_JSON, NULL, r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	if (golden)
		check_golden(&m, golden);
	json_error_t jerr;
	json_t *root = json_loadb(m.data, m.len, 0, &jerr);
	if (!root)
		fprintf(stderr, "\njson: %s at line %d\n", jerr.text, jerr.line);
	mem_free(&m);
	CU_ASSERT_PTR_NOT_NULL(root);
	return root;
}

void check_common_shape(json_t *root)
{
	j_keys(root, NULL, top_keys);
	j_keys(root, "requests", request_keys);
	j_keys(root, "errors", error_keys);
	j_int(root, "schemaVersion", 1);
	j_str(root, "shbVersion", "0.1.0");
	/* 1700000000 s after the epoch. */
	j_str(root, "startTime", "2023-11-14T22:13:20.000Z");
}

void check_latency(json_t *root, const struct shb_hist *h)
{
	j_keys(root, "latencySeconds", latency_keys);
	j_real(root, "latencySeconds/min", h->min / 1e9);
	j_real(root, "latencySeconds/mean", h->mean / 1e9);
	j_real(root, "latencySeconds/stddev", h->stddev / 1e9);
	j_real(root, "latencySeconds/max", h->max / 1e9);
	const char *keys[PCTS + 1];
	for (int i = 0; i < PCTS; i++) {
		char path[64];
		snprintf(path, sizeof(path), "latencySeconds/percentiles/%s",
			 pct_key[i]);
		j_real(root, path, h->pct[i] / 1e9);
		keys[i] = pct_key[i];
	}
	keys[PCTS] = NULL;
	j_keys(root, "latencySeconds/percentiles", keys);
}
