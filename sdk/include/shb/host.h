/* shb plugin ABI: the services the core offers plugins.
 *
 * The table is passed to entry->init() and stays valid until deinit()
 * returns. It is const and may be read from any thread. */
#ifndef SHB_HOST_H
#define SHB_HOST_H

#include <shb/types.h>
#include <shb/hist.h>
#include <shb/proto.h>

#ifdef __cplusplus
extern "C" {
#endif

enum shb_log_level {
	SHB_LOG_ERROR = 0,
	SHB_LOG_WARN = 1,
	SHB_LOG_INFO = 2,
	SHB_LOG_DEBUG = 3, /* SHB_DEBUG=1: protocol traces */
	SHB_LOG_TRACE = 4, /* SHB_DEBUG=2 */
};

struct shb_host {
	uint32_t struct_size;
	uint32_t abi_major;
	uint32_t abi_minor;
	uint32_t reserved0;
	const char *version; /* shb's version string */

	/* [any] Log one preformatted UTF-8 line (no trailing newline needed).
	 * `plugin_id` names the source. Quiet by default: only ERROR and WARN
	 * are printed unless SHB_DEBUG is set. */
	void (*log)(uint32_t level, const char *plugin_id, const char *msg);
	/* [any] Non-zero if a message at `level` would be printed, so that
	 * plugins skip formatting otherwise. */
	int32_t (*log_enabled)(uint32_t level);
	/* [any] CLOCK_MONOTONIC ns. Off the hot path only: every [conn] call
	 * already carries `now`. */
	shb_tstamp (*now)(void);
	/* [any] Static text for an SHB_E_* code. */
	const char *(*strerror)(int code);
	/* [any] Fill buf with cryptographically secure random bytes. SHB_OK or
	 * a negative SHB_E_*. */
	int (*random_secure)(void *buf, size_t len);
	/* [any] An optional core feature by id ("shb.ext.<name>/<rev>"), or
	 * NULL. Since 1.2, [main] for any other id: the core answers with its
	 * own extensions first, then asks every loaded plugin's
	 * entry->get_extension, then loads the plugins of the search path it
	 * has not loaded yet and asks them, in search order. A plugin loaded
	 * that way stays loaded until the end of the run. The table returned
	 * is valid until the caller's deinit(); call it from init() or
	 * module_create and keep the pointer. */
	const void *(*get_extension)(const char *id);

	/* [conn] A request issued on `conn` ended. Only from inside a [conn]
	 * call on that same connection; exactly once per cookie. `res` is
	 * borrowed. REFUSED means the peer provably did not process it: the
	 * core resends it (bounded) and counts neither ok nor error. */
	void (*req_done)(struct shb_conn *conn, uint64_t cookie,
			 const struct shb_req_result *res);
	/* [conn] A connection-level event (GOAWAY, handshake done, error).
	 * Only from inside a [conn] call on that connection; `ev` borrowed. */
	void (*conn_event)(struct shb_conn *conn,
			   const struct shb_conn_event *ev);

	/* [main] Histogram accessors for reporters. */
	const struct shb_hist_ops *hist;

	/* since 1.2 */
	/* [conn] The origin `conn` serves (scheme, host, port, SNI name, the
	 * prepared request of its first target). Core-owned, valid from
	 * conn_init until module_destroy. */
	const struct shb_origin *(*conn_origin)(struct shb_conn *conn);

	/* since 1.3 */
	/* [conn] A module that runs its own TLS (SHB_TRANSPORT_DGRAM) hands the
	 * core the ClientHello it sends: the handshake message from its type
	 * byte on, without record or CRYPTO framing. Only from inside a [conn]
	 * call on `conn`; `msg` is borrowed for the call. The core keeps the
	 * first one of the run and reports its JA3 and JA4 fingerprints
	 * (shb_results.tls_ja3/tls_ja4); later calls are cheap no-ops, so a
	 * module may call it on every connection. */
	void (*tls_client_hello)(struct shb_conn *conn, const uint8_t *msg,
				 size_t len);

	/* since 1.4 */
	/* [conn] A fingerprint of the connection `conn` opens, as the module
	 * encodes it (enum shb_conn_fp_kind says which; the text's format is
	 * there). Only from inside a [conn] call on `conn`; `text` is borrowed
	 * for the call (printable ASCII, at most SHB_CONN_FP_MAX bytes before
	 * its NUL; a longer or unprintable one is ignored). The core keeps the
	 * first of each kind of the run, like tls_client_hello, and reports it
	 * (shb_results.h2_fingerprint, quic_tp_fingerprint,
	 * h3_settings_fingerprint); later calls are cheap no-ops. */
	void (*conn_fingerprint)(struct shb_conn *conn, uint32_t kind,
				 const char *text);

	/* [conn] Only in runs whose run_config.flags has SHB_RUN_WANT_RESPONSE: the
	 * response to `cookie`, before req_done for it, from inside a [conn] call on
	 * that connection, at most once per cookie. `resp` and everything it points to
	 * are borrowed for the call. A module checks SHB_HAS() first: a 1.3
	 * host has no such member (and never sets the flag). */
	void (*req_response)(struct shb_conn *conn, uint64_t cookie,
			     const struct shb_response *resp);

	/* since 1.4: the module's metrics (shb_proto_desc.metrics), by their
	 * index in that table. [conn]: only from inside a [conn] call on
	 * `conn`; they write the worker's own statistics (no lock, no atomic,
	 * no allocation), which the core merges like its own and reports per
	 * interval and for the run. Like requests, what is fed during
	 * --warmup or after the run's end is left out. An index out of the
	 * table, or of the other kind, is ignored. */
	/* A COUNTER metric grows by n. */
	void (*metric_add)(struct shb_conn *conn, uint32_t index, uint64_t n);
	/* A LATENCY metric takes one duration in ns (a difference of the
	 * `now`s the module was given), a VALUE metric one number; values
	 * above one hour's worth of ns are clamped. */
	void (*metric_record)(struct shb_conn *conn, uint32_t index,
			      uint64_t value);
};

/* since 1.4: the kinds of host->conn_fingerprint. */
enum shb_conn_fp_kind {
	/* The Akamai HTTP/2 fingerprint (Shuster and Segal, Black Hat EU
	 * 2017): "SETTINGS|WINDOW_UPDATE|PRIORITY|pseudo-headers", e.g.
	 * "1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p": the SETTINGS
	 * entries "id:value" in the order sent, joined by ';'; the increment
	 * of the connection WINDOW_UPDATE sent with the preface, or 00 without
	 * one; the PRIORITY frames sent before the first request as
	 * "stream:exclusive:depends_on:weight" joined by ',', or 0; the
	 * pseudo-headers of a request in order (m, a, s, p). */
	SHB_FP_H2_AKAMAI = 1,
	/* The QUIC transport parameter ids of the ClientHello's extension, in
	 * the order sent, in decimal, joined by '-' (e.g. "1-4-5-6-7-8-9-15"). */
	SHB_FP_QUIC_TP = 2,
	/* The HTTP/3 SETTINGS the client sends on its control stream,
	 * "id:value" in order, joined by ';' (ids and values in decimal), a
	 * reserved (GREASE, RFC 9114 7.2.4.1) setting as "GREASE". */
	SHB_FP_H3_SETTINGS = 3,
};

/* since 1.4: the longest conn_fingerprint text the core keeps. */
#define SHB_CONN_FP_MAX 511

#ifdef __cplusplus
}
#endif
#endif
