/* Scripted TCP peers on libevent: a listener on a local address that runs
 * a script (script.h) for every connection it accepts. Used by unit tests
 * to play a server exactly, and by shb-testserver.
 *
 * Threading: a peer belongs to one event_base and every function here
 * must be called on the thread that runs that base's loop (or, before the
 * loop runs or after it stopped, on any one thread). loop_thread.h runs a
 * base on a thread of its own for tests whose main thread is busy.
 *
 * Sockets: writes use MSG_NOSIGNAL, so a peer never raises SIGPIPE. */
#ifndef SHB_HARNESS_PEER_H
#define SHB_HARNESS_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "harness/request_head.h"
#include "harness/script.h"

struct event_base;
struct shb_hpeer;

/* Counters since the peer was created; read them on the loop thread or
 * after the loop stopped. */
struct shb_hpeer_stats {
	uint64_t accepted;     /* connections accepted */
	uint64_t closed;       /* connections ended, by either side */
	uint64_t requests;     /* request heads parsed */
	uint64_t bytes_in;     /* bytes read from clients */
	uint64_t bytes_out;    /* bytes written to clients */
	uint64_t protocol_errors; /* malformed heads or bodies, overlong */
	uint64_t mismatches;   /* expect_exact steps that saw other bytes */
	uint64_t resets;       /* connections aborted with RST by the peer */
	uint64_t accept_errors;
};

/* Listens on host:port (host NULL = "127.0.0.1"; "::1" works too; port 0
 * = an ephemeral port, see shb_hpeer_port) and serves connections on base,
 * which the caller keeps and runs. Takes over script in every case (it is
 * freed on failure too). Returns NULL with one line in err on failure
 * (bad address, bind error, broken script). */
struct shb_hpeer *shb_hpeer_new(struct event_base *base, const char *host,
				uint16_t port, struct shb_hscript *script,
				char *err, size_t errlen);
uint16_t shb_hpeer_port(const struct shb_hpeer *p);
/* A server that takes n connections and no more (before the loop runs):
 * its listen queue holds n, accepting waits after_ms (so that a burst of
 * connects fills the queue: the kernel completes n handshakes and drops
 * the SYNs of the rest, whose connects time out), and the listener closes
 * once n are accepted (later connects are refused). Returns 0, or -1 for
 * n 0 or too large, or when listen() or the timer failed. */
int shb_hpeer_set_accept_max(struct shb_hpeer *p, uint64_t n, uint32_t after_ms);
void shb_hpeer_get_stats(const struct shb_hpeer *p,
			 struct shb_hpeer_stats *out);
/* Connections open right now. */
uint64_t shb_hpeer_open_conns(const struct shb_hpeer *p);
/* Stops listening and closes every connection at once (no lingering).
 * Not from a call step of this same peer. */
void shb_hpeer_free(struct shb_hpeer *p);

/* For call steps (script.h); c is valid only during the call. */
/* The last request head parsed on this connection (zeroed before any). */
const struct shb_hreq *shb_hconn_request(const struct shb_hconn *c);
/* Body bytes of the last request (decoded length for chunked). */
uint64_t shb_hconn_body_len(const struct shb_hconn *c);
/* Requests completed on this connection so far, the current one included
 * once its body was read. */
uint64_t shb_hconn_requests(const struct shb_hconn *c);
/* 0-based position of this connection in the peer's accept order. */
uint64_t shb_hconn_index(const struct shb_hconn *c);
struct shb_hpeer *shb_hconn_peer(const struct shb_hconn *c);
/* Queue bytes (copied). Return 0, or -1 when out of memory. */
int shb_hconn_send(struct shb_hconn *c, const void *data, size_t len);
int shb_hconn_printf(struct shb_hconn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
