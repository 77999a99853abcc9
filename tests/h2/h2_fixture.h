/* Driving one HTTP/2 connection through the vtable with the test kit's
 * module and connection driver (shb/kit/driver.h) as the core does, and
 * building the server's side of the conversation. Every [conn] call goes
 * through the kit at time f->now, so that its host knows which call on
 * which connection is in progress. */
#ifndef SHB_H2_FIXTURE_H
#define SHB_H2_FIXTURE_H

#include "h2_conn.h"
#include "h2_tests.h"

/* A growable byte string. */
struct shb_h2_bytes {
	uint8_t *p;
	size_t len, cap;
};

void shb_h2_bytes_add(struct shb_h2_bytes *b, const void *p, size_t n);
void shb_h2_bytes_free(struct shb_h2_bytes *b);

struct shb_h2_fx {
	struct shb_kit_module km;
	struct shb_kit_conn kc; /* kc.handle: what h2 names the connection */
	const struct shb_proto_vtable *vt;
	void *mod;  /* km.module */
	void *prep; /* km.prepared */
	struct shb_h2_conn *c; /* kc.mem */
	struct shb_h2_bytes sent; /* everything sent after the preface */
	uint64_t next_cookie;
	shb_tstamp now;
};

/* Opens a connection for a run with `parallel` streams; body may be NULL
 * (a GET), else a POST of body[body_len]. */
void shb_h2_fx_open(struct shb_h2_fx *f, uint32_t run_flags,
		    uint32_t parallel, const uint8_t *body, size_t body_len,
		    const struct shb_kv *headers, size_t header_count,
		    int debug);
/* Transport ready; checks and drops the 58-octet preface + SETTINGS +
 * WINDOW_UPDATE from the output. */
void shb_h2_fx_ready(struct shb_h2_fx *f);
/* Finalises the connection and the module, and asserts that the plugin
 * broke no rule of the host (req_done and conn_event only from a call on
 * their connection, once per cookie, full-size results and events, log
 * lines under its own id). */
void shb_h2_fx_close(struct shb_h2_fx *f);

/* The vtable members, through the kit, at f->now. */
uint32_t shb_h2_fx_state(struct shb_h2_fx *f);
uint32_t shb_h2_fx_capacity(struct shb_h2_fx *f);
shb_tstamp shb_h2_fx_next_deadline(struct shb_h2_fx *f);
const char *shb_h2_fx_error_detail(struct shb_h2_fx *f);
int shb_h2_fx_issue_rc(struct shb_h2_fx *f, uint64_t cookie);
void shb_h2_fx_cancel(struct shb_h2_fx *f, uint64_t cookie);
void shb_h2_fx_shutdown(struct shb_h2_fx *f, uint32_t mode);
int shb_h2_fx_recv_eof(struct shb_h2_fx *f);
int shb_h2_fx_on_timer(struct shb_h2_fx *f);
shb_ssize shb_h2_fx_pull_send(struct shb_h2_fx *f, struct shb_vec *v,
			      size_t max);
void shb_h2_fx_sent(struct shb_h2_fx *f, size_t n);

/* Issues one request; returns its cookie. */
uint64_t shb_h2_fx_issue(struct shb_h2_fx *f);
/* Pulls and "sends" everything (at most `chunk` octets per send, 0 for
 * all), appending to f->sent. Returns the octets. */
size_t shb_h2_fx_flush(struct shb_h2_fx *f, size_t chunk);
/* Feeds server bytes whole; returns recv's result. */
shb_ssize shb_h2_fx_recv(struct shb_h2_fx *f, const void *p, size_t n);

/* A parsed frame from f->sent. */
struct shb_h2_fx_frame {
	struct shb_h2_frame_header h;
	const uint8_t *payload;
};
/* Splits p[n] into frames (fatal if it does not end on a frame). */
size_t shb_h2_fx_frames(const uint8_t *p, size_t n,
			struct shb_h2_fx_frame *fr, size_t max);

/* ---- server frames ---- */
void shb_h2_srv_frame(struct shb_h2_bytes *b, uint8_t type, uint8_t flags,
		      uint32_t sid, const void *payload, size_t len);
void shb_h2_srv_settings(struct shb_h2_bytes *b,
			 const struct shb_h2_setting_kv *kv, size_t n);
/* HEADERS with a one-octet static :status (index 8..14) or a literal
 * status with name index 8, plus some other fields. */
void shb_h2_srv_status(struct shb_h2_bytes *b, uint32_t sid, uint8_t flags,
		       int status);
void shb_h2_srv_data(struct shb_h2_bytes *b, uint32_t sid, uint8_t flags,
		     const char *text);
void shb_h2_srv_u32(struct shb_h2_bytes *b, uint8_t type, uint32_t sid,
		    uint32_t v);
void shb_h2_srv_goaway(struct shb_h2_bytes *b, uint32_t last, uint32_t code,
		       const char *debug);

/* The result recorded for `cookie`, or NULL. */
const struct shb_kit_done *shb_h2_fx_done(uint64_t cookie);

/* ---- steps the connection tests share ---- */

/* nginx's SETTINGS: 128 streams, a 64 KiB window, the largest frames. */
extern const struct shb_h2_setting_kv shb_h2_fx_nginx_settings[];
/* Server SETTINGS fed and our ACK checked and dropped. */
void shb_h2_fx_hello(struct shb_h2_fx *f);
/* Feeds `in` after the server's SETTINGS (unless raw) and expects a
 * connection error whose detail contains `text`, a GOAWAY with `code`,
 * and a CLOSED state; also split at every `step` offsets (1: every). */
void shb_h2_fx_conn_error_step(const struct shb_h2_bytes *in, int raw,
			       uint32_t code, const char *text, size_t step);
void shb_h2_fx_conn_error(const struct shb_h2_bytes *in, int raw,
			  uint32_t code, const char *text);
/* The same for one server frame. */
void shb_h2_fx_conn_error_frame(uint8_t type, uint8_t flags, uint32_t sid,
				const void *p, size_t n, uint32_t code,
				const char *text);
/* `b` on stream 1 of two resets only that stream, its detail `detail`. */
void shb_h2_fx_stream_error(const struct shb_h2_bytes *b, const char *detail);

#endif
