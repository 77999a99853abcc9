/* The HTTP/3 protocol plugin: one shb connection is one QUIC connection
 * (plugins/h3/conn) carrying HTTP/3 (plugins/h3/http3). This header holds
 * the module, the per-worker and per-connection state, the [conn] entries
 * of the vtable (h3_conn.c) and what h3_conn.c and h3_events.c share.
 *
 * How the pieces meet:
 *  - the core hands datagrams to recv_dgrams, which feeds them to the QUIC
 *    connection; everything the connection has to say comes back through
 *    shb_h3_on_event (h3_events.c) from inside that call: handshake done,
 *    stream data, resets, the end of the connection;
 *  - a request is one client bidirectional stream: the prepared bytes
 *    (HEADERS, DATA, body) are handed over once, borrowed, with FIN; the
 *    response bytes go through a struct shb_h3_resp until it says DONE;
 *  - the server's unidirectional streams go through struct shb_h3_uni and
 *    the connection-wide struct shb_h3_peer (SETTINGS, GOAWAY);
 *  - when the connection ends badly the [conn] call returns a negative
 *    SHB_E_* and error_detail() says why; the core fails the requests
 *    still in flight. When we closed it ourselves for an error, the
 *    CONNECTION_CLOSE datagram is written first and the error is returned
 *    by the next write_dgrams (or on_timer) call.
 *
 * Memory: the struct lives in core memory (conn_size); the request table
 * (sized by -p) and the QUIC connection are allocated once per
 * connection, never per request or packet. */
#ifndef SHB_H3_CONN_H
#define SHB_H3_CONN_H

#include <shb/host.h>
#include <shb/proto.h>

#include "common/buf.h"
#include "h3_local.h"
#include "h3_peer.h"
#include "h3_profile.h"
#include "h3_quic_ops.h"
#include "h3_reqtab.h"
#include "h3_request.h"
#include "qpack_enc.h"
#include "quic_tls.h"

#define SHB_H3_PLUGIN_ID "org.shb.proto.h3"

/* Our max_idle_timeout is at least this (and at least --timeout). */
#define SHB_H3_MIN_IDLE_NS (UINT64_C(30) * 1000000000u)
/* Every datagram is 1200 bytes at most: no path MTU discovery. */
#define SHB_H3_DGRAM 1200u
/* Server unidirectional streams tracked at once (3 are critical). */
#define SHB_H3_UNI_SLOTS 8u
/* The longest Priority field value sent again as PRIORITY_UPDATE (RFC
 * 9218 Section 7.2); --priority's are at most 10 octets, a longer -H
 * value goes in the header only. */
#define SHB_H3_PRIORITY_VALUE_MAX 128u
/* Octets of a request stream held while its field section waits for
 * the dynamic table (RFC 9204 Section 2.1.2); more is H3_EXCESSIVE_LOAD. */
#define SHB_H3_BLOCKED_MAX (256u * 1024u)
/* After our CONNECTION_CLOSE went out, the error is reported at the
 * latest this long after, should the core not ask to write again. */
#define SHB_H3_CLOSE_GRACE_NS (UINT64_C(50) * 1000000u)

/* Immutable once workers run. */
struct shb_h3_module {
	const struct shb_host *host;
	const struct shb_h3_quic_ops *ops;
	struct shb_quic_tls_ctx tls; /* shared read-only by every conn */
	char *server_name;           /* the URL host (SNI unless an IP) */
	uint32_t parallel;           /* -p */
	uint32_t run_flags;          /* enum shb_run_flags */
	uint32_t debug;              /* SHB_LOG_DEBUG enabled at create */
	uint32_t trace;              /* SHB_LOG_TRACE enabled at create */
	uint64_t handshake_timeout;  /* ns: --connect-timeout */
	uint64_t idle_timeout;       /* ns: max(30 s, --timeout) */
	int has_cert;                /* --cert: a client certificate is set */
	uint64_t initial_window;     /* --proto-opt initial-window; 0: RFC */
	uint32_t no_pacing;          /* --proto-opt pacing=0 */
	uint32_t no_prio_update;     /* --proto-opt priority-update=off */
	/* --proto-opt qpack-table= and qpack-blocked=: what our SETTINGS
	 * announce and our QPACK decoder enforces. */
	struct shb_h3_conn_config conf;
	/* SHB_RUN_WANT_RESPONSE (ABI 1.4): responses kept for req_response,
	 * bodies up to body_max (response_body_max with SHB_RUN_WANT_BODY). */
	uint32_t want_response;
	uint64_t body_max;
	/* --proto-opt profile (h3_profile.h), and its request look. */
	const struct shb_h3_profile *prof;
	struct shb_h3_look look;
};

/* Per worker thread (worker_size bytes of core memory). */
struct shb_h3_worker {
	uint32_t index;
	uint32_t reserved0;
	uint64_t conns; /* connections started: numbers them in traces */
};

/* One server unidirectional stream. */
struct shb_h3_peer_uni {
	uint64_t id;
	struct shb_h3_uni u;
	uint8_t used;
};

/* A request stream blocked on the dynamic table: what arrived since, to
 * be fed again once the table has the inserts it waits for. */
struct shb_h3_blocked {
	uint64_t id;
	struct shb_buf buf; /* owned, capped at SHB_H3_BLOCKED_MAX */
	uint8_t fin;
	uint8_t used;
};

struct shb_h3_conn {
	const struct shb_h3_module *mod;
	const struct shb_h3_quic_ops *ops;
	struct shb_h3_worker *worker; /* NULL without worker memory */
	struct shb_conn *handle;
	struct shb_quic_conn *q; /* from on_transport_ready */
	shb_tstamp now;          /* of the current [conn] call */

	struct shb_h3_reqtab reqs;
	struct shb_h3_peer peer;
	struct shb_h3_peer_uni uni[SHB_H3_UNI_SLOTS];
	uint64_t issued; /* requests started on this connection */
	uint64_t ctl_id; /* our control stream (valid once hs_done) */
	/* PRIORITY_UPDATE frames sent, and not sent because the control
	 * stream's send buffer was full (SHB_DEBUG traces). */
	uint64_t prio_updates, prio_skipped;
	uint64_t serial; /* connection number within the worker */

	uint8_t hs_done;   /* QUIC handshake complete, our streams open */
	uint8_t draining;  /* no new requests (GOAWAY, one-shot, shutdown) */
	uint8_t goaway;    /* the server's GOAWAY arrived */
	uint8_t ended;     /* the QUIC connection ended (CLOSED event) */
	uint8_t aborted;   /* shutdown(ABORT): silent from now on */
	/* Our CONNECTION_CLOSE is still to go out (the QUIC connection was
	 * CLOSING when it ended): the end, clean or not, is reported only
	 * once it went out and its send completed (write_dgrams called
	 * again) or the grace period passed. */
	uint8_t deferred;
	uint8_t close_sent; /* ... it was written */
	uint8_t close_done; /* ... and a clean end may now be reported */
	int end_rc;    /* SHB_E_* when the connection ended badly, else 0 */
	int local_err; /* SHB_E_PROTO once we closed for an HTTP/3 error */
	shb_tstamp close_sent_at;

	uint64_t dgrams_in, dgrams_out; /* for traces */
	/* issue_var: the varied field section, reused (its memory grows to
	 * the largest, capped at SHB_H3_REQ_SECTION_MAX); the request's
	 * bytes then go into a buffer owned by its QUIC stream
	 * (bidi_buffer). Freed by conn_fini. */
	struct shb_buf vsec;
	/* QPACK with a dynamic table (h3_qpack.c): our decoder stream, the
	 * Known Received Count the encoder has from us, the blocked streams
	 * (nblk slots: the count we announced), and for SHB_DEBUG traces
	 * what was sent and what the decoder stream had no room for. */
	uint64_t qdec_id;
	uint64_t qpack_krc;
	struct shb_h3_blocked *blk;
	uint32_t nblk;
	uint64_t qpack_acks, qpack_cancels, qpack_blocked, qpack_unsent;
	char detail[256];  /* error_detail() */
	char scratch[192]; /* request result details, valid for req_done */
};

/* ---- vtable entries (h3_conn.c) ---- */
int shb_h3_conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now);
void shb_h3_conn_fini(void *conn);
int shb_h3_conn_transport_ready(void *conn,
				const struct shb_transport_info *info,
				shb_tstamp now);
int shb_h3_conn_recv_dgrams(void *conn, struct shb_vec *dgrams,
			    size_t count, shb_tstamp now);
shb_ssize shb_h3_conn_write_dgrams(void *conn, uint8_t *buf, size_t cap,
				   size_t *segment_size, shb_tstamp now);
shb_tstamp shb_h3_conn_next_deadline(const void *conn);
int shb_h3_conn_on_timer(void *conn, shb_tstamp now);
uint32_t shb_h3_conn_state(const void *conn);
uint32_t shb_h3_conn_capacity(const void *conn);
int shb_h3_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		      shb_tstamp now);
int shb_h3_conn_issue_var(void *conn, const void *prepared,
			  const struct shb_request_var *var, uint64_t cookie,
			  shb_tstamp now);
int shb_h3_conn_issue_req(void *conn, const struct shb_request *req,
			  uint64_t cookie, shb_tstamp now);
void shb_h3_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now);
void shb_h3_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now);
const char *shb_h3_conn_error_detail(const void *conn);

/* ---- shared inside the plugin ---- */

/* The QUIC connection's event callback (h3_events.c); user is the
 * struct shb_h3_conn. */
void shb_h3_on_event(void *user, const struct shb_quic_event *ev);

/* An HTTP/3 connection error found by us: records the detail, closes the
 * QUIC connection with `h3_code` (the CLOSED event follows from inside).
 * No effect once the connection ended. */
__attribute__((format(printf, 3, 4))) void
shb_h3_conn_fail(struct shb_h3_conn *c, uint64_t h3_code, const char *fmt,
		 ...);

/* ---- QPACK's dynamic table (h3_qpack.c) ---- */

/* The peer state with our table limit, and the blocked slots. 0, or -1
 * out of memory. */
int shb_h3_qpack_init(struct shb_h3_conn *c);
void shb_h3_qpack_fini(struct shb_h3_conn *c);
/* Sends the Section Acknowledgments req's response counted. */
void shb_h3_qpack_acks(struct shb_h3_conn *c, struct shb_h3_req *req);
/* Sends an Insert Count Increment for inserts not yet acknowledged. */
void shb_h3_qpack_increment(struct shb_h3_conn *c);
/* req's stream is blocked: holds data[len] (and fin) for later. 0, or -1
 * when the connection failed (too many blocked streams, or the cap). */
int shb_h3_qpack_hold(struct shb_h3_conn *c, struct shb_h3_req *req,
		      const uint8_t *data, size_t len, int fin);
/* A blocked stream the table now unblocks: its held octets into *out
 * (the caller frees them), its FIN and id. 1, or 0 when none is ready. */
int shb_h3_qpack_ready(struct shb_h3_conn *c, struct shb_buf *out, int *fin,
		       uint64_t *id);
/* req leaves the table: its held octets are dropped and, unless its
 * response was read whole, a Stream Cancellation tells the encoder. */
void shb_h3_qpack_forget(struct shb_h3_conn *c, struct shb_h3_req *req);

/* Closes with H3_NO_ERROR once draining and no request is left. */
void shb_h3_conn_settle_drain(struct shb_h3_conn *c);

/* One SHB_LOG_DEBUG line, prefixed with the connection (only call when
 * c->mod->debug). */
__attribute__((format(printf, 2, 3))) void
shb_h3_trace(const struct shb_h3_conn *c, const char *fmt, ...);

#endif
