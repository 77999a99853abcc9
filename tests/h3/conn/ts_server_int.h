/* The connection tests' QUIC server's own state, shared by its three
 * files: ts_server.c (life cycle, streams, keys, receiving),
 * ts_server_send.c (sending, recovery callbacks) and ts_server_ctl.c
 * (what the tests look at and make it do). Not for the tests: they use
 * ts_server.h. */
#ifndef SHB_TEST_TS_SERVER_INT_H
#define SHB_TEST_TS_SERVER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic_crecv.h"
#include "quic_frame.h"
#include "quic_header.h"
#include "quic_keys.h"
#include "quic_pn.h"
#include "quic_recovery.h"
#include "quic_retry.h"
#include "quic_tls.h"
#include "quic_tp.h"

#define NONE UINT64_MAX
#define TS_CIDS 8
#define TS_RTX 16
#define TS_CRECV 65536u
#define TS_REFS 64

enum ref_kind {
	R_CRYPTO = 1, R_STREAM, R_HANDSHAKE_DONE, R_MAX_DATA, R_MAX_STREAM_DATA,
	R_MAX_STREAMS, R_RESET, R_STOP, R_NEW_CID,
};

struct ts_range {
	uint64_t off, len;
};

struct ts_stream {
	uint64_t id;
	/* from the client */
	uint8_t *rx, *rxmap;
	size_t rx_alloc;
	uint64_t rx_contig, rx_high, rx_final, rx_max;
	bool msd_pending;
	bool got_reset, got_stop;
	uint64_t got_reset_code, got_reset_final, got_stop_code;
	/* to the client */
	const uint8_t *fixed; /* server uni stream bytes; NULL: ts_byte() */
	uint64_t tx_len, tx_next, tx_max;
	bool responding, fin_sent, fin_rtx, fin_acked;
	struct ts_range rtx[TS_RTX];
	int nrtx;
	bool reset_pending, reset_done;
	uint64_t reset_code, reset_final;
	bool stop_pending;
	uint64_t stop_code;
};

struct ts_space {
	struct shb_quic_keys rx, tx;
	bool discarded, tx_installed, rx_installed;
	struct shb_quic_crecv cr;
	uint8_t *crmem;
	uint32_t c_next, c_acked;
};

struct ts_cid {
	struct shb_quic_cid cid;
	uint8_t token[16];
	uint64_t seq, rpt, pkts;
	bool used, pending;
};

struct ts_server {
	struct ts_config cfg;
	struct tp_server tls;
	struct shb_quic_recovery rec;
	struct ts_space sp[3];
	struct shb_quic_keys rx_next, rx_prev, tx_next;
	unsigned rx_phase, tx_phase;
	uint64_t rx_phase_start;
	bool rx_prev_valid;

	struct shb_quic_tp client_tp; /* valid once client_params */
	bool started, retry_sent, vn_next, hs_done, hs_done_pending;
	bool hs_discard_after_send;
	struct shb_quic_cid client_cid, odcid, first_dcid, retry_scid;
	struct ts_cid cids[TS_CIDS];
	uint8_t raw[1500]; /* a Retry or Version Negotiation to send */
	size_t raw_len;
	uint8_t inj[1100]; /* frames for the next 1-RTT packets (ts_inject) */
	size_t inj_len;
	uint32_t inj_left; /* packets still to carry them */

	uint64_t tx_max_data, tx_data, rx_max_data, rx_data, rx_consumed;
	bool md_pending;
	uint64_t max_streams_bidi;
	bool ms_pending, pc_pending;
	uint8_t pc_data[8];
	uint64_t path_responses, retired, retired_last, path_resp_frames;
	bool close_pending, closed;
	bool close_app;
	uint64_t close_code;
	char close_reason[64];
	bool got_close;
	uint64_t got_close_type, got_close_code;
	char got_reason[130];
	uint64_t msd_frames, md_frames, dgrams, initials;
	size_t min_initial;
	uint64_t peer_ack_exp;
	uint64_t client_bidi_max, client_uni_max;
	bool client_params;

	struct ts_stream *st;
	size_t nst, cap_st, rr;
	uint64_t bidi_hi;
	uint64_t now;
};

/* ts_server.c */
void ts_rnd(void *p, size_t n);
/* Stream `id`, or NULL; ts_get opens it when the client may. */
struct ts_stream *ts_find(const struct ts_server *s, uint64_t id);
struct ts_stream *ts_get(struct ts_server *s, uint64_t id);
/* A response of len bytes on stream t. */
void ts_start_response(struct ts_server *s, struct ts_stream *t, uint64_t len);
/* Packet number space `space` is done with (its keys dropped). */
void ts_discard(struct ts_server *s, int space);
/* The TLS level of each packet number space. */
extern const int ts_level_of[3];

/* ts_server_send.c: the recovery callbacks, and the ranges of stream t
 * to send again. */
void ts_on_acked(void *ctx, enum shb_quic_pns space,
		 const struct shb_quic_sent *pkt,
		 const struct shb_quic_frame_ref *refs);
void ts_on_lost(void *ctx, enum shb_quic_pns space,
		const struct shb_quic_sent *pkt,
		const struct shb_quic_frame_ref *refs);
void ts_rtx_add(struct ts_stream *t, uint64_t off, uint64_t len);

#endif
