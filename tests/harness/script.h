/* Scripts for scripted TCP peers (see peer.h).
 *
 * A script is a list of steps that a peer runs, from step 0, for every
 * connection it accepts. Each connection has its own position in the
 * script, so one script serves any number of connections. Running past
 * the last step closes the connection gracefully (like a close step).
 *
 * Ownership: a script is built once, then handed to shb_hpeer_new(), which
 * takes it over (the peer frees it). Do not add steps after that.
 * Builders copy every byte they are given. Threading: a script is plain
 * data; build it on any thread before handing it over.
 *
 * Every builder returns the index of the step it added (use it with
 * shb_hscript_repeat), or -1 when an argument is invalid or memory ran
 * out. A script that saw a failed builder stays marked as broken and
 * shb_hpeer_new() refuses it, so callers may check only once at the end. */
#ifndef SHB_HARNESS_SCRIPT_H
#define SHB_HARNESS_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

struct shb_hscript;
struct shb_hconn;

/* What a call step tells the peer to do next. */
enum shb_hact {
	SHB_HACT_NEXT = 0, /* go on with the next step */
	SHB_HACT_CLOSE,    /* flush what was queued, then close gracefully */
	SHB_HACT_RESET,    /* drop queued bytes and abort (TCP RST) */
	SHB_HACT_STALL,    /* as shb_hscript_stall */
};

/* A call step. Runs on the event loop thread; c is valid for the call.
 * It may queue bytes with shb_hconn_send / shb_hconn_printf (peer.h). */
typedef enum shb_hact (*shb_hscript_fn)(struct shb_hconn *c, void *arg);

struct shb_hscript *shb_hscript_new(void);
void shb_hscript_free(struct shb_hscript *s);
/* 1 when every builder call so far succeeded. */
int shb_hscript_ok(const struct shb_hscript *s);
size_t shb_hscript_steps(const struct shb_hscript *s);

/* Waits for n bytes (n >= 1) and discards them. */
int shb_hscript_expect_bytes(struct shb_hscript *s, uint64_t n);
/* Waits for exactly these bytes. Different bytes count as a mismatch in
 * the peer's stats and abort the connection (RST). */
int shb_hscript_expect_exact(struct shb_hscript *s, const void *data,
			     size_t len);
/* Waits for bytes up to and including pat (patlen >= 1) and discards
 * them. More than max bytes without pat is a protocol error (abort). */
int shb_hscript_expect_until(struct shb_hscript *s, const void *pat,
			     size_t patlen, size_t max);
/* Waits for an HTTP/1.x request head (empty lines before it are skipped)
 * and parses it (shb_hconn_request). A malformed head is a protocol error
 * (abort). The body is left unread. */
int shb_hscript_expect_head(struct shb_hscript *s);
/* Reads and discards the body of the last head: Content-Length bytes or a
 * chunked body; nothing when the head announced no body. */
int shb_hscript_expect_body(struct shb_hscript *s);
/* One step doing expect_head then expect_body; counts one request. */
int shb_hscript_expect_request(struct shb_hscript *s);
/* Queues bytes to send. Sending goes on in the background; later steps
 * do not wait for it (a close step does). */
int shb_hscript_send(struct shb_hscript *s, const void *data, size_t len);
int shb_hscript_send_str(struct shb_hscript *s, const char *str);
/* Waits ms milliseconds; input arriving meanwhile is kept for later
 * steps. */
int shb_hscript_delay(struct shb_hscript *s, uint32_t ms);
/* Stops the script: the connection stays open, input is read and
 * discarded, nothing more is sent; it ends when the client closes or the
 * peer is freed. */
int shb_hscript_stall(struct shb_hscript *s);
/* Flushes queued bytes, then half-closes (FIN) and lingers: input is read
 * and discarded until the client closes or a few seconds pass, so the
 * client is never hit by an RST for bytes it had already sent. */
int shb_hscript_close(struct shb_hscript *s);
/* Aborts the connection at once with an RST; queued bytes are dropped. */
int shb_hscript_reset(struct shb_hscript *s);
/* Closes (as shb_hscript_close) when the last request head asked for it:
 * "Connection: close", or HTTP/1.0 without keep-alive. */
int shb_hscript_close_if_asked(struct shb_hscript *s);
/* Jumps back to step `step` (which must exist already). times == 0 jumps
 * forever; otherwise the jump is taken `times` times per connection,
 * then the script goes on after this step. */
int shb_hscript_repeat(struct shb_hscript *s, int step, uint32_t times);
/* Calls fn(conn, arg); arg is borrowed and must outlive the peer. */
int shb_hscript_call(struct shb_hscript *s, shb_hscript_fn fn, void *arg);

#endif
