/* Code shared by the text, json and csv reporters: the plugin entry glue,
 * the reporter object they all use, the percentile list, reading results
 * through host->hist, locale-independent number formatting and a buffered
 * writer over the core's struct shb_ostream.
 *
 * Linked statically into each reporter module; every name here is hidden
 * by the plugin version script, so the three modules never clash. */
#ifndef SHB_REPORT_COMMON_H
#define SHB_REPORT_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <shb/shb.h>

/* ---- entry glue ------------------------------------------------------------ */

/* entry->init for every reporter module: checks that the host offers the
 * histogram accessors we read and keeps the table for create(). */
int shb_rpt_init(const struct shb_host *host);
/* Each module defines its one descriptor under this name ... */
extern const struct shb_report_desc shb_rpt_module_desc;
/* ... and this entry->get_factory hands it out as a one-entry
 * SHB_FACTORY_REPORTER table. */
const void *shb_rpt_get_factory(const char *factory_id);

/* ---- the reporter object --------------------------------------------------- */

/* What every reporter keeps between create() and destroy(). `flags` holds
 * the bits of the options it was created with (see shb_rpt_create). */
struct shb_rpt {
	const struct shb_host *host;
	const struct shb_ostream *out;
	const struct shb_run_info *info; /* from begin(), may stay NULL */
	uint32_t flags;
};

/* The body of every reporter's create(): validates `out`, parses
 * `options` as comma-separated flags from `known` (NULL-terminated; bit i
 * for known[i]) and allocates a struct shb_rpt. `rname` prefixes errors. */
int shb_rpt_create(const char *rname, const char *const *known,
		   const struct shb_host *host, const struct shb_ostream *out,
		   const char *options, void **rep, char *err, size_t errlen);
int shb_rpt_begin(void *rep, const struct shb_run_info *info);
void shb_rpt_destroy(void *rep);

/* The run facts for end(): r->run, else what begin() got. NULL when `r` or
 * the run info is missing or shorter than the v1.0 layout. */
const struct shb_run_info *shb_rpt_check(const struct shb_rpt *rep,
					 const struct shb_results *r);

/* NULL strings in the run info print as "". */
const char *shb_rpt_str(const char *s);

/* ---- what the reporters print ------------------------------------------------ */

#define SHB_RPT_PCT_COUNT 9

struct shb_rpt_pct {
	uint32_t ppm;
	const char *label;    /* "99.9" (text: "99.9%") */
	const char *json_key; /* "p99.9" */
	const char *csv_col;  /* "latency_p99_9_ns" */
};

extern const struct shb_rpt_pct shb_rpt_pcts[SHB_RPT_PCT_COUNT];

/* The latency histogram read once through host->hist. When count is 0 the
 * other members are 0 and must not be printed as measurements. */
struct shb_rpt_latency {
	uint64_t count, min, max, mean, stddev;
	uint64_t pct[SHB_RPT_PCT_COUNT];
};

void shb_rpt_read_latency(const struct shb_host *host,
			  const struct shb_results *r,
			  struct shb_rpt_latency *lat);

/* Error counts by kind. Kinds a newer core may add land in `other` so
 * that the listed counts never silently exceed their sum. */
struct shb_rpt_errors {
	uint64_t count[SHB_ERRK_COUNT];
	const char *sample[SHB_ERRK_COUNT]; /* first non-NULL sample */
	uint64_t other;
	const char *other_sample;
};

extern const char *const shb_rpt_err_names[SHB_ERRK_COUNT];

void shb_rpt_sum_errors(const struct shb_results *r, struct shb_rpt_errors *e);

/* "none", "system", "cafile", or "unknown" for a mode a newer core added. */
const char *shb_rpt_tls_verify_name(uint32_t v);

/* When the run started, RFC 3339 in UTC to the millisecond
 * ("2026-12-01T15:00:00.123Z"), in buf; NULL when the run info does not
 * say (a core older than ABI 1.1, or 0). */
const char *shb_rpt_start_time(char *buf, size_t len,
			       const struct shb_run_info *run);

/* The core's extension "shb.ext.run/1" (docs/reports.md): run facts that
 * struct shb_run_info of ABI 1.1 does not carry. Only appended to. */
#define SHB_RPT_EXT_RUN_ID "shb.ext.run/1"
struct shb_rpt_ext_run {
	uint32_t struct_size;
	uint32_t reserved0;
	uint64_t warmup_ns;       /* --warmup, 0 without */
	uint64_t warmup_requests; /* requests that ended in it, not counted */
};

/* The extension, or NULL when the core does not offer it. */
const struct shb_rpt_ext_run *shb_rpt_ext_run(const struct shb_host *host);

/* ---- numbers ----------------------------------------------------------------- */

/* n per second over elapsed_ns; 0 when nothing elapsed. */
double shb_rpt_per_sec(uint64_t n, uint64_t elapsed_ns);

/* round(v * 10^decimals), clamped to [0, UINT64_MAX]. */
uint64_t shb_rpt_scale(double v, unsigned decimals);

/* Writes `scaled` / 10^decimals with exactly `decimals` fraction digits
 * ("1.234"), independent of the C locale. Returns buf. */
char *shb_rpt_fixed(char *buf, size_t len, uint64_t scaled, unsigned decimals);

/* Nanoseconds as milliseconds with three decimals, rounded half up. */
char *shb_rpt_ms(char *buf, size_t len, uint64_t ns);

/* ---- output -------------------------------------------------------------------- */

/* Buffers output and remembers the first failed write: later writes are
 * dropped, and shb_rpt_flush returns the error. */
struct shb_rpt_out {
	const struct shb_ostream *os;
	int err;
	size_t len;
	char buf[4096];
};

void shb_rpt_out_init(struct shb_rpt_out *o, const struct shb_ostream *os);
void shb_rpt_write(struct shb_rpt_out *o, const void *p, size_t n);
void shb_rpt_puts(struct shb_rpt_out *o, const char *s);
void shb_rpt_printf(struct shb_rpt_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Writes what is buffered. SHB_OK, or the first negative SHB_E_* seen. */
int shb_rpt_flush(struct shb_rpt_out *o);

#endif
