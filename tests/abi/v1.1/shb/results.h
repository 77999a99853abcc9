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
	SHB_ERRK_CONNECT = 0,  /* connect refused/failed/timed out */
	SHB_ERRK_TLS = 1,      /* TLS handshake or record failure, ALPN */
	SHB_ERRK_READ = 2,     /* receive error, or the peer closed early */
	SHB_ERRK_WRITE = 3,    /* send error */
	SHB_ERRK_TIMEOUT = 4,  /* --timeout, or a protocol timer */
	SHB_ERRK_PROTOCOL = 5, /* malformed response, stream reset */
	SHB_ERRK_COUNT = 6,
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
	uint64_t requests_ok;     /* complete responses, any status */
	uint64_t requests_errors;
	uint64_t requests_retried; /* refused by the peer and resent */
	uint64_t bytes_sent;       /* on the wire: TLS and framing included */
	uint64_t bytes_received;
	uint64_t connections_opened;
	const struct shb_status_count *statuses; /* ascending by code */
	size_t status_count;
	const struct shb_error_count *errors; /* kinds with count > 0, by kind */
	size_t error_count;
	const struct shb_hist *latency; /* of OK requests; never NULL */
};

#ifdef __cplusplus
}
#endif
#endif
