/* Reporter plugins (text, json, csv) loaded as the core loads them, fed
 * fixed results through a fake host, their output compared byte for byte
 * with tests/report/golden/ (JSON also field by field). This file: loading,
 * the 1.1 goldens, options and bad input, failing and short writes, what a
 * newer core or a hostile server may send; test_report_v12.c the ABI 1.2
 * members, test_report_ival.c intervals and a comparison. The fake host,
 * the loading and the checks are report_fake.c, the fixed results
 * report_fixtures.c.
 *
 * Environment (set by meson): SHB_REPORT_PLUGIN_DIR, the build directory
 * of plugins/reporters; SHB_REPORT_GOLDEN_DIR, the golden files.
 * SHB_REPORT_UPDATE_GOLDEN=1 rewrites the golden files from the output
 * instead of comparing (review the diff before committing). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <shb/shb.h>

#include "report_fake.h"
#include "report_fixtures.h"

/* ---- tests: loading ---------------------------------------------------------------------- */

static const struct shb_host host_without_hist = {
	.struct_size = offsetof(struct shb_host, hist), /* an older layout */
	.abi_major = SHB_ABI_MAJOR,
};

static void test_entry_and_init(void)
{
	static const char *const ids[P_COUNT] = {
		"org.shb.report.text", "org.shb.report.json", "org.shb.report.csv",
	};
	for (int i = 0; i < P_COUNT; i++) {
		struct plugin *p = &plugins[i];
		const struct shb_plugin_entry *e = p->entry;
		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_EQUAL(e->struct_size, sizeof(struct shb_plugin_entry));
		CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
		CU_ASSERT_EQUAL(e->abi_minor, SHB_ABI_MINOR);
		CU_ASSERT_STRING_EQUAL(e->id, ids[i]);
		const struct shb_report_factory *f =
			e->get_factory(SHB_FACTORY_REPORTER);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_PTR_NULL(e->get_factory(SHB_FACTORY_PROTOCOL));
		CU_ASSERT_PTR_NULL(e->get_factory("shb.reporter/2"));
		CU_ASSERT_EQUAL(f->count, 1);
		CU_ASSERT_PTR_NULL(f->get(1));
		const struct shb_report_desc *d = f->get(0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->struct_size, sizeof(struct shb_report_desc));
		CU_ASSERT_STRING_EQUAL(d->name, p->name);
		CU_ASSERT_EQUAL(d->flags, 0);
		CU_ASSERT_PTR_NOT_NULL(d->summary);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d->vt);
		CU_ASSERT_PTR_NOT_NULL(d->vt->create);
		CU_ASSERT_PTR_NOT_NULL(d->vt->begin);
		CU_ASSERT_PTR_NOT_NULL(d->vt->end);
		CU_ASSERT_PTR_NOT_NULL(d->vt->destroy);
		/* json and csv take intervals (with --interval); text none */
		CU_ASSERT_EQUAL(d->vt->sample == NULL, i == P_TEXT);

		/* Before init, create must refuse rather than use no host. */
		struct membuf m = {0};
		struct shb_ostream os = {sizeof(os), 0, &m, mem_write};
		void *rep = (void *)1;
		char err[128] = "";
		CU_ASSERT_EQUAL(d->vt->create(&host, &os, NULL, &rep, err,
					      sizeof(err)), SHB_E_STATE);
		CU_ASSERT_PTR_NULL(rep);
		CU_ASSERT_TRUE(strlen(err) > 0);

		CU_ASSERT_EQUAL(e->init(NULL), SHB_E_UNSUPPORTED);
		CU_ASSERT_EQUAL(e->init(&host_without_hist), SHB_E_UNSUPPORTED);
		CU_ASSERT_EQUAL(e->init(&host), SHB_OK);
		CU_ASSERT_PTR_EQUAL(ready(i), d);
	}
}

/* Only the entry is exported: the shared library's names stay hidden. */
static void test_only_entry_exported(void)
{
	static const char *const hidden[] = {
		"shb_rpt_init", "shb_rpt_default_ppm", "shb_rpt_printf",
		"shb_rpt_module_desc", "shb_rpt_get_factory", NULL,
	};
	for (int i = 0; i < P_COUNT; i++)
		for (int k = 0; hidden[k]; k++)
			CU_ASSERT_PTR_NULL(dlsym(plugins[i].dl, hidden[k]));
}

/* ---- tests: golden output ------------------------------------------------------------------ */

static void test_text_basic(void) { golden_case(P_TEXT, &basic_results, "basic.txt"); }
static void test_text_allkinds(void) { golden_case(P_TEXT, &all_results, "allkinds.txt"); }
static void test_text_empty(void) { golden_case(P_TEXT, &empty_results, "empty.txt"); }
static void test_csv_basic(void) { golden_case(P_CSV, &basic_results, "basic.csv"); }
static void test_csv_allkinds(void) { golden_case(P_CSV, &all_results, "allkinds.csv"); }
static void test_csv_empty(void) { golden_case(P_CSV, &empty_results, "empty.csv"); }

static void test_csv_quoting(void)
{
	struct shb_run_info run = basic_run;
	struct shb_results r = basic_results;
	run.url = "http://h/x?a=1,2&b=\"q\"";
	r.run = &run;
	golden_case(P_CSV, &r, "quote.csv");
}

static void test_json_basic(void)
{
	json_t *root = run_json(&basic_results, "basic.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	check_common_shape(root);
	j_str(root, "url", "http://127.0.0.1:8080/");
	j_str(root, "method", "GET");
	j_str(root, "protocol", "HTTP/1.1");
	j_str(root, "protocolName", "h1");
	j_int(root, "threads", 2);
	j_int(root, "connections", 50);
	j_int(root, "parallel", 1);
	j_bool(root, "tls", 0);
	j_str(root, "tlsVerify", "none");
	j_int(root, "requestsTarget", 10000);
	j_null(root, "durationTargetSeconds");
	j_real(root, "durationSeconds", 1.234);
	j_bool(root, "interrupted", 0);
	j_int(root, "requests/total", 10000);
	j_int(root, "requests/ok", 9990);
	j_int(root, "requests/errors", 10);
	j_int(root, "requests/connectErrors", 3);
	j_int(root, "requests/retried", 0);
	j_real(root, "requestsPerSec", 9990 / 1.234);
	j_int(root, "bytesReceived", 1523456);
	j_real(root, "bytesReceivedPerSec", 1523456 / 1.234);
	j_int(root, "bytesSent", 560000);
	j_real(root, "bytesSentPerSec", 560000 / 1.234);
	j_int(root, "connectionsOpened", 60);
	static const char *const codes[] = {"200", "404", NULL};
	j_keys(root, "statusCodes", codes);
	j_int(root, "statusCodes/200", 9980);
	j_int(root, "statusCodes/404", 10);
	j_int(root, "errors/connect", 3);
	j_int(root, "errors/tls", 0);
	j_int(root, "errors/read", 7);
	j_int(root, "errors/write", 0);
	j_int(root, "errors/timeout", 0);
	j_int(root, "errors/protocol", 0);
	static const char *const samples[] = {"connect", "read", NULL};
	j_keys(root, "errorSamples", samples);
	j_str(root, "errorSamples/connect", "connect: Connection refused");
	j_str(root, "errorSamples/read", "connection closed mid-response");
	check_latency(root, &basic_hist);
	json_decref(root);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

static void test_json_allkinds(void)
{
	json_t *root = run_json(&all_results, "allkinds.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	check_common_shape(root);
	const double secs = 7.654321098;
	j_str(root, "url", "https://example.test:8443/a?b=c");
	j_str(root, "method", "POST");
	j_str(root, "protocol", "HTTP/2");
	j_str(root, "protocolName", "h2");
	j_int(root, "threads", 4);
	j_int(root, "connections", 8);
	j_int(root, "parallel", 16);
	j_bool(root, "tls", 1);
	j_str(root, "tlsVerify", "cafile");
	j_null(root, "requestsTarget");
	j_real(root, "durationTargetSeconds", 10.0);
	j_real(root, "durationSeconds", secs);
	j_bool(root, "interrupted", 1);
	j_int(root, "requests/total", 50150);
	j_int(root, "requests/ok", 50129);
	j_int(root, "requests/errors", 21);
	j_int(root, "requests/connectErrors", 1);
	j_int(root, "requests/retried", 42);
	j_real(root, "requestsPerSec", 50129 / secs);
	j_int(root, "bytesReceived", 987654321);
	j_real(root, "bytesReceivedPerSec", 987654321 / secs);
	j_int(root, "bytesSent", 12345678);
	j_real(root, "bytesSentPerSec", 12345678 / secs);
	j_int(root, "connectionsOpened", 31);
	static const char *const codes[] = {"200", "301", "503", "999", NULL};
	j_keys(root, "statusCodes", codes);
	j_int(root, "statusCodes/200", 50000);
	j_int(root, "statusCodes/301", 5);
	j_int(root, "statusCodes/503", 120);
	j_int(root, "statusCodes/999", 4);
	for (int k = 0; k < SHB_ERRK_COUNT; k++) {
		char path[32];
		snprintf(path, sizeof(path), "errors/%s", error_keys[k]);
		j_int(root, path, k + 1);
	}
	static const char *const samples[] = {"connect", "tls", "read",
					      "timeout", "protocol", NULL};
	j_keys(root, "errorSamples", samples);
	j_str(root, "errorSamples/connect", "connect: Connection timed out");
	j_str(root, "errorSamples/tls",
	      "tls: The TLS connection was non-properly terminated.");
	j_str(root, "errorSamples/read", "read: Connection reset by peer");
	j_str(root, "errorSamples/timeout", "request timed out after 2s");
	j_str(root, "errorSamples/protocol",
	      "h2: RST_STREAM PROTOCOL_ERROR\tstream 5");
	check_latency(root, &all_hist);
	json_decref(root);
}

static void test_json_empty(void)
{
	json_t *root = run_json(&empty_results, "empty.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	check_common_shape(root);
	j_str(root, "url", "http://10.0.0.1:9/");
	j_int(root, "requestsTarget", 100);
	j_real(root, "durationSeconds", 0.012);
	j_int(root, "requests/total", 5);
	j_int(root, "requests/ok", 0);
	j_int(root, "requests/errors", 5);
	j_int(root, "requests/connectErrors", 5);
	j_real(root, "requestsPerSec", 0.0);
	j_real(root, "bytesReceivedPerSec", 0.0);
	j_int(root, "errors/connect", 5);
	static const char *const none[] = {NULL};
	j_keys(root, "statusCodes", none);
	j_null(root, "latencySeconds");
	json_decref(root);
}

/* ---- tests: options and bad input ----------------------------------------------------------- */

static int create_err(int which, const char *options, char *err, size_t len)
{
	struct membuf m = {0};
	struct shb_ostream os = {sizeof(os), 0, &m, mem_write};
	void *rep = (void *)1;
	const struct shb_report_desc *d = ready(which);
	int rc = d->vt->create(&host, &os, options, &rep, err, len);
	if (rc == SHB_OK)
		d->vt->destroy(rep);
	else
		CU_ASSERT_PTR_NULL(rep);
	return rc;
}

static void test_options(void)
{
	char err[256];
	CU_ASSERT_EQUAL(create_err(P_TEXT, "wide", err, sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "text reporter: unknown option 'wide' (it takes none)");
	CU_ASSERT_EQUAL(create_err(P_CSV, "noheader,bogus", err, sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "csv reporter: unknown option 'bogus' (known: noheader)");
	CU_ASSERT_EQUAL(create_err(P_JSON, "compactx", err, sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "json reporter: unknown option 'compactx' (known: compact)");
	CU_ASSERT_EQUAL(create_err(P_TEXT, "", err, sizeof(err)), SHB_OK);
	CU_ASSERT_EQUAL(create_err(P_CSV, ",noheader,", err, sizeof(err)), SHB_OK);
	/* a tiny error buffer truncates, never overflows */
	char tiny[8];
	CU_ASSERT_EQUAL(create_err(P_CSV, "bogus", tiny, sizeof(tiny)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(tiny, "csv rep");
}

static void test_csv_noheader(void)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &basic_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	size_t len = 0;
	char path[PATH_MAX];
	golden_path(path, sizeof(path), "basic.csv");
	char *want = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	const char *row = strchr(want, '\n');
	CU_ASSERT_PTR_NOT_NULL_FATAL(row);
	CU_ASSERT_STRING_EQUAL(m.data, row + 1);
	free(want);
	mem_free(&m);
}

static void test_json_compact(void)
{
	struct membuf pretty = {0}, compact = {0};
	CU_ASSERT_EQUAL(run_reporter(P_JSON, NULL, &all_results, &pretty), SHB_OK);
	CU_ASSERT_EQUAL(run_reporter(P_JSON, "compact", &all_results, &compact), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pretty.data);
	CU_ASSERT_PTR_NOT_NULL_FATAL(compact.data);
	/* one line, ending in a newline */
	CU_ASSERT_PTR_EQUAL(strchr(compact.data, '\n'), compact.data + compact.len - 1);
	json_t *a = json_loads(pretty.data, 0, NULL);
	json_t *b = json_loads(compact.data, 0, NULL);
	CU_ASSERT_TRUE(a && b && json_equal(a, b));
	json_decref(a);
	json_decref(b);
	mem_free(&pretty);
	mem_free(&compact);
}

static void test_bad_create_and_results(void)
{
	for (int i = 0; i < P_COUNT; i++) {
		const struct shb_report_desc *d = ready(i);
		void *rep = NULL;
		char err[128] = "";
		CU_ASSERT_EQUAL(d->vt->create(&host, NULL, NULL, &rep, err,
					      sizeof(err)), SHB_E_INVAL);
		CU_ASSERT_PTR_NULL(rep);
		CU_ASSERT_TRUE(strlen(err) > 0);
		struct shb_ostream no_write = {sizeof(no_write), 0, NULL, NULL};
		CU_ASSERT_EQUAL(d->vt->create(&host, &no_write, NULL, &rep, err,
					      sizeof(err)), SHB_E_INVAL);

		struct membuf m = {0};
		struct shb_ostream os = {sizeof(os), 0, &m, mem_write};
		CU_ASSERT_EQUAL_FATAL(d->vt->create(&host, &os, NULL, &rep, err,
						    sizeof(err)), SHB_OK);
		struct shb_run_info short_info = basic_run;
		short_info.struct_size = offsetof(struct shb_run_info, url);
		CU_ASSERT_EQUAL(d->vt->begin(rep, &short_info), SHB_E_INVAL);
		CU_ASSERT_EQUAL(d->vt->begin(rep, NULL), SHB_E_INVAL);

		struct shb_results r = basic_results;
		r.struct_size = offsetof(struct shb_results, latency);
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_E_INVAL);
		CU_ASSERT_EQUAL(d->vt->end(rep, NULL), SHB_E_INVAL);
		r = basic_results;
		r.run = NULL; /* and begin() was not given a usable one */
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_E_INVAL);
		r = basic_results;
		r.statuses = NULL;
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_E_INVAL);
		CU_ASSERT_EQUAL(m.writes, 0);

		/* Without r->run, the run info from begin() is used. */
		CU_ASSERT_EQUAL(d->vt->begin(rep, &basic_run), SHB_OK);
		r = basic_results;
		r.run = NULL;
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_OK);
		d->vt->destroy(rep);

		struct membuf ref = {0};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &basic_results, &ref), SHB_OK);
		CU_ASSERT_TRUE(m.len == ref.len && m.len > 0 &&
			       memcmp(m.data, ref.data, m.len) == 0);
		mem_free(&m);
		mem_free(&ref);
	}
}

/* ---- tests: failing and short writes -------------------------------------------------------- */

/* A URL long enough that every report needs several writes. */
static char long_url[12000];

static const struct shb_results *long_results(struct shb_run_info *run,
					      struct shb_results *r)
{
	if (!long_url[0]) {
		memcpy(long_url, "http://h/", 9);
		memset(long_url + 9, 'a', sizeof(long_url) - 10);
	}
	*run = all_run;
	run->url = long_url;
	*r = all_results;
	r->run = run;
	return r;
}

static void test_write_fails(void)
{
	static const shb_ssize codes[] = {SHB_E_CLOSED, SHB_E_FATAL, -1};
	struct shb_run_info run;
	struct shb_results r;
	long_results(&run, &r);
	for (int i = 0; i < P_COUNT; i++) {
		struct membuf ok = {0};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &ok), SHB_OK);
		CU_ASSERT_TRUE(ok.writes >= 3);
		/* Fail each write in turn: end() reports the stream's error
		 * and stops writing. */
		for (int at = 1; at <= ok.writes; at++) {
			struct membuf m = {.fail_at = at,
					   .fail_rc = codes[at % 3]};
			CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &m), codes[at % 3]);
			CU_ASSERT_EQUAL(m.writes, at);
			mem_free(&m);
		}
		/* also on a small report, where the first write is the only one */
		struct membuf m = {.fail_at = 1, .fail_rc = SHB_E_CLOSED};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &empty_results, &m), SHB_E_CLOSED);
		CU_ASSERT_EQUAL(m.writes, 1);
		mem_free(&m);
		/* a stream that accepts nothing must not make us spin */
		struct membuf zero = {.fail_at = 1, .fail_rc = 0};
		CU_ASSERT_TRUE(run_reporter(i, NULL, &r, &zero) < 0);
		CU_ASSERT_EQUAL(zero.writes, 1);
		mem_free(&zero);
		mem_free(&ok);
	}
}

/* Short writes are continued, and the bytes come out the same. */
static void test_short_writes(void)
{
	struct shb_run_info run;
	struct shb_results r;
	long_results(&run, &r);
	for (int i = 0; i < P_COUNT; i++) {
		struct membuf whole = {0}, bits = {.chunk = 7};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &whole), SHB_OK);
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &bits), SHB_OK);
		CU_ASSERT_TRUE(whole.len > sizeof(long_url));
		CU_ASSERT_TRUE(bits.len == whole.len &&
			       memcmp(bits.data, whole.data, whole.len) == 0);
		mem_free(&whole);
		mem_free(&bits);
	}
}

/* ---- tests: what a newer core or a hostile server may send ---------------------------------- */

static void test_unknown_kinds_and_modes(void)
{
	struct shb_run_info run = all_run;
	run.tls_verify = 7; /* a mode a newer core added */
	static const struct shb_error_count errs[] = {
		{.kind = SHB_ERRK_READ, .count = 2, .sample = "r1"},
		{.kind = 9, .count = 11, .sample = "from the future"},
	};
	struct shb_results r = all_results;
	r.run = &run;
	r.errors = errs;
	r.error_count = 2;

	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "TLS verify:    unknown\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nErrors:\n"
					      "  read       2  r1\n"
					      "  other     11  from the future\n"
					      "Latency (ms):"));
	mem_free(&m);

	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_str(root, "tlsVerify", "unknown");
	j_keys(root, "errors", error_keys);
	j_int(root, "errors/read", 2);
	j_int(root, "requests/connectErrors", 0);
	static const char *const samples[] = {"read", NULL};
	j_keys(root, "errorSamples", samples);
	json_decref(root);
}

static void test_hostile_strings(void)
{
	struct shb_run_info run = basic_run;
	run.url = NULL; /* tolerated, printed empty */
	static const struct shb_error_count errs[] = {
		{.kind = SHB_ERRK_PROTOCOL, .count = 1,
		 .sample = "bad \x1b[2J\r\nbyte \xff\xfe end \xe2\x82\xac"},
	};
	struct shb_results r = basic_results;
	r.run = &run;
	r.errors = errs;
	r.error_count = 1;

	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_EQUAL(strncmp(m.data, "URL:           \n", 16), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "  protocol  1  bad  [2J  byte \xff\xfe end \xe2\x82\xac\n"));
	CU_ASSERT_PTR_NULL(strchr(m.data, '\x1b'));
	mem_free(&m);

	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_str(root, "url", "");
	j_str(root, "errorSamples/protocol",
	      "bad \x1b[2J\r\nbyte \xef\xbf\xbd\xef\xbf\xbd end \xe2\x82\xac");
	json_decref(root);

	CU_ASSERT_EQUAL(run_reporter(P_CSV, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_EQUAL(strncmp(strchr(m.data, '\n'), "\n,GET,HTTP/1.1,", 15), 0);
	mem_free(&m);
}

/* --warmup reaches every reporter through the core's extension; without
 * the extension (or without a start time) JSON says null, CSV leaves the
 * fields empty and text prints no warm-up line. */
static void test_warmup_and_start(void)
{
	struct membuf m = {0};
	struct shb_run_info run = basic_run;
	struct shb_results r = basic_results;
	r.run = &run;
	ext_run.warmup_ns = 2499500000ull; /* 2.4995 s: rounds half up */
	ext_run.warmup_requests = 777;
	run.start_unix_ns = 1764601200123999999ull;

	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "Connections:   50\n"
		"Warm-up:       2.500s, 777 requests, not counted below\n"
		"Requests:      10000 "));
	mem_free(&m);
	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_real(root, "warmupSeconds", 2.4995);
	j_int(root, "warmupRequests", 777);
	j_str(root, "startTime", "2025-12-01T15:00:00.123Z");
	json_decref(root);
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data,
		",2025-12-01T15:00:00.123Z,0.1.0,2499500000,777\n"));
	mem_free(&m);

	ext_run_hidden = 1;
	run.start_unix_ns = 0;
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NULL(strstr(m.data, "Warm-up:"));
	mem_free(&m);
	root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_null(root, "warmupSeconds");
	j_null(root, "warmupRequests");
	j_null(root, "startTime");
	json_decref(root);
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, ",9980,0,10,0,0,,0.1.0,,\n"));
	mem_free(&m);
	ext_run_hidden = 0;
	ext_run.warmup_ns = ext_run.warmup_requests = 0;
}

CU_TestInfo report_tests[] = {
	{"entry and init (runs first)", test_entry_and_init},
	{"only the entry is exported", test_only_entry_exported},
	{"text basic (golden)", test_text_basic},
	{"text allkinds (golden)", test_text_allkinds},
	{"text empty (golden)", test_text_empty},
	{"csv basic (golden)", test_csv_basic},
	{"csv allkinds (golden)", test_csv_allkinds},
	{"csv empty (golden)", test_csv_empty},
	{"csv quoting (golden)", test_csv_quoting},
	{"json basic (fields, golden)", test_json_basic},
	{"json allkinds (fields, golden)", test_json_allkinds},
	{"json empty (fields, golden)", test_json_empty},
	{"options", test_options},
	{"csv noheader", test_csv_noheader},
	{"json compact", test_json_compact},
	{"bad create, begin and end input", test_bad_create_and_results},
	{"failing writes", test_write_fails},
	{"short writes", test_short_writes},
	{"unknown kinds and modes", test_unknown_kinds_and_modes},
	{"hostile strings", test_hostile_strings},
	{"warm-up and start time", test_warmup_and_start},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"report", suite_init, NULL, NULL, NULL, report_tests},
	{"report_v12", suite_init, NULL, NULL, NULL, report_v12_tests},
	{"report_ival", suite_init, suite_clean, NULL, NULL, report_ival_tests},
	CU_SUITE_INFO_NULL,
};
