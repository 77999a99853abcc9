/* The WebSocket protocol plugin: module, prepared requests, connections. */
#ifndef WS_H
#define WS_H

#include <stddef.h>
#include <stdint.h>

#include <shb/shb.h>

#include "ws_frame.h"
#include "ws_hash.h"

#define WS_PLUGIN_ID "org.shb.example.ws"
#define WS_MAX_MESSAGE_DEFAULT (1u << 20)
#define WS_MAX_MESSAGE_LIMIT (1u << 30)
#define WS_RESPONSE_HEAD_MAX 8192 /* the server's 101 answer */

/* [main] Immutable after module_create and prepare_request. */
struct ws_module {
	const struct shb_host *host;
	uint32_t parallel;    /* -p: messages in flight per connection */
	uint64_t max_message; /* --proto-opt max-message=BYTES */
	char *authority;      /* Host header when the core has no origins */
	/* The first prepared request: the handshake's path and headers when
	 * host->conn_origin is not there (a core older than 1.2). */
	const struct ws_prepared *first;
};

/* [main] One request template: the handshake's path and user headers,
 * and the message sent for each request (the body, else the path). */
struct ws_prepared {
	char *path;
	char *headers; /* "Name: value\r\n" each, NUL-terminated */
	uint8_t *payload;
	size_t payload_len;
	uint32_t opcode; /* WS_OP_BINARY with a body, WS_OP_TEXT without */
};

/* A growable byte buffer. */
struct ws_buf {
	uint8_t *p;
	size_t len, cap;
};

/* The plugin's metrics (ABI 1.4, shb_proto_desc.metrics), by index. */
enum ws_metric {
	WS_METRIC_SENT = 0,     /* messages sent (one per request) */
	WS_METRIC_RECEIVED = 1, /* data messages received whole */
	WS_METRIC_LATENCY = 2,  /* issue to the answer's last frame, ns */
	WS_METRIC_COUNT = 3,
};

/* One request in flight; answered in order (the echo server keeps it). */
struct ws_slot {
	uint64_t cookie;
	shb_tstamp ts_issued; /* for WS_METRIC_LATENCY */
	shb_tstamp ts_first_byte;
	uint64_t rx_header_bytes;
	uint64_t rx_body_bytes;
};

enum ws_phase {
	WS_PHASE_CONNECTING = 0, /* before on_transport_ready */
	WS_PHASE_HANDSHAKE,      /* upgrade sent, waiting for the 101 */
	WS_PHASE_OPEN,
	WS_PHASE_CLOSING,        /* a close frame queued or received */
	WS_PHASE_CLOSED,
};

/* [conn] In the core's conn_size bytes (zeroed); buffers are malloc'd and
 * freed by conn_fini. */
struct ws_conn {
	const struct ws_module *mod;
	struct shb_conn *handle;
	uint32_t phase; /* enum ws_phase */

	/* Output: appends go to `pending`; pull_send hands out `flight`,
	 * which stays unchanged until sent() has taken all of it. */
	struct ws_buf pending, flight;
	size_t flight_off;
	uint32_t flight_handed; /* pull_send gave it, sent() not yet */

	/* The handshake: the accept value expected, the answer read so far. */
	char accept[WS_ACCEPT_B64_LEN];
	struct ws_buf head;

	/* Frames in. */
	struct ws_dec dec;
	uint32_t frame_op;     /* opcode of the frame being read */
	uint32_t frame_fin;
	uint32_t msg_op;       /* opcode of the data message, 0: none */
	uint64_t msg_len;      /* its payload so far */
	uint8_t ctl[WS_CONTROL_MAX]; /* the control frame's payload */
	uint32_t ctl_len;
	uint32_t close_queued;   /* our close frame is in the output */
	uint32_t close_received; /* the server's close frame was read */
	uint32_t close_on_open;  /* shut down during the upgrade: close after the 101 */
	shb_tstamp now;        /* of the recv call being fed */

	/* Requests in flight, a ring of mod->parallel slots. */
	struct ws_slot *slots;
	uint32_t head_slot, inflight;

	/* Masking keys, drawn from host->random_secure in batches; 0 used:
	 * the batch is to be drawn. */
	uint8_t keys[256];
	uint32_t keys_used;

	char err[160];
	char detail[160]; /* a close frame's reason, for req_done */
};

/* ws_conn.c: the vtable's [conn] members. */
int ws_conn_init(void *module, void *worker, void *conn,
		 struct shb_conn *handle, shb_tstamp now);
void ws_conn_fini(void *conn);
int ws_conn_transport_ready(void *conn, const struct shb_transport_info *info,
			    shb_tstamp now);
shb_ssize ws_conn_recv(void *conn, const uint8_t *data, size_t len,
		       shb_tstamp now);
int ws_conn_recv_eof(void *conn, shb_tstamp now);
shb_ssize ws_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
			    shb_tstamp now);
void ws_conn_sent(void *conn, size_t n, shb_tstamp now);
uint32_t ws_conn_state(const void *conn);
uint32_t ws_conn_capacity(const void *conn);
int ws_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		  shb_tstamp now);
void ws_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now);
const char *ws_conn_error_detail(const void *conn);

/* ws_handshake.c: the opening handshake (RFC 6455 4.1). */
/* Appends the upgrade request to `out` and writes the expected accept
 * value; `key16` is 16 random bytes. Returns 0 or -1 (out of memory). */
int ws_handshake_request(struct ws_buf *out, const char *path,
			 const char *authority, const char *headers,
			 const uint8_t key16[16],
			 char accept[WS_ACCEPT_B64_LEN]);
/* Checks a complete response head (up to and including the blank line).
 * Returns 0, or -1 with one line in err[errlen]. */
int ws_handshake_check(const char *head, size_t len, const char *accept,
		       char *err, size_t errlen);

/* ws_buf helpers (ws_conn.c). */
int ws_buf_append(struct ws_buf *b, const void *p, size_t n);
void ws_buf_free(struct ws_buf *b);

#endif
