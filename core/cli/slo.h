/* --slo: service-level gates checked on the merged results at the end of a
 * run (results/slo_check.h); here, what a gate is and its parser. An expression is METRIC OP LIMIT:
 *   pNN<5ms, p99.9<=20ms   a latency percentile (0 < NN <= 100, at most
 *                          four decimals) against a duration with a unit
 *   error_rate<1%          errors / (ok + errors), in percent
 *   rps>1000               ok responses per second of the run
 * with OP one of <, <=, >, >=. Comparisons are exact (integers), so a
 * value equal to the limit passes <= and >= and fails < and >. */
#ifndef SHB_CORE_SLO_H
#define SHB_CORE_SLO_H

#include <stddef.h>
#include <stdint.h>

enum shb_slo_metric { SHB_SLO_PCT, SHB_SLO_ERROR_RATE, SHB_SLO_RPS };
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
};

/* Parses one expression. Returns 0, or -1 with one line in err (no
 * "--slo" prefix, no newline) naming what is wrong. */
int shb_slo_parse(const char *expr, struct shb_slo *slo, char *err,
		  size_t errlen);

/* Checking gates against a run's results: results/slo_check.h. */

#endif
