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

#include "common/outcome_names.h"
#include "report_v14.h"

/* ---- entry glue ------------------------------------------------------------ */

/* entry->init for every reporter module: checks that the host offers the
 * histogram accessors we read and keeps the table for create(). */
int shb_rpt_init(const struct shb_host *host);
/* Each module defines its one descriptor under this name and hands it
 * out with SHB_PLUGIN_DEFINE_FULL (shb/define.h). */
extern const struct shb_report_desc shb_rpt_module_desc;

/* ---- the reporter object --------------------------------------------------- */

/* What every reporter keeps between create() and destroy(). `flags` holds
 * the bits of the options it was created with (see shb_rpt_create). */
/* One interval (--interval), read from its SHB_RESULTS_INTERVAL result
 * when sample() gets it: the histogram is the core's only for the call. */
struct shb_rpt_ival {
	uint64_t index, start_ns, len_ns;
	uint64_t ok, errors, bytes_sent, bytes_received;
	uint64_t p50, p90, p99, max; /* ns; 0 when no request was ok */
	char *hdr; /* the json reporter's export of the latency histogram
		    * (for shb merge), or NULL; owned, freed by destroy */
	/* ... or, when hdr is NULL and hdr_len is not 0, that text's place
	 * in the reporter's spool (report_spool.h) */
	uint64_t hdr_off;
	uint32_t hdr_len;
	/* 1.4: answered requests (answered_known 0: a core without them)
	 * and the json reporter's export of the error replies' latency,
	 * NULL when there were none; owned like hdr. */
	int answered_known;
	uint64_t answered;
	char *hdr_error_reply;
	/* 1.4: the protocol's metrics in the interval (report_metrics.h), in
	 * the protocol's order: nmetric counts (a counter's sum or a
	 * histogram's values), then nmetric p99s (0 for a counter or no
	 * value); owned, freed like hdr, NULL without metrics. */
	uint32_t nmetric;
	uint64_t *metric_vals;
};

/* One run of a comparison, as its side-by-side table shows it. */
struct shb_rpt_cmp_row {
	char label[72];      /* the run's label, else its URL (cut) */
	uint64_t ok, errors, elapsed_ns;
	uint64_t p50, p99;   /* ns; 0 when no request was ok */
	uint64_t rx_header, rx_body; /* ABI 1.2 sums over ok requests */
	int has_rx;          /* the core gave them */
	int interrupted;
};

struct shb_rpt {
	const struct shb_host *host;
	const struct shb_ostream *out;
	const struct shb_run_info *info; /* from begin(), may stay NULL */
	uint32_t flags;
	struct shb_rpt_ival *ivals; /* sample()'s, in order; owned */
	size_t nivals, ivals_cap;
	/* The intervals' histogram texts until end() (report_spool.h): an
	 * unlinked temporary file, -1 until the first is kept; owned. */
	int spool_fd;
	uint64_t spool_len;
	/* A comparison (ABI 1.3, shb_rpt_compare_*): the runs ended so far,
	 * kept by the text reporter for its table (owned), and whether the
	 * json reporter left its array open for destroy to close when the
	 * comparison was cut short. */
	struct shb_rpt_cmp_row *cmp_rows;
	size_t ncmp_rows;
	int cmp_open;
};

/* The body of every reporter's create(): validates `out`, parses
 * `options` as comma-separated flags from `known` (NULL-terminated; bit i
 * for known[i]) and allocates a struct shb_rpt. `rname` prefixes errors. */
int shb_rpt_create(const char *rname, const char *const *known,
		   const struct shb_host *host, const struct shb_ostream *out,
		   const char *options, void **rep, char *err, size_t errlen);
int shb_rpt_begin(void *rep, const struct shb_run_info *info);
void shb_rpt_destroy(void *rep);
/* [main] sample() for reporters that print intervals at the end: keeps
 * the interval's numbers in rep->ivals. */
int shb_rpt_sample(void *rep, const struct shb_results *r);

/* A comparison (ABI 1.3 run->compare_index/compare_count): this run's
 * index and the number of runs; 0 and 1 without one (or from an older
 * core). */
uint32_t shb_rpt_compare_index(const struct shb_run_info *run);
uint32_t shb_rpt_compare_count(const struct shb_run_info *run);
/* Keeps the row of the run `r` ended in rep->cmp_rows. SHB_E_NOMEM when
 * it cannot. */
int shb_rpt_compare_keep(struct shb_rpt *rep, const struct shb_run_info *run,
			 const struct shb_results *r);

/* The run facts for end(): r->run, else what begin() got. NULL when `r` or
 * the run info is missing or shorter than the v1.0 layout. */
const struct shb_run_info *shb_rpt_check(const struct shb_rpt *rep,
					 const struct shb_results *r);

/* NULL strings in the run info print as "". */
const char *shb_rpt_str(const char *s);

/* ---- what the reporters print ------------------------------------------------ */

/* The percentiles reported: the run's --percentiles (ABI 1.2
 * run->percentiles_ppm) when it gives any, else the nine of
 * shb_rpt_default_ppm. At most SHB_RPT_PCT_MAX; entries that are not
 * ascending within 1..1000000 are left out. */
#define SHB_RPT_PCT_COUNT 9
#define SHB_RPT_PCT_MAX 64

extern const uint32_t shb_rpt_default_ppm[SHB_RPT_PCT_COUNT];

struct shb_rpt_pcts {
	size_t count;
	uint32_t ppm[SHB_RPT_PCT_MAX];
};

void shb_rpt_pcts_of(const struct shb_run_info *run, struct shb_rpt_pcts *p);

/* A percentile as a short decimal: 999000 ppm is "99.9" with dot '.',
 * "99_9" with dot '_' (CSV column names). Returns buf. */
char *shb_rpt_pct_label(char *buf, size_t len, uint32_t ppm, char dot);

/* A histogram read once through host->hist, at the percentiles `p`. When
 * count is 0 the other members are 0 and must not be printed as
 * measurements. */
struct shb_rpt_latency {
	uint64_t count, min, max, mean, stddev;
	size_t npct;
	uint32_t ppm[SHB_RPT_PCT_MAX];
	uint64_t pct[SHB_RPT_PCT_MAX];
};

/* r->latency at the run's percentiles. */
void shb_rpt_read_latency(const struct shb_host *host,
			  const struct shb_results *r,
			  const struct shb_run_info *run,
			  struct shb_rpt_latency *lat);

/* Any histogram (NULL reads as empty) at the percentiles `p`. */
void shb_rpt_read_hist(const struct shb_host *host, const struct shb_hist *h,
		       const struct shb_rpt_pcts *p, struct shb_rpt_latency *lat);

/* Error counts by kind: from errors_ex when the core gives it (ABI 1.2:
 * the seven kinds, `application` included; kinds = SHB_ERRK_EX_COUNT),
 * else from errors (kinds = SHB_ERRK_COUNT). Kinds a newer core may add
 * land in `other` so that the listed counts never silently exceed their
 * sum. */
struct shb_rpt_errors {
	int kinds;
	uint64_t count[SHB_ERRK_EX_COUNT];
	const char *sample[SHB_ERRK_EX_COUNT]; /* first non-NULL sample */
	uint64_t other;
	const char *other_sample;
};

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

/* ---- ABI 1.2 members -------------------------------------------------------- */

/* Every member added in 1.2 is read only when the writer's struct_size
 * covers it and, for arrays, when the pointer is set; otherwise it reads
 * as absent (0, NULL), which is what a 1.1 core's smaller structs give. */
#define SHB_RPT_HAS(p, type, member) ((p) && SHB_HAS(p, type, member))

/* The warm-up: from run->warmup_ns and r->requests_warmup (1.2), else
 * from the extension "shb.ext.run/1"; known is 0 when neither says. */
struct shb_rpt_warmup {
	int known;
	uint64_t ns, requests;
};

void shb_rpt_warmup_of(const struct shb_host *host,
		       const struct shb_run_info *run,
		       const struct shb_results *r, struct shb_rpt_warmup *w);

/* Open loop: more than SHB_RPT_SHORT_PCT % of the due requests (sent,
 * that is ended, plus never sent) were never sent: the rate asked was not
 * achieved. The core's rule for its line on stderr and exit status 1
 * (docs/reports.md "Open loop shortfall"). */
#define SHB_RPT_SHORT_PCT 5
int shb_rpt_short(const struct shb_results *r);

/* Arrays of the results and run info; each returns the count and sets
 * *out, or 0 (and NULL) when absent. */
size_t shb_rpt_app_outcomes(const struct shb_results *r,
			    const struct shb_app_count **out);
size_t shb_rpt_error_codes(const struct shb_results *r,
			   const struct shb_code_count **out);
size_t shb_rpt_plugins(const struct shb_run_info *run,
		       const struct shb_plugin_info **out);
size_t shb_rpt_stages(const struct shb_run_info *run,
		      const struct shb_stage **out);

/* Per-target results: the count of usable ones (each a complete result
 * with a latency histogram); *info is NULL past run->target_count. */
size_t shb_rpt_target_count(const struct shb_results *r);
const struct shb_results *shb_rpt_target(const struct shb_results *r,
					 const struct shb_run_info *run,
					 size_t i,
					 const struct shb_target_info **info);

/* A mixed run's target i: its intended share of the requests (its weight
 * over all the targets' weights) and its achieved one (its requests,
 * answered or failed, over all the targets'); each -1 when not known (no
 * target info, or no request at all). */
struct shb_rpt_share {
	double intended, achieved;
};
void shb_rpt_target_share(const struct shb_results *r,
			  const struct shb_run_info *run, size_t i,
			  struct shb_rpt_share *out);

/* r->latency_uncorrected when it is a histogram of its own (open loop),
 * else NULL. */
const struct shb_hist *shb_rpt_uncorrected(const struct shb_results *r);

/* The set-up histograms, each at p50/p90/p99; any is 0 when all three
 * are empty or absent. */
enum { SHB_RPT_SETUP_CONNECT, SHB_RPT_SETUP_HANDSHAKE, SHB_RPT_SETUP_FIRST_BYTE,
       SHB_RPT_SETUP_COUNT };
struct shb_rpt_setup {
	int any;
	struct shb_rpt_latency h[SHB_RPT_SETUP_COUNT];
};

extern const char *const shb_rpt_setup_names[SHB_RPT_SETUP_COUNT];

void shb_rpt_read_setup(const struct shb_host *host,
			const struct shb_results *r, struct shb_rpt_setup *s);

/* Names for outcome spaces and error kinds: common/outcome_names.h. */

/* ---- numbers ----------------------------------------------------------------- */

/* n per second over elapsed_ns; 0 when nothing elapsed. */
double shb_rpt_per_sec(uint64_t n, uint64_t elapsed_ns);

/* round(v * 10^decimals), clamped to [0, UINT64_MAX]. */
uint64_t shb_rpt_scale(double v, unsigned decimals);

/* Writes `scaled` / 10^decimals with exactly `decimals` fraction digits
 * ("1.234"), independent of the C locale. Returns buf. */
char *shb_rpt_fixed(char *buf, size_t len, uint64_t scaled, unsigned decimals);

/* total / n, 0 when n is 0. */
double shb_rpt_per(uint64_t total, uint64_t n);

/* A rate in requests/s x 1000 as requests/s, without trailing zeros:
 * 1000000 is "1000", 500 is "0.5". Returns buf. */
char *shb_rpt_milli(char *buf, size_t len, uint64_t milli);

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
