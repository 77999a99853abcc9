/* shb plugin ABI: basic types shared by every other header.
 *
 * Rules for everything that crosses the core/plugin boundary (ABI v1):
 *  - every struct starts with `uint32_t struct_size`, set by its writer to
 *    sizeof() at the writer's build; members are only ever appended;
 *  - a reader checks SHB_HAS() before touching a member that a later minor
 *    version added;
 *  - only fixed-width integers, pointers, size_t and shb_ssize cross the
 *    boundary: no bool, bitfields, unions, varargs, long or FILE *.
 */
#ifndef SHB_TYPES_H
#define SHB_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC). Wall-clock time only
 * appears in run metadata. */
typedef uint64_t shb_tstamp;
#define SHB_TSTAMP_NONE UINT64_MAX

/* A byte count, or a negative SHB_E_* code. */
typedef ptrdiff_t shb_ssize;

/* Layout-compatible with struct iovec (the core static-asserts it). */
struct shb_vec {
	void *base;
	size_t len;
};

/* A borrowed key/value pair (header, option). Both NUL-terminated UTF-8. */
struct shb_kv {
	const char *key;
	const char *value;
};

/* since 1.2: one option a protocol (--proto-opt) or reporter (--report-opt)
 * accepts. Fixed layout (no struct_size, frozen in tests/abi); arrays of
 * these are static and end with key == NULL. */
struct shb_option_def {
	const char *key;        /* "max-frame": KEY of KEY=VALUE */
	const char *value_name; /* "BYTES" in --list-plugins; NULL: a flag
				 * given as KEY alone */
	const char *summary;    /* one line for --list-plugins */
};

/* Error codes returned by ABI calls. Protocol failures (RST codes, QUIC
 * codes, TLS alerts) are data in results, never return codes. */
enum shb_err {
	SHB_OK = 0,
	SHB_E_INVAL = -1,     /* bad argument or option */
	SHB_E_BUSY = -2,      /* no capacity right now; try later */
	SHB_E_STATE = -3,     /* call not valid in this state */
	SHB_E_UNSUPPORTED = -4,
	SHB_E_PROTO = -100,   /* the peer violated the protocol */
	SHB_E_CLOSED = -101,  /* the peer closed or reset the connection */
	SHB_E_TLS = -102,     /* TLS failure */
	SHB_E_TIMEOUT = -103, /* a protocol timer expired (idle, handshake) */
	SHB_E_FATAL = -900,   /* at or below: only fini/destroy may follow */
	SHB_E_NOMEM = -901,
};

/* True when member `m` of `*p` (of struct type `T`) is present according to
 * p->struct_size, i.e. the writer was built with a header that had it. */
#define SHB_HAS(p, T, m)                                                       \
	((p)->struct_size >= offsetof(T, m) + sizeof(((T *)0)->m))

/* since 1.4: names for a protocol's application outcomes (struct
 * shb_req_result's app_space and app_code), declared by the protocol
 * (shb_proto_desc.outcome_spaces) and handed to reporters
 * (shb_run_info.outcome_spaces), so that reports, `shb merge` and
 * --success speak of "redis nil" rather than "private:21061 1". Fixed
 * layout (no struct_size, frozen in tests/abi); static, plugin-owned,
 * valid while the plugin is loaded. Names are [a-z0-9_]+, at most 31
 * bytes. */
struct shb_outcome_code {
	uint64_t code;
	const char *name;   /* "ok", "nil", "error", "NOT_FOUND" */
	uint32_t ok;        /* 1: a reply with this code is a success unless
			     * --success says otherwise */
	uint32_t reserved0; /* 0 */
};

struct shb_outcome_space {
	uint32_t space;     /* SHB_APPSPACE_PRIVATE or above, once per plugin */
	uint32_t reserved0; /* 0 */
	const char *name;   /* "redis" */
	/* The codes it names, ending with name == NULL; a code not listed is
	 * reported by number. */
	const struct shb_outcome_code *codes;
};

/* since 1.4: a protocol's own metrics, declared by the protocol
 * (shb_proto_desc.metrics), fed through host->metric_add and
 * host->metric_record, and handed to reporters (shb_results.metrics), so
 * that WebSocket messages, gRPC stream messages or a Redis pipeline's
 * depth are reported, merged and gated (--slo NAME.p99<5ms) like the
 * core's own numbers. Fixed layout (no struct_size, frozen in tests/abi):
 * arrays of these are indexed. */
enum shb_metric_kind {
	SHB_METRIC_COUNTER = 1, /* a sum of the n given to metric_add */
	SHB_METRIC_LATENCY = 2, /* a histogram of durations in ns */
	SHB_METRIC_VALUE = 3,   /* a histogram of plain numbers (a depth) */
};

/* The most metrics a protocol declares. */
#define SHB_METRIC_MAX 32u

/* static, plugin-owned, valid while the plugin is loaded. */
struct shb_metric_def {
	uint32_t kind;      /* enum shb_metric_kind */
	uint32_t reserved0; /* 0 */
	/* [a-z][a-z0-9_]{0,31}, unique in the table: the name reports, JSON
	 * keys, CSV columns and --slo use ("ws_msg_latency") */
	const char *name;
	/* What is counted or recorded, in the plural: "messages", "commands";
	 * NULL for a latency (ns). Printable ASCII, at most 31 bytes. */
	const char *unit;
	/* One line for people (a report's legend), or NULL; printable ASCII,
	 * at most 127 bytes. */
	const char *help;
};

#ifdef __cplusplus
}
#endif
#endif
