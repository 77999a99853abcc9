/* The connection tests' QUIC server: what the tests look at and what
 * they make it do (ts_server.h). */
#include "ts_server.h"
#include "ts_server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>

#include "quic_crecv.h"
#include "quic_frame.h"
#include "quic_header.h"
#include "quic_keys.h"
#include "quic_pn.h"
#include "quic_recovery.h"
#include "quic_retry.h"
#include "quic_tls.h"
#include "quic_tp.h"
#include "quic_varint.h"

/* ---- what the tests look at ------------------------------------------------------------ */

bool ts_handshake_done(const struct ts_server *s)
{
	return s->hs_done;
}

const uint8_t *ts_stream_data(const struct ts_server *s, uint64_t id,
			      size_t *len, bool *fin)
{
	const struct ts_stream *t = ts_find(s, id);

	*len = t ? (size_t)t->rx_contig : 0;
	*fin = t && t->rx_final != NONE && t->rx_contig == t->rx_final;
	return t ? t->rx : NULL;
}

bool ts_stream_got_reset(const struct ts_server *s, uint64_t id,
			 uint64_t *code, uint64_t *final_size)
{
	const struct ts_stream *t = ts_find(s, id);

	if (!t || !t->got_reset)
		return false;
	*code = t->got_reset_code;
	*final_size = t->got_reset_final;
	return true;
}

bool ts_stream_got_stop(const struct ts_server *s, uint64_t id, uint64_t *code)
{
	const struct ts_stream *t = ts_find(s, id);

	if (!t || !t->got_stop)
		return false;
	*code = t->got_stop_code;
	return true;
}

uint64_t ts_streams_opened(const struct ts_server *s)
{
	return s->bidi_hi;
}

bool ts_got_close(const struct ts_server *s, uint64_t *type, uint64_t *code,
		  const char **reason)
{
	if (!s->got_close)
		return false;
	*type = s->got_close_type;
	*code = s->got_close_code;
	*reason = s->got_reason;
	return true;
}

size_t ts_uni_bytes(const struct ts_server *s, uint64_t id)
{
	const struct ts_stream *t = ts_find(s, id);

	return t ? (size_t)t->rx_contig : 0;
}

uint64_t ts_path_responses(const struct ts_server *s)
{
	return s->path_responses;
}

uint64_t ts_path_response_frames(const struct ts_server *s)
{
	return s->path_resp_frames;
}

uint64_t ts_retired_cids(const struct ts_server *s, uint64_t *last_seq)
{
	*last_seq = s->retired_last;
	return s->retired;
}

uint64_t ts_packets_to_cid(const struct ts_server *s, uint64_t seq)
{
	for (int i = 0; i < TS_CIDS; i++)
		if (s->cids[i].used && s->cids[i].seq == seq)
			return s->cids[i].pkts;
	return 0;
}

uint64_t ts_key_phase_rx(const struct ts_server *s)
{
	return s->rx_phase;
}

uint64_t ts_max_stream_data_frames(const struct ts_server *s)
{
	return s->msd_frames;
}

uint64_t ts_max_data_frames(const struct ts_server *s)
{
	return s->md_frames;
}

uint64_t ts_datagrams_received(const struct ts_server *s)
{
	return s->dgrams;
}

uint64_t ts_initials_received(const struct ts_server *s, size_t *min_len)
{
	*min_len = s->min_initial;
	return s->initials;
}

uint64_t ts_stream_rx_high(const struct ts_server *s, uint64_t id)
{
	const struct ts_stream *t = ts_find(s, id);

	return t ? t->rx_high : 0;
}

/* ---- what the tests make it do ---------------------------------------------------------- */

void ts_respond(struct ts_server *s, uint64_t id, uint64_t len)
{
	ts_start_response(s, ts_get(s, id), len);
}

void ts_reset_stream(struct ts_server *s, uint64_t id, uint64_t code)
{
	struct ts_stream *t = ts_get(s, id);

	if (t->reset_done)
		return;
	t->reset_done = true;
	t->reset_pending = true;
	t->reset_code = code;
	t->reset_final = t->tx_next;
	t->nrtx = 0;
	t->fin_rtx = false;
}

void ts_stop_sending(struct ts_server *s, uint64_t id, uint64_t code)
{
	struct ts_stream *t = ts_get(s, id);

	t->stop_pending = true;
	t->stop_code = code;
}

void ts_max_streams(struct ts_server *s, uint64_t bidi_limit)
{
	s->max_streams_bidi = bidi_limit;
	s->ms_pending = true;
}

void ts_grant(struct ts_server *s, uint64_t id, uint64_t stream_limit,
	      uint64_t conn_limit)
{
	struct ts_stream *t = ts_get(s, id);

	if (stream_limit > t->rx_max) {
		t->rx_max = stream_limit;
		t->msd_pending = true;
	}
	if (conn_limit > s->rx_max_data) {
		s->rx_max_data = conn_limit;
		s->md_pending = true;
	}
}

void ts_new_cid(struct ts_server *s, uint64_t seq, uint64_t rpt)
{
	for (int i = 0; i < TS_CIDS; i++) {
		struct ts_cid *c = &s->cids[i];

		if (c->used)
			continue;
		c->used = true;
		c->pending = true;
		c->seq = seq;
		c->rpt = rpt;
		c->cid.len = 8;
		ts_rnd(c->cid.id, 8);
		ts_rnd(c->token, 16);
		return;
	}
}

void ts_inject(struct ts_server *s, const uint8_t *frames, size_t len,
	       uint32_t packets)
{
	if (len > sizeof(s->inj))
		abort(); /* a test bug */
	memcpy(s->inj, frames, len);
	s->inj_len = len;
	s->inj_left = packets;
}

void ts_path_challenge(struct ts_server *s)
{
	ts_rnd(s->pc_data, 8);
	s->pc_pending = true;
}

void ts_key_update(struct ts_server *s)
{
	struct ts_space *sp = &s->sp[2];
	struct shb_quic_keys t = sp->tx;

	sp->tx = s->tx_next;
	s->tx_next = t;
	shb_quic_keys_deinit(&s->tx_next);
	shb_quic_keys_update(&s->tx_next, &sp->tx);
	s->tx_phase ^= 1;
}

void ts_close(struct ts_server *s, bool app, uint64_t code, const char *reason)
{
	s->close_pending = true;
	s->close_app = app;
	s->close_code = code;
	snprintf(s->close_reason, sizeof(s->close_reason), "%s", reason ? reason : "");
}

size_t ts_stateless_reset(const struct ts_server *s, uint64_t seq,
			  uint8_t *out, size_t len)
{
	for (int i = 0; i < TS_CIDS; i++) {
		const struct ts_cid *c = &s->cids[i];

		if (!c->used || c->seq != seq)
			continue;
		ts_rnd(out, len);
		out[0] = (uint8_t)(0x40 | (out[0] & 0x3f));
		memcpy(out + len - 16, c->token, 16);
		return len;
	}
	return 0;
}

void ts_version_negotiation(struct ts_server *s)
{
	s->vn_next = true;
}

void ts_dump(const struct ts_server *s)
{
	const struct shb_quic_cc *cc = shb_quic_recovery_cc(&s->rec);

	fprintf(stderr,
		"server: cwnd %llu inflight %llu tx %llu/%llu deadline %lld ring %u\n",
		(unsigned long long)cc->cwnd,
		(unsigned long long)cc->bytes_in_flight,
		(unsigned long long)s->tx_data, (unsigned long long)s->tx_max_data,
		(long long)ts_deadline(s),
		shb_quic_recovery_ring_count(&s->rec, SHB_QUIC_PNS_APP));
	for (size_t i = 0; i < s->nst; i++) {
		const struct ts_stream *t = &s->st[i];

		fprintf(stderr,
			"  server stream %llu tx %llu/%llu max %llu fin %d/%d rtx %d "
			"resp %d\n",
			(unsigned long long)t->id, (unsigned long long)t->tx_next,
			(unsigned long long)t->tx_len, (unsigned long long)t->tx_max,
			t->fin_sent, t->fin_rtx, t->nrtx, t->responding);
	}
}

const struct shb_quic_tp *ts_client_tp(const struct ts_server *s)
{
	return s->client_params ? &s->client_tp : NULL;
}
