/* Internal to plugins/h3/conn: the connection's state and the functions
 * its source files share. Not part of the interface (quic_conn.h is).
 *
 * Files:
 *   quic_conn.c         life cycle, events, close, recovery callbacks,
 *                       I/O entry points, state queries
 *   quic_conn_hs.c      the handshake: TLS start and callbacks, CRYPTO
 *                       in, completion, confirmation, discarded spaces
 *   quic_conn_rx.c      datagrams in: headers, keys, decryption, Retry,
 *                       Version Negotiation, stateless reset, frames
 *   quic_conn_tx.c      datagrams out: GSO trains, packets, frames
 *   quic_conn_stream.c  the stream table, send queue, freeing, stream API
 *   quic_conn_stream_rx.c  frames the server sends on streams, receive
 *                       flow control, delivery through the reorder pool
 *   quic_conn_uni.c     our unidirectional streams and their buffers
 *   quic_conn_refs.c    frames we sent, acknowledged or lost
 *   quic_conn_timer.c   timers: idle, keep-alive, handshake, recovery
 *   quic_conn_probe.c   what a PTO probe carries in the 1-RTT space
 *   quic_conn_layout.c  the connection's one mapping, planned and carved
 *   quic_crecv.c        CRYPTO reassembly
 */
#ifndef SHB_QUIC_CONN_INT_H
#define SHB_QUIC_CONN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quic_conn.h"
#include "quic_crecv.h"
#include "quic_frame.h"
#include "quic_header.h"
#include "quic_keys.h"
#include "quic_recovery.h"
#include "quic_reorder.h"
#include "quic_tls.h"
#include "quic_tp.h"

/* ---- sizes --------------------------------------------------------------- */

/* CRYPTO bytes we may send per level over the connection's life: two
 * ClientHellos (after a HelloRetryRequest) fit with room to spare. */
#define QC_CSEND_INITIAL 4096u
#define QC_CSEND_HANDSHAKE 2048u
#define QC_CSEND_APP 256u
/* CRYPTO reassembly windows (beyond the delivered offset). Certificate
 * chains arrive at Handshake level and are the only large messages. */
#define QC_CRECV_INITIAL 4096u
#define QC_CRECV_HANDSHAKE 32768u
#define QC_CRECV_APP 4096u
/* Packets that arrived before their keys, kept for a retry. */
#define QC_EARLY_PKTS 4u
#define QC_EARLY_PKT_LEN 1500u
/* Reorder blocks beyond the connection window's worth: each separate run
 * of held bytes may waste part of a block. */
#define QC_RO_SLACK 64u
/* Lost byte ranges remembered per stream before they are merged. */
#define QC_RTX_MAX 4u
/* Acknowledged ranges of one of our uni streams kept above its acked
 * prefix. */
#define QC_UNI_ACKS 8u
/* Connection IDs from the server we can store (the most a profile's
 * active_connection_id_limit may be), the limit we announce ourselves,
 * and RETIRE_CONNECTION_ID frames pending. */
#define QC_CID_LIMIT 8u
#define QC_CID_ANNOUNCE 4u
#define QC_RETIRE_MAX 16u
/* A Retry token longer than this is ignored (with the Retry). */
#define QC_TOKEN_MAX 512u
/* Server unidirectional stream slots (live and retiring) beyond the
 * streams it may open at once. */
#define QC_PEER_UNI_SLOTS 8u
#define QC_PEER_UNI_MAX 128u
/* Frame references one packet may carry. */
#define QC_PKT_REFS 64u
/* Sent-packet records of the 1-RTT space. */
#define QC_APP_RING 512u
/* Datagrams in one train (the kernel's UDP GSO limit). */
#define QC_MAX_TRAIN 64u
/* The smallest Initial datagram (RFC 9000 Section 14.1). */
#define QC_MIN_INITIAL 1200u

/* Application-space ACKs (quic_ackrx.h's policy): one per QC_ACK_EVERY
 * ack-eliciting packets once the peer is past its start, none held longer
 * than QC_ACK_DELAY; the max_ack_delay we advertise leaves a worker's
 * late timer a millisecond (RFC 9000 18.2 asks for that slack). */
#define QC_ACK_EVERY 10u
#define QC_ACK_DELAY (UINT64_C(1) * SHB_QUIC_MS)
#define QC_MAX_ACK_DELAY_MS 2u
#define QC_NONE UINT64_MAX
/* Application packets whose frames a PTO queued again, remembered so
 * that their loss does not queue them once more (quic_conn_probe.c):
 * two probes per PTO, the last two PTOs. One forgotten costs at most a
 * duplicate resend. */
#define QC_PROBED 4u

/* Spaces are indexed by enum shb_quic_pns; levels map onto them. */
#define QC_INITIAL SHB_QUIC_PNS_INITIAL
#define QC_HANDSHAKE SHB_QUIC_PNS_HANDSHAKE
#define QC_APP SHB_QUIC_PNS_APP
#define QC_SPACES SHB_QUIC_PNS_COUNT

/* Frame reference kinds (struct shb_quic_frame_ref.kind). */
enum qc_ref_kind {
	QC_REF_CRYPTO = 1,       /* offset, len */
	QC_REF_STREAM = 2,       /* id, offset, len, flags & QC_REF_FIN */
	QC_REF_RESET_STREAM = 3, /* id */
	QC_REF_STOP_SENDING = 4, /* id */
	QC_REF_MAX_STREAM_DATA = 5, /* id */
	QC_REF_MAX_DATA = 6,
	QC_REF_MAX_STREAMS_UNI = 7,
	QC_REF_RETIRE_CID = 8, /* offset = sequence number */
};
#define QC_REF_FIN 1u

/* Stream kinds. */
enum qc_stream_kind {
	QC_BIDI = 1,      /* our request streams */
	QC_UNI_LOCAL = 2, /* our control / QPACK streams */
	QC_UNI_PEER = 3,  /* the server's unidirectional streams */
};

/* A byte range of stream data to send again. */
struct qc_range {
	uint64_t off;
	uint64_t len;
};

struct qc_stream {
	uint64_t id;
	uint8_t used;    /* slot holds a stream */
	uint8_t kind;    /* enum qc_stream_kind */
	uint8_t retired; /* the owner is done: no events */
	uint8_t in_q;    /* on the send queue */

	/* Sending side (QC_BIDI, QC_UNI_LOCAL). */
	const uint8_t *sbuf; /* borrowed (bidi) or the stream's own buffer */
	uint64_t sbase;      /* stream offset of sbuf[0]: 0 but for our uni
			      * streams, which drop acknowledged bytes */
	uint64_t slen;       /* bytes given to send */
	uint64_t tx_next;    /* bytes sent at least once */
	uint64_t tx_max;     /* the server's MAX_STREAM_DATA */
	uint64_t reset_code;
	uint64_t reset_final;
	uint32_t inflight; /* STREAM / RESET_STREAM frames not settled */
	uint8_t send_given; /* bidi_send() was called */
	uint8_t fin;        /* FIN follows slen */
	uint8_t fin_sent;   /* FIN was sent at least once */
	uint8_t fin_rtx;    /* FIN was lost: send it again */
	uint8_t fin_acked;
	uint8_t reset;         /* sending side reset: no more data */
	uint8_t reset_pending; /* RESET_STREAM to send (again) */
	uint8_t reset_acked;
	uint8_t nrtx;
	struct qc_range rtx[QC_RTX_MAX];

	/* Receiving side (QC_BIDI, QC_UNI_PEER). */
	uint64_t rx_off;   /* delivered (consumed) */
	uint64_t rx_high;  /* highest offset received */
	uint64_t rx_max;   /* limit we advertised */
	uint64_t rx_final; /* final size, QC_NONE while unknown */
	uint64_t stop_code;
	uint8_t rx_done;      /* FIN delivered or reset received */
	uint8_t rx_reset;     /* the server reset it */
	uint8_t msd_pending;  /* MAX_STREAM_DATA to send */
	uint8_t stop;         /* STOP_SENDING decided */
	uint8_t stop_pending; /* STOP_SENDING to send (again) */
	uint8_t awaiting;  /* request not retired, response not ended */
	uint8_t stop_seen; /* STOP_SENDING event delivered */
	struct shb_quic_ro_list ro; /* out-of-order bytes held */
};

struct qc_cid {
	uint64_t seq;
	struct shb_quic_cid cid;
	uint8_t token[SHB_QUIC_STATELESS_RESET_TOKEN_LEN];
	uint8_t has_token;
	uint8_t used; /* slot in use */
};

struct qc_retire {
	uint64_t seq;
	uint8_t state; /* 0 free, 1 to send, 2 in flight */
};

/* Our CRYPTO bytes of one level, kept until the level is discarded so a
 * PTO or a loss can send them again. */
struct qc_csend {
	uint8_t *data;
	uint32_t cap;
	uint32_t len;   /* bytes TLS produced */
	uint32_t next;  /* next byte to send (rewound on loss and PTO) */
	uint32_t acked; /* bytes acknowledged from the start */
};

struct qc_space {
	struct shb_quic_keys rx;
	struct shb_quic_keys tx; /* App: the current generation */
	struct qc_csend cs;
	struct shb_quic_crecv cr;
	uint8_t discarded;
};

struct qc_early {
	uint16_t len; /* 0: free */
	uint8_t space;
	uint8_t data[QC_EARLY_PKT_LEN];
};

struct shb_quic_conn {
	struct shb_quic_conn_config cfg;
	uint32_t state;     /* enum shb_quic_conn_state */
	uint8_t hs_done;    /* HANDSHAKE_DONE event sent (TLS complete) */
	uint8_t confirmed;  /* HANDSHAKE_DONE frame received */
	uint8_t in_event;   /* inside the owner's callback */
	uint64_t now;       /* `now` of the call being served */

	struct shb_quic_tls tls;
	struct shb_quic_recovery rec;
	struct qc_space sp[QC_SPACES];

	/* 1-RTT key update (responder): the next generation is ready before
	 * the server uses it, the previous stays for late packets. */
	struct shb_quic_keys rx_next, rx_prev, tx_next;
	uint8_t key_phase;
	uint8_t prev_valid;
	uint64_t phase_start_pn; /* first packet number of the phase */

	/* Connection IDs. */
	struct shb_quic_cid scid;        /* ours, for the connection's life */
	struct shb_quic_cid odcid;       /* our first DCID */
	struct shb_quic_cid dcid;        /* the server's, in use */
	struct shb_quic_cid server_scid; /* SCID of its first Initial */
	struct shb_quic_cid retry_scid;
	uint8_t got_server; /* a server Initial/Handshake was processed */
	uint8_t retried;
	uint64_t retry_pn; /* Initial packets below it predate the Retry */
	uint16_t token_len;
	uint8_t token[QC_TOKEN_MAX];
	struct qc_cid cids[QC_CID_LIMIT];
	uint32_t cur_cid; /* index in cids of dcid */
	uint64_t retire_prior_to;
	struct qc_retire retire[QC_RETIRE_MAX];

	/* Transport parameters. */
	struct shb_quic_tp local_tp;
	struct shb_quic_tp peer_tp;
	uint8_t peer_tp_seen;
	const char *tp_why;

	/* Connection flow control. */
	uint64_t tx_max_data; /* the server's MAX_DATA */
	uint64_t tx_data;     /* new stream bytes sent */
	uint64_t rx_max_data; /* what we advertised */
	uint64_t rx_data;     /* sum of each stream's highest offset */
	uint64_t rx_consumed; /* bytes delivered */
	uint8_t md_pending;   /* MAX_DATA to send */
	uint8_t msu_pending;  /* MAX_STREAMS (uni) to send */
	uint8_t ping_pending;
	uint8_t path_resp_pending;
	uint8_t path_resp[SHB_QUIC_PATH_DATA_LEN];

	/* Streams. Slots: [0, nbidi) request streams, then
	 * SHB_QUIC_CONN_MAX_UNI of ours, then QC_PEER_UNI_SLOTS of the
	 * server's. Request streams are found by ID arithmetic through
	 * bidi_map (index id/4 modulo map_cap, entry slot + 1, 0: freed). */
	struct qc_stream *st;
	uint32_t nslots;
	uint32_t nbidi;
	uint32_t bidi_live; /* request slots in use */
	uint16_t *bidi_map;
	uint32_t map_cap; /* power of two */
	uint32_t *free_bidi; /* stack of free request slots */
	uint32_t nfree_bidi;
	/* Send buffers owned by request slots (shb_quic_conn_bidi_buffer):
	 * nbidi entries, heap, NULL until first asked for; each grows to the
	 * largest request its slot sent. Freed by shb_quic_conn_free. */
	struct qc_own {
		uint8_t *p;
		size_t cap;
	} *own;
	uint64_t bidi_base;   /* lowest index that may still be mapped */
	uint64_t bidi_next;   /* index of the next stream to open */
	uint64_t peer_max_bidi; /* the server's MAX_STREAMS (bidi) */
	uint32_t avail_was_zero;
	uint32_t bidi_awaiting; /* streams with `awaiting` set */
	uint8_t sweep;          /* a retired stream may be freeable */
	uint8_t probed_next;    /* next slot of probed[] to reuse */
	uint64_t probed[QC_PROBED]; /* packet numbers + 1; 0: free */
	uint64_t uni_next;     /* our next uni index */
	uint64_t peer_max_uni; /* the server's MAX_STREAMS (uni) */
	uint64_t peer_uni_next;  /* the server's next uni index */
	uint64_t peer_uni_limit; /* our MAX_STREAMS (uni) */
	uint8_t *uni_buf; /* SHB_QUIC_CONN_MAX_UNI * SHB_QUIC_CONN_UNI_BUF */
	/* Our uni streams keep bytes [sbase, slen) only (quic_conn_uni.c
	 * uni_room): in their uni_buf slot until that is too small, then in
	 * `heap` (up to SHB_QUIC_CONN_UNI_MAX_BUF). Every byte below `acked`
	 * was acknowledged; acknowledged ranges above it wait in ack[] (a
	 * full list drops one: acked then catches up once nothing is in
	 * flight). Freed by shb_quic_conn_free. */
	struct qc_uni_tx {
		uint8_t *heap;
		size_t cap;
		uint64_t acked;
		struct qc_range ack[QC_UNI_ACKS];
		uint8_t nack;
	} uni_tx[SHB_QUIC_CONN_MAX_UNI];
	/* Send queue: slots with something to send, FIFO ring. */
	uint32_t *sendq;
	uint32_t sq_head, sq_len;
	struct shb_quic_ro_pool ro;

	/* Packets that arrived before their keys; nearly counts the slots
	 * in use, so that a datagram after the handshake skips the replay
	 * without looking at every slot. */
	struct qc_early early[QC_EARLY_PKTS];
	uint8_t nearly;

	/* Timers. */
	uint64_t idle_timeout;    /* effective, ns */
	uint64_t idle_start;      /* last receipt, or first send after */
	uint64_t hs_deadline;     /* QC_NONE once done */
	uint64_t last_rx;         /* last packet processed */
	uint64_t ka_sent;         /* last keepalive PING queued */
	uint8_t sent_since_recv;  /* ack-eliciting sent since last receipt */

	/* Close. */
	struct shb_quic_close_info close;
	uint64_t close_code;       /* what we send */
	uint64_t close_frame_type;
	uint8_t close_app;         /* application close */
	char reason[SHB_QUIC_CONN_REASON_MAX + 1];
	char detail[160];

	struct shb_quic_conn_stats stats;
	void *mem; /* the single mapping besides recovery and TLS */
	size_t mem_len;
};

/* ---- quic_conn.c --------------------------------------------------------- */

void qc_emit(struct shb_quic_conn *c, const struct shb_quic_event *ev);
void qc_log(struct shb_quic_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* We found a connection error: CONNECTION_CLOSE with transport `code`
 * (frame_type: the frame that caused it), CLOSED event. `why` is a static
 * phrase used as the reason. Safe to call more than once. */
void qc_fail(struct shb_quic_conn *c, uint64_t code, uint64_t frame_type,
	     const char *why);
/* The same with a formatted reason, for errors that name a cap. */
void qc_failf(struct shb_quic_conn *c, uint64_t code, uint64_t frame_type,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The connection ended without anything to send (peer close, idle,
 * stateless reset, version negotiation, handshake timeout). */
void qc_terminate(struct shb_quic_conn *c, uint32_t origin, uint32_t app,
		  uint64_t code, uint64_t frame_type, const uint8_t *reason,
		  size_t reason_len);
/* Inline: the receive path asks once per packet and per frame. */
/* quic_conn_layout.c: where each part lives in the connection's one
 * mapping (offsets from its start), and how many slots each holds. */
struct qc_layout {
	size_t csend[QC_SPACES], crecv[QC_SPACES];
	size_t streams, map, freel, sendq, uni, rec, rec_len, ro, total;
	uint32_t nbidi, nslots, map_cap, nro;
};
struct shb_quic_recovery_config qc_recovery_config(
	const struct shb_quic_conn_config *cfg);
/* Defaults for zero members, then range checks: 0, or -1 if invalid. */
int qc_check_config(struct shb_quic_conn_config *k);
void qc_plan(const struct shb_quic_conn_config *cfg, struct qc_layout *l);
void qc_carve(struct shb_quic_conn *c, uint8_t *base,
	      const struct qc_layout *l);

/* After an entry point's work: STREAMS_AVAILABLE if due, then
 * SHB_QUIC_CONN_E_CLOSED once the connection ended, else OK. */
int qc_after_call(struct shb_quic_conn *c);
static inline bool qc_ended(const struct shb_quic_conn *c)
{
	return c->state == SHB_QUIC_CONN_CLOSING ||
	       c->state == SHB_QUIC_CONN_CLOSED;
}
/* Restarts the idle timer on a received packet. */
void qc_on_receipt(struct shb_quic_conn *c, uint64_t now);

/* ---- quic_conn_hs.c ------------------------------------------------------ */

/* Initial keys from our first DCID, TLS with our transport parameters,
 * the ClientHello: SHB_QUIC_CONN_OK or the error for shb_quic_conn_new. */
int qc_start_tls(struct shb_quic_conn *c);
/* len random octets from the owner's source (or GnuTLS): 0, or -1. */
int qc_random(struct shb_quic_conn *c, void *buf, size_t len);
/* Hands received CRYPTO bytes of `space` to reassembly and TLS, and
 * completes the handshake when TLS says so. */
void qc_crypto_recv(struct shb_quic_conn *c, int space, uint64_t off,
		    const uint8_t *data, size_t len);
/* Drops a space: keys, crypto buffers, recovery state. */
void qc_discard_space(struct shb_quic_conn *c, int space, uint64_t now);
void qc_handshake_confirmed(struct shb_quic_conn *c, uint64_t now);

/* ---- quic_conn_rx.c ------------------------------------------------------ */

void qc_rx_datagram(struct shb_quic_conn *c, uint8_t *d, size_t len,
		    uint64_t now);
void qc_rx_replay_early(struct shb_quic_conn *c, uint64_t now);

/* ---- quic_conn_tx.c ------------------------------------------------------ */

ptrdiff_t qc_tx_train(struct shb_quic_conn *c, uint8_t *buf, size_t cap,
		      size_t *seg, uint64_t now);
bool qc_tx_wanted(const struct shb_quic_conn *c);
/* When the pacer releases data that waits only for it, or QC_NONE (nothing
 * waits, or it may leave now, judged at c->now). */
uint64_t qc_tx_paced_until(const struct shb_quic_conn *c);

/* ---- quic_conn_stream.c -------------------------------------------------- */

/* Slots: [0, nbidi) request streams, then our uni streams, then the
 * server's (struct shb_quic_conn.st). */
static inline uint32_t qc_uni_slot(const struct shb_quic_conn *c,
				   uint64_t idx)
{
	return c->nbidi + (uint32_t)idx;
}

static inline uint32_t qc_peer_slot0(const struct shb_quic_conn *c)
{
	return c->nbidi + SHB_QUIC_CONN_MAX_UNI;
}

int qc_streams_init(struct shb_quic_conn *c);
/* Slot contents for a new stream; `in_q` survives because the send queue
 * may still hold the slot from its previous stream. */
void qc_stream_init(struct qc_stream *s, uint64_t id, uint8_t kind);
/* The API's common check: SHB_QUIC_CONN_OK once the handshake is done
 * and while the connection has not ended, else the error to return. */
int qc_api_check(const struct shb_quic_conn *c);
/* Drops the out-of-order bytes s holds. */
void qc_stream_free_held(struct shb_quic_conn *c, struct qc_stream *s);
/* Opens a new connection window (MAX_DATA) once half of it was used. */
void qc_refresh_max_data(struct shb_quic_conn *c);
/* Counts bytes of s below `upto` that will never be read as consumed. */
void qc_stream_consume_rest(struct shb_quic_conn *c, struct qc_stream *s,
			    uint64_t upto);
/* s no longer awaits its response (keep-alive stops counting it). */
void qc_stream_stop_awaiting(struct shb_quic_conn *c, struct qc_stream *s);
/* Resets the sending side of s with `code` (RESET_STREAM), unless it is
 * reset already or everything was sent and acknowledged. */
void qc_reset_sending(struct shb_quic_conn *c, struct qc_stream *s,
		      uint64_t code);
/* The stream for `id`, or NULL. */
struct qc_stream *qc_stream_find(struct shb_quic_conn *c, uint64_t id);
uint32_t qc_slot_of(const struct shb_quic_conn *c, const struct qc_stream *s);
void qc_sendq_push(struct shb_quic_conn *c, struct qc_stream *s);
/* Pops the next stream with something to send, or NULL. */
struct qc_stream *qc_sendq_pop(struct shb_quic_conn *c);
bool qc_stream_has_ctrl(const struct qc_stream *s);
/* New bytes this stream may send now (stream and connection credit). */
uint64_t qc_stream_credit(const struct shb_quic_conn *c,
			  const struct qc_stream *s);
bool qc_stream_has_data(const struct shb_quic_conn *c,
			const struct qc_stream *s);
/* Frees retired streams whose both sides have settled. Run only between
 * calls of the owner's callback, never with a stream pointer held. */
void qc_streams_sweep(struct shb_quic_conn *c);
/* Pushes every stream that waits for connection credit (MAX_DATA). */
void qc_streams_unblock(struct shb_quic_conn *c);
/* Request streams that still await their response (for keepalive). */
bool qc_streams_awaiting(const struct shb_quic_conn *c);
void qc_check_streams_available(struct shb_quic_conn *c);

/* ---- quic_conn_stream_rx.c ----------------------------------------------- */

/* Frame handlers; each returns 0 or closes the connection. */
void qc_on_stream_frame(struct shb_quic_conn *c,
			const struct shb_quic_frame_stream *f);
void qc_on_reset_stream(struct shb_quic_conn *c, uint64_t id, uint64_t code,
			uint64_t final_size);
void qc_on_stop_sending(struct shb_quic_conn *c, uint64_t id, uint64_t code);
void qc_on_max_stream_data(struct shb_quic_conn *c, uint64_t id,
			   uint64_t limit);
void qc_on_max_data(struct shb_quic_conn *c, uint64_t limit);
void qc_on_max_streams(struct shb_quic_conn *c, int bidi, uint64_t limit);
/* ---- quic_conn_probe.c --------------------------------------------------- */

/* A PTO owes `probes` packets in the application space: unless something
 * new waits to be sent, the frames of the oldest `probes` outstanding
 * packets that carried any go back in the send queues (RFC 9002 6.2.4); a
 * request stream's only while it awaits its response. */
void qc_probe_fill(struct shb_quic_conn *c, uint32_t probes);
/* An application packet was declared lost: true when a PTO had queued
 * its frames again (their copy is tracked on its own; only the streams'
 * in-flight counts settle here), false to treat it as usual. */
bool qc_probe_lost(struct shb_quic_conn *c, const struct shb_quic_sent *pkt,
		   const struct shb_quic_frame_ref *refs);

/* Reorder blocks free now. */
uint32_t qc_ro_free(const struct shb_quic_conn *c);
/* Reorder blocks a STREAM frame would take: 0 unless its data lies ahead
 * of the delivered offset of a stream that is read and is not held
 * already. */
uint32_t qc_stream_frame_blocks(struct shb_quic_conn *c,
				const struct shb_quic_frame_stream *f);

/* ---- quic_conn_uni.c ----------------------------------------------------- */

/* Stream bytes [off, off + len) of our uni stream s were acknowledged. */
void qc_uni_acked(struct shb_quic_conn *c, const struct qc_stream *s,
		  uint64_t off, uint64_t len);

/* ---- quic_conn_refs.c ---------------------------------------------------- */

/* Packets acknowledged / lost: frame references. */
void qc_ref_acked(struct shb_quic_conn *c, int space,
		  const struct shb_quic_frame_ref *r);
void qc_ref_lost(struct shb_quic_conn *c, int space,
		 const struct shb_quic_frame_ref *r);

#endif
