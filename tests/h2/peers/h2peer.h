/* shb-h2-peer: a scripted HTTP/2 server (h2c, prior knowledge) for the
 * end-to-end tests of the h2 plugin. It speaks just enough of RFC 9113
 * server-side to play one misbehaviour or corner case per mode, checks
 * the client strictly while doing so, and writes what it saw as JSON at
 * exit so that the test scripts can cross-check shb's report.
 *
 * h2peer_main.c holds the options, the listener and the stats file;
 * h2peer_conn.c the connections: frame reading, the checks every mode
 * shares, and the frames we write; h2peer_modes.c what each mode does.
 * Everything runs on one libevent loop thread.
 *
 * It is built on libevent bufferevents rather than the scripted peers of
 * tests/harness: their call steps cannot look at the bytes received, and
 * every mode here decides from frame contents (stream ids, flags, the
 * first octets of a header block, DATA lengths). Frames are written with
 * the h2 plugin's own frame and HPACK encoders. */
#ifndef SHB_H2PEER_H
#define SHB_H2PEER_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "h2_frame.h"
#include "h2_hpack.h"

struct event_base;
struct event;
struct evconnlistener;
struct bufferevent;

enum shb_h2peer_mode {
	SHB_H2PEER_HELLO,
	SHB_H2PEER_GOAWAY_AFTER,
	SHB_H2PEER_REFUSE_FIRST_FLIGHT,
	SHB_H2PEER_TABLE_SIZE,
	SHB_H2PEER_SMALL_WINDOWS,
	SHB_H2PEER_CONTINUATION,
	SHB_H2PEER_RESET,
	SHB_H2PEER_GARBAGE,
	SHB_H2PEER_PING,
	SHB_H2PEER_STALL, /* every Nth request is never answered */
	SHB_H2PEER_HOSTILE, /* one of enum shb_h2peer_hostile */
};

/* Hostile modes (tests/hostile): each breaks one rule of RFC 9113 or
 * RFC 7541, or floods, on every connection. Named in h2peer_main.c. */
enum shb_h2peer_hostile {
	SHB_H2PEER_X_SETTINGS_FLOOD,  /* endless SETTINGS, input not read */
	SHB_H2PEER_X_PING_FLOOD,      /* endless PINGs, input not read */
	SHB_H2PEER_X_WINDOW_FLOOD,    /* endless WINDOW_UPDATE(0, 1) */
	SHB_H2PEER_X_RST_FLOOD,       /* reset a stream, then endless
				       * RST_STREAM on it, input not read */
	SHB_H2PEER_X_WINDOW_OVERFLOW, /* connection window past 2^31-1 */
	SHB_H2PEER_X_STREAM_WINDOW_OVERFLOW, /* a stream's, likewise */
	SHB_H2PEER_X_DATA_STREAM0,    /* DATA on stream 0 */
	SHB_H2PEER_X_HEADERS_STREAM0, /* HEADERS on stream 0 */
	SHB_H2PEER_X_CLOSED_STREAM,   /* the answer, then DATA on it again */
	SHB_H2PEER_X_IDLE_STREAM,     /* an answer on a stream never opened */
	SHB_H2PEER_X_DATA_FIRST,      /* DATA before any HEADERS */
	SHB_H2PEER_X_OVERSIZE,        /* a frame of 2^24-1 octets */
	SHB_H2PEER_X_SETTINGS_BAD,    /* INITIAL_WINDOW_SIZE 2^31 */
	SHB_H2PEER_X_SIZE_UPDATE,     /* table size update to 1 MiB */
	SHB_H2PEER_X_BAD_INDEX,       /* index 70, the dynamic table empty */
	SHB_H2PEER_X_HUFFMAN_EOS,     /* EOS inside a Huffman string */
	SHB_H2PEER_X_HUFFMAN_PAD,     /* 11 bits of Huffman padding */
	SHB_H2PEER_X_INT_OVERFLOW,    /* a prefixed integer of 12 octets */
	SHB_H2PEER_X_HPACK_BOMB,      /* 4 KB entry, referenced 16000 times */
	SHB_H2PEER_X_CONTINUATION_ENDLESS, /* CONTINUATION without end */
	SHB_H2PEER_X_PSEUDO_LATE,     /* :status after a regular field */
	SHB_H2PEER_X_REQUEST_PSEUDO,  /* :method in a response */
	SHB_H2PEER_X_PUSH_PROMISE,    /* PUSH_PROMISE, push disabled */
	SHB_H2PEER_X_GOAWAY_STORM,    /* GOAWAY(0) at once, then close */
	SHB_H2PEER_X_GOAWAY_OPEN,     /* GOAWAY(0) at once, kept open */
	SHB_H2PEER_X_REFUSE_ALL,      /* REFUSED_STREAM on every stream */
	SHB_H2PEER_X_NO_STREAMS,      /* MAX_CONCURRENT_STREAMS 0, forever */
};

/* What a garbage connection sends once the SETTINGS exchange is over. */
enum shb_h2peer_garbage {
	SHB_H2PEER_G_OVERSIZE,     /* a frame header of length 2^24 - 1 */
	SHB_H2PEER_G_SETTINGS_LEN, /* SETTINGS of 7 octets */
	SHB_H2PEER_G_CONTINUATION, /* CONTINUATION without HEADERS */
};

struct shb_h2peer_config {
	enum shb_h2peer_mode mode;
	enum shb_h2peer_garbage garbage;
	enum shb_h2peer_hostile hostile; /* mode SHB_H2PEER_HOSTILE */
	uint64_t arg;          /* the mode's N (see usage in h2peer_main.c) */
	int has_arg;           /* N was given */
	uint32_t goaway_after; /* GOAWAY after this many answers, 0 never */
	uint32_t wait_streams; /* garbage: streams to hold before the bytes */
	uint32_t max_streams;  /* SETTINGS_MAX_CONCURRENT_STREAMS, 0 none */
	uint32_t initial_window; /* SETTINGS_INITIAL_WINDOW_SIZE we announce */
	uint32_t grant_delay_ms; /* 0: WINDOW_UPDATE for every DATA frame;
				  * else only once a window ran low, this
				  * much later (a client that does not wait
				  * for it overruns the window) */
	int send_table_size;   /* announce SETTINGS_HEADER_TABLE_SIZE = arg */
};

/* Counters over the whole life of the peer; written at exit. */
struct shb_h2peer_stats {
	uint64_t connections;   /* accepted */
	uint64_t streams;       /* streams the client opened */
	uint64_t answered;      /* complete responses (END_STREAM sent) */
	uint64_t answered_late; /* of which after our GOAWAY */
	uint64_t status400;     /* of which 400 (small-windows: bad body) */
	uint64_t refused;       /* RST_STREAM(REFUSED_STREAM) sent */
	uint64_t resets_sent;   /* other RST_STREAM sent */
	uint64_t goaways_sent;  /* GOAWAY sent (garbage excluded) */
	uint64_t above_goaway;  /* streams opened above our GOAWAY line */
	uint64_t client_resets; /* RST_STREAM received */
	uint64_t client_goaways;       /* GOAWAY received */
	uint64_t client_goaway_errors; /* of which with a code != NO_ERROR */
	uint64_t violations;    /* the client broke a rule (see stderr) */
	uint64_t pings_sent, pings_acked, ping_mismatches;
	uint64_t size_updates;    /* blocks that began with a size update */
	uint64_t missing_updates; /* first block after the ACK without one */
	uint64_t bodies_ok, bodies_bad, body_bytes;
	uint64_t window_updates;  /* WINDOW_UPDATE frames sent */
	uint64_t max_data_frame;  /* largest DATA payload received */
	uint64_t continuations;   /* CONTINUATION frames sent */
	uint64_t garbage_conns, garbage_streams;
	uint64_t max_open;        /* most streams open at once, after ACK */
	uint64_t bytes_in, bytes_out; /* read from, queued to clients */
	uint64_t idle_conns;      /* connections that opened no stream */
	uint64_t handshake_out;   /* our SETTINGS and ACK on one connection */
	char first_violation[160];
};

struct shb_h2peer_stream {
	uint32_t id;
	uint8_t ended;     /* the client sent END_STREAM */
	uint8_t done;      /* we ended our side (answer or reset) */
	uint8_t ping_wait; /* the answer waits for a PING ACK */
	uint8_t stalled;   /* stall: never answered */
	int64_t window;    /* octets the client may still send on it */
	uint64_t body;     /* DATA octets received */
	uint64_t consumed; /* DATA octets not yet given back */
};

struct shb_h2peer_ping {
	uint8_t data[8];
	uint32_t stream_id; /* answered when the ACK comes, 0 none */
};

struct shb_h2peer;

struct shb_h2peer_conn {
	struct shb_h2peer *peer;
	struct shb_h2peer_conn *prev, *next;
	struct bufferevent *bev;
	struct event *timer;
	struct event *grant_timer; /* delayed WINDOW_UPDATEs */
	uint64_t index; /* accept order, from 0 */

	uint8_t preface_ok;
	uint8_t got_settings; /* the client's first SETTINGS arrived */
	uint8_t acked;        /* the client ACKed our SETTINGS */
	uint8_t closing;      /* no more output; shut down once flushed */
	uint8_t shut;         /* write side shut down, lingering */
	uint8_t garbage;      /* this connection gets garbage */
	uint8_t garbage_sent;
	uint8_t goaway_sent;
	uint8_t first_block_checked; /* table-size: first block after ACK */
	uint8_t broken;       /* input no longer parsed (after a violation) */
	uint8_t flooding;     /* hostile: output refilled whenever it drains */
	uint32_t flood_id;    /* hostile: the stream a flood is about */

	uint32_t client_max_frame; /* the client's SETTINGS_MAX_FRAME_SIZE */
	uint32_t last_id;          /* highest stream id the client opened */
	uint32_t goaway_last;      /* our GOAWAY's last stream id */
	uint32_t hb_id;            /* header block awaiting CONTINUATION */
	uint8_t hb_end_stream;
	uint8_t hb_head[8];        /* the block's first octets */
	uint8_t hb_head_len;

	int64_t conn_window;   /* octets the client may still send */
	uint64_t conn_consumed; /* not yet given back */
	uint32_t seen, answered;
	size_t in_left; /* input left unparsed by the last read callback */

	struct shb_h2peer_stream *streams; /* open ones only */
	size_t nstreams, cstreams;
	struct shb_h2peer_ping *pings;     /* not yet ACKed, oldest first */
	size_t npings, cpings;
	uint32_t ping_seq;
};

struct shb_h2peer {
	struct event_base *base;
	struct evconnlistener *lis;
	struct shb_h2peer_config cfg;
	struct shb_h2peer_stats st;
	struct shb_h2peer_conn *conns;
	uint64_t requests; /* complete requests, every connection */
	/* The peer's own blocks: built once, as large as a mode asks
	 * (continuation sends up to several MiB). */
#define SHB_H2PEER_BLOCK_MAX ((size_t)256 << 20)
	struct shb_buf hello;    /* :status 200, content-length 13 */
	struct shb_buf bad;      /* :status 400, content-length 13 */
	struct shb_buf big;      /* continuation: the large block */
};

#define SHB_H2PEER_BODY "hello, world!"
#define SHB_H2PEER_BODY_LEN 13
/* The largest frame we accept (we never raise SETTINGS_MAX_FRAME_SIZE). */
#define SHB_H2PEER_MAX_FRAME SHB_H2_MIN_FRAME_SIZE

/* ---- h2peer_conn.c ---- */
void shb_h2peer_accept(struct shb_h2peer *p, int fd);
void shb_h2peer_conn_free(struct shb_h2peer_conn *c);
/* Records a rule the client broke: one line on stderr and a count. */
__attribute__((format(printf, 2, 3))) void
shb_h2peer_violation(struct shb_h2peer_conn *c, const char *fmt, ...);
/* Queues raw bytes; nothing once the connection is closing. */
void shb_h2peer_send(struct shb_h2peer_conn *c, const void *data, size_t n);
/* A header block as HEADERS plus CONTINUATION frames no larger than the
 * client allows; first_len (0: as large as allowed) sizes the HEADERS. */
void shb_h2peer_send_block(struct shb_h2peer_conn *c, uint32_t id,
			   const struct shb_buf *block, size_t first_len,
			   int end_stream);
/* The response: block (first_len as for send_block), then the body in
 * one DATA with END_STREAM. Ends the stream on our side. */
void shb_h2peer_answer(struct shb_h2peer_conn *c, struct shb_h2peer_stream *s,
		       const struct shb_buf *block, size_t first_len);
/* RST_STREAM(code); ends the stream on our side. */
void shb_h2peer_reset(struct shb_h2peer_conn *c, struct shb_h2peer_stream *s,
		      uint32_t code);
void shb_h2peer_goaway(struct shb_h2peer_conn *c, uint32_t last, uint32_t code);
void shb_h2peer_window_update(struct shb_h2peer_conn *c, uint32_t id,
			      uint32_t inc);
void shb_h2peer_ping(struct shb_h2peer_conn *c, uint32_t answer_id);
/* Stop writing: shut the write side down once the output is flushed,
 * then read (and count) until the client closes. */
void shb_h2peer_close(struct shb_h2peer_conn *c);
struct shb_h2peer_stream *shb_h2peer_stream_find(struct shb_h2peer_conn *c,
						 uint32_t id);
/* Streams we have not ended yet. */
uint32_t shb_h2peer_open_streams(const struct shb_h2peer_conn *c);
void shb_h2peer_arm_timer(struct shb_h2peer_conn *c, uint32_t ms);
/* Stops reading the client (hostile floods): nothing it sends is seen. */
void shb_h2peer_stop_reading(struct shb_h2peer_conn *c);
/* Queues one frame. */
void shb_h2peer_frame(struct shb_h2peer_conn *c, uint32_t len, uint8_t type,
		      uint8_t flags, uint32_t id, const void *payload);

/* ---- h2peer_modes.c ---- */
/* Fills the mode's config defaults; -1 on an argument it cannot use. */
int shb_h2peer_mode_setup(struct shb_h2peer *p, char *err, size_t errlen);
/* The SETTINGS entries we announce; returns how many (at most max). */
size_t shb_h2peer_mode_settings(const struct shb_h2peer *p,
				struct shb_h2_setting_kv *kv, size_t max);
/* The client ACKed our SETTINGS. */
void shb_h2peer_mode_acked(struct shb_h2peer_conn *c);
/* A stream opened: its header block is complete; head[len] are the
 * block's first octets (len < 8 only for a shorter block). */
void shb_h2peer_mode_opened(struct shb_h2peer_conn *c,
			    struct shb_h2peer_stream *s, const uint8_t *head,
			    size_t len);
/* The request is complete (END_STREAM received). */
void shb_h2peer_mode_request(struct shb_h2peer_conn *c,
			     struct shb_h2peer_stream *s);
/* A PING ACK arrived with payload data[8]. */
void shb_h2peer_mode_ping_ack(struct shb_h2peer_conn *c, const uint8_t *data);
void shb_h2peer_mode_timer(struct shb_h2peer_conn *c);
/* The output drained (hostile floods refill it). */
void shb_h2peer_mode_writable(struct shb_h2peer_conn *c);
/* The connection was accepted and our SETTINGS queued. */
void shb_h2peer_mode_accepted(struct shb_h2peer_conn *c);
/* A stream of ours ended: GOAWAY-after and closing decisions. */
void shb_h2peer_mode_stream_done(struct shb_h2peer_conn *c, uint32_t id);

/* ---- h2peer_hostile.c ---- */
/* The block a response-breaking mode answers with, into p->big. */
int shb_h2peer_hostile_setup(struct shb_h2peer *p);
size_t shb_h2peer_hostile_settings(const struct shb_h2peer *p,
				   struct shb_h2_setting_kv *kv, size_t max);
void shb_h2peer_hostile_accepted(struct shb_h2peer_conn *c);
void shb_h2peer_hostile_acked(struct shb_h2peer_conn *c);
/* Returns 1 when the mode took the stream over. */
int shb_h2peer_hostile_opened(struct shb_h2peer_conn *c,
			      struct shb_h2peer_stream *s);
void shb_h2peer_hostile_request(struct shb_h2peer_conn *c,
				struct shb_h2peer_stream *s);
void shb_h2peer_hostile_writable(struct shb_h2peer_conn *c);

#endif
