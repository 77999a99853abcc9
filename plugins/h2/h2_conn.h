/* HTTP/2 connection: many concurrent streams over one transport, driven
 * through the [conn] entries of the protocol vtable (proto.h has the
 * contract). `conn` is core memory of sizeof(struct shb_h2_conn) bytes;
 * the stream table (sized by -p) and the two output buffers are
 * allocated once per connection, never per request.
 *
 * h2_conn.c holds the vtable entries and the stream table, h2_recv.c the
 * frame reader and the handling of every received frame (header blocks
 * in h2_recv_headers.c, control frames in h2_recv_ctrl.c), h2_send.c the
 * output buffers, the frames we write and request body pumping. */
#ifndef SHB_H2_CONN_H
#define SHB_H2_CONN_H

#include <stddef.h>
#include <string.h>

#include <shb/ext/h2.h>
#include <shb/host.h>
#include <shb/proto.h>

#include "common/buf.h"
#include "h2_fields.h"
#include "h2_frame.h"
#include "h2_hpack.h"
#include "h2_hscan.h"
#include "h2_profile.h"
#include "h2_request.h"
#include "h2_resp.h"

#define SHB_H2_PLUGIN_ID "org.shb.proto.h2"

/* Until the peer's first SETTINGS says otherwise (RFC 9113 leaves it
 * open; 100 is what servers commonly allow). */
#define SHB_H2_ASSUMED_MAX_STREAMS 100u
/* Request bodies are cut into DATA frames only while the filling output
 * buffer holds less than this; the rest follows after the next send. */
#define SHB_H2_PUMP_LIMIT (256u * 1024u)
/* SETTINGS_HEADER_TABLE_SIZE before any SETTINGS (RFC 9113 6.5.2): the
 * peer's table, for our encoder, until its SETTINGS; ours, for its
 * encoder, always, since we do not send the setting. */
#define SHB_H2_DEFAULT_TABLE_SIZE 4096u

/* ---- bounds (docs/ARCHITECTURE.md, "Bounds, backpressure and retries") ----
 * Control frames we owe the peer (PING and SETTINGS ACKs, RST_STREAM,
 * WINDOW_UPDATE) wait in the output queue until the transport takes
 * them. Past the soft cap recv stops taking input (it returns less than
 * offered, with WANT_WRITE) until a send drains the queue, so a peer that
 * floods PINGs and never reads is held there; past the hard cap (like
 * nghttp2's max outbound ack) the connection fails. */
#define SHB_H2_CTRL_SOFT 256u
#define SHB_H2_CTRL_HARD 1000u
/* Each of the two output buffers (common/buf.h caps them): what fills
 * between two sends is the control frames above, the HEADERS of the
 * streams issued meanwhile and request DATA only up to SHB_H2_PUMP_LIMIT;
 * 64 MiB is far above that for any sane template, and where a bug or a
 * peer pattern we did not foresee stops. */
#define SHB_H2_OUT_MAX ((size_t)64 << 20)
/* A varied request body (issue_var), copied per stream slot: the host
 * lends it; the core reads bodies of at most 64 MiB. */
#define SHB_H2_VAR_BODY_MAX ((size_t)64 << 20)
/* One header block (HEADERS + CONTINUATION, response head or trailers):
 * octets on the wire and frames; the decoded list is capped by the
 * scanner (SHB_H2_HSCAN_MAX_LIST). */
#define SHB_H2_MAX_BLOCK_BYTES (256u * 1024u)
#define SHB_H2_MAX_BLOCK_FRAMES 64u
/* Interim (1xx) heads before the final one, per stream. */
#define SHB_H2_MAX_INTERIM 16u
/* Entries in one SETTINGS frame (nghttp2 allows 32): each may walk every
 * stream. */
#define SHB_H2_MAX_SETTINGS_ENTRIES 32u
/* Frames that cost us work and do nothing, counted per second, with the
 * most each may reach in one second (shb_h2_flood_caps). */
#define SHB_H2_FLOOD_INTERVAL 1000000000ull /* ns */
enum shb_h2_flood {
	SHB_H2_FLOOD_PING,       /* PING (not ACK): each costs an ACK */
	SHB_H2_FLOOD_SETTINGS,   /* SETTINGS (not ACK): each costs an ACK */
	SHB_H2_FLOOD_RST_STREAM, /* RST_STREAM, on any stream */
	SHB_H2_FLOOD_EMPTY_DATA, /* DATA of 0 octets without END_STREAM */
	SHB_H2_FLOOD_WINDOW_UPDATE, /* while we have sent no DATA at all */
	SHB_H2_FLOOD_KINDS,
};

/* What connections read from their module; immutable once workers run. */
struct shb_h2_module {
	const struct shb_host *host;
	uint32_t run_flags; /* enum shb_run_flags */
	uint32_t parallel;  /* -p: streams per connection */
	uint32_t debug;     /* host->log_enabled(SHB_LOG_DEBUG) at create */
	/* Set through org.shb.h2.proto/1 (shb/ext/h2.h) before workers
	 * start: connections decode every field for the observer. */
	uint32_t observed;
	struct shb_h2_observer obs; /* members of a shorter table are NULL */
	/* --proto-opt priority-update=off: never send PRIORITY_UPDATE. */
	uint32_t no_prio_update;
	/* --proto-opt profile=NAME (h2_profile.h; shb's own by default) and
	 * the preface it sends, written once at module_create. */
	const struct shb_h2_profile *prof;
	struct shb_h2_preface preface;
	/* SHB_RUN_WANT_RESPONSE (ABI 1.4): connections keep each response
	 * for req_response (h2_resp.h), and its body up to body_max
	 * (run_config.response_body_max with SHB_RUN_WANT_BODY, else 0). */
	uint32_t want_response;
	uint64_t body_max;
};

#define SHB_H2_PEER_ENDED 64

struct shb_h2_stream {
	/* Set for every stream as it starts (open_stream, start, issue*). */
	uint64_t cookie;
	const struct shb_h2_request *req;
	/* The body this stream sends: the template's, or (issue_var) a copy
	 * in the slot's vbody. */
	const uint8_t *body;
	uint64_t body_len;
	int64_t send_window;   /* may go negative after a SETTINGS change */
	/* From here on zero in a free slot (shb_h2_stream_clear). */
	uint64_t body_off; /* request body octets already framed */
	uint64_t rx_header_bytes;
	uint64_t rx_body_bytes;
	shb_tstamp ts_first_byte;
	uint64_t recv_used;    /* DATA octets since our last WINDOW_UPDATE */
	uint32_t id;           /* 0: the slot is free */
	uint16_t status;       /* final status once its HEADERS arrived */
	uint8_t body_pending;  /* request body not completely framed */
	uint8_t got_final;     /* a final (non-1xx) response head arrived */
	uint8_t interim;       /* 1xx heads so far */
};

enum shb_h2_read_phase {
	SHB_H2_R_HEADER,  /* reading the 9-octet frame header */
	SHB_H2_R_PREFIX,  /* pad length and priority fields */
	SHB_H2_R_PAYLOAD, /* the frame's content */
	SHB_H2_R_PAD,     /* padding */
};

/* The incremental frame reader: input may be split at any octet. */
struct shb_h2_reader {
	struct shb_h2_frame_header fh;
	uint8_t hdr[SHB_H2_FRAME_HEADER_LEN];
	uint8_t hdr_have;
	uint8_t reserved1;
	uint8_t prefix_need, prefix_have;
	uint8_t prefix[6];
	uint8_t small[8]; /* the fixed part of a control frame */
	uint8_t small_have;
	uint8_t reserved0;
	uint32_t payload_left; /* content octets still to come */
	uint32_t pad_left;
	/* enum shb_h2_read_phase. A word of its own, away from the octets
	 * above: the reader tests it with hdr_have after writing it, and a
	 * load that spans both would wait for the store to retire. */
	uint32_t phase;
	struct shb_h2_stream *st; /* the frame's stream, NULL to ignore */
};

struct shb_h2_conn {
	const struct shb_h2_module *mod;
	struct shb_conn *handle;
	shb_tstamp now; /* of the current call */

	/* streams: stream id 2k+1 lives in slot k & slot_mask */
	struct shb_h2_stream *streams;
	uint32_t slot_mask;
	uint32_t open;         /* slots in use */
	uint32_t next_k;       /* the next stream id is at least 2k+1 */
	uint32_t body_streams; /* streams with body_pending */
	uint32_t pump_cursor;  /* round-robin start for bodies */

	/* the peer's settings and our view of its flow control */
	uint32_t peer_max_streams;
	uint32_t peer_max_frame;
	uint32_t peer_initial_window;
	uint32_t enc_table_size;  /* our encoder's table size limit */
	int64_t send_window;      /* connection window toward the peer */
	int64_t recv_window;      /* connection window we granted */
	uint32_t goaway_last_id;  /* from the peer's GOAWAY */
	/* The last streams the peer ended (END_STREAM, or RST_STREAM with
	 * the top bit set), so that DATA or HEADERS after that is caught
	 * (RFC 9113 5.1); older ones are dropped like streams we ended. */
	uint32_t peer_ended[SHB_H2_PEER_ENDED];
	uint32_t peer_ended_next;
	uint32_t goaway_code;

	/* output: out[fill] fills while out[fill ^ 1] is being sent */
	struct shb_buf out[2];
	size_t sent_off; /* of out[fill ^ 1] */
	uint32_t ctrl_fill; /* control frames in out[fill] */
	uint32_t ctrl_busy; /* control frames in out[fill ^ 1] */
	uint8_t fill;
	uint8_t data_sent; /* a DATA frame was queued on this connection */

	uint8_t ready;        /* transport up, preface queued */
	uint8_t got_settings; /* the peer's first SETTINGS arrived */
	uint8_t draining;     /* no new streams (GOAWAY, ids, shutdown) */
	uint8_t goaway_rcvd;
	uint8_t goaway_sent;
	uint8_t closed;       /* finished: state() says CLOSED */
	uint8_t pump_more;    /* bodies stopped at SHB_H2_PUMP_LIMIT */
	uint8_t size_update;  /* announce enc_table_size in the next block */
	uint8_t settings_acked; /* the peer acknowledged our SETTINGS */
	/* SETTINGS_NO_RFC7540_PRIORITIES of the peer's first SETTINGS. */
	uint8_t peer_no_7540;
	uint8_t fp_done; /* the connection's fingerprint went to the host */

	/* input */
	uint64_t frames_in; /* complete frames received */
	struct shb_h2_reader rd;
	uint32_t hb_sid; /* header block awaiting CONTINUATION, 0 none */
	uint32_t hb_bytes;  /* octets of the block so far */
	uint32_t hb_frames; /* frames of the block so far */
	uint8_t hb_end_stream;
	/* The block's scanner is not begun yet: its first piece starts it
	 * (shb_h2_hscan_start), or its end does when none came. */
	uint8_t hb_unstarted;
	struct shb_h2_stream *hb_stream; /* NULL: block of an ignored stream */
	struct shb_h2_hscan hscan;
	struct shb_h2_hmemo hmemo; /* repeated Huffman values and blocks, for hscan */
	struct shb_h2_dtable dtable; /* our decoder's, for the whole connection */
	/* Observed modules only: the table's octets and the decoded fields
	 * of the current block (h2_fields.h has their bounds). */
	uint8_t *dtable_octets;
	struct shb_h2_fields fields;
	shb_tstamp flood_start; /* of the current counting second */
	uint32_t flood[SHB_H2_FLOOD_KINDS];

	/* issue_var: the varied header block (reused: copied into the
	 * HEADERS frames at once) and one body buffer per stream slot
	 * (NULL until the first varied body; each grows by doubling to hold
	 * the largest body its slot carried, capped at SHB_H2_VAR_BODY_MAX).
	 * Freed by conn_fini. */
	struct shb_buf vblock;
	struct shb_buf *vbody;
	/* ABI 1.4 (h2_resp.h): responses kept for req_response (NULL unless
	 * the run wants them), and issue_req's requests by slot (NULL until
	 * the first). */
	struct shb_h2_keep *keep;
	struct shb_h2_request **oreq;

	const char *detail; /* last error, into detail_buf or static */
	char detail_buf[200];
	char goaway_debug[64]; /* GOAWAY debug data, printable prefix */
	uint8_t goaway_debug_len;
};

/* ---- vtable entries (h2_conn.c) ---- */
int shb_h2_conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now);
void shb_h2_conn_fini(void *conn);
int shb_h2_conn_transport_ready(void *conn,
				const struct shb_transport_info *info,
				shb_tstamp now);
shb_ssize shb_h2_conn_recv(void *conn, const uint8_t *data, size_t len,
			   shb_tstamp now);
int shb_h2_conn_recv_eof(void *conn, shb_tstamp now);
shb_ssize shb_h2_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
				shb_tstamp now);
void shb_h2_conn_sent(void *conn, size_t n, shb_tstamp now);
uint32_t shb_h2_conn_state(const void *conn);
uint32_t shb_h2_conn_capacity(const void *conn);
int shb_h2_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		      shb_tstamp now);
int shb_h2_conn_issue_var(void *conn, const void *prepared,
			  const struct shb_request_var *var, uint64_t cookie,
			  shb_tstamp now);
int shb_h2_conn_issue_req(void *conn, const struct shb_request *req,
			  uint64_t cookie, shb_tstamp now);
void shb_h2_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now);
void shb_h2_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now);
const char *shb_h2_conn_error_detail(const void *conn);

/* ---- shared inside the plugin ---- */

/* The open stream with this id, or NULL: stream id 2k+1 lives in slot
 * k & slot_mask. Inline: every HEADERS and DATA frame looks it up. */
static inline struct shb_h2_stream *shb_h2_stream_find(struct shb_h2_conn *c,
							uint32_t id)
{
	struct shb_h2_stream *s;

	if (!(id & 1))
		return NULL;
	s = &c->streams[(id >> 1) & c->slot_mask];
	return s->id == id ? s : NULL;
}
/* Frees stream s's slot: zero from body_off on, what a stream starts
 * from; the members before it are set by every start. A third of the
 * slot fewer to clear for every response. */
static inline void shb_h2_stream_clear(struct shb_h2_stream *s)
{
	memset(&s->body_off, 0,
	       sizeof(*s) - offsetof(struct shb_h2_stream, body_off));
}
/* Non-zero when id is a client stream id we have already used. */
int shb_h2_stream_used_id(const struct shb_h2_conn *c, uint32_t id);
/* Ends a stream: reports it through req_done (unless outcome is
 * SHB_REQ_CANCELLED, which the core asked for) and frees its slot. */
void shb_h2_stream_finish(struct shb_h2_conn *c, struct shb_h2_stream *s,
			  uint32_t outcome, uint64_t err_code,
			  const char *detail);

/* The observer extension (h2_plugin.c). */
extern const struct shb_h2_proto_ext shb_h2_proto_ext;

/* A connection error: records the detail, queues GOAWAY(code), marks the
 * connection closed. Returns SHB_E_PROTO for recv to pass on. */
__attribute__((format(printf, 3, 4))) int
shb_h2_conn_error(struct shb_h2_conn *c, uint32_t code, const char *fmt, ...);

/* One DEBUG line (only call when c->mod->debug). */
__attribute__((format(printf, 2, 3))) void
shb_h2_trace(const struct shb_h2_conn *c, const char *fmt, ...);

/* ---- h2_recv.c ---- */
/* Consumes data[len]: the octets taken (fewer than len once the control
 * frames queued reach SHB_H2_CTRL_SOFT; the rest waits for a send), or a
 * negative SHB_E_*. */
shb_ssize shb_h2_read(struct shb_h2_conn *c, const uint8_t *data, size_t len);

/* Most frames of each enum shb_h2_flood kind in one second. */
extern const uint32_t shb_h2_flood_caps[SHB_H2_FLOOD_KINDS];

/* ---- h2_send.c ---- */
/* Sets up both output buffers, empty, capped at SHB_H2_OUT_MAX. */
void shb_h2_out_init(struct shb_h2_conn *c);
/* Room for n more octets at the end of the filling buffer, or NULL when
 * memory ran out or the buffer would pass its cap (sticky until the
 * connection ends); shb_h2_out_commit(c, n) then accounts them. */
uint8_t *shb_h2_out_reserve(struct shb_h2_conn *c, size_t n);
void shb_h2_out_commit(struct shb_h2_conn *c, size_t n);
/* Octets queued and not yet accepted by the transport. */
size_t shb_h2_out_pending(const struct shb_h2_conn *c);
/* Control frames queued and not yet accepted by the transport. Inline:
 * the reader asks before every frame. */
static inline uint32_t shb_h2_ctrl_pending(const struct shb_h2_conn *c)
{
	return c->ctrl_fill + c->ctrl_busy;
}
void shb_h2_out_free(struct shb_h2_conn *c);

/* The connection preface, our SETTINGS and the connection WINDOW_UPDATE,
 * put before anything already queued. */
int shb_h2_send_preface(struct shb_h2_conn *c);
int shb_h2_send_settings_ack(struct shb_h2_conn *c);
int shb_h2_send_ping_ack(struct shb_h2_conn *c, const uint8_t *data);
int shb_h2_send_window_update(struct shb_h2_conn *c, uint32_t stream_id,
			      uint32_t increment);
int shb_h2_send_rst_stream(struct shb_h2_conn *c, uint32_t stream_id,
			   uint32_t code);
int shb_h2_send_goaway(struct shb_h2_conn *c, uint32_t last_id,
		       uint32_t code);
/* HEADERS (and CONTINUATION) for stream s with header block
 * block[0..len), END_STREAM when s has no body. */
int shb_h2_send_headers(struct shb_h2_conn *c, struct shb_h2_stream *s,
			const uint8_t *block, size_t len);
/* The same for a stream sending request r as its template is (its
 * block and body): r's HEADERS frame copied with s's id when it has
 * one, no table size update goes first and the room is there (not
 * tracing), else the above. Inline: one a request. */
static inline int shb_h2_send_headers_as(struct shb_h2_conn *c,
					 struct shb_h2_stream *s,
					 const struct shb_h2_request *r)
{
	struct shb_buf *b = &c->out[c->fill];
	size_t n = SHB_H2_FRAME_HEADER_LEN + r->block_len;
	uint32_t id = s->id & SHB_H2_MAX_STREAM_ID;
	uint8_t *p;

	if (!r->frame || c->size_update || c->mod->debug ||
	    !(p = shb_buf_room(b, n)))
		return shb_h2_send_headers(c, s, r->block, r->block_len);
	shb_buf_commit(b, n);
	memcpy(p, r->frame, n);
	p[5] = (uint8_t)(id >> 24);
	p[6] = (uint8_t)(id >> 16);
	p[7] = (uint8_t)(id >> 8);
	p[8] = (uint8_t)id;
	return SHB_OK;
}
/* PRIORITY_UPDATE for stream s with the Priority field value[len], put
 * right before its HEADERS (same buffer, so the same write) when RFC
 * 9218 Section 2.1.1 says the server may use it: before the server's
 * first SETTINGS, or when that SETTINGS had NO_RFC7540_PRIORITIES = 1;
 * never with --proto-opt priority-update=off, nor for a value the
 * peer's frame size cannot hold. */
int shb_h2_send_priority_update(struct shb_h2_conn *c,
				const struct shb_h2_stream *s,
				const char *value, size_t len);
/* Frames pending request bodies as far as windows and the pump limit
 * allow. */
int shb_h2_pump(struct shb_h2_conn *c);

shb_ssize shb_h2_out_pull(struct shb_h2_conn *c, struct shb_vec *vecs,
			  size_t max);
void shb_h2_out_sent(struct shb_h2_conn *c, size_t n);

#endif
