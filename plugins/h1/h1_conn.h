/* HTTP/1.1 connection state machine: up to -p requests pipelined
 * (h1_pipe.h), sent straight from the prepared request bytes, their
 * responses found by the scanner one after another, each completing the
 * oldest request owed.
 *
 * When the connection ends with requests owed, each is reported once:
 * the one whose response broke by what broke it (protocol for a malformed
 * response, conn lost for a close or reset), the ones behind it as conn
 * lost (kind read), and those behind a response that closes the
 * connection (Connection: close, HTTP/1.0, a body to EOF) as refused,
 * since the server processes no request after it (RFC 9112 section 9.6):
 * the core sends them again. A cancelled request (--timeout) closes the
 * connection, since a response cannot be skipped, and the others owed
 * are conn lost.
 *
 * The functions are the [conn] entries of the protocol vtable (proto.h has
 * the contract); `conn` is the core-provided memory of
 * sizeof(struct shb_h1_conn) bytes. Nothing here allocates, except the
 * FIFO of a pipeline deeper than 1 (at conn_init) and the buffers of
 * varied requests, each grown to the largest request it carried and
 * reused. */
#ifndef SHB_H1_CONN_H
#define SHB_H1_CONN_H

#include <shb/host.h>
#include <shb/proto.h>

#include "common/buf.h"
#include "h1_pipe.h"
#include "h1_request.h"
#include "h1_scan.h"

#define SHB_H1_PLUGIN_ID "org.shb.proto.h1"

/* What connections read from their module; immutable once workers run. */
struct shb_h1_module {
	const struct shb_host *host;
	uint32_t run_flags; /* enum shb_run_flags */
	uint32_t debug;     /* host->log_enabled(SHB_LOG_DEBUG) at create */
	/* run_config.response_body_max with SHB_RUN_WANT_BODY, else 0. */
	uint64_t body_max;
	uint32_t depth; /* -p: requests in flight per connection */
	uint32_t reserved0;
};

struct shb_h1_conn {
	const struct shb_h1_module *mod;
	struct shb_conn *handle;
	struct shb_h1_pipe pipe; /* the requests in flight */
	shb_tstamp ts_first_byte; /* of the response being read */
	const char *detail; /* last error, static text */
	uint8_t ready;      /* transport is up */
	uint8_t closed;     /* no further use: state() says CLOSED */
	uint8_t reserved0, reserved1;
	/* Absolute form for a forward proxy (the origin's route_flags has
	 * SHB_ROUTE_ABSOLUTE_FORM): the origin's scheme and authority, owned
	 * by the core until module_destroy, inserted before each request's
	 * path; abs_len is the bytes that adds. NULL and 0 otherwise. */
	const char *abs_scheme, *abs_authority;
	size_t abs_len;
	struct shb_h1_scan scan;
	/* SHB_RUN_WANT_RESPONSE only (h1_resp.h): the response kept for
	 * req_response and its fields; NULL and empty otherwise. */
	struct shb_h1_keep *keep;
	struct shb_buf kvs;
};

int shb_h1_conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now);
void shb_h1_conn_fini(void *conn);
int shb_h1_conn_transport_ready(void *conn,
				const struct shb_transport_info *info,
				shb_tstamp now);
shb_ssize shb_h1_conn_recv(void *conn, const uint8_t *data, size_t len,
			   shb_tstamp now);
int shb_h1_conn_recv_eof(void *conn, shb_tstamp now);
shb_ssize shb_h1_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
				shb_tstamp now);
void shb_h1_conn_sent(void *conn, size_t n, shb_tstamp now);
shb_tstamp shb_h1_conn_next_deadline(const void *conn);
int shb_h1_conn_on_timer(void *conn, shb_tstamp now);
uint32_t shb_h1_conn_state(const void *conn);
uint32_t shb_h1_conn_capacity(const void *conn);
int shb_h1_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		      shb_tstamp now);
int shb_h1_conn_issue_var(void *conn, const void *prepared,
			  const struct shb_request_var *var, uint64_t cookie,
			  shb_tstamp now);
int shb_h1_conn_issue_req(void *conn, const struct shb_request *req,
			  uint64_t cookie, shb_tstamp now);
void shb_h1_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now);
void shb_h1_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now);
const char *shb_h1_conn_error_detail(const void *conn);

#endif
