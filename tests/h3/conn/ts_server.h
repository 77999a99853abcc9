/* A small QUIC v1 server for the connection tests, built from the same
 * parts as the client (wire codec, packet protection, recovery, CRYPTO
 * reassembly) with a GnuTLS QUIC-mode server session. One connection,
 * datagrams in and out through memory, a virtual clock.
 *
 * What it does: the handshake (optionally after a Retry), HANDSHAKE_DONE,
 * ACKs, loss recovery and PTO through the recovery part, flow control
 * both ways, a response of a configured length (bytes from ts_byte()) with
 * FIN on each client request stream once the request's FIN arrived, one
 * server control stream (3) with a few bytes, and on demand: RESET_STREAM,
 * STOP_SENDING, MAX_STREAMS, MAX_DATA, NEW_CONNECTION_ID, PATH_CHALLENGE,
 * a key update, CONNECTION_CLOSE, a stateless reset. Every datagram is one
 * or more coalesced packets of at most 1200 bytes.
 *
 * Test code: it allocates freely and checks only what the tests need.
 * H_SLOG=1 in the environment traces its packets, ACKs and timeouts. */
#ifndef SHB_TEST_TS_SERVER_H
#define SHB_TEST_TS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls_test_peer.h"
#include "quic_tp.h"

struct ts_server;

/* A transport parameter of 0 (0 in the config means the default). */
#define TS_NONE UINT64_MAX

struct ts_config {
	const struct tp_cert *cert;
	/* Transport parameters (0: the defaults in brackets). */
	uint64_t max_data;           /* [16 MiB] */
	uint64_t max_stream_data;    /* bidi_remote and uni [1 MiB] */
	uint64_t max_streams_bidi;   /* [100]; TS_NONE: 0 */
	uint64_t max_streams_uni;    /* [3] */
	uint64_t idle_timeout_ms;    /* [0: none] */
	uint64_t max_ack_delay_ms;   /* [0 means 25 (absent)] */
	bool no_reset_token;
	bool retry;                  /* answer the first Initial with a Retry */
	/* Break a transport parameter check on purpose (tests of the
	 * client's validation): 1 wrong original_destination_connection_id,
	 * 2 wrong initial_source_connection_id, 3 no retry_source_connection_id
	 * after a Retry. */
	int bad_cids;
	/* Hostile ACKs in the application space (tests/hostile): 1
	 * acknowledges a packet number far above any the client sent; 2
	 * one range covering every packet number up to 2^62-1. */
	int bad_ack;
	/* Response length per request stream (bytes, then FIN) [13]. */
	uint64_t response_len;
	/* Do not answer requests automatically. */
	bool no_auto_response;
	/* Do not open the server control stream (3, three bytes, never
	 * finished). */
	bool no_control;
	/* Refresh our stream / connection receive windows (MAX_STREAM_DATA,
	 * MAX_DATA) when half consumed [true unless set]. */
	bool no_window_refresh;
	/* Clear the QUIC bit (0x40) of every 1-RTT packet, as a server may
	 * once the client sent grease_quic_bit (RFC 9287). */
	bool clear_fixed_bit;
	/* Send version_information (RFC 9368) with this Chosen Version and
	 * Available Versions 1 [0: none]. */
	uint32_t chosen_version;
};

/* The byte at `off` of every response body: the test client checks each
 * byte it is given. */
static inline uint8_t ts_byte(uint64_t stream_id, uint64_t off)
{
	return (uint8_t)(off * 131 + (off >> 8) * 7 + stream_id);
}

struct ts_server *ts_new(const struct ts_config *cfg);
void ts_free(struct ts_server *s);

/* A datagram from the client (borrowed, decrypted in place). */
void ts_recv(struct ts_server *s, uint8_t *d, size_t len, uint64_t now);
/* The next datagram to send into out[cap >= 1200]; 0 when nothing. */
size_t ts_send(struct ts_server *s, uint8_t *out, size_t cap, uint64_t now);
uint64_t ts_deadline(const struct ts_server *s);
void ts_timeout(struct ts_server *s, uint64_t now);

/* ---- what the tests look at ------------------------------------------ */

bool ts_handshake_done(const struct ts_server *s);
/* Request bytes received on client stream `id` (NULL if unknown), how
 * many were received in order, and whether the FIN was. */
const uint8_t *ts_stream_data(const struct ts_server *s, uint64_t id,
			      size_t *len, bool *fin);
/* RESET_STREAM / STOP_SENDING received from the client on `id`: true and
 * the code, else false. */
bool ts_stream_got_reset(const struct ts_server *s, uint64_t id,
			 uint64_t *code, uint64_t *final_size);
bool ts_stream_got_stop(const struct ts_server *s, uint64_t id,
			uint64_t *code);
/* Client streams seen (ids below the highest + 4). */
uint64_t ts_streams_opened(const struct ts_server *s);
/* The client's CONNECTION_CLOSE: true with its frame type (0x1c/0x1d),
 * code and reason, else false. */
bool ts_got_close(const struct ts_server *s, uint64_t *type, uint64_t *code,
		  const char **reason);
/* Bytes the client sent on its unidirectional stream `id`. */
size_t ts_uni_bytes(const struct ts_server *s, uint64_t id);
uint64_t ts_path_responses(const struct ts_server *s);
/* Every PATH_RESPONSE frame received, whatever its data. */
uint64_t ts_path_response_frames(const struct ts_server *s);
uint64_t ts_retired_cids(const struct ts_server *s, uint64_t *last_seq);
/* Packets received with a DCID of sequence `seq` (ours). */
uint64_t ts_packets_to_cid(const struct ts_server *s, uint64_t seq);
uint64_t ts_key_phase_rx(const struct ts_server *s);
uint64_t ts_max_stream_data_frames(const struct ts_server *s);
uint64_t ts_max_data_frames(const struct ts_server *s);
uint64_t ts_datagrams_received(const struct ts_server *s);
/* The client's transport parameters, once they arrived (else NULL). */
const struct shb_quic_tp *ts_client_tp(const struct ts_server *s);
/* Client Initial datagrams received, and the smallest of them. */
uint64_t ts_initials_received(const struct ts_server *s, size_t *min_len);
/* Largest stream offset the client sent on `id` (for flow control). */
uint64_t ts_stream_rx_high(const struct ts_server *s, uint64_t id);

/* ---- what the tests make it do --------------------------------------- */

/* Responds on `id` with `len` bytes then FIN (when no_auto_response). */
void ts_respond(struct ts_server *s, uint64_t id, uint64_t len);
void ts_reset_stream(struct ts_server *s, uint64_t id, uint64_t code);
void ts_stop_sending(struct ts_server *s, uint64_t id, uint64_t code);
void ts_max_streams(struct ts_server *s, uint64_t bidi_limit);
/* Raises our stream/connection receive windows by sending new limits. */
void ts_grant(struct ts_server *s, uint64_t id, uint64_t stream_limit,
	      uint64_t conn_limit);
/* NEW_CONNECTION_ID with sequence `seq` and retire_prior_to `rpt`. */
void ts_new_cid(struct ts_server *s, uint64_t seq, uint64_t rpt);
void ts_path_challenge(struct ts_server *s);
/* Raw frame octets (at most 1100, well-formed or not) at the start of
 * each of the next `packets` 1-RTT packets, never retransmitted: what a
 * hostile server sends and this one would not. */
void ts_inject(struct ts_server *s, const uint8_t *frames, size_t len,
	       uint32_t packets);
/* Starts a key update: our next packets use the next keys and phase. */
void ts_key_update(struct ts_server *s);
void ts_close(struct ts_server *s, bool app, uint64_t code, const char *reason);
/* A stateless reset datagram for connection ID sequence `seq` into out;
 * returns its length. */
size_t ts_stateless_reset(const struct ts_server *s, uint64_t seq,
			  uint8_t *out, size_t len);
/* Send a Version Negotiation packet listing only version 0x1a2a3a4a in
 * answer to the next client Initial. */
void ts_version_negotiation(struct ts_server *s);
void ts_dump(const struct ts_server *s);

#endif
