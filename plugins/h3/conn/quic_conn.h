/* The QUIC v1 client connection (RFC 9000, 9001, 9002) that carries
 * HTTP/3: handshake, packets, streams, flow control, loss recovery,
 * timers and close, Sans-I/O, on top of plugins/h3/crypto (keys, TLS),
 * plugins/h3/wire (codec) and plugins/h3/recovery (RFC 9002).
 *
 * The connection never touches a socket or a clock. Its owner (the HTTP/3
 * plugin) hands it every received datagram with the time, asks it for
 * datagram trains to send, services one deadline, and drives streams.
 * Everything the connection has to say comes back synchronously through
 * one event callback, from inside the calls listed below.
 *
 *   c = shb_quic_conn_new(&cfg, now, &rc);       allocates everything
 *   loop:
 *     shb_quic_conn_recv(c, dgram, len, now);    for each datagram
 *     while (n = shb_quic_conn_write(c, buf, cap, &seg, now)) > 0:
 *             send buf[0..n) as datagrams of seg bytes (GSO)
 *     arm a timer at shb_quic_conn_deadline(c);
 *     when it expires: shb_quic_conn_on_timeout(c, now);
 *   shb_quic_conn_free(c);
 *
 * Sizes and memory: shb_quic_conn_new() makes every allocation the
 * connection will ever make (one private memory mapping for the
 * connection and its recovery rings, and the ~28 KiB GnuTLS session);
 * nothing is allocated per packet, per stream or per request (the
 * exceptions, once each: a Retry and each key update create one AEAD
 * handle, see quic_conn_rx.c). With max_bidi_streams = 100 and the
 * default windows one connection reserves about 490 KiB plus the TLS
 * session: the reorder store sized by conn_window (290 KiB), the
 * recovery rings (78 KiB), CRYPTO buffers (50 KiB), the stream table
 * (0.6 KiB per request stream). See shb_quic_conn_memory(). Pages cost
 * memory once written: the reorder store's only while it holds
 * out-of-order data (they go back to the kernel when it empties), so a
 * connection without loss keeps about a third of it resident. The
 * mapping is gone at shb_quic_conn_free(), so reconnects leave no holes
 * in the heap.
 *
 * Threads: a connection belongs to one thread. The TLS context in the
 * config may be shared read-only by every thread.
 *
 * Events and re-entrancy: the callback runs inside shb_quic_conn_recv(),
 * shb_quic_conn_write() (STREAMS_AVAILABLE once acknowledgements freed
 * slots; CLOSED after an internal failure), shb_quic_conn_on_timeout()
 * and shb_quic_conn_close(); never inside the stream functions (a slot
 * freed by retire() shows in bidi_available() at once, with the event at
 * the next recv/write/on_timeout). From inside it the
 * owner may call every stream function (open, send, reset, stop_sending,
 * retire) and shb_quic_conn_close(); these only queue work. It must not
 * call recv, write, on_timeout or free. Pointers in an event are valid
 * only during the callback. Closing from inside a callback delivers the
 * CLOSED event at once (nested) and no other event after it.
 *
 * Stream IDs (RFC 9000 Section 2.1): client bidirectional 0, 4, 8, ...
 * (requests); client unidirectional 2, 6, 10, ... (the HTTP/3 control and
 * QPACK streams); server unidirectional 3, 7, 11, ... Server-initiated
 * bidirectional streams are refused (we allow none: STREAM_LIMIT_ERROR).
 *
 * What it implements, and the rules it keeps (RFC section in brackets):
 *  - long and short headers, coalesced packets, packet numbers truncated
 *    by twice the unacknowledged distance, header protection; Initial
 *    datagrams padded to 1200 bytes with PADDING frames inside the last
 *    packet, never bytes after an AEAD tag;
 *  - random 8-byte SCID and DCID; Initial keys from the DCID, Handshake
 *    and 1-RTT keys from TLS; CRYPTO reassembled per level (bounded, out of
 *    order and duplicates fine) and fed to TLS once, in order;
 *  - Initial keys dropped when the first Handshake packet is sent, Handshake
 *    keys when HANDSHAKE_DONE arrives, each with its recovery space and
 *    crypto buffers; each space's CRYPTO bytes kept until then so that a
 *    PTO rewinds and resends them;
 *  - transport parameters sent (windows, 3 peer uni streams, no peer bidi
 *    streams, max_ack_delay 2, active_connection_id_limit 4), or another
 *    client's list as given (tp_items below), and the server's
 *    validated, CIDs included; ALPN "h3" required; DATAGRAM frames
 *    (RFC 9221) within a max_datagram_frame_size we announced, and a
 *    clear QUIC bit once we announced grease_quic_bit (RFC 9287);
 *  - out-of-order stream data held in a reorder store as large as the
 *    connection window, so it always fits; delivered in order, zero-copy
 *    from the decrypted packet whenever it arrives in order;
 *  - ACKs on the next packet of a space after an ack-eliciting packet;
 *    RFC 9002 loss detection, PTO (probes counted, at most two datagrams
 *    while one is owed; in 1-RTT they carry new data if any, else the
 *    frames of the oldest unacknowledged packets again, else a PING),
 *    NewReno-like congestion control with RFC 9002's
 *    initial window (12000 bytes), no growth while application-limited,
 *    and pacing at 5/4 (2 in slow start) of cwnd per smoothed RTT with
 *    bursts of 10 datagrams (1 ms at the pacing rate on fast paths, up to
 *    a 64-datagram train); only ack-eliciting packets count in flight and
 *    are paced;
 *  - flow control both ways: MAX_DATA / MAX_STREAM_DATA refreshed at half
 *    the window and resent with the current value when lost; the peer's
 *    MAX_DATA / MAX_STREAM_DATA / MAX_STREAMS honoured; retransmissions
 *    never consume new credit;
 *  - key update as responder (never initiated), the next keys derived
 *    ahead and the previous kept for late packets;
 *  - Retry (once, before any server Initial, tag verified, token repeated
 *    in every later Initial), Version Negotiation (v1 not listed: close),
 *    NEW_CONNECTION_ID / RETIRE_CONNECTION_ID, stateless reset detection,
 *    PATH_CHALLENGE answered, NEW_TOKEN ignored, 0-RTT packets dropped;
 *  - idle timeout min(local, peer), at least 3 PTO (without the probes'
 *    backoff); while a request stream awaits its response, a PING at half
 *    of it, and one whenever the last ack-eliciting packet went
 *    unanswered for a sixteenth of it (at least 1 PTO); a handshake
 *    deadline separate from the idle one;
 *  - close: application close (0x1d) only in 1-RTT packets, otherwise a
 *    transport close with APPLICATION_ERROR (0x0c).
 */
#ifndef SHB_QUIC_CONN_H
#define SHB_QUIC_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "quic_tls.h"
#include "quic_tp_items.h"

struct shb_quic_conn; /* opaque */

/* Return codes of this header (never a SHB_QUIC_CRYPTO_* or wire code). */
enum shb_quic_conn_rc {
	SHB_QUIC_CONN_OK = 0,
	SHB_QUIC_CONN_E_INVAL = -1,  /* bad argument (caller bug) */
	SHB_QUIC_CONN_E_STATE = -2,  /* not now: handshake not done, stream
				      * unknown, retired, already sent ... */
	SHB_QUIC_CONN_E_LIMIT = -3,  /* no stream credit or table slot, or a
				      * unidirectional send buffer is full */
	SHB_QUIC_CONN_E_CLOSED = -4, /* the connection is closing or closed */
	SHB_QUIC_CONN_E_NOMEM = -5,  /* shb_quic_conn_new only */
	SHB_QUIC_CONN_E_TLS = -6,    /* shb_quic_conn_new: TLS setup failed */
};

/* Defaults for zero config members. */
#define SHB_QUIC_CONN_MAX_DGRAM 1200u
#define SHB_QUIC_CONN_IDLE_TIMEOUT (UINT64_C(30) * 1000000000u)
#define SHB_QUIC_CONN_HANDSHAKE_TIMEOUT (UINT64_C(10) * 1000000000u)
/* Receive windows: per stream (large: it costs nothing) and for the
 * connection (bounded: see conn_window below). SHB_QUIC_CONN_WINDOW is
 * the older name of the stream window. */
#define SHB_QUIC_CONN_STREAM_WINDOW ((UINT64_C(1) << 30) - 1)
#define SHB_QUIC_CONN_DATA_WINDOW (UINT64_C(256) << 10)
#define SHB_QUIC_CONN_WINDOW SHB_QUIC_CONN_STREAM_WINDOW
/* Bytes of a client unidirectional stream held in the connection's own
 * memory (control stream: type, SETTINGS, GOAWAY, PRIORITY_UPDATE frames;
 * QPACK streams: their type byte). Acknowledged bytes are dropped; more
 * unacknowledged ones move to a heap buffer of at most
 * SHB_QUIC_CONN_UNI_MAX_BUF. */
#define SHB_QUIC_CONN_UNI_BUF 1024u
#define SHB_QUIC_CONN_UNI_MAX_BUF (64u * 1024u)
/* Client unidirectional streams that can be opened. */
#define SHB_QUIC_CONN_MAX_UNI 4u
/* Server unidirectional streams we allow at once (advertised: 3). */
#define SHB_QUIC_CONN_PEER_UNI 3u
/* Longest close reason kept (bytes, without the NUL). */
#define SHB_QUIC_CONN_REASON_MAX 127u

/* Event kinds (struct shb_quic_event.kind). */
enum shb_quic_event_kind {
	/* The handshake completed: TLS finished, ALPN is "h3", the server's
	 * transport parameters were validated. Streams may be opened now
	 * (shb_quic_conn_bidi_available() says how many). Sent once. */
	SHB_QUIC_EV_HANDSHAKE_DONE = 1,
	/* A server unidirectional stream appeared (stream_id). Its data
	 * follows as STREAM_DATA events. Sent once per stream, before any
	 * data of it. */
	SHB_QUIC_EV_STREAM_OPENED = 2,
	/* Stream data, in order, never twice: data[0..len) at `offset` of
	 * stream_id (offset is the sum of all earlier len), `fin` set on the
	 * last event of the stream (len may then be 0). `data` points into
	 * the decrypted packet (or the connection's reordering buffer) and
	 * is valid only during the callback. The bytes count as consumed
	 * for flow control when the callback returns. */
	SHB_QUIC_EV_STREAM_DATA = 3,
	/* The server reset stream_id (RESET_STREAM): `code` is its
	 * application error code, `final_size` the stream's final size. No
	 * more data events for it. */
	SHB_QUIC_EV_STREAM_RESET = 4,
	/* The server asked us to stop sending on stream_id (STOP_SENDING,
	 * `code`). The connection has already answered with RESET_STREAM
	 * carrying the same code (RFC 9000 Section 3.5) unless everything was
	 * sent. For the owner: a request stream is answered or not (keep
	 * reading); a critical unidirectional stream being stopped is
	 * H3_CLOSED_CRITICAL_STREAM. */
	SHB_QUIC_EV_STOP_SENDING = 5,
	/* bidi_available() went from 0 to more than 0 (MAX_STREAMS from the
	 * server, or a table slot freed). */
	SHB_QUIC_EV_STREAMS_AVAILABLE = 6,
	/* The connection ended; shb_quic_conn_close_info() holds the same
	 * information as the event's `close`. Sent once. No event follows.
	 * If state() is CLOSING, write() still has the CONNECTION_CLOSE
	 * datagram to send. */
	SHB_QUIC_EV_CLOSED = 7,
};

/* Who or what ended the connection. */
enum shb_quic_close_origin {
	SHB_QUIC_CLOSE_NONE = 0,
	/* The owner called shb_quic_conn_close(). */
	SHB_QUIC_CLOSE_LOCAL = 1,
	/* We detected an error (protocol violation by the server, TLS
	 * failure, flow control ...) and sent CONNECTION_CLOSE with `code`
	 * (a transport code; 0x100 + alert for TLS). */
	SHB_QUIC_CLOSE_ERROR = 2,
	/* The server sent CONNECTION_CLOSE (`app` says which kind). */
	SHB_QUIC_CLOSE_PEER = 3,
	/* Idle timeout (nothing received for the negotiated idle period). */
	SHB_QUIC_CLOSE_IDLE = 4,
	/* The handshake did not complete within the handshake timeout. */
	SHB_QUIC_CLOSE_HANDSHAKE_TIMEOUT = 5,
	/* A stateless reset from the server. */
	SHB_QUIC_CLOSE_STATELESS_RESET = 6,
	/* Version Negotiation without version 1: the server does not speak
	 * QUIC v1 (`code` is 0). */
	SHB_QUIC_CLOSE_VERSION = 7,
};

struct shb_quic_close_info {
	uint32_t origin; /* enum shb_quic_close_origin */
	/* 1: `code` is an application (HTTP/3) error code, carried in an
	 * application CONNECTION_CLOSE (0x1d) or, before 1-RTT, given to
	 * shb_quic_conn_close() and sent as APPLICATION_ERROR. 0: a transport
	 * error code (RFC 9000 Section 20.1; 0x100..0x1ff is a TLS alert
	 * 0x100 + description). */
	uint32_t app;
	uint64_t code;
	/* Transport close from the peer or by us: the frame type that caused
	 * it (0 if unknown). */
	uint64_t frame_type;
	/* NUL-terminated reason (the peer's reason phrase, truncated to
	 * SHB_QUIC_CONN_REASON_MAX and with control bytes replaced by '?',
	 * or our own); owned by the connection, valid until free. */
	const char *reason;
	/* SHB_QUIC_CLOSE_PEER: 1 when it came in an Initial or Handshake
	 * packet, so the server had not completed its handshake, whatever
	 * ours says (ngtcp2's servers report their handshake timeout so, as
	 * PROTOCOL_VIOLATION, when our Finished never reached them). */
	uint32_t in_handshake;
};

/* One event. Members other than `kind` are meaningful as the kind says;
 * the rest are zero. */
struct shb_quic_event {
	uint32_t kind; /* enum shb_quic_event_kind */
	uint32_t fin;  /* STREAM_DATA: 1 on the last data of the stream */
	uint64_t stream_id;
	uint64_t offset;     /* STREAM_DATA */
	const uint8_t *data; /* STREAM_DATA, borrowed for the callback */
	size_t len;          /* STREAM_DATA */
	uint64_t code;       /* STREAM_RESET, STOP_SENDING: app error code */
	uint64_t final_size; /* STREAM_RESET */
	const struct shb_quic_close_info *close; /* CLOSED */
};

typedef void (*shb_quic_event_fn)(void *user, const struct shb_quic_event *ev);
typedef void (*shb_quic_log_fn)(void *user, const char *line);

/* Everything a connection needs, copied by shb_quic_conn_new() except the
 * pointers, which must outlive the connection. Zero members take the
 * defaults named. */
struct shb_quic_conn_config {
	/* Shared TLS state (credentials, priority, verification); required,
	 * read-only, must outlive the connection. */
	const struct shb_quic_tls_ctx *tls;
	/* Host for SNI and certificate verification; NULL, "" or an IP
	 * literal sends no SNI. Copied by TLS. */
	const char *server_name;
	/* Request streams tracked at once, open or closing (-p): 1..4096.
	 * The table holds twice this many, so a finished stream whose last
	 * bytes await acknowledgement does not block a new one. */
	uint32_t max_bidi_streams;
	/* Largest datagram we send: 1200..1472, default 1200. */
	uint32_t max_dgram;
	/* Largest datagram we take whole (the max_udp_payload_size transport
	 * parameter): 1200..65527, default 1200. A server sends more than
	 * 1200 bytes per datagram only once its path MTU discovery found
	 * room, so a generous value costs nothing on a small path and saves
	 * a packet's whole per-datagram cost on a large one. */
	uint32_t max_recv_dgram;
	/* Congestion window at start, bytes; default RFC 9002 7.2's
	 * min(10 * max_dgram, max(2 * max_dgram, 14720)). */
	uint64_t initial_window;
	/* 0: ack-eliciting packets are paced (quic_pacer.h); 1: whole
	 * trains leave as soon as the window allows (lab links). */
	uint32_t no_pacing;
	/* Our max_idle_timeout, ns (default 30 s; the owner passes
	 * max(30 s, --timeout)). The effective one is min(ours, the
	 * server's), at least 3 PTO. */
	uint64_t idle_timeout;
	/* From the first packet sent until the handshake completes, ns
	 * (default 10 s); not extended by packets received. */
	uint64_t handshake_timeout;
	/* Receive windows we advertise, bytes, at least 4096. stream_window
	 * (default 2^30 - 1) applies to each request and server uni stream.
	 * conn_window (default 256 KiB) bounds the bytes the server may have
	 * sent beyond what we consumed, over all streams; the connection
	 * keeps a reorder store of that size (about 1.07 bytes of memory per
	 * byte of window), so out-of-order data always fits and loss never
	 * stalls a transfer. It also caps one connection's download rate at
	 * conn_window per round trip (256 KiB: 2.6 GB/s at 100 us, 26 MB/s
	 * at 10 ms). */
	uint64_t stream_window;
	uint64_t conn_window;
	/* Events; required. */
	shb_quic_event_fn on_event;
	void *user;
	/* Debug trace, one line per call, no newline; NULL: none. */
	shb_quic_log_fn log;
	/* Random bytes (connection IDs, PATH_CHALLENGE is echoed so not
	 * needed): 0 on success. NULL: gnutls_rnd(GNUTLS_RND_NONCE). */
	int (*random)(void *user, void *buf, size_t len);
	/* The ClientHello TLS sends (the handshake message from its type
	 * byte on; borrowed for the call), once, from inside
	 * shb_quic_conn_new(); NULL: not wanted. For the report's JA3/JA4. */
	void (*client_hello)(void *user, const uint8_t *msg, size_t len);
	/* Server unidirectional streams allowed at once (our
	 * initial_max_streams_uni, raised as they end): 3..128, default 3.
	 * Each costs a stream slot (0.6 KiB) from shb_quic_conn_new(). */
	uint32_t peer_uni;
	/* Receive window of server unidirectional streams, bytes; 0:
	 * stream_window. */
	uint64_t uni_window;
	/* Another client's transport parameters (quic_tp_items.h), sent in
	 * this order instead of ours, permuted per connection when
	 * tp_shuffle is 1; NULL: ours. Borrowed: must outlive the
	 * connection. What the list announces is read back from its
	 * encoding and enforced: the windows, initial_max_streams_uni,
	 * max_udp_payload_size and max_idle_timeout must equal the members
	 * above (conn_window, stream_window, uni_window, peer_uni,
	 * max_recv_dgram, idle_timeout), active_connection_id_limit be 2..8;
	 * otherwise shb_quic_conn_new() fails with E_INVAL.
	 * max_datagram_frame_size (RFC 9221) makes DATAGRAM frames of that
	 * size or less welcome (counted, discarded), larger ones a
	 * PROTOCOL_VIOLATION, as any when it is not announced. */
	const struct shb_quic_tp_item *tp_items;
	uint32_t tp_count;
	uint32_t tp_shuffle;
};

/* Connection states (shb_quic_conn_state()). */
enum shb_quic_conn_state {
	SHB_QUIC_CONN_HANDSHAKE = 1,   /* until HANDSHAKE_DONE (event) */
	SHB_QUIC_CONN_ESTABLISHED = 2, /* streams may be used */
	/* Ended (CLOSED event sent); write() still has the CONNECTION_CLOSE
	 * to send. */
	SHB_QUIC_CONN_CLOSING = 3,
	/* Ended, nothing more to send: free it. */
	SHB_QUIC_CONN_CLOSED = 4,
};

/* Counters and estimates, for reports and debugging. */
struct shb_quic_conn_stats {
	uint64_t packets_sent;
	uint64_t packets_received; /* decrypted and processed */
	uint64_t packets_dropped;  /* undecryptable, duplicate, unusable */
	/* processed but left unacknowledged (reordering buffer full): the
	 * server sends them again */
	uint64_t packets_unacked;
	uint64_t packets_lost;
	uint64_t pto_count; /* PTOs fired */
	uint64_t bytes_sent;     /* datagram bytes */
	uint64_t bytes_received; /* datagram bytes */
	uint64_t stream_bytes_received; /* delivered in STREAM_DATA */
	uint64_t stream_bytes_sent;   /* stream data sent the first time */
	uint64_t stream_bytes_resent; /* stream data sent again after a loss */
	uint64_t smoothed_rtt; /* ns */
	uint64_t min_rtt;      /* ns, 0 before a sample */
	uint64_t cwnd;
	uint64_t bytes_in_flight;
	uint64_t key_updates;  /* by the server, followed */
	uint64_t ts_first_sent; /* `now` of the first packet sent */
	uint64_t ts_handshake;  /* `now` of completion, 0 before */
	uint32_t retried;       /* a Retry was followed */
	uint32_t reserved0;
	uint64_t datagrams_received; /* DATAGRAM frames taken and dropped */
};

/* ---- life cycle ---------------------------------------------------------- */

/* Creates a client connection: random connection IDs, Initial keys, the
 * TLS session with our transport parameters, and the ClientHello queued
 * (the first write() sends it). `now` is only used for traces; the
 * handshake deadline starts at the first write(). On failure returns NULL
 * and *rc (if not NULL) is SHB_QUIC_CONN_E_INVAL (bad config),
 * _E_NOMEM or _E_TLS. */
struct shb_quic_conn *shb_quic_conn_new(const struct shb_quic_conn_config *cfg,
					uint64_t now, int *rc);

/* Frees everything. No event is sent. Safe on NULL. */
void shb_quic_conn_free(struct shb_quic_conn *c);

/* Bytes shb_quic_conn_new() allocates for this config, TLS excluded (for
 * documentation and tests). */
size_t shb_quic_conn_memory(const struct shb_quic_conn_config *cfg);

/* ---- I/O ----------------------------------------------------------------- */

/* Processes one received datagram dgram[0..len): every coalesced packet
 * in it, decrypted in place (the buffer is modified, and borrowed only for
 * the call). Bad packets are dropped as RFC 9000 says (silently, or by
 * closing the connection with the right error). Events fire from inside.
 * Returns SHB_QUIC_CONN_OK, or SHB_QUIC_CONN_E_CLOSED when the connection
 * has ended (now or before; see close_info(); write() may still have a
 * CONNECTION_CLOSE to send). */
int shb_quic_conn_recv(struct shb_quic_conn *c, uint8_t *dgram, size_t len,
		       uint64_t now);

/* Writes a train of datagrams into buf[0..cap) for UDP GSO: every
 * datagram exactly *segment_size bytes except possibly a shorter last one,
 * none larger than max_dgram. The first datagram may coalesce Initial,
 * Handshake and 1-RTT packets; a datagram with an Initial packet is 1200
 * bytes or more. While a PTO probe is owed at most two datagrams are
 * written; the pacer may cut a train short or hold it back entirely
 * (deadline() then says when to come back). cap must be at least max_dgram. Returns the bytes written (0:
 * nothing to send now; *segment_size is then 0), or SHB_QUIC_CONN_E_INVAL.
 * After the CONNECTION_CLOSE datagram was written state() is CLOSED. The
 * owner calls it again while it returns a full train. */
ptrdiff_t shb_quic_conn_write(struct shb_quic_conn *c, uint8_t *buf,
			      size_t cap, size_t *segment_size, uint64_t now);

/* Non-zero when write() would return something now (ACK owed, data or
 * control frames allowed by the congestion window, probe, close). */
int shb_quic_conn_want_write(const struct shb_quic_conn *c);

/* Earliest time at which on_timeout() has work (loss timer, PTO, idle,
 * handshake deadline, keepalive) or write() has data the pacer held back
 * (on_timeout() then does nothing; want_write() says yes), or
 * UINT64_MAX. */
uint64_t shb_quic_conn_deadline(const struct shb_quic_conn *c);

/* Runs the timers due at `now` (early calls do nothing). May end the
 * connection (idle, handshake timeout: CLOSED event, nothing to send) or
 * queue probes and PINGs for write(). Returns SHB_QUIC_CONN_OK or
 * SHB_QUIC_CONN_E_CLOSED as recv() does. */
int shb_quic_conn_on_timeout(struct shb_quic_conn *c, uint64_t now);

/* ---- state --------------------------------------------------------------- */

/* enum shb_quic_conn_state. */
uint32_t shb_quic_conn_state(const struct shb_quic_conn *c);

/* How the connection ended (origin NONE while it has not). The pointer is
 * valid until free. */
const struct shb_quic_close_info *
shb_quic_conn_close_info(const struct shb_quic_conn *c);

/* A short English description of why the connection ended, or NULL. */
const char *shb_quic_conn_error_detail(const struct shb_quic_conn *c);

void shb_quic_conn_stats(const struct shb_quic_conn *c,
			 struct shb_quic_conn_stats *out);

/* The effective idle timeout in ns: min(ours, the server's
 * max_idle_timeout), at least 3 PTO; ours alone before the handshake. */
uint64_t shb_quic_conn_idle_timeout(const struct shb_quic_conn *c);

/* ---- close --------------------------------------------------------------- */

/* Ends the connection with application error `app_code` (HTTP/3, e.g.
 * H3_NO_ERROR 0x100) and an optional `reason` (copied, truncated to
 * SHB_QUIC_CONN_REASON_MAX): an application CONNECTION_CLOSE in a 1-RTT
 * packet once the handshake is done, else a transport CONNECTION_CLOSE
 * with APPLICATION_ERROR (0x0c) in each space that has keys. The CLOSED
 * event fires from inside (origin LOCAL); state() becomes CLOSING and the
 * next write() emits the close, then CLOSED. No effect if already ended. */
void shb_quic_conn_close(struct shb_quic_conn *c, uint64_t app_code,
			 const char *reason, uint64_t now);

/* ---- request streams (client bidirectional) ------------------------------ */

/* How many more bidirectional streams open_bidi() would accept now:
 * min(server's MAX_STREAMS credit left, free table slots); 0 before the
 * handshake is done or once ended. */
uint32_t shb_quic_conn_bidi_available(const struct shb_quic_conn *c);

/* Opens the next client bidirectional stream. Returns its ID (0, 4, 8,
 * ...) or SHB_QUIC_CONN_E_LIMIT (no credit / slot: wait for
 * STREAMS_AVAILABLE), _E_STATE (handshake not done) or _E_CLOSED. */
int64_t shb_quic_conn_bidi_open(struct shb_quic_conn *c);

/* Sends data[0..len) on request stream `id`, then FIN (fin must be 1;
 * kept as a parameter for a later streaming variant: fin 0 returns
 * _E_INVAL). Once per stream. The bytes are borrowed, not copied: they
 * must stay valid and unchanged until shb_quic_conn_free() (a prepared
 * request does). They go out as stream and connection credit allow.
 * Returns SHB_QUIC_CONN_OK, _E_STATE (unknown or retired stream, already
 * sent, reset), _E_INVAL or _E_CLOSED. len 0 sends just FIN. */
int shb_quic_conn_bidi_send(struct shb_quic_conn *c, uint64_t id,
			    const uint8_t *data, size_t len, int fin);

/* [conn] A buffer of len octets owned by request stream `id`'s slot, for
 * bytes that do not outlive the caller's call otherwise (a request
 * varied per issue): write them there, then bidi_send(id, buf, len, 1).
 * It stays valid until the slot is freed (everything sent on it
 * acknowledged or reset) or shb_quic_conn_free, and is reused, grown
 * when needed, by later streams in the slot. NULL when out of memory or
 * `id` is not an open request stream whose data was not given yet. */
uint8_t *shb_quic_conn_bidi_buffer(struct shb_quic_conn *c, uint64_t id,
				   size_t len);

/* ---- our unidirectional streams (HTTP/3 control and QPACK) --------------- */

/* Opens the next client unidirectional stream (2, 6, 10, ...). Returns
 * its ID, or _E_LIMIT (server credit or SHB_QUIC_CONN_MAX_UNI reached),
 * _E_STATE (handshake not done) or _E_CLOSED. */
int64_t shb_quic_conn_uni_open(struct shb_quic_conn *c);

/* Appends data[0..len) (copied) to unidirectional stream `id`. These
 * streams are never finished (HTTP/3 critical streams). Returns
 * SHB_QUIC_CONN_OK, _E_LIMIT (the stream would hold more than
 * SHB_QUIC_CONN_UNI_MAX_BUF bytes not yet acknowledged, or memory ran
 * out; nothing was appended), _E_STATE (not one of ours, or reset) or
 * _E_CLOSED. */
int shb_quic_conn_uni_send(struct shb_quic_conn *c, uint64_t id,
			   const uint8_t *data, size_t len);

/* ---- any stream ---------------------------------------------------------- */

/* Abandons our sending side of `id` (a request stream or one of our uni
 * streams): RESET_STREAM with `app_code` and the final size sent so far;
 * unsent bytes are never sent. No effect (OK) when FIN was already
 * acknowledged or the stream was reset. Returns OK, _E_STATE (unknown
 * stream or one without a sending side) or _E_CLOSED. */
int shb_quic_conn_stream_reset(struct shb_quic_conn *c, uint64_t id,
			       uint64_t app_code);

/* Asks the server to stop sending on `id` (a request stream or a server
 * uni stream): STOP_SENDING with `app_code`. Data that still arrives is
 * delivered until the server's RESET_STREAM. No effect (OK) once the
 * receiving side ended. Returns OK, _E_STATE or _E_CLOSED. */
int shb_quic_conn_stream_stop_sending(struct shb_quic_conn *c, uint64_t id,
				      uint64_t app_code);

/* The owner is done with stream `id` (response complete, cancelled, or a
 * server uni stream it ignores): no more events for it. If our sending
 * side still has unsent bytes it is reset with `app_code`; if the
 * receiving side has not ended, STOP_SENDING `app_code` is sent (bytes
 * still arriving are counted as consumed). The stream's slot is freed
 * once everything we sent was acknowledged (or the reset was) and the
 * server ended its side (FIN or RESET_STREAM, which STOP_SENDING asks
 * for); until then it counts against bidi_available(). Late frames for a
 * retired stream are ignored. Returns OK or _E_STATE
 * (unknown or already retired). Not for our uni streams. */
int shb_quic_conn_stream_retire(struct shb_quic_conn *c, uint64_t id,
				uint64_t app_code);

#endif
