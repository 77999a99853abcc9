/* --slo: service-level gates checked on the merged results at the end of a
 * run (results/slo_check.h); here, what a gate is and its parser. An expression is METRIC OP LIMIT:
 *   pNN<5ms, p99.9<=20ms   a latency percentile (0 < NN <= 100, at most
 *                          four decimals) against a duration with a unit
 *   error_rate<1%          errors / (ok + errors), in percent
 *   rps>1000               ok responses per second of the run
 *   NAME.pNN<5ms           a percentile of the protocol's LATENCY metric
 *   NAME.pNN<=16           ... of its VALUE metric, a plain number
 *   NAME.count>1000        the sum of a COUNTER, the values of the others
 * with OP one of <, <=, >, >=. Comparisons are exact (integers), so a
 * value equal to the limit passes <= and >= and fails < and >. A
 * protocol's metric names are known once it is loaded:
 * shb_slo_metrics_check refuses a name it lacks. */
#ifndef SHB_CORE_SLO_H
#define SHB_CORE_SLO_H

#include <stddef.h>
#include <stdint.h>

#include <shb/types.h>

enum shb_slo_metric {
	SHB_SLO_PCT, SHB_SLO_ERROR_RATE, SHB_SLO_RPS,
	SHB_SLO_METRIC_PCT,   /* NAME.pNN: a protocol metric's percentile */
	SHB_SLO_METRIC_COUNT, /* NAME.count */
};
enum shb_slo_op { SHB_SLO_LT, SHB_SLO_LE, SHB_SLO_GT, SHB_SLO_GE };

#define SHB_SLO_TEXT 64
/* Limits of error_rate and rps are kept in millionths. */
#define SHB_SLO_MILLIONTH 1000000ull

/* "<", "<=", ">", ">=" by enum shb_slo_op. */
extern const char *const shb_slo_op_text[4];

struct shb_slo {
	enum shb_slo_metric metric;
	enum shb_slo_op op;
	uint32_t ppm;    /* SHB_SLO_PCT: the percentile in parts per million */
	/* The limit: nanoseconds (SHB_SLO_PCT), or millionths of a percent
	 * (SHB_SLO_ERROR_RATE) or of a request per second (SHB_SLO_RPS). */
	uint64_t limit;
	char name[SHB_SLO_TEXT];  /* "p99.9", "error_rate", "rps" */
	char limit_text[SHB_SLO_TEXT]; /* the limit as typed: "5ms", "1%" */
	/* SHB_SLO_METRIC_*: the protocol metric's name, and whether the
	 * limit is a plain number (then in millionths) rather than a
	 * duration (ns); a count's limit is always plain. */
	char metric_name[SHB_SLO_TEXT];
	uint32_t plain;
};

/* Parses one expression. Returns 0, or -1 with one line in err (no
 * "--slo" prefix, no newline) naming what is wrong. */
int shb_slo_parse(const char *expr, struct shb_slo *slo, char *err,
		  size_t errlen);

/* The gates on protocol metrics against the protocol's table (`proto` its
 * name): a name it lacks (the line lists those it has), a percentile of a
 * COUNTER, a duration limit on a VALUE metric or a plain number on a
 * LATENCY one. 0, or -1 with one line in err. */
int shb_slo_metrics_check(const struct shb_slo *slos, size_t n,
			  const struct shb_metric_def *defs, size_t ndefs,
			  const char *proto, char *err, size_t errlen);

/* Checking gates against a run's results: results/slo_check.h. */

#endif
