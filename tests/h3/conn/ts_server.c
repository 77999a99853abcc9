/* The connection tests' QUIC server: see ts_server.h. Test code, written
 * for clarity over speed: streams are found by a linear search, every
 * stream is visited for every packet, buffers grow with realloc. */
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

static const uint8_t control_bytes[] = {0x00, 0x04, 0x00};

void ts_rnd(void *p, size_t n)
{
	gnutls_rnd(GNUTLS_RND_NONCE, p, n);
}

/* ---- transport parameters ------------------------------------------------ */

static size_t tp_int(uint8_t *o, uint64_t id, uint64_t v)
{
	size_t n = shb_quic_varint_encode(o, 8, id);
	size_t l = shb_quic_varint_len(v);

	n += shb_quic_varint_encode(o + n, 8, l);
	n += shb_quic_varint_encode(o + n, 8, v);
	return n;
}

static size_t tp_bytes(uint8_t *o, uint64_t id, const uint8_t *b, size_t len)
{
	size_t n = shb_quic_varint_encode(o, 8, id);

	n += shb_quic_varint_encode(o + n, 8, len);
	memcpy(o + n, b, len);
	return n + len;
}

static void set_params(struct ts_server *s)
{
	uint8_t *o = s->tls.params;
	size_t n = 0;
	struct shb_quic_cid odcid = s->odcid, iscid = s->cids[0].cid;

	if (s->cfg.bad_cids == 1)
		odcid.id[0] ^= 1;
	if (s->cfg.bad_cids == 2)
		iscid.id[0] ^= 1;
	n += tp_bytes(o + n, SHB_QUIC_TP_ORIGINAL_DCID, odcid.id, odcid.len);
	if (s->cfg.idle_timeout_ms)
		n += tp_int(o + n, SHB_QUIC_TP_MAX_IDLE_TIMEOUT,
			    s->cfg.idle_timeout_ms);
	if (!s->cfg.no_reset_token)
		n += tp_bytes(o + n, SHB_QUIC_TP_STATELESS_RESET_TOKEN,
			      s->cids[0].token, 16);
	n += tp_int(o + n, SHB_QUIC_TP_INITIAL_MAX_DATA, s->cfg.max_data);
	n += tp_int(o + n, SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
		    s->cfg.max_stream_data);
	n += tp_int(o + n, SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
		    s->cfg.max_stream_data);
	n += tp_int(o + n, SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI,
		    s->cfg.max_stream_data);
	n += tp_int(o + n, SHB_QUIC_TP_INITIAL_MAX_STREAMS_BIDI,
		    s->cfg.max_streams_bidi);
	n += tp_int(o + n, SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI,
		    s->cfg.max_streams_uni);
	if (s->cfg.max_ack_delay_ms)
		n += tp_int(o + n, SHB_QUIC_TP_MAX_ACK_DELAY,
			    s->cfg.max_ack_delay_ms);
	n += tp_bytes(o + n, SHB_QUIC_TP_INITIAL_SCID, iscid.id, iscid.len);
	if (s->cfg.chosen_version) {
		uint32_t v = s->cfg.chosen_version;
		uint8_t vi[8] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
				 (uint8_t)(v >> 8), (uint8_t)v, 0, 0, 0, 1};
		n += tp_bytes(o + n, 0x11, vi, sizeof(vi));
	}
	if (s->retry_sent && s->cfg.bad_cids != 3)
		n += tp_bytes(o + n, SHB_QUIC_TP_RETRY_SCID, s->retry_scid.id,
			      s->retry_scid.len);
	s->tls.params_len = n;
}

/* ---- life cycle -------------------------------------------------------- */

struct ts_server *ts_new(const struct ts_config *cfg)
{
	struct ts_server *s = calloc(1, sizeof(*s));
	struct shb_quic_recovery_cbs cbs;

	if (!s)
		return NULL;
	s->cfg = *cfg;
	if (!s->cfg.max_data)
		s->cfg.max_data = 16u << 20;
	if (!s->cfg.max_stream_data)
		s->cfg.max_stream_data = 1u << 20;
	if (!s->cfg.max_streams_bidi)
		s->cfg.max_streams_bidi = 100;
	else if (s->cfg.max_streams_bidi == TS_NONE)
		s->cfg.max_streams_bidi = 0;
	if (!s->cfg.max_streams_uni)
		s->cfg.max_streams_uni = 3;
	if (!s->cfg.response_len)
		s->cfg.response_len = 13;
	cbs = (struct shb_quic_recovery_cbs){ts_on_acked, ts_on_lost, s};
	if (shb_quic_recovery_init(&s->rec, NULL, &cbs) != 0 ||
	    tp_server_init(&s->tls, cfg->cert, NULL) != 0) {
		ts_free(s);
		return NULL;
	}
	for (int i = 0; i < 3; i++) {
		s->sp[i].crmem = malloc(SHB_QUIC_CRECV_STORAGE(TS_CRECV));
		shb_quic_crecv_init(&s->sp[i].cr, s->sp[i].crmem, TS_CRECV);
	}
	s->rx_max_data = s->cfg.max_data;
	s->max_streams_bidi = s->cfg.max_streams_bidi;
	s->peer_ack_exp = 3;
	s->min_initial = SIZE_MAX;
	s->cids[0].used = true;
	s->cids[0].cid.len = 8;
	ts_rnd(s->cids[0].cid.id, 8);
	ts_rnd(s->cids[0].token, 16);
	return s;
}

void ts_free(struct ts_server *s)
{
	if (!s)
		return;
	for (int i = 0; i < 3; i++) {
		shb_quic_keys_deinit(&s->sp[i].rx);
		shb_quic_keys_deinit(&s->sp[i].tx);
		free(s->sp[i].crmem);
	}
	shb_quic_keys_deinit(&s->rx_next);
	shb_quic_keys_deinit(&s->rx_prev);
	shb_quic_keys_deinit(&s->tx_next);
	shb_quic_recovery_free(&s->rec);
	tp_server_deinit(&s->tls);
	for (size_t i = 0; i < s->nst; i++) {
		free(s->st[i].rx);
		free(s->st[i].rxmap);
	}
	free(s->st);
	free(s);
}

/* ---- streams ------------------------------------------------------------- */

struct ts_stream *ts_find(const struct ts_server *s, uint64_t id)
{
	for (size_t i = 0; i < s->nst; i++)
		if (s->st[i].id == id)
			return &s->st[i];
	return NULL;
}

struct ts_stream *ts_get(struct ts_server *s, uint64_t id)
{
	struct ts_stream *t = ts_find(s, id);

	if (t)
		return t;
	if (s->nst == s->cap_st) {
		s->cap_st = s->cap_st ? 2 * s->cap_st : 64;
		s->st = realloc(s->st, s->cap_st * sizeof(*s->st));
	}
	t = &s->st[s->nst++];
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->rx_final = NONE;
	t->rx_max = s->cfg.max_stream_data;
	t->tx_max = (id & 2) ? s->client_uni_max : s->client_bidi_max;
	if ((id & 3) == 0 && (id >> 2) + 1 > s->bidi_hi)
		s->bidi_hi = (id >> 2) + 1;
	return t;
}


/* The client's transport parameters decide what we may send. */
static void apply_client_params(struct ts_server *s)
{
	struct shb_quic_tp tp;

	if (s->client_params || !s->tls.peer_params_len ||
	    shb_quic_tp_decode_server(s->tls.peer_params, s->tls.peer_params_len,
				      &tp, NULL) != 0)
		return;
	s->client_params = true;
	s->client_tp = tp;
	s->tx_max_data = tp.initial_max_data;
	s->peer_ack_exp = tp.ack_delay_exponent;
	s->client_bidi_max = tp.initial_max_stream_data_bidi_local;
	s->client_uni_max = tp.initial_max_stream_data_uni;
	for (size_t i = 0; i < s->nst; i++)
		s->st[i].tx_max = (s->st[i].id & 2) ? s->client_uni_max
						    : s->client_bidi_max;
}

static void rx_grow(struct ts_stream *t, uint64_t end)
{
	size_t n = t->rx_alloc ? t->rx_alloc : 4096;

	if (end <= t->rx_alloc)
		return;
	while (n < end)
		n *= 2;
	t->rx = realloc(t->rx, n);
	t->rxmap = realloc(t->rxmap, n);
	memset(t->rxmap + t->rx_alloc, 0, n - t->rx_alloc);
	t->rx_alloc = n;
}

static void refresh_windows(struct ts_server *s, struct ts_stream *t)
{
	uint64_t w = s->cfg.max_stream_data;

	if (s->cfg.no_window_refresh)
		return;
	if (t->rx_final == NONE && t->rx_max - t->rx_contig <= w / 2) {
		t->rx_max = t->rx_contig + w;
		t->msd_pending = true;
	}
	if (s->rx_max_data - s->rx_consumed <= s->cfg.max_data / 2) {
		s->rx_max_data = s->rx_consumed + s->cfg.max_data;
		s->md_pending = true;
	}
}

void ts_start_response(struct ts_server *s, struct ts_stream *t,
			   uint64_t len)
{
	t->responding = true;
	t->tx_len = len;
	(void)s;
}

static void on_stream(struct ts_server *s, const struct shb_quic_frame_stream *f)
{
	struct ts_stream *t = ts_get(s, f->stream_id);
	uint64_t end = f->offset + f->len;

	rx_grow(t, end);
	for (size_t i = 0; i < f->len; i++) {
		t->rx[f->offset + i] = f->data[i];
		t->rxmap[f->offset + i] = 1;
	}
	if (end > t->rx_high) {
		s->rx_data += end - t->rx_high;
		t->rx_high = end;
	}
	if (f->fin)
		t->rx_final = end;
	uint64_t before = t->rx_contig;

	while (t->rx_contig < t->rx_alloc && t->rxmap[t->rx_contig])
		t->rx_contig++;
	s->rx_consumed += t->rx_contig - before;
	refresh_windows(s, t);
	if ((t->id & 3) == 0 && t->rx_final != NONE &&
	    t->rx_contig == t->rx_final && !t->responding &&
	    !s->cfg.no_auto_response)
		ts_start_response(s, t, s->cfg.response_len);
}

/* ---- keys ------------------------------------------------------------------ */

static void install_keys(struct ts_server *s)
{
	for (int lvl = 2; lvl <= 3; lvl++) {
		struct tp_secrets *e = &s->tls.sec[lvl];
		struct ts_space *sp = &s->sp[lvl == 2 ? 1 : 2];

		if (e->has_tx && !sp->tx_installed) {
			shb_quic_keys_init(&sp->tx, e->cipher, e->hash, e->tx, e->len);
			sp->tx_installed = true;
			if (lvl == 3)
				shb_quic_keys_update(&s->tx_next, &sp->tx);
			else
				shb_quic_recovery_handshake_keys(&s->rec);
		}
		if (e->has_rx && !sp->rx_installed) {
			shb_quic_keys_init(&sp->rx, e->cipher, e->hash, e->rx, e->len);
			sp->rx_installed = true;
			if (lvl == 3)
				shb_quic_keys_update(&s->rx_next, &sp->rx);
		}
	}
}

void ts_discard(struct ts_server *s, int space)
{
	if (s->sp[space].discarded)
		return;
	s->sp[space].discarded = true;
	shb_quic_recovery_discard(&s->rec, (enum shb_quic_pns)space, s->now);
}

const int ts_level_of[3] = {0, 2, 3};

static int crypto_in(void *p, const uint8_t *d, size_t n)
{
	struct ts_server *s = ((void **)p)[0];
	int lvl = *(int *)((void **)p)[1];

	return tp_server_recv(&s->tls, lvl, d, n) == 0 ? 0 : -1;
}

static void on_crypto(struct ts_server *s, int space,
		      const struct shb_quic_frame_crypto *f)
{
	int lvl = ts_level_of[space];
	void *ctx[2] = {s, &lvl};

	shb_quic_crecv_feed(&s->sp[space].cr, f->offset, f->data, f->len,
			    crypto_in, ctx);
	install_keys(s);
	if (s->tls.peer_params_len)
		apply_client_params(s);
	if (s->tls.complete && !s->hs_done) {
		s->hs_done = true;
		s->hs_done_pending = true;
		s->hs_discard_after_send = true;
		shb_quic_recovery_handshake_confirmed(&s->rec, s->now);
		if (!s->cfg.no_control) {
			struct ts_stream *t = ts_get(s, 3);

			t->fixed = control_bytes;
			t->responding = true;
			t->tx_len = sizeof(control_bytes);
			t->tx_max = s->client_uni_max;
		}
	}
}

/* ---- receiving --------------------------------------------------------------- */

static int ack_next(void *it, struct shb_quic_ack_range *r)
{
	return shb_quic_ack_iter_next(it, r);
}

static void on_frame(struct ts_server *s, int space, const struct shb_quic_frame *f)
{
	struct ts_stream *t;

	switch (f->type) {
	case SHB_QUIC_FT_ACK:
	case SHB_QUIC_FT_ACK_ECN: {
		struct shb_quic_ack_iter it;

		shb_quic_ack_iter_init(&it, &f->u.ack);
		if (getenv("H_SLOG"))
			fprintf(stderr, "S %.1f got ack sp %d largest %llu first %llu n %llu\n",
				(double)s->now / 1e6 - 1000, space,
				(unsigned long long)f->u.ack.largest,
				(unsigned long long)f->u.ack.first_range,
				(unsigned long long)f->u.ack.range_count);
		shb_quic_recovery_on_ack_iter(
			&s->rec, (enum shb_quic_pns)space, ack_next, &it,
			shb_quic_ack_delay_ns(f->u.ack.delay, (unsigned)s->peer_ack_exp),
			s->now);
		break;
	}
	case SHB_QUIC_FT_CRYPTO:
		on_crypto(s, space, &f->u.crypto);
		break;
	case SHB_QUIC_FT_STREAM:
		on_stream(s, &f->u.stream);
		break;
	case SHB_QUIC_FT_RESET_STREAM:
		t = ts_get(s, f->u.reset_stream.stream_id);
		t->got_reset = true;
		t->got_reset_code = f->u.reset_stream.error_code;
		t->got_reset_final = f->u.reset_stream.final_size;
		break;
	case SHB_QUIC_FT_STOP_SENDING:
		t = ts_get(s, f->u.stop_sending.stream_id);
		t->got_stop = true;
		t->got_stop_code = f->u.stop_sending.error_code;
		if (!t->fin_sent && !t->reset_done)
			ts_reset_stream(s, t->id, t->got_stop_code);
		break;
	case SHB_QUIC_FT_MAX_DATA:
		if (f->u.limit > s->tx_max_data)
			s->tx_max_data = f->u.limit;
		break;
	case SHB_QUIC_FT_MAX_STREAM_DATA:
		t = ts_get(s, f->u.stream_limit.stream_id);
		if (f->u.stream_limit.limit > t->tx_max)
			t->tx_max = f->u.stream_limit.limit;
		s->msd_frames++;
		break;
	case SHB_QUIC_FT_CONNECTION_CLOSE:
	case SHB_QUIC_FT_CONNECTION_CLOSE_APP: {
		size_t n = f->u.close.reason_len < 128 ? f->u.close.reason_len : 128;

		s->got_close = true;
		s->closed = true;
		s->got_close_type = f->type;
		s->got_close_code = f->u.close.error_code;
		memcpy(s->got_reason, f->u.close.reason, n);
		s->got_reason[n] = '\0';
		break;
	}
	case SHB_QUIC_FT_RETIRE_CONNECTION_ID:
		s->retired++;
		s->retired_last = f->u.retire_seq;
		break;
	case SHB_QUIC_FT_PATH_RESPONSE:
		s->path_resp_frames++;
		if (!memcmp(f->u.path_data, s->pc_data, 8))
			s->path_responses++;
		break;
	default:
		break;
	}
	if (f->type == SHB_QUIC_FT_MAX_DATA)
		s->md_frames++;
}

static int space_of(uint32_t type)
{
	return type == SHB_QUIC_PT_INITIAL ? 0
	       : type == SHB_QUIC_PT_HANDSHAKE ? 1
	       : type == SHB_QUIC_PT_1RTT ? 2 : -1;
}

static struct ts_cid *our_cid(struct ts_server *s, const uint8_t *id, size_t len)
{
	for (int i = 0; i < TS_CIDS; i++)
		if (s->cids[i].used && shb_quic_cid_eq(&s->cids[i].cid, id, len))
			return &s->cids[i];
	return NULL;
}

static void send_retry(struct ts_server *s, const struct shb_quic_hdr *h)
{
	uint8_t *o = s->raw;
	size_t n = 0;

	shb_quic_cid_set(&s->first_dcid, h->dcid, h->dcid_len);
	s->retry_scid.len = 8;
	ts_rnd(s->retry_scid.id, 8);
	o[n++] = 0xf0;
	o[n++] = 0, o[n++] = 0, o[n++] = 0, o[n++] = 1;
	o[n++] = h->scid_len;
	memcpy(o + n, h->scid, h->scid_len);
	n += h->scid_len;
	o[n++] = 8;
	memcpy(o + n, s->retry_scid.id, 8);
	n += 8;
	memcpy(o + n, "TOKEN:", 6);
	memcpy(o + n + 6, h->dcid, h->dcid_len);
	n += 6 + h->dcid_len;
	shb_quic_retry_tag(h->dcid, h->dcid_len, o, n, o + n);
	s->raw_len = n + 16;
	s->retry_sent = true;
}

static void send_vn(struct ts_server *s, const struct shb_quic_hdr *h)
{
	uint8_t *o = s->raw;
	size_t n = 0;

	o[n++] = 0xc3;
	memset(o + n, 0, 4);
	n += 4;
	o[n++] = h->scid_len;
	memcpy(o + n, h->scid, h->scid_len);
	n += h->scid_len;
	o[n++] = h->dcid_len;
	memcpy(o + n, h->dcid, h->dcid_len);
	n += h->dcid_len;
	memcpy(o + n, "\x1a\x2a\x3a\x4a", 4);
	s->raw_len = n + 4;
	s->vn_next = false;
}

/* The first usable client Initial creates the connection. */
static bool first_initial(struct ts_server *s, const struct shb_quic_hdr *h)
{
	if (s->vn_next) {
		send_vn(s, h);
		return false;
	}
	if (s->cfg.retry && !s->retry_sent) {
		send_retry(s, h);
		return false;
	}
	if (s->retry_sent) {
		if (h->token_len != 6u + s->first_dcid.len ||
		    memcmp(h->token, "TOKEN:", 6) ||
		    memcmp(h->token + 6, s->first_dcid.id, s->first_dcid.len) ||
		    !shb_quic_cid_eq(&s->retry_scid, h->dcid, h->dcid_len))
			return false;
		s->odcid = s->first_dcid;
	} else {
		shb_quic_cid_set(&s->odcid, h->dcid, h->dcid_len);
	}
	shb_quic_cid_set(&s->client_cid, h->scid, h->scid_len);
	shb_quic_keys_init_initial(&s->sp[0].rx, &s->sp[0].tx, h->dcid,
				   h->dcid_len);
	s->sp[0].rx_installed = s->sp[0].tx_installed = true;
	set_params(s);
	s->started = true;
	return true;
}

static bool scan_ok(const uint8_t *p, size_t n, uint32_t ptype, int *elic)
{
	size_t off = 0;

	*elic = 0;
	while (off < n) {
		struct shb_quic_frame f;

		if (shb_quic_frame_decode(p + off, n - off, ptype, &f) != 0)
			return false;
		*elic |= shb_quic_frame_ack_eliciting(f.type);
		off += f.wire_len;
	}
	return n > 0;
}

static void rx_packet(struct ts_server *s, uint8_t *pkt,
		      const struct shb_quic_hdr *h)
{
	int space = space_of(h->type);
	uint64_t trunc;
	int elic;

	if (space < 0 || s->sp[space].discarded || !s->sp[space].rx_installed)
		return;
	struct ts_space *sp = &s->sp[space];
	int pnl = shb_quic_hp_remove(&sp->rx, pkt, h->packet_len, h->pn_offset,
				     &trunc);

	if (pnl < 0)
		return;
	uint64_t pn = shb_quic_pn_decode(
		shb_quic_recovery_largest_received(&s->rec, (enum shb_quic_pns)space),
		trunc, (unsigned)pnl);
	size_t hl = h->pn_offset + (size_t)pnl;
	const struct shb_quic_keys *k = &sp->rx;
	int next = 0;

	if (space == 2 && shb_quic_hdr_key_phase(pkt[0]) != s->rx_phase) {
		if (s->rx_prev_valid && pn < s->rx_phase_start) {
			k = &s->rx_prev;
		} else {
			k = &s->rx_next;
			next = 1;
		}
	}
	int n = shb_quic_open(k, pn, pkt, hl, h->packet_len);

	if (n < 0)
		return;
	if (next) {
		struct shb_quic_keys t = s->rx_prev;

		s->rx_prev = sp->rx;
		sp->rx = s->rx_next;
		s->rx_next = t;
		/* never re-key a handle: see the client's rotate_keys() */
		shb_quic_keys_deinit(&s->rx_next);
		shb_quic_keys_update(&s->rx_next, &sp->rx);
		s->rx_phase ^= 1;
		s->rx_prev_valid = true;
		s->rx_phase_start = pn;
	}
	if (!scan_ok(pkt + hl, (size_t)n, h->type, &elic))
		return;
	if (shb_quic_recovery_on_received(&s->rec, (enum shb_quic_pns)space, pn,
					  elic, s->now) != SHB_QUIC_ACKRX_NEW)
		return;
	if (space == 1)
		ts_discard(s, 0); /* RFC 9001 4.9.1, server side */
	size_t off = 0;

	while (off < (size_t)n) {
		struct shb_quic_frame f;

		shb_quic_frame_decode(pkt + hl + off, (size_t)n - off, h->type, &f);
		on_frame(s, space, &f);
		off += f.wire_len;
	}
}

void ts_recv(struct ts_server *s, uint8_t *d, size_t len, uint64_t now)
{
	size_t off = 0;

	s->now = now;
	s->dgrams++;
	if (s->closed)
		return;
	while (off < len) {
		struct shb_quic_hdr h;

		if (shb_quic_hdr_parse(d + off, len - off, 8, &h) != 0)
			return;
		if (h.type == SHB_QUIC_PT_INITIAL) {
			s->initials++;
			if (len < s->min_initial)
				s->min_initial = len;
		}
		if (!s->started) {
			if (h.type != SHB_QUIC_PT_INITIAL || !first_initial(s, &h))
				return;
		} else {
			struct ts_cid *c = our_cid(s, h.dcid, h.dcid_len);

			if (c)
				c->pkts++;
			else if (h.type == SHB_QUIC_PT_1RTT ||
				 !(shb_quic_cid_eq(&s->odcid, h.dcid, h.dcid_len) ||
				   shb_quic_cid_eq(&s->retry_scid, h.dcid, h.dcid_len)))
				return;
		}
		rx_packet(s, d + off, &h);
		off += h.packet_len;
	}
}
