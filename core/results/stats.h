/* Per-worker counters and histograms; merged once at the end.
 * Workers write only their own stats; the main thread reads the published
 * `live_*` counters (relaxed atomics) for the progress line.
 *
 * The counting rules (what a request's result adds where) live here, so
 * that they are tested without a worker:
 *  - every counted request is either ok or an error:
 *    ok + errors == requests, errors == the sum of err_kind[];
 *  - a response (outcome OK) without an application outcome is ok; with
 *    one (app_space != NONE) it is ok only when app_ok is 1, otherwise an
 *    error of kind SHB_ERRK_APPLICATION whose sample is the detail;
 *  - status[] counts every response with an HTTP status (100..999), the
 *    application errors among them;
 *  - latency and first_byte hold the requests counted ok. */
#ifndef SHB_CORE_STATS_H
#define SHB_CORE_STATS_H

#include <stdint.h>
#include <shb/proto.h>
#include <shb/results.h>
#include "results/hist.h"
#include "results/metrics.h"

#define SHB_STATUS_SLOTS 1000 /* every 3-digit code, e.g. a CDN's 999 */
#define SHB_SAMPLE_LEN 160
/* Latencies above an hour are clamped; 3 significant digits. */
#define SHB_HIST_HIGHEST 3600000000000ull
#define SHB_HIST_SIGFIGS 3
/* Distinct entries kept by the app-outcome and error-code tables. What
 * does not fit is counted in overflow entries (see app_over, code_over), so
 * memory stays fixed whatever a server answers. */
#define SHB_TABLE_CAP 64
/* The key of an overflow entry: a space no real entry has (an app outcome
 * is never in space NONE, an error code is recorded only with a space) and
 * the largest code. */
#define SHB_OVERFLOW_SPACE 0u
#define SHB_OVERFLOW_CODE UINT64_MAX

struct shb_stats {
	uint64_t ok;
	uint64_t errors;
	uint64_t retried;
	uint64_t err_kind[SHB_ERRK_EX_COUNT];
	char err_sample[SHB_ERRK_EX_COUNT][SHB_SAMPLE_LEN];
	uint64_t status[SHB_STATUS_SLOTS];
	uint64_t bytes_sent;
	uint64_t bytes_recv;
	uint64_t conns_opened;
	/* Sums of the protocol's per-request numbers, over every counted
	 * request (ok or error) that reported them. */
	uint64_t rx_header_bytes;
	uint64_t rx_body_bytes;
	/* Application outcomes by (space, code, ok), in order of first sight;
	 * beyond SHB_TABLE_CAP distinct ones, app_over[ok] counts the rest. */
	struct shb_app_count app[SHB_TABLE_CAP];
	uint32_t napp;
	uint64_t app_over[2];
	/* Errors by (kind, space, code), likewise; code_over[kind] the rest. */
	struct shb_code_count code[SHB_TABLE_CAP];
	uint32_t ncode;
	uint64_t code_over[SHB_ERRK_EX_COUNT];
	/* Open loop (-R, --stages): latency runs from each request's
	 * intended start, latency_uncorrected from its actual send; in
	 * closed loop the two are the same and only latency is recorded. */
	int open_loop;               /* kept by shb_stats_reset */
	uint64_t late;               /* started > SHB_SCHED_LATE_NS behind */
	uint64_t unsent;             /* due before the end, never started */
	uint64_t lag_max;            /* the largest start behind schedule */
	struct shb_histo latency;    /* requests counted ok, intended to done */
	struct shb_histo latency_uncorrected; /* open loop: send to done */
	struct shb_histo first_byte; /* the same requests, send to first byte */
	struct shb_histo connect;    /* TCP connect() to connected */
	struct shb_histo handshake;  /* TLS (core) or protocol (DGRAM) */
	/* Answers that are errors (a status outside --success, an
	 * application failure): counted in errors and in error_replies, and
	 * timed, from the intended start, in latency_error_reply. */
	uint64_t error_replies;
	struct shb_histo latency_error_reply;
	/* The protocol's own metrics (metrics.h): none until made with
	 * shb_metrics_init; kept by shb_stats_reset, freed by
	 * shb_stats_destroy. */
	struct shb_metrics metrics;
};

/* Statistics without protocol metrics (s->metrics.n == 0); add them with
 * shb_metrics_init(&s->metrics, ...). */
int shb_stats_init(struct shb_stats *s);
void shb_stats_destroy(struct shb_stats *s);
/* One error of `kind` (beyond SHB_ERRK_EX_COUNT: protocol); the first
 * non-empty message of each kind is kept as its sample. */
void shb_stats_error(struct shb_stats *s, unsigned kind, const char *msg);
/* One error (kind, space, code) in the error-code table; nothing for
 * space NONE (no code given). Does not count an error by itself. */
void shb_stats_code(struct shb_stats *s, unsigned kind, uint32_t space,
		    uint64_t code);
/* One application outcome (space != NONE) in the app-outcome table. */
void shb_stats_app(struct shb_stats *s, uint32_t space, uint64_t code,
		   int ok);
static inline void shb_stats_ok(struct shb_stats *s, uint32_t status,
				uint64_t latency_ns)
{
	s->ok++;
	if (status >= 100 && status < SHB_STATUS_SLOTS)
		s->status[status]++;
	shb_histo_record(&s->latency, latency_ns);
}
/* A response (outcome OK) to a request sent at t_start, ended at `now`:
 * counts it by the rules above. Returns 1 if it counted ok, 0 if it was an
 * application error. `res` is the plugin's, checked with SHB_HAS. */
int shb_stats_response(struct shb_stats *s, const struct shb_req_result *res,
		       uint64_t t_start, uint64_t now);
/* The same for a request due at t_intended (open loop) and sent at
 * t_start: latency from t_intended, and, when s->open_loop, the
 * uncorrected latency from t_start; first_byte from t_start. */
int shb_stats_response_at(struct shb_stats *s, const struct shb_req_result *res,
			  uint64_t t_intended, uint64_t t_start, uint64_t now);
/* A request the plugin reported as failed (any outcome but OK), counted as
 * an error of `kind` with `msg`: adds its bytes, and for RESET,
 * PROTO_ERROR and REFUSED its (space, code). */
void shb_stats_failed(struct shb_stats *s, const struct shb_req_result *res,
		      unsigned kind, const char *msg);
/* A response whose status --success does not take (success.h): its
 * status is counted, it is an application error with `msg`, an error
 * reply of latency_ns (from its intended start), its protocol byte
 * counts are added. */
void shb_stats_unsuccessful(struct shb_stats *s, const struct shb_req_result *res,
			    const char *msg, uint64_t latency_ns);
/* Back to nothing recorded (the end of --warmup). */
void shb_stats_reset(struct shb_stats *s);
/* dst += src (samples: the first one seen wins; table entries of src
 * that dst has no room for go to dst's overflow entries). */
void shb_stats_merge(struct shb_stats *dst, const struct shb_stats *src);

#endif
