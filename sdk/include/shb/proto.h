/* shb plugin ABI: protocol modules.
 *
 * A protocol module is Sans-I/O: it never touches sockets, threads, files or
 * clocks. The core owns the transport (TCP, TLS over TCP, UDP), the io_uring,
 * the load model and the statistics; it hands the module received bytes or
 * datagrams with the current time, pulls bytes or datagram trains to send,
 * services the module's timer, and tells it when to start a request.
 *
 * Life cycle (tags as in plugin.h):
 *   [main]   module_create -> prepare_request ... (module is read-only after)
 *   [worker] worker_init                       (once per worker thread)
 *   [conn]   conn_init -> on_transport_ready -> { recv | recv_dgrams |
 *            pull_send/sent | write_dgrams | on_timer | issue | cancel }* ->
 *            [shutdown] -> conn_fini
 *   [worker] worker_fini
 *   [main]   release_request, module_destroy
 *
 * After every [conn] call the core re-reads state(), capacity() and
 * next_deadline(); a module never needs to "wake" the core.
 */
#ifndef SHB_PROTO_H
#define SHB_PROTO_H

#include <shb/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_host;
struct shb_conn; /* opaque core handle for one connection (see host.h) */
struct sockaddr;

/* ---- descriptor ---------------------------------------------------------- */

enum shb_transport {
	SHB_TRANSPORT_STREAM = 1, /* TCP, optionally TLS run by the core */
	SHB_TRANSPORT_DGRAM = 2,  /* connected UDP; the module does its crypto */
};

enum shb_proto_flags {
	/* For https://, the core runs TLS over TCP with the descriptor's ALPN
	 * list and the module sees plaintext. */
	SHB_PROTO_CORE_TLS = 1u << 0,
	/* Several requests may be in flight on one connection (-p). */
	SHB_PROTO_MULTIPLEXED = 1u << 1,
	/* The module requires the negotiated ALPN to be one of its list; the
	 * core counts a connect error and warns once per run otherwise. */
	SHB_PROTO_ALPN_REQUIRED = 1u << 2,
	/* since 1.3: the module writes requests in absolute form (RFC 9112
	 * section 3.2.2, "GET http://host/path HTTP/1.1") on an origin whose
	 * route_flags has SHB_ROUTE_ABSOLUTE_FORM, for a forward proxy. Without
	 * it the core reaches a plain-http origin behind a proxy through a
	 * CONNECT tunnel instead, which the module never sees. */
	SHB_PROTO_ABSOLUTE_FORM = 1u << 3,
};

struct shb_proto_vtable;

struct shb_proto_desc {
	uint32_t struct_size;
	uint32_t transport; /* enum shb_transport */
	uint32_t flags;     /* enum shb_proto_flags */
	uint32_t reserved0; /* 0 */
	const char *name;         /* CLI name: "h1" (--proto h1) */
	const char *display_name; /* report name: "HTTP/1.1" */
	const char *summary;      /* one line for --list-plugins */
	const char *const *schemes; /* NULL-terminated, e.g. {"http","https",NULL} */
	const char *const *alpn;    /* NULL-terminated ALPN ids offered over TLS */
	size_t worker_size; /* bytes the core reserves per worker (>= 0) */
	size_t conn_size;   /* bytes the core reserves per connection (> 0) */
	const struct shb_proto_vtable *vt;

	/* since 1.2; the core reads them only when SHB_HAS() says so, and
	 * treats an absent member like NULL or 0. */
	/* The URL schemes this protocol serves, with their default port and
	 * whether they run over TLS; array ending with name == NULL, static.
	 * The core accepts exactly these schemes for this protocol and reports
	 * the URL as typed. NULL: "http" (80) and "https" (443, TLS), as in
	 * 1.1; `schemes` above stays the list --list-plugins shows. */
	const struct shb_scheme *scheme_defs;
	/* The keys --proto-opt accepts; array ending with key == NULL,
	 * static. The core refuses any other key with one line naming these,
	 * before module_create. NULL: every key goes to module_create, which
	 * validates alone. */
	const struct shb_option_def *option_defs;
	/* DGRAM: the largest datagram the module writes (QUIC without path
	 * MTU discovery: 1200). The core sizes its buffers and sets
	 * shb_transport_info.max_dgram from it. 0: 1200. */
	uint32_t max_dgram;
	/* DGRAM: the most datagrams the module fills per write_dgrams train
	 * (UDP GSO segments). 0: the core's default (64). */
	uint32_t max_train;

	/* since 1.4 */
	/* What requests are made of (enum shb_request_model); absent: HTTP. */
	uint32_t request_model;
	uint32_t reserved1; /* 0 */
	/* Names of the module's application outcomes, ending with name ==
	 * NULL, static; NULL: none (reported by number). Every space the
	 * module reports with a name here; the loader refuses a table with a
	 * space below SHB_APPSPACE_PRIVATE, a space twice, a name that is
	 * not [a-z0-9_]{1,31}, or a code named twice. */
	const struct shb_outcome_space *outcome_spaces;
	/* The module's own metrics (types.h), static; NULL and 0: none. The
	 * module feeds them by index through host->metric_add and
	 * host->metric_record. The loader refuses a table of more than
	 * SHB_METRIC_MAX, an unknown kind, a bad or repeated name, or a unit
	 * or help text that is not short printable ASCII. */
	const struct shb_metric_def *metrics;
	uint32_t metric_count;
	uint32_t reserved2; /* 0 */
};

/* since 1.4: what a protocol's requests are made of. */
enum shb_request_model {
	/* HTTP-shaped: method, path, headers and body from the command line
	 * (-m, -H, -d, templates), an HTTP status per response. Every plugin
	 * built before 1.4. */
	SHB_REQMODEL_HTTP = 0,
	/* The module builds its requests from its own options (--proto-opt).
	 * The core refuses the HTTP request options (-m, -H, -d and the other
	 * body options, --body-lines, --priority, status classes in
	 * --success, templates in the URL) with one line naming the option
	 * and the protocol, before module_create; prepare_request gets the
	 * URL's path, method "" and no headers or body; reports carry no
	 * HTTP field (method, status codes, header and body bytes). */
	SHB_REQMODEL_NONE = 1,
};

/* since 1.2. Fixed layout (no struct_size, frozen in tests/abi): arrays of
 * these end with a NULL name (struct shb_option_def is in types.h). */
enum shb_scheme_flags {
	/* The scheme runs over TLS: with SHB_PROTO_CORE_TLS the core runs it,
	 * on DGRAM the module does; either way SHB_RUN_TLS is set. */
	SHB_SCHEME_TLS = 1u << 0,
};

struct shb_scheme {
	const char *name;      /* lower case, RFC 3986 scheme: "wss" */
	uint32_t default_port; /* 1..65535: the port when the URL has none */
	uint32_t flags;        /* enum shb_scheme_flags */
};

/* DGRAM: the longest datagram the core hands to recv_dgrams whole (every
 * core since 1.0 receives into buffers at least this large). */
#define SHB_DGRAM_RECV_MAX 16384u

/* ---- run configuration and requests -------------------------------------- */

enum shb_run_flags {
	SHB_RUN_TLS = 1u << 0,               /* the scheme runs over TLS */
	SHB_RUN_DISABLE_KEEPALIVE = 1u << 1, /* one request per connection */
	SHB_RUN_DEBUG = 1u << 2,             /* SHB_DEBUG is set: trace */
	/* since 1.4: the core wants each response's status and headers
	 * through host->req_response (redirects, -L; a script's response()).
	 * Without it a module keeps no header and no body: no copy, no
	 * allocation. */
	SHB_RUN_WANT_RESPONSE = 1u << 3,
	/* since 1.4, only with SHB_RUN_WANT_RESPONSE: the body too, up to
	 * run_config.response_body_max bytes; past that the rest is counted
	 * (rx_body_bytes) but not kept, and the response has
	 * SHB_RESP_BODY_TRUNCATED. */
	SHB_RUN_WANT_BODY = 1u << 4,
};

/* [main] Given to module_create; borrowed for that call only. */
struct shb_run_config {
	uint32_t struct_size;
	uint32_t flags;       /* enum shb_run_flags */
	uint32_t connections; /* total connections in the run */
	uint32_t parallel;    /* max requests in flight per connection (-p) */
	uint32_t threads;
	uint32_t port;
	const char *scheme;    /* as typed: "http", "https", or since 1.2
				* any scheme of scheme_defs */
	const char *host;      /* URL host without brackets (SNI for names) */
	const char *authority; /* host[:port] as sent (Host / :authority) */
	shb_tstamp connect_timeout_ns;
	shb_tstamp request_timeout_ns; /* 0: none */
	const struct shb_kv *options;  /* --proto-opt key=value; may be NULL */
	size_t option_count;           /* in the order given; a flag (KEY
					* alone) has the value "" */
	/* since 1.1: certificate verification for protocols that run their
	 * own TLS (SHB_TRANSPORT_DGRAM / QUIC). The core applies the same
	 * setting itself for SHB_PROTO_CORE_TLS. */
	uint32_t tls_verify; /* enum shb_tls_verify (results.h) */
	uint32_t reserved1;  /* 0 */
	const char *cafile;  /* PEM file with SHB_TLS_VERIFY_CAFILE, else NULL */

	/* since 1.3: the rest of the TLS settings, for protocols that run
	 * their own TLS (the core applies them itself for SHB_PROTO_CORE_TLS).
	 * Core-owned strings, borrowed like the rest of this struct: a module
	 * copies what it keeps. The core has already checked that the files
	 * load and that the key matches the certificate. */
	const char *cert_file; /* --cert: client certificate chain (PEM), or
				* NULL */
	const char *key_file;  /* --key: its private key (PEM); set exactly
				* when cert_file is */
	/* A GnuTLS priority string built from --tls-version and --ciphers
	 * (already accepted by gnutls_priority_init), or NULL for the module's
	 * default. A QUIC module keeps its own TLS 1.3-only restriction on
	 * top of it. */
	const char *tls_priority;

	/* since 1.4: with SHB_RUN_WANT_BODY, the most body bytes a module
	 * keeps per response for host->req_response; 0 otherwise. */
	uint64_t response_body_max;
};

enum shb_request_flags {
	SHB_REQUEST_HAS_BODY = 1u << 0, /* send body (even if body_len is 0) */
};

/* [main] A request template, given to prepare_request and borrowed for that
 * call only: the module copies what it keeps. The core has already validated
 * method (RFC 9110 token), path (no controls or spaces) and headers (name a
 * token, value without CR/LF/NUL), removed any user "Host" header (its value
 * is `authority`) and added Content-Type for form bodies. */
struct shb_request {
	uint32_t struct_size;
	uint32_t flags; /* enum shb_request_flags */
	const char *method;
	const char *scheme;
	const char *authority;
	const char *path; /* path and query, starts with '/' */
	const struct shb_kv *headers; /* user headers, in order, as typed */
	size_t header_count;
	const uint8_t *body;
	size_t body_len;
};

/* since 1.2: per-request variation (URL lists, templates, body lines).
 * What one request changes relative to its template (the prepared request
 * it is issued with); everything not named here is the template's. */
enum shb_var_flags {
	SHB_VAR_PATH = 1u << 0,    /* `path` replaces the template's path */
	SHB_VAR_HEADERS = 1u << 1, /* `headers` replace some header values */
	SHB_VAR_BODY = 1u << 2,    /* `body` replaces the body (a request
				    * without a body in its template gets one) */
};

/* One header value that differs from the template: header number `index`
 * of the template's shb_request.headers gets `value`. */
struct shb_var_header {
	uint32_t index;
	uint32_t reserved0; /* 0 */
	const char *value;  /* not NUL-terminated; no CR, LF or NUL */
	size_t value_len;
};

/* [conn] Given to issue_var; borrowed for that call only: the module
 * copies (or encodes at once) what it keeps. The core validated the
 * expanded values as it validates a template. */
struct shb_request_var {
	uint32_t struct_size;
	uint32_t flags; /* enum shb_var_flags */
	const char *path; /* starts with '/'; not NUL-terminated */
	size_t path_len;
	const struct shb_var_header *headers; /* ascending by index */
	size_t header_count;
	const uint8_t *body;
	size_t body_len;
};

/* since 1.2: the origin a connection serves (scheme, host and port of its
 * target; several with a URL list). Core-owned, valid from conn_init until
 * module_destroy, immutable. */
struct shb_origin {
	uint32_t struct_size;
	uint32_t index;  /* 0 .. number of origins - 1; 0 with one URL */
	uint32_t port;
	uint32_t flags;  /* enum shb_scheme_flags of its scheme */
	const char *scheme;    /* as typed */
	const char *host;      /* without brackets */
	const char *authority; /* host[:port] as sent */
	/* The name for TLS SNI and certificate checks: --sni, else the host
	 * name; NULL for an IP literal without --sni (RFC 6066: no SNI). */
	const char *sni;
	/* The prepared request (from prepare_request) of the origin's first
	 * target: what a handshake protocol (a WebSocket upgrade) builds its
	 * handshake from in on_transport_ready. */
	const void *prepared;

	/* since 1.3 */
	uint32_t route_flags; /* enum shb_route_flags */
	uint32_t reserved1;   /* 0 */
};

/* since 1.3: how the core reaches an origin, as far as a module must know. A
 * CONNECT tunnel or a Unix socket is invisible to the module and has no
 * flag. */
enum shb_route_flags {
	/* Requests go to a forward proxy and must be written in absolute
	 * form. Set only for modules whose descriptor has
	 * SHB_PROTO_ABSOLUTE_FORM. */
	SHB_ROUTE_ABSOLUTE_FORM = 1u << 0,
};

/* ---- per-request results --------------------------------------------------- */

enum shb_req_outcome {
	SHB_REQ_OK = 0,          /* a complete response (any status) */
	SHB_REQ_REFUSED = 1,     /* provably not processed: the core resends */
	SHB_REQ_RESET = 2,       /* stream reset by the peer (err_space/code) */
	SHB_REQ_PROTO_ERROR = 3, /* malformed response */
	SHB_REQ_CONN_LOST = 4,   /* connection ended before the response */
	SHB_REQ_CANCELLED = 5,   /* cancelled locally */
	SHB_REQ_LOCAL_ERROR = 6, /* module-internal failure */
	SHB_REQ_TIMEOUT = 7,     /* a protocol timer expired */
};

enum shb_err_space {
	SHB_ERRSPACE_NONE = 0,
	SHB_ERRSPACE_H2 = 1,
	SHB_ERRSPACE_H3 = 2,
	SHB_ERRSPACE_QUIC_TRANSPORT = 3,
	SHB_ERRSPACE_TLS_ALERT = 4,
	SHB_ERRSPACE_ERRNO = 5,
};

/* since 1.2: application outcomes beside the HTTP status. Values from
 * SHB_APPSPACE_PRIVATE up are a plugin's own and reported by number. */
enum shb_app_space {
	SHB_APPSPACE_NONE = 0,
	SHB_APPSPACE_GRPC = 1,      /* app_code: grpc-status (0 OK) */
	SHB_APPSPACE_WEBSOCKET = 2, /* app_code: close code (1000 normal) */
	SHB_APPSPACE_PRIVATE = 0x10000,
};

/* [conn] Passed to host->req_done; borrowed for that call only. */
struct shb_req_result {
	uint32_t struct_size;
	uint32_t outcome;   /* enum shb_req_outcome */
	uint32_t status;    /* HTTP status (100..999) when outcome is OK */
	uint32_t err_space; /* enum shb_err_space, for RESET/PROTO_ERROR */
	uint64_t err_code;
	uint64_t rx_header_bytes; /* response head bytes (framing included) */
	uint64_t rx_body_bytes;   /* response body bytes (payload) */
	shb_tstamp ts_first_byte; /* `now` of the call that saw the first byte;
				   * 0 or SHB_TSTAMP_NONE: not known */
	shb_tstamp ts_done;       /* `now` of the call that completed it */
	const char *detail; /* NULL or a short UTF-8 reason, borrowed */

	/* since 1.2: an application outcome (grpc-status, a WebSocket close
	 * code) for outcome OK. With app_space NONE the 1.1 rules hold (an OK
	 * result needs a status 100..999). Otherwise status may be 0 (a
	 * protocol without HTTP status) and the request counts as ok only when
	 * app_ok is 1; with app_ok 0 it is an error of kind
	 * SHB_ERRK_APPLICATION whose sample is `detail`. Reports count every
	 * (space, code) seen. */
	uint32_t app_space; /* enum shb_app_space */
	uint32_t app_ok;    /* 1: the application says success */
	uint64_t app_code;
};

/* since 1.4: a response as received, handed to host->req_response in
 * runs with SHB_RUN_WANT_RESPONSE. Everything it points to is borrowed for
 * that call: the core copies what it keeps. */
enum shb_response_flags {
	/* The body was longer than run_config.response_body_max: `body`
	 * holds its first response_body_max bytes (none without
	 * SHB_RUN_WANT_BODY). */
	SHB_RESP_BODY_TRUNCATED = 1u << 0,
};

struct shb_response {
	uint32_t struct_size;
	uint32_t status;    /* the final status, 100..999 */
	uint32_t flags;     /* enum shb_response_flags */
	uint32_t reserved0; /* 0 */
	/* The final head's fields as received, in order; names lower-case
	 * for h2 and h3 (as their wire has them), as sent for HTTP/1.x;
	 * values without leading or trailing whitespace. Pseudo-headers
	 * (:status) are not among them. */
	const struct shb_kv *headers;
	size_t header_count;
	/* The body's payload (dechunked), at most response_body_max bytes;
	 * NULL and 0 without SHB_RUN_WANT_BODY. */
	const uint8_t *body;
	size_t body_len;
};

/* What the core reads of a result: outcome, status, err_space/err_code
 * (errors by code in the report), rx_header_bytes and rx_body_bytes (bytes
 * per request), ts_first_byte (time-to-first-byte histogram; NONE leaves
 * the request out of it), detail (error samples) and, since 1.2, the app
 * outcome. ts_done is not read: the core times requests itself. */

/* ---- connection-level information ------------------------------------------ */

/* [conn] Given to on_transport_ready; borrowed for that call only. */
struct shb_transport_info {
	uint32_t struct_size;
	uint32_t tls_version; /* 0 without TLS; 0x0303 TLS 1.2, 0x0304 TLS 1.3 */
	const struct sockaddr *peer;
	uint32_t peer_len;
	uint32_t max_dgram; /* DGRAM: largest datagram the core will send */
	const char *alpn;   /* negotiated ALPN id, or NULL */
	shb_tstamp ts_connected; /* TCP connect / UDP socket ready */
	shb_tstamp ts_handshake; /* TLS done (== ts_connected without TLS) */
};

enum shb_conn_event_kind {
	SHB_CEV_HANDSHAKE_DONE = 1, /* protocol-level handshake finished */
	SHB_CEV_GOAWAY = 2,         /* the peer stops accepting new requests */
	SHB_CEV_CONN_ERROR = 3,     /* connection-level error (space, code) */
};

/* [conn] Passed to host->conn_event; borrowed for that call only. */
struct shb_conn_event {
	uint32_t struct_size;
	uint32_t kind;      /* enum shb_conn_event_kind */
	uint32_t err_space; /* enum shb_err_space */
	uint32_t reserved0;
	uint64_t err_code;
	uint64_t last_accepted; /* GOAWAY: last stream id the peer accepted */
	const char *detail;     /* NULL or UTF-8, borrowed */
};

/* Bits returned by state(). */
enum shb_conn_state {
	SHB_CS_WANT_WRITE = 1u << 0, /* pull_send/write_dgrams has output */
	SHB_CS_DRAINING = 1u << 1,   /* accepts no new requests */
	SHB_CS_CLOSED = 1u << 2,     /* finished: the core closes and may
				      * replace the connection */
};

enum shb_shutdown_mode {
	SHB_SHUT_GRACEFUL = 1, /* GOAWAY / close_notify-worthy end */
	SHB_SHUT_ABORT = 2,    /* tear down now; nothing more will be sent */
};

/* ---- the vtable ------------------------------------------------------------ */

struct shb_proto_vtable {
	uint32_t struct_size;

	/* [main] Validates options and builds the immutable module. `cfg` is
	 * borrowed. On failure returns a negative SHB_E_* and writes one line
	 * (no newline) into err[errlen]. */
	int (*module_create)(const struct shb_host *host,
			     const struct shb_run_config *cfg, void **module,
			     char *err, size_t errlen);
	/* [main] After every worker has been joined. */
	void (*module_destroy)(void *module);

	/* [main] Compiles a request template once (e.g. HTTP/1.1 bytes, an
	 * HPACK block). `req` is borrowed; `*prepared` is module-owned until
	 * release_request and is read concurrently by every worker. */
	int (*prepare_request)(void *module, const struct shb_request *req,
			       void **prepared, char *err, size_t errlen);
	void (*release_request)(void *module, void *prepared); /* [main] */

	/* [worker] Construct per-worker state in `worker` (worker_size bytes,
	 * zeroed, core-owned, valid until worker_fini). May be NULL. */
	int (*worker_init)(void *module, void *worker, uint32_t worker_index);
	/* [worker] Destroy what worker_init built. Called only after a
	 * successful worker_init (or, without one, once the worker's state was
	 * set up): never after a failed one, nor for a worker whose set-up
	 * failed before it. May be NULL. */
	void (*worker_fini)(void *module, void *worker);

	/* [conn] Construct connection state in `conn` (conn_size bytes, zeroed,
	 * core-owned, valid until conn_fini returns). `handle` identifies the
	 * connection in host callbacks; valid until conn_fini. No I/O yet. */
	int (*conn_init)(void *module, void *worker, void *conn,
			 struct shb_conn *handle, shb_tstamp now);
	/* [conn] Destroy; never fails. No host callbacks from here: the core
	 * completes any cookie still outstanding itself. */
	void (*conn_fini)(void *conn);

	/* [conn] The transport is up (TCP connected and TLS done, or UDP
	 * socket ready). `info` is borrowed. */
	int (*on_transport_ready)(void *conn, const struct shb_transport_info *info,
				  shb_tstamp now);

	/* [conn] STREAM: received plaintext, borrowed for the call. Returns the
	 * bytes consumed (== len unless the module must flush first, in which
	 * case state() has WANT_WRITE and the core offers the rest again after
	 * the next send completes) or a negative SHB_E_* when the connection is
	 * broken. `now` is when the kernel received the bytes where it stamps
	 * them (TCP), which can be earlier than the call; on one connection
	 * `now` never runs back from one call to the next. */
	shb_ssize (*recv)(void *conn, const uint8_t *data, size_t len,
			  shb_tstamp now);
	/* [conn] STREAM: the peer closed its side (FIN or TLS close_notify).
	 * SHB_OK if that was a clean end (e.g. it completed a close-delimited
	 * body, or the connection was idle); negative if it broke a request. */
	int (*recv_eof)(void *conn, shb_tstamp now);

	/* [conn] STREAM: fill up to `max` vecs with bytes to send. The memory
	 * stays plugin-owned and must stay valid and unchanged until sent() is
	 * called for it or conn_fini. The core has at most one send in flight
	 * and calls pull_send again only after sent(). Returns the vec count
	 * (0: nothing to send). */
	shb_ssize (*pull_send)(void *conn, struct shb_vec *vecs, size_t max,
			       shb_tstamp now);
	/* [conn] STREAM: `n` bytes from the front of what pull_send gave were
	 * accepted by the kernel (or by TLS); may be less than offered. */
	void (*sent)(void *conn, size_t n, shb_tstamp now);

	/* [conn] DGRAM: received datagrams, mutable and borrowed for the call
	 * (a module may decrypt in place). Every datagram of up to
	 * SHB_DGRAM_RECV_MAX bytes arrives whole; a longer one is dropped or
	 * arrives cut to that length (a QUIC module's integrity check then
	 * drops it), so that is the most a module may tell its peer it takes.
	 * `now` is when the kernel received the latest of them where it
	 * stamps them (UDP with GRO), which can be earlier than the call; on
	 * one connection `now` never runs back from one call to the next.
	 * Returns SHB_OK or a negative SHB_E_* when the connection is broken.
	 * May be NULL for STREAM. */
	int (*recv_dgrams)(void *conn, struct shb_vec *dgrams, size_t count,
			   shb_tstamp now);
	/* [conn] DGRAM: write a train of datagrams back to back into
	 * buf[cap]: every datagram exactly *segment_size bytes except possibly
	 * a shorter last one (UDP GSO semantics), none larger than the
	 * transport's max_dgram. Returns bytes written (0: nothing to send)
	 * or a negative SHB_E_*. The bytes become core-owned. */
	shb_ssize (*write_dgrams)(void *conn, uint8_t *buf, size_t cap,
				  size_t *segment_size, shb_tstamp now);

	/* [conn] const. Earliest protocol deadline, or SHB_TSTAMP_NONE.
	 * Since 1.2 both may be NULL (together) in a plugin whose entry says
	 * abi_minor >= 2: a protocol without timers. */
	shb_tstamp (*next_deadline)(const void *conn);
	/* [conn] Called with now >= the deadline; early calls are no-ops.
	 * Returns SHB_OK or a negative SHB_E_* when the connection is broken. */
	int (*on_timer)(void *conn, shb_tstamp now);

	/* [conn] const. enum shb_conn_state bits. */
	uint32_t (*state)(const void *conn);
	/* [conn] const. How many more requests issue() would accept now (0
	 * while handshaking, draining, or waiting for a send to finish). */
	uint32_t (*capacity)(const void *conn);

	/* [conn] Start `prepared` (from prepare_request). `cookie` is the core's
	 * id for it; the module reports it exactly once through host->req_done
	 * unless the connection is finalised first. SHB_E_BUSY when capacity()
	 * is 0. */
	int (*issue)(void *conn, const void *prepared, uint64_t cookie,
		     shb_tstamp now);
	/* [conn] The core gives up on `cookie` (e.g. --timeout). The module
	 * forgets it (RST_STREAM, or mark the connection for closing) and must
	 * not report it. May be NULL: the core then closes the connection. */
	void (*cancel)(void *conn, uint64_t cookie, shb_tstamp now);
	/* [conn] Stop the connection: GRACEFUL queues a last frame (GOAWAY)
	 * where the protocol has one, ABORT stops at once. A stream protocol
	 * that cannot say goodbye yet (a handshake under way whose answer
	 * must come first, e.g. a WebSocket upgrade awaiting its 101) leaves
	 * state() at DRAINING alone, nothing to send and not CLOSED: at the
	 * end of a run the core then keeps delivering its input until it has
	 * its last words to send or says CLOSED, within the run's drain (1 s
	 * at most), and closes it after those words. */
	void (*shutdown)(void *conn, uint32_t mode, shb_tstamp now);
	/* [conn] Text for the last error; valid until the next call on this
	 * connection. May return NULL. After any [conn] call returned a
	 * negative code (other than a fatal one), the core calls pull_send or
	 * write_dgrams once more if state() has WANT_WRITE, so that a last
	 * frame (GOAWAY, CONNECTION_CLOSE) reaches the peer, then conn_fini. */
	const char *(*error_detail)(const void *conn);

	/* since 1.2 */
	/* [conn] Like issue(), for a request that differs from its template
	 * by `var` (borrowed for the call). The core calls it only in runs
	 * with variation (URL lists with several paths per origin, templates,
	 * body lines); a module without it (NULL, or built against 1.1) is
	 * refused such a run with one line, before any traffic, and keeps
	 * serving runs without variation. */
	int (*issue_var)(void *conn, const void *prepared,
			 const struct shb_request_var *var, uint64_t cookie,
			 shb_tstamp now);

	/* since 1.4; the core reads them only when SHB_HAS() says so. */
	/* [main] The bytes each connection of this run needs, known once
	 * module_create has seen -p and the options: called once right after
	 * module_create, before any worker starts. The core then reserves
	 * the larger of that and the descriptor's conn_size per connection
	 * (zeroed, core-owned, as for conn_size); 0 keeps conn_size, above
	 * 64 MiB the run is refused with one line. `module` is borrowed for
	 * the call. May be NULL: conn_size. */
	size_t (*conn_size_for)(const void *module);
	/* [conn] DGRAM: like write_dgrams, for datagrams of any sizes. Writes
	 * up to max_count datagrams back to back into buf[cap], each 1 to
	 * the transport's max_dgram bytes, and their sizes in order into
	 * sizes[0 .. *count - 1] (core-owned, max_count entries, borrowed for
	 * the call). Returns the bytes written, the sum of the sizes (0:
	 * nothing to send), or a negative SHB_E_*; the bytes become
	 * core-owned. A module with it is never called through write_dgrams
	 * (which it may then leave NULL): the core sends each run of equal
	 * sizes, and a shorter one ending it, as one UDP GSO send, the next
	 * run once that send completed, and calls write_dgrams_v again only
	 * when the whole train is out. May be NULL. */
	shb_ssize (*write_dgrams_v)(void *conn, uint8_t *buf, size_t cap,
				    uint16_t *sizes, size_t max_count,
				    size_t *count, shb_tstamp now);

	/* since 1.4 */
	/* [conn] Start a whole request given with this issue, not a template: a
	 * script's request, a redirect's next hop. `req` is borrowed for the call
	 * (the module copies or encodes what it keeps); method, path, headers and
	 * body were validated by the core like a template's; `req->authority` may
	 * differ from the connection's origin only where the protocol allows it.
	 * Same contract as issue() otherwise (cookie reported exactly once,
	 * SHB_E_BUSY when capacity() is 0). May be NULL: a run that needs it
	 * (-s, -L) is refused before any traffic with one line naming the protocol. */
	int (*issue_req)(void *conn, const struct shb_request *req,
			 uint64_t cookie, shb_tstamp now);

	/* since 1.4 */
	/* [main] SHB_PROTO_CORE_TLS protocols: the GnuTLS priority string the
	 * core's TLS uses in place of its default (a client profile's suites,
	 * groups and signature algorithms), or NULL for the default. Called
	 * once right after module_create, before any worker starts; `module`
	 * is borrowed for the call. The string is module-owned and stays
	 * valid until module_destroy. The core checks it with
	 * gnutls_priority_init before any traffic (a bad one refuses the run
	 * with one line naming the protocol) and ignores it when the user
	 * gave --ciphers or --tls-version. May be NULL: the default. */
	const char *(*tls_priority)(void *module);
};

/* Optional members, by the minor the plugin's entry declares:
 *   always: release_request, worker_init, worker_fini, cancel, shutdown,
 *           error_detail; recv_dgrams and write_dgrams for STREAM;
 *   >= 1.2: next_deadline with on_timer (both or neither), issue_var;
 *           recv, recv_eof, pull_send and sent for DGRAM;
 *   >= 1.4: conn_size_for, write_dgrams_v; write_dgrams for a DGRAM
 *           module that has write_dgrams_v; issue_req (a run that
 *           needs it is refused without it); tls_priority.
 * Every other member is mandatory (module_create, module_destroy,
 * prepare_request, conn_init, conn_fini, on_transport_ready, state,
 * capacity, issue, and the transport's own I/O members); the loader refuses
 * with one line naming the member. */

#ifdef __cplusplus
}
#endif
#endif
