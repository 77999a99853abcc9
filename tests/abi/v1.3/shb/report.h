/* shb plugin ABI: reporter modules.
 *
 * A reporter turns results into output. Every call is [main]. The core
 * chooses where output goes (stdout, or a file from `--report json:FILE`)
 * and hands the reporter a core-owned stream. Call order:
 * create -> begin -> sample* -> end -> destroy. */
#ifndef SHB_REPORT_H
#define SHB_REPORT_H

#include <shb/types.h>
#include <shb/results.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_host;

/* A core-owned byte sink, valid from create until destroy returns. write()
 * returns `len` or a negative SHB_E_*. */
struct shb_ostream {
	uint32_t struct_size;
	uint32_t is_terminal; /* 1 when the sink is a terminal */
	void *ctx;
	shb_ssize (*write)(void *ctx, const void *buf, size_t len);
};

enum shb_report_flags {
	SHB_REPORT_WANTS_INTERVALS = 1u << 0, /* sample() wanted */
};

struct shb_report_vtable {
	uint32_t struct_size;
	/* [main] `out` and `host` outlive the reporter. `options` is NULL or
	 * the reporter's option string (borrowed): since 1.2 the --report-opt
	 * items for this reporter in order, comma-separated, each "key" or
	 * "key=value". On failure: a negative
	 * SHB_E_* and one line in err[errlen]. */
	int (*create)(const struct shb_host *host, const struct shb_ostream *out,
		      const char *options, void **rep, char *err, size_t errlen);
	/* [main] Before load starts. `info` is valid until destroy. */
	int (*begin)(void *rep, const struct shb_run_info *info);
	/* [main] Interval results: with WANTS_INTERVALS (then every second
	 * by default), or for any reporter when the user gives --interval;
	 * each a delta over one interval (results.h). May be NULL. */
	int (*sample)(void *rep, const struct shb_results *r);
	/* [main] The totals, once. `r` is borrowed for the call. */
	int (*end)(void *rep, const struct shb_results *r);
	void (*destroy)(void *rep); /* [main] */
};

struct shb_report_desc {
	uint32_t struct_size;
	uint32_t flags;      /* enum shb_report_flags */
	const char *name;    /* CLI name: "json" */
	const char *summary; /* one line for --list-plugins */
	const struct shb_report_vtable *vt;

	/* since 1.2: the options create() accepts (--report-opt), array ending
	 * with key == NULL, static. The core refuses any other key with one line
	 * naming these, before create(). NULL: create() validates alone. */
	const struct shb_option_def *option_defs;
};

#ifdef __cplusplus
}
#endif
#endif
