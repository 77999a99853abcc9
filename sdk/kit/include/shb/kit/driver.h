/* shb plugin test kit: the module and connection driver.
 *
 * Runs a protocol module the way the core does, in the test's thread and
 * without I/O: module_create, prepare_request, worker_init, then
 * connections (conn_init, on_transport_ready, issue, recv or recv_dgrams,
 * pull_send/sent or write_dgrams, timers, conn_fini), then release_request,
 * worker_fini and module_destroy.
 *
 * Every [conn] call goes through a shb_kit_conn_* function: the kit marks
 * the call in progress (so that the fake host can tell whether a req_done
 * comes from inside a call on that connection), passes `now` from the
 * host's clock, and afterwards re-reads state(), capacity() and
 * next_deadline() as the core does (kept in `state`, `capacity` and
 * `deadline`). The raw wrappers (issue, recv, pull_send, ...) return what
 * the module returned; the higher-level ones (feed, flush, run_timers)
 * loop like the core does and record module misbehaviour as violations of
 * the host.
 *
 * Ownership: a shb_kit_module and a shb_kit_conn are the caller's structs
 * (on the stack is fine); what the kit allocates for them (module memory
 * from the module, conn_size bytes, collected output) is freed by
 * shb_kit_module_destroy and shb_kit_conn_fini. A connection's memory is
 * exactly conn_size bytes, zeroed, so that a sanitizer sees overruns.
 *
 * Thread: the test thread for everything; it plays [main], [worker] and
 * [conn] in turn. */
#ifndef SHB_KIT_DRIVER_H
#define SHB_KIT_DRIVER_H

#include <shb/shb.h>
#include <shb/kit/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- module ---------------------------------------------------------------- */

struct shb_kit_module {
	struct shb_kit_host *kh;
	const struct shb_proto_desc *desc;
	const struct shb_proto_vtable *vt; /* desc->vt */
	void *module;   /* from module_create */
	void *prepared; /* from shb_kit_module_prepare, or NULL */
	void *worker;   /* worker_size bytes (at least 1), zeroed */
	uint32_t worker_index; /* what worker_init gets: 0 unless the test
				* sets it before shb_kit_module_worker_init */
	int worker_inited;
	/* What conn_origin returns for every connection of this module:
	 * scheme, host, port and authority of the run config, SNI the host
	 * unless it is an IP literal, `prepared` once prepared. Kit-owned,
	 * valid until shb_kit_module_destroy. */
	struct shb_origin origin;
	uint32_t run_flags; /* the run config's flags */
	uint32_t max_dgram; /* the descriptor's, 1200 when 0 */
	uint32_t max_train; /* the descriptor's, 64 when 0 */
	char err[256]; /* module_create's or prepare_request's line */
	/* The bytes each connection gets: the descriptor's conn_size, or
	 * (ABI 1.4) what conn_size_for asked after module_create when that is
	 * more, as the core reserves. */
	size_t conn_size;
	/* Kit-owned copies behind `origin`. */
	char scheme_buf[32], host_buf[256], authority_buf[272];
};

/* Fills `cfg` with the kit's defaults for `desc` (NULL: plain http):
 * connections, parallel and threads 1; the descriptor's first scheme
 * (scheme_defs, else schemes, else "http") with its default port (else
 * 443 for https, 80 otherwise) and SHB_RUN_TLS when it runs over TLS;
 * host and authority "example.com"; connect timeout 10 s, no request
 * timeout, no options, no certificate check. A test changes what it needs
 * before shb_kit_module_create. */
void shb_kit_run_config_default(struct shb_run_config *cfg,
				const struct shb_proto_desc *desc);

/* module_create with `cfg` (NULL: the defaults). The module's return code;
 * on failure its line is in m->err and nothing needs destroying. */
int shb_kit_module_create(struct shb_kit_module *m, struct shb_kit_host *kh,
			  const struct shb_proto_desc *desc,
			  const struct shb_run_config *cfg);
/* prepare_request with `req` (NULL: GET / with the config's scheme and
 * authority); the result goes to m->prepared and the origin. A second call
 * releases the previous request first. */
int shb_kit_module_prepare(struct shb_kit_module *m,
			   const struct shb_request *req);
/* worker_init for worker m->worker_index (SHB_OK when the module has
 * none). */
int shb_kit_module_worker_init(struct shb_kit_module *m);
/* release_request, worker_fini, module_destroy: whichever were reached. */
void shb_kit_module_destroy(struct shb_kit_module *m);

/* ---- connection ------------------------------------------------------------ */

struct shb_kit_retired {
	uint64_t cookie;
	int cancelled; /* 1: cancelled by the test, 0: completed */
};

struct shb_kit_conn {
	struct shb_kit_module *m;
	struct shb_kit_host *kh;
	void *mem;               /* m->conn_size bytes */
	struct shb_conn *handle; /* what the module sees; kit-chosen */
	int inited;   /* conn_init returned SHB_OK */
	int finished; /* conn_fini was called */

	/* Re-read after every call, as the core does. */
	uint32_t state;
	uint32_t capacity;
	shb_tstamp deadline; /* SHB_TSTAMP_NONE without timers */

	/* Cookies issued and not yet completed or cancelled. */
	uint64_t *outstanding;
	size_t outstanding_count;
	/* Cookies ended: completed (req_done) or cancelled. */
	struct shb_kit_retired *retired;
	size_t retired_count;
	size_t outstanding_at_fini; /* left for the core to complete */

	/* Everything the module sent, in order: STREAM bytes from
	 * shb_kit_conn_flush; DGRAM datagrams from shb_kit_conn_flush_dgrams
	 * back to back in `out`, their lengths in `dgram_len`. */
	uint8_t *out;
	size_t out_len;
	size_t *dgram_len;
	size_t dgram_count;
	uint64_t timers_fired;

	/* Kit-internal. */
	size_t outstanding_cap, retired_cap, out_cap, dgram_cap;
	struct shb_vec pending[16]; /* pull_send's vecs until sent() */
	uint8_t *pending_copy;      /* their bytes, to check they stay put */
	size_t pending_count, pending_len;
	unsigned warned; /* violations already recorded once */
};

/* conn_init (the module's code; on failure nothing needs finalising). */
int shb_kit_conn_init(struct shb_kit_conn *c, struct shb_kit_module *m);
/* on_transport_ready with `info` (NULL: the kit's: no TLS unless the run
 * config has SHB_RUN_TLS (then TLS 1.3), a loopback peer, max_dgram from
 * the descriptor (1200 when 0), alpn the descriptor's first, connected and
 * handshake at now). */
int shb_kit_conn_ready(struct shb_kit_conn *c,
		       const struct shb_transport_info *info);
/* issue (m->prepared with NULL `prepared`). SHB_OK records the cookie as
 * outstanding; SHB_OK while capacity was 0 is a violation. */
int shb_kit_conn_issue(struct shb_kit_conn *c, const void *prepared,
		       uint64_t cookie);
/* issue_var; SHB_E_UNSUPPORTED when the module has none. */
int shb_kit_conn_issue_var(struct shb_kit_conn *c, const void *prepared,
			   const struct shb_request_var *var, uint64_t cookie);
/* issue_req (ABI 1.4): a whole request, borrowed for the call;
 * SHB_E_UNSUPPORTED when the module has none. The cookie is outstanding
 * as with shb_kit_conn_issue. */
int shb_kit_conn_issue_req(struct shb_kit_conn *c,
			   const struct shb_request *req, uint64_t cookie);
/* cancel (the cookie is then retired: reporting it is a violation); with a
 * module without cancel, nothing. */
void shb_kit_conn_cancel(struct shb_kit_conn *c, uint64_t cookie);
void shb_kit_conn_shutdown(struct shb_kit_conn *c, uint32_t mode);

/* STREAM, raw: one recv of data[len], from a private copy so that a
 * sanitizer sees over-reads. */
shb_ssize shb_kit_conn_recv(struct shb_kit_conn *c, const void *data,
			    size_t len);
int shb_kit_conn_recv_eof(struct shb_kit_conn *c);
/* STREAM, raw: pull_send and sent. The kit keeps a copy of the bytes
 * offered and records a violation when they changed by sent(). */
shb_ssize shb_kit_conn_pull_send(struct shb_kit_conn *c, struct shb_vec *vecs,
				 size_t max);
void shb_kit_conn_sent(struct shb_kit_conn *c, size_t n);
/* STREAM: pull_send/sent until pull_send has nothing, accepting at most
 * `chunk` bytes per send (0: all), appending the bytes to c->out. Returns
 * the bytes sent. Stops after 1 MiB per call (a module that never stops
 * sending is a violation). */
size_t shb_kit_conn_flush(struct shb_kit_conn *c, size_t chunk);
/* STREAM: recv all of data[len] as the core does: when the module
 * consumes less, it must have WANT_WRITE; the kit flushes and offers the
 * rest again. Returns SHB_OK, or the module's negative code (then the rest
 * is dropped, as the core closes). */
int shb_kit_conn_feed(struct shb_kit_conn *c, const void *data, size_t len);

/* DGRAM, raw: recv_dgrams on private copies of dgrams[count]. */
int shb_kit_conn_recv_dgrams(struct shb_kit_conn *c,
			     const struct shb_vec *dgrams, size_t count);
/* DGRAM, raw: write_dgrams into buf[cap], checked against GSO rules and
 * max_dgram. */
shb_ssize shb_kit_conn_write_dgrams(struct shb_kit_conn *c, uint8_t *buf,
				    size_t cap, size_t *segment_size);
/* DGRAM, raw (ABI 1.4): write_dgrams_v into buf[cap] with sizes[max_count],
 * checked: at most max_count datagrams, each 1 to max_dgram bytes, adding
 * up to what it returned. SHB_E_UNSUPPORTED when the module has none. */
shb_ssize shb_kit_conn_write_dgrams_v(struct shb_kit_conn *c, uint8_t *buf,
				      size_t cap, uint16_t *sizes,
				      size_t max_count, size_t *count);
/* DGRAM: write_dgrams (write_dgrams_v when the module has it, as the core
 * prefers it) until it has nothing, appending each datagram to c->out /
 * c->dgram_len. Returns the datagrams collected, or the module's negative
 * code. At most 4096 datagrams per call. */
shb_ssize shb_kit_conn_flush_dgrams(struct shb_kit_conn *c);

/* Timers, raw: on_timer at now (SHB_OK when the module has no timers). */
int shb_kit_conn_on_timer(struct shb_kit_conn *c);
/* Runs the timers as the core does: while the deadline is <= now, calls
 * on_timer; a deadline at or before now after on_timer, or 0, is a
 * violation (and stops). Returns SHB_OK or the first negative code. */
int shb_kit_conn_run_timers(struct shb_kit_conn *c);
/* Sets the clock to the deadline (when there is one) and runs the timers.
 * 1 if a deadline was reached, 0 if there is none, or a negative code. */
int shb_kit_conn_advance_to_deadline(struct shb_kit_conn *c);

/* error_detail (NULL without one). */
const char *shb_kit_conn_error_detail(struct shb_kit_conn *c);
/* Re-reads state, capacity and deadline into c (the kit does it after
 * every call already). */
void shb_kit_conn_poll(struct shb_kit_conn *c);
/* Drops the collected output. */
void shb_kit_conn_clear_output(struct shb_kit_conn *c);
/* conn_fini (if conn_init succeeded); counts the cookies outstanding, then
 * frees the kit's memory of the connection. The handle stays known to the
 * host, so that a late req_done on it is caught. Valid after any
 * shb_kit_conn_init, failed or not, and again after itself. */
void shb_kit_conn_fini(struct shb_kit_conn *c);

#ifdef __cplusplus
}
#endif
#endif
