/* The reporter tests' fake core (test_report.c, test_report_v12.c,
 * test_report_ival.c): a histogram of fixed figures behind the ABI's
 * accessors, the host table with the "shb.ext.run/1" extension, a memory
 * ostream that can fail or take short writes, the text, json and csv
 * reporters dlopened as the core opens them, the golden files and the
 * JSON field checks. All on the test's thread. */
#ifndef SHB_TEST_REPORT_FAKE_H
#define SHB_TEST_REPORT_FAKE_H

#include <stddef.h>
#include <stdint.h>
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <shb/shb.h>

/* ---- the fake histogram ---- */

#define PCTS 9
extern const char *const pct_key[PCTS];

/* The core's histogram is opaque to plugins; this test is the core here.
 * xppm/xval: percentiles beyond the nine, for --percentiles runs. */
struct shb_hist {
	uint64_t count, min, max, mean, stddev;
	uint64_t pct[PCTS];
	uint32_t xppm[2];
	uint64_t xval[2];
};

/* Set when a reporter asked for a percentile the histogram lacks. */
extern int bad_ppm_asked;

/* The core's "shb.ext.run/1" (its layout as docs/reports.md gives it);
 * a test may change it, or hide it (ext_run_hidden) as a core without
 * it would. */
struct ext_run {
	uint32_t struct_size, reserved0;
	uint64_t warmup_ns, warmup_requests;
};
extern struct ext_run ext_run;
extern int ext_run_hidden;

extern const struct shb_host host;

/* ---- a memory ostream ---- */

struct membuf {
	char *data;
	size_t len, cap;
	int writes;     /* calls to write so far */
	int fail_at;    /* 1-based call that fails; 0: none */
	shb_ssize fail_rc;
	size_t chunk;   /* accept at most this much per call; 0: all */
};

shb_ssize mem_write(void *ctx, const void *buf, size_t len);
void mem_free(struct membuf *m);

/* ---- loading ---- */

struct plugin {
	const char *name;
	void *dl;
	const struct shb_plugin_entry *entry;
	const struct shb_report_desc *desc;
};

extern struct plugin plugins[];
enum { P_TEXT, P_JSON, P_CSV, P_COUNT };

/* The suites (test_report.c registers them in this order). */
extern CU_TestInfo report_tests[], report_v12_tests[], report_ival_tests[];
/* The suites' set-up (dlopens the three, once) and the last one's
 * clean-up. */
int suite_init(void);
int suite_clean(void);
/* Every test but the first starts from an initialised plugin. */
const struct shb_report_desc *ready(int which);
/* create/begin/end/destroy into `m`; returns end()'s result, or the first
 * earlier failure. */
int run_reporter(int which, const char *options,
		 const struct shb_results *r, struct membuf *m);

/* ---- golden files ---- */

char *read_file(const char *path, size_t *len);
void golden_path(char *path, size_t len, const char *name);
/* m's output against golden/name (or written there with
 * SHB_REPORT_UPDATE_GOLDEN=1). */
void check_golden(const struct membuf *m, const char *name);
/* Reporter `which` on r, its output against golden/name. */
void golden_case(int which, const struct shb_results *r, const char *name);

/* ---- JSON field checks ---- */

/* The value at `path`, '/'-separated (keys such as "p99.9" contain
 * dots), or NULL. */
json_t *jpath(json_t *root, const char *path);
void j_int(json_t *root, const char *path, long long want);
void j_real(json_t *root, const char *path, double want);
void j_str(json_t *root, const char *path, const char *want);
void j_bool(json_t *root, const char *path, int want);
void j_null(json_t *root, const char *path);
/* The object at path has exactly these keys (NULL-terminated). */
void j_keys(json_t *root, const char *path, const char *const *keys);
extern const char *const error_keys[];
/* The json reporter's report of r, checked against golden (NULL: none). */
json_t *run_json(const struct shb_results *r, const char *golden);
void check_common_shape(json_t *root);
void check_latency(json_t *root, const struct shb_hist *h);

#endif
