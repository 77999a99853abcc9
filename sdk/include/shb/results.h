/* shb plugin ABI: what a run measured, as handed to reporters.
 *
 * Everything here is core-owned, immutable, and valid only for the duration
 * of the reporter callback that receives it. Times are nanoseconds. */
#ifndef SHB_RESULTS_H
#define SHB_RESULTS_H

#include <shb/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_hist;

/* Error kinds, the taxonomy of the report (wrk's, extended). */
enum shb_err_kind {
	SHB_ERRK_CONNECT = 0,  /* connect refused/failed/timed out; a
				* required ALPN not selected */
	SHB_ERRK_TLS = 1,      /* TLS handshake or record failure */
	SHB_ERRK_READ = 2,     /* receive error, or the peer closed early */
	SHB_ERRK_WRITE = 3,    /* send error */
	SHB_ERRK_TIMEOUT = 4,  /* --timeout, or a protocol timer */
	SHB_ERRK_PROTOCOL = 5, /* malformed response, stream reset */
	SHB_ERRK_COUNT = 6,    /* the kinds of `errors`: 1.1's six */
	/* since 1.2; only in `errors_ex`, so that a reporter built against 1.1
	 * never meets a kind it does not know */
	SHB_ERRK_APPLICATION = 6, /* a response whose app outcome is failure */
	/* since 1.4: a script (-s, script.h) failed to make a request or to
	 * take its response; the sample is the script's line. A reporter
	 * built against 1.2 or 1.3 meets it in `errors_ex` as a kind it does
	 * not know (it must count such kinds, as "other"). */
	SHB_ERRK_SCRIPT = 7,
	SHB_ERRK_EX_COUNT = 8,    /* the kinds of `errors_ex` (7 before 1.4) */
};

enum shb_tls_verify {
	SHB_TLS_VERIFY_NONE = 0,   /* no TLS, or certificates not checked */
	SHB_TLS_VERIFY_SYSTEM = 1, /* --verify: the system trust store */
	SHB_TLS_VERIFY_CAFILE = 2, /* --cacert FILE */
};

struct shb_status_count {
	uint32_t code; /* 100..999 */
	uint32_t reserved0;
	uint64_t count;
};

struct shb_error_count {
	uint32_t kind; /* enum shb_err_kind */
	uint32_t reserved0;
	uint64_t count;
	const char *sample; /* one message seen for this kind, or NULL */
};

/* since 1.2. Fixed layout (no struct_size; frozen in tests/abi). */

/* Requests by application outcome (struct shb_req_result's app_*). */
struct shb_app_count {
	uint32_t space; /* enum shb_app_space (proto.h) */
	uint32_t ok;    /* 1 when these were counted ok */
	uint64_t code;
	uint64_t count;
};

/* Errors by the code the protocol gave (err_space, err_code). */
struct shb_code_count {
	uint32_t kind;  /* enum shb_err_kind */
	uint32_t space; /* enum shb_err_space (proto.h) */
	uint64_t code;
	uint64_t count;
};

/* One plugin file the run used: provenance, so that a report says which
 * build produced it. */
struct shb_plugin_info {
	const char *path;     /* the file loaded, absolute */
	const char *id;       /* entry id: "org.shb.proto.h1" */
	const char *version;  /* entry version, or NULL */
	const char *role;     /* "protocol", "reporter", or "extension" (a
			       * plugin that answered host->get_extension;
			       * name is then the id asked) */
	const char *name;     /* the descriptor's name: "h1", "json" */
	uint32_t abi_minor;   /* the minor the plugin declared */
	uint32_t reserved0;
};

/* One step of an open-loop schedule: the rate goes linearly from
 * rate_from to rate_to over duration_ns (equal for a constant step).
 * Rates are requests per second times 1000 (0.5/s is 500). */
struct shb_stage {
	uint64_t duration_ns;
	uint64_t rate_from_milli;
	uint64_t rate_to_milli;
};

/* One target of the run (a URL of a list, with its weight). */
struct shb_target_info {
	const char *label;  /* the label given, or the URL */
	const char *url;    /* as typed */
	const char *method;
	uint32_t weight;    /* relative share of requests; 1 by default */
	uint32_t origin;    /* index of its origin (struct shb_origin) */
};

/* Facts about the run, fixed before it starts. */
struct shb_run_info {
	uint32_t struct_size;
	uint32_t threads;
	uint32_t connections;
	uint32_t parallel;
	uint32_t tls;        /* 1 when the target is https */
	uint32_t tls_verify; /* enum shb_tls_verify */
	const char *shb_version;
	const char *url;
	const char *method;
	const char *proto_name;    /* "h1" */
	const char *proto_display; /* "HTTP/1.1" */
	uint64_t requests_target;  /* -n, or 0 in duration mode */
	uint64_t duration_target_ns; /* -z, or 0 in count mode */
	uint64_t start_unix_ns;    /* wall clock at the start */

	/* since 1.2 */
	uint32_t shard_index;  /* --shard I/N: I (0-based); 0 without */
	uint32_t shard_count;  /* N; 1 without --shard */
	uint64_t rate_milli;   /* -R in requests/s x 1000; 0: closed loop */
	const struct shb_stage *stages; /* the open-loop schedule, or NULL */
	size_t stage_count;
	uint64_t start_at_unix_ns; /* --start-at, 0 without */
	uint64_t warmup_ns;        /* --warmup, 0 without */
	uint64_t interval_ns;      /* time between sample() calls, 0: none */
	const struct shb_target_info *targets; /* every target, in order */
	size_t target_count;
	const struct shb_plugin_info *plugins; /* every plugin the run uses */
	size_t plugin_count;
	const char *label;       /* the run's label (label=URL), or NULL */
	const uint32_t *percentiles_ppm; /* --percentiles, ascending */
	size_t percentile_count;

	/* since 1.3: a comparison (several positional `[label=]URL`) is one run
	 * after another with the same settings. A reporter whose plugin entry
	 * says abi_minor >= 3 keeps one instance across them: create, then
	 * begin, sample*, end for each run with compare_index 0, 1, ..., then
	 * destroy; each run has its own shb_run_info, valid until destroy. A
	 * reporter built against an older minor gets a fresh instance per run
	 * instead, writing to the same sink one report after another. Without
	 * a comparison: index 0, count 1. */
	uint32_t compare_index;
	uint32_t compare_count;

	/* since 1.4: what shaped the run beside the URL. Core-owned strings,
	 * valid as long as this shb_run_info. */
	uint32_t request_model; /* enum shb_request_model of the protocol */
	uint32_t reserved1;     /* 0 */
	/* The protocol's outcome names (shb_proto_desc.outcome_spaces), to
	 * name app_space and app_code in reports; NULL and 0: none. */
	const struct shb_outcome_space *outcome_spaces;
	size_t outcome_space_count;
	/* The success set as a report shows it: "1xx-3xx" (the default),
	 * "any", "2xx,404", "ok,nil". */
	const char *success;
	/* The forward proxy, "http://host:port" without credentials (-x or
	 * the environment), or NULL. */
	const char *proxy;
	const char *const *connect_to; /* --connect-to as typed, in order */
	size_t connect_to_count;
	const char *const *resolve;    /* --resolve as typed, in order */
	size_t resolve_count;
	const char *source;      /* --source as typed, or NULL */
	const char *unix_socket; /* --unix-socket path, or NULL */
};

enum shb_results_kind {
	SHB_RESULTS_TOTAL = 1,
	SHB_RESULTS_INTERVAL = 2,
};

struct shb_results {
	uint32_t struct_size;
	uint32_t kind;        /* enum shb_results_kind */
	uint32_t interrupted; /* 1 if Ctrl-C ended the run */
	uint32_t reserved0;
	const struct shb_run_info *run;
	uint64_t elapsed_ns;
	uint64_t requests_total;  /* ok + errors */
	uint64_t requests_ok;     /* complete responses, any status (since
				   * 1.2: except those whose app outcome
				   * failed) */
	uint64_t requests_errors;
	uint64_t requests_retried; /* refused by the peer and resent */
	uint64_t bytes_sent;       /* on the wire: TLS and framing included */
	uint64_t bytes_received;
	uint64_t connections_opened;
	const struct shb_status_count *statuses; /* ascending by code; every
						  * response with a status,
						  * application errors
						  * included */
	size_t status_count;
	const struct shb_error_count *errors; /* kinds with count > 0, by kind */
	size_t error_count;
	const struct shb_hist *latency; /* of OK requests; never NULL */

	/* since 1.2. Histograms are never NULL (empty when not measured). A
	 * SHB_RESULTS_INTERVAL result is a delta over one interval, never
	 * cumulative: counts, bytes and histograms cover only that interval;
	 * the TOTAL result covers the whole run after any warm-up. */
	/* Under open loop (-R) `latency` runs from each request's intended
	 * start and this one from its actual send; the same histogram
	 * otherwise. */
	const struct shb_hist *latency_uncorrected;
	const struct shb_hist *connect;    /* connect() to connected, per conn */
	const struct shb_hist *handshake;  /* TLS or QUIC handshake, per conn */
	const struct shb_hist *first_byte; /* send to first response byte,
					     * of requests counted ok */
	uint64_t interval_index;    /* INTERVAL: 0, 1, ... */
	uint64_t interval_start_ns; /* INTERVAL: start, from load start */
	/* From the start of the run to the start of load: every worker has
	 * its first connections up (TCP, TLS and a datagram protocol's
	 * handshake done) or failed, at most one connect timeout after the
	 * last one that opened; no request is sent before. elapsed_ns and
	 * every rate count from the start of load after any --warmup, and so
	 * does -z. A run stopped during set-up has elapsed_ns 0 (and
	 * load_start_unix_ns 0). */
	uint64_t setup_ns;
	uint64_t requests_warmup;   /* ended during --warmup, not counted */
	uint64_t requests_late;     /* open loop: started more than 1 ms after
				     * their intended time, for want of a
				     * free connection or stream or of
				     * client CPU */
	uint64_t requests_unsent;   /* open loop: due but never started */
	uint64_t schedule_lag_max_ns; /* open loop: the largest such delay */
	uint64_t rx_header_bytes;   /* sums of what the protocol reported,
				     * over the requests counted ok */
	uint64_t rx_body_bytes;
	/* app_outcomes and error_codes hold at most 64 distinct entries; the
	 * rest are counted in overflow entries (space 0, code UINT64_MAX).
	 * error_codes takes RESET, PROTO_ERROR and REFUSED-counted-as-error
	 * results with an error space, and CONN_ERROR events. */
	const struct shb_app_count *app_outcomes; /* by space, code, ok */
	size_t app_outcome_count;
	const struct shb_error_count *errors_ex; /* all kinds, by kind */
	size_t error_ex_count;
	const struct shb_code_count *error_codes; /* by kind, space, code */
	size_t error_code_count;
	/* With several targets, the same results per target (their own
	 * `targets` empty), in the order of run->targets; else 0 and NULL. */
	const struct shb_results *const *targets;
	size_t target_count;
	uint32_t target_index; /* in a per-target result: its index */
	uint32_t reserved1;

	/* since 1.3 */
	/* Fingerprints of the ClientHello shb sent (the first of the run):
	 * JA3 as the 32 lower-case hex digits of its MD5, JA4 as
	 * "t13d1516h2_8daaf6152771_e5627efa2ab1" (q... over QUIC). Core-owned,
	 * valid for the call; NULL without TLS or when a module running its
	 * own TLS did not hand its ClientHello (host->tls_client_hello). The
	 * same in every result of a run, interval results included. */
	const char *tls_ja3;
	const char *tls_ja4;
	/* Gauges, not deltas, also in interval results: connections up (the
	 * transport and any protocol handshake done) and connections being
	 * set up (connect, TLS or QUIC handshake), at the end of the interval
	 * or of the run. */
	uint64_t connections_active;
	uint64_t connections_connecting;
	/* Wall clock (CLOCK_REALTIME, ns since the Unix epoch) at which this
	 * process's load started (after set-up, before any --warmup); 0 for a
	 * run stopped during set-up. Against run->start_at_unix_ns it gives
	 * this process's start error; across the shards of one run, their
	 * start skew. */
	uint64_t load_start_unix_ns;

	/* since 1.4 */
	/* Requests the server answered: requests_ok plus replies whose
	 * application outcome is a failure (an error reply is an answer: it
	 * has a latency and counts toward the rate of answered requests). */
	uint64_t requests_answered;
	/* The latency of those error replies; never NULL. */
	const struct shb_hist *latency_error_reply;
	/* In a per-target result: which counters are measured per target
	 * (enum shb_target_measured bits); the others are 0 here and a
	 * report shows them as unknown. In a run's result: all bits. */
	uint32_t measured;
	uint32_t reserved2; /* 0 */
	/* Fingerprints of shb's own connections, as the protocol module
	 * handed them (host->conn_fingerprint, enum shb_conn_fp_kind gives
	 * the formats): the first of the run of each kind, NULL when the
	 * module handed none (another protocol, or a module built before
	 * 1.4). Core-owned, valid for the call; the same in every result of a
	 * run, interval results included. */
	const char *h2_fingerprint;          /* SHB_FP_H2_AKAMAI */
	const char *quic_tp_fingerprint;     /* SHB_FP_QUIC_TP */
	const char *h3_settings_fingerprint; /* SHB_FP_H3_SETTINGS */
	/* The protocol's own metrics (shb_proto_desc.metrics), in the
	 * protocol's order, each also in interval results (a delta, like the
	 * rest); NULL and 0 in a per-target result (a connection serves
	 * every target of its origin) and for a protocol without metrics. */
	const struct shb_metric_value *metrics;
	size_t metric_count;
};

/* since 1.4: one protocol metric as measured. Fixed layout (no
 * struct_size, frozen in tests/abi). */
struct shb_metric_value {
	uint32_t kind;      /* enum shb_metric_kind (types.h) */
	uint32_t reserved0; /* 0 */
	const char *name;   /* as declared */
	const char *unit;   /* as declared, or NULL */
	const char *help;   /* as declared, or NULL */
	/* COUNTER: the sum; LATENCY and VALUE: the values recorded */
	uint64_t count;
	/* LATENCY (ns) and VALUE: the values, read through host->hist; NULL
	 * for a COUNTER */
	const struct shb_hist *hist;
};

/* since 1.4: bits of shb_results.measured. */
enum shb_target_measured {
	SHB_MEASURED_BYTES = 1u << 0,       /* bytes_sent, bytes_received */
	SHB_MEASURED_CONNECTIONS = 1u << 1, /* connections_opened */
};

#ifdef __cplusplus
}
#endif
#endif
