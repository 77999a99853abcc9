/* shb plugin test kit: the fake host.
 *
 * A struct shb_host (the current ABI, 1.4, or an older minor on request:
 * a 1.1 host lacks 1.2's members, a 1.2 host 1.3's, a 1.3 host 1.4's) for
 * running a plugin in a test process without the core. It records every callback the plugin
 * makes (req_done with a copy of the result, conn_event, log lines) and
 * checks the rules of host.h and proto.h as it goes:
 *
 *   - req_done and conn_event only from inside a [conn] call the kit is
 *     making on that same connection, on the thread making it, never from
 *     conn_fini and never after conn_fini;
 *   - req_done exactly once per issued cookie, never for a cookie that was
 *     not issued on that connection or was cancelled;
 *   - results and events well formed (struct_size, outcome, kind, an OK
 *     result's status);
 *   - log lines with a message and the plugin's own id.
 *
 * The kit's connection driver (driver.h) also records what it sees the
 * module do wrong (a recv that consumes nothing without WANT_WRITE, send
 * memory changed before sent(), a deadline in the past after on_timer...).
 * Every such breach is a violation: one line of text kept in
 * `violations`; a test asserts that there is none (or exactly the one it
 * provoked). The kit never aborts on a violation: it records and goes on
 * the way the core would.
 *
 * One fake host is active per process at a time (log(), now() and
 * random_secure() take no context, so they reach it through a global):
 * shb_kit_host_init makes it active. Plugins keep the host pointer from
 * init() until deinit(), so give it static storage or keep it alive that
 * long.
 *
 * Thread: every function here is for the test thread. The callbacks the
 * plugin makes may come from any thread; one from another thread than the
 * kit's call in progress is a violation. */
#ifndef SHB_KIT_HOST_H
#define SHB_KIT_HOST_H

#include <pthread.h>

#include <shb/shb.h>
#include <shb/kit/clock.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_kit_conn;

#define SHB_KIT_DETAIL_MAX 256
#define SHB_KIT_LOG_MAX 512

/* One req_done the plugin made. `res` is a copy of what it passed, made
 * for the call: its first min(struct_size, sizeof) bytes, the rest zero,
 * struct_size as the plugin set it; res.detail is NULL and the text is in
 * `detail`. */
struct shb_kit_done {
	struct shb_conn *conn; /* the handle it named */
	uint64_t cookie;
	struct shb_req_result res;
	int has_detail;                 /* res.detail was not NULL */
	char detail[SHB_KIT_DETAIL_MAX]; /* copy of res.detail, "" for NULL */
	const char *call; /* the [conn] member the kit was in ("recv"), or
			   * NULL outside any call; static text */
};

/* Since ABI 1.4 (a host of minor 4): one req_response the plugin made,
 * copied for the call: status, flags, the counts, the first
 * SHB_KIT_RESP_HEADERS fields ("name: value", cut to fit) and the first
 * SHB_KIT_DETAIL_MAX body bytes. */
#define SHB_KIT_RESP_HEADERS 16
struct shb_kit_response {
	struct shb_conn *conn;
	uint64_t cookie;
	uint32_t status;
	uint32_t flags; /* enum shb_response_flags */
	size_t header_count;
	size_t body_len;
	char headers[SHB_KIT_RESP_HEADERS][SHB_KIT_DETAIL_MAX];
	uint8_t body[SHB_KIT_DETAIL_MAX];
	const char *call;
};

/* One conn_event, copied like a result. */
struct shb_kit_event {
	struct shb_conn *conn;
	struct shb_conn_event ev; /* ev.detail is NULL; text in `detail` */
	int has_detail;
	char detail[SHB_KIT_DETAIL_MAX];
	const char *call;
};

/* One log line. */
struct shb_kit_log {
	uint32_t level;         /* enum shb_log_level */
	char plugin_id[128];
	char msg[SHB_KIT_LOG_MAX]; /* cut to fit */
};

/* A table to answer host->get_extension(id) with. */
struct shb_kit_extension {
	const char *id;
	const void *table;
};

#define SHB_KIT_MAX_EXTENSIONS 8

/* A plugin that offers extensions to others (ABI 1.2): the kit asks its
 * entry->get_extension for the ids its own table does not answer, as the
 * core asks every loaded plugin. */
struct shb_kit_extension_provider {
	const void *(*get_extension)(const char *id);
	const char *plugin_id; /* its entry id: log lines under it are not
				* violations (it logs from the calls the
				* plugin under test makes into it) */
};

#define SHB_KIT_MAX_PROVIDERS 8
/* The kinds of host->conn_fingerprint the kit records (enum
 * shb_conn_fp_kind, 1 to 3). */
#define SHB_KIT_FP_KINDS 3

/* Since ABI 1.4: one protocol metric as the plugin fed it (see
 * shb/kit/metrics.h for reading it by name). */
struct shb_kit_metric {
	uint32_t kind;  /* enum shb_metric_kind, from the descriptor */
	uint32_t reserved0;
	/* COUNTER: the sum of the n given to metric_add; LATENCY and VALUE:
	 * the values given to metric_record */
	uint64_t count;
	uint64_t calls;         /* metric_add or metric_record calls */
	uint64_t sum, min, max; /* of the recorded values (histograms) */
};

/* Per-connection bookkeeping of the host (slot `n` is the handle n + 1). */
struct shb_kit_slot {
	struct shb_kit_conn *conn; /* NULL once the connection was finalised */
	int finished;              /* conn_fini returned */
};

struct shb_kit_host {
	/* What the plugin gets: pass &kh->host to init() and module_create. */
	struct shb_host host;
	struct shb_kit_clock clock;

	/* Settings the test may change at any time. */
	/* log_enabled(level) answers 1 for level <= log_level; default
	 * SHB_LOG_WARN (the core's default without SHB_DEBUG). Every line
	 * logged is recorded, enabled or not. */
	uint32_t log_level;
	int echo;   /* non-zero: also print each log line to stderr */
	/* The entry id of the plugin under test: a log line with another id
	 * is a violation. NULL: any id. shb_kit_plugin_init sets it. */
	const char *plugin_id;
	uint64_t seed; /* random_secure() is deterministic from it (tests
			* must be reproducible): it is NOT secure. */
	/* When set, random_secure() calls this instead (e.g. zeros, for a
	 * test that asserts bytes a plugin randomises). */
	int (*random)(void *buf, size_t len);
	struct shb_kit_extension extensions[SHB_KIT_MAX_EXTENSIONS];
	/* Asked in order after `extensions` (see
	 * shb_kit_host_add_extension_provider). */
	struct shb_kit_extension_provider providers[SHB_KIT_MAX_PROVIDERS];

	/* Records since shb_kit_host_reset (kit-owned arrays; read them, do
	 * not free them). */
	struct shb_kit_done *done;
	size_t done_count;
	struct shb_kit_event *events;
	size_t event_count;
	struct shb_kit_log *logs;
	size_t log_count;
	char **violations; /* one line each, no newline */
	size_t violation_count;

	/* Kit-internal state: the [conn] call in progress, the connections. */
	struct shb_kit_conn *cur;
	const char *cur_call;
	pthread_t cur_thread;
	pthread_t main_thread; /* the one that called shb_kit_host_init */
	struct shb_kit_slot *slots;
	size_t slot_count;
	size_t done_cap, event_cap, log_cap, violation_cap, slot_cap;
	uint64_t rng;

	/* Since ABI 1.4 (a host of minor 4): every req_response since
	 * shb_kit_host_reset (kit-owned). The kit checks that each names a
	 * cookie outstanding on that connection, comes before its req_done
	 * and at most once, from inside a [conn] call on it. */
	struct shb_kit_response *responses;
	size_t response_count, response_cap;

	/* Since ABI 1.3 (a host of minor 3): the first ClientHello handed to
	 * tls_client_hello since shb_kit_host_reset (kit-owned copy, at most
	 * 64 KiB; NULL before any) and how many calls there were. */
	uint8_t *client_hello;
	size_t client_hello_len;
	size_t client_hello_calls;

	/* Since ABI 1.4 (a host of minor 4): the first text handed to
	 * conn_fingerprint for each kind (index kind - 1, enum
	 * shb_conn_fp_kind) since shb_kit_host_reset (kit-owned copies; NULL
	 * before any) and how many calls there were of each. */
	char *fingerprints[SHB_KIT_FP_KINDS];
	size_t fingerprint_calls[SHB_KIT_FP_KINDS];

	/* Since ABI 1.4 (a host of minor 4): the protocol's metrics, those of
	 * the descriptor the last shb_kit_module_create ran, and what the
	 * plugin fed them through metric_add and metric_record since
	 * shb_kit_host_reset, by index (read them by name with
	 * shb_kit_metric, shb/kit/metrics.h). A call with an index out of the
	 * table, metric_add on a histogram, metric_record on a counter, or a
	 * call outside a [conn] call on that connection is a violation. */
	const struct shb_metric_def *metric_defs;
	uint32_t metric_def_count;
	struct shb_kit_metric metrics[SHB_METRIC_MAX];
};

/* Fills the host table for ABI minor `abi_minor` (1 to SHB_ABI_MINOR: a
 * 1.1 host has no conn_origin and a 1.1 struct_size, a 1.2 host no
 * tls_client_hello, a 1.3 host no conn_fingerprint, req_response,
 * metric_add nor metric_record, to test a plugin's fallbacks),
 * sets the clock to 1 and makes `kh` the active host. 0, or -1 for an
 * unsupported minor. */
int shb_kit_host_init(struct shb_kit_host *kh, uint32_t abi_minor);
/* Frees the records and forgets every connection. The host table stays
 * callable (a plugin may log from deinit after this) but records nothing. */
void shb_kit_host_fini(struct shb_kit_host *kh);
/* Clears the records (done, events, logs, violations); connections and
 * settings stay. */
void shb_kit_host_reset(struct shb_kit_host *kh);

/* The active host, or NULL. */
struct shb_kit_host *shb_kit_host_active(void);

/* Records a violation (printf-style), as the kit does for the rules it
 * checks; for a test's own checks of a plugin. */
void shb_kit_violation(struct shb_kit_host *kh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Answers host->get_extension(id) with `table` (at most
 * SHB_KIT_MAX_EXTENSIONS). 0, or -1 when full. */
int shb_kit_host_add_extension(struct shb_kit_host *kh, const char *id,
			       const void *table);

/* Answers host->get_extension(id) for the ids neither the kit's own
 * table (shb_kit_host_add_extension) nor an earlier provider answers,
 * with get_extension(id): a plugin's entry->get_extension, so that a test
 * of a plugin built on another one's extension (a gRPC plugin on
 * "org.shb.h2.proto/1") runs against the real provider. The provider must
 * be initialised first (its init() may need the host) and stay so until
 * the plugin under test's deinit(); shb_kit_plugin_provide (plugin.h) does
 * this for a struct shb_kit_plugin. Like the core, a host of ABI 1.2 asks
 * providers only from the thread that called shb_kit_host_init ([main]),
 * and a 1.1 host never asks them. `plugin_id` (may be NULL) is the
 * provider's entry id, whose log lines are accepted; both pointers are
 * borrowed until shb_kit_host_fini. 0, or -1 when full
 * (SHB_KIT_MAX_PROVIDERS) or get_extension is NULL. */
int shb_kit_host_add_extension_provider(struct shb_kit_host *kh,
					const void *(*get_extension)(const char *id),
					const char *plugin_id);

/* Writes every violation to stderr, one per line with `prefix`; returns
 * their count. For a test's failure message. */
size_t shb_kit_host_dump_violations(const struct shb_kit_host *kh,
				    const char *prefix);

/* The first req_response for `cookie`, or NULL. */
const struct shb_kit_response *
shb_kit_response_find(const struct shb_kit_host *kh, uint64_t cookie);

/* The records of one cookie: the first req_done for it, or NULL. */
const struct shb_kit_done *shb_kit_done_find(const struct shb_kit_host *kh,
					     uint64_t cookie);

#ifdef __cplusplus
}
#endif
#endif
