/* The connection tests' QUIC server: see ts_server.h. Test code, written
 * for clarity over speed: streams are found by a linear search, every
 * stream is visited for every packet, buffers grow with realloc. */
#include "ts_server.h"

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

static const uint8_t control_bytes[] = {0x00, 0x04, 0x00};

static void rnd(void *p, size_t n)
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
	if (s->retry_sent && s->cfg.bad_cids != 3)
		n += tp_bytes(o + n, SHB_QUIC_TP_RETRY_SCID, s->retry_scid.id,
			      s->retry_scid.len);
	s->tls.params_len = n;
}

/* ---- life cycle -------------------------------------------------------- */

static void on_acked(void *ctx, enum shb_quic_pns space,
		     const struct shb_quic_sent *pkt,
		     const struct shb_quic_frame_ref *refs);
static void rtx_add(struct ts_stream *t, uint64_t off, uint64_t len);
static void on_lost(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *pkt,
		    const struct shb_quic_frame_ref *refs);

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
	cbs = (struct shb_quic_recovery_cbs){on_acked, on_lost, s};
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
	rnd(s->cids[0].cid.id, 8);
	rnd(s->cids[0].token, 16);
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

static struct ts_stream *find(const struct ts_server *s, uint64_t id)
{
	for (size_t i = 0; i < s->nst; i++)
		if (s->st[i].id == id)
			return &s->st[i];
	return NULL;
}

static struct ts_stream *get(struct ts_server *s, uint64_t id)
{
	struct ts_stream *t = find(s, id);

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

static void start_response(struct ts_server *s, struct ts_stream *t,
			   uint64_t len)
{
	t->responding = true;
	t->tx_len = len;
	(void)s;
}

static void on_stream(struct ts_server *s, const struct shb_quic_frame_stream *f)
{
	struct ts_stream *t = get(s, f->stream_id);
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
		start_response(s, t, s->cfg.response_len);
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

static void discard(struct ts_server *s, int space)
{
	if (s->sp[space].discarded)
		return;
	s->sp[space].discarded = true;
	shb_quic_recovery_discard(&s->rec, (enum shb_quic_pns)space, s->now);
}

static const int level_of[3] = {0, 2, 3};

static int crypto_in(void *p, const uint8_t *d, size_t n)
{
	struct ts_server *s = ((void **)p)[0];
	int lvl = *(int *)((void **)p)[1];

	return tp_server_recv(&s->tls, lvl, d, n) == 0 ? 0 : -1;
}

static void on_crypto(struct ts_server *s, int space,
		      const struct shb_quic_frame_crypto *f)
{
	int lvl = level_of[space];
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
			struct ts_stream *t = get(s, 3);

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
		t = get(s, f->u.reset_stream.stream_id);
		t->got_reset = true;
		t->got_reset_code = f->u.reset_stream.error_code;
		t->got_reset_final = f->u.reset_stream.final_size;
		break;
	case SHB_QUIC_FT_STOP_SENDING:
		t = get(s, f->u.stop_sending.stream_id);
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
		t = get(s, f->u.stream_limit.stream_id);
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
	rnd(s->retry_scid.id, 8);
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
		discard(s, 0); /* RFC 9001 4.9.1, server side */
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

/* ---- sending ----------------------------------------------------------------- */

struct out {
	int space;
	uint8_t *p;
	size_t cap, len;
	struct shb_quic_hdr_layout lay;
	uint64_t pn, ack_largest;
	uint32_t max_refs, nrefs;
	int verdict;
	bool elic, ack_owed;
	struct shb_quic_frame_ref refs[TS_REFS];
};

static size_t oroom(const struct out *o)
{
	return o->cap > o->len + 16 ? o->cap - o->len - 16 : 0;
}

static bool oref(const struct out *o)
{
	return o->verdict >= 0 && o->nrefs < o->max_refs && oroom(o) > 24;
}

static void addref(struct out *o, uint16_t kind, uint64_t id, uint64_t off,
		   uint64_t len, uint16_t flags)
{
	struct shb_quic_frame_ref *r = &o->refs[o->nrefs++];

	r->kind = kind;
	r->id = id;
	r->offset = off;
	r->len = (uint32_t)len;
	r->flags = flags;
	o->elic = true;
}

static bool put(struct out *o, const struct shb_quic_frame *f)
{
	size_t n = shb_quic_frame_encode(o->p + o->len, oroom(o), f);

	if (!n)
		return false;
	o->len += n;
	if (shb_quic_frame_ack_eliciting(f->type))
		o->elic = true;
	return true;
}

static bool obegin(struct ts_server *s, struct out *o, int space, uint8_t *p,
		   size_t cap)
{
	static const uint32_t types[3] = {SHB_QUIC_PT_INITIAL,
					  SHB_QUIC_PT_HANDSHAKE, SHB_QUIC_PT_1RTT};
	struct shb_quic_hdr_spec sp = {0};
	enum shb_quic_pns pns = (enum shb_quic_pns)space;

	memset(o, 0, offsetof(struct out, refs));
	sp.type = types[space];
	sp.dcid = s->client_cid.id;
	sp.dcid_len = s->client_cid.len;
	sp.scid = s->cids[0].cid.id;
	sp.scid_len = s->cids[0].cid.len;
	sp.pn = shb_quic_recovery_next_pn(&s->rec, pns);
	sp.pn_len = shb_quic_pn_len(sp.pn, shb_quic_recovery_largest_acked(&s->rec, pns));
	sp.length_size = 2;
	sp.key_phase = s->tx_phase;
	if (shb_quic_hdr_build(p, cap, &sp, &o->lay) != 0)
		return false;
	o->space = space;
	o->p = p;
	o->cap = cap;
	o->len = o->lay.len;
	o->pn = sp.pn;
	o->ack_largest = NONE;
	o->verdict = shb_quic_recovery_can_send(&s->rec, pns, cap, &o->max_refs);
	if (o->max_refs > TS_REFS)
		o->max_refs = TS_REFS;
	return true;
}

/* cfg.bad_ack: the ranges of an ACK no honest server sends. */
static void bad_ack_ranges(const struct ts_server *s,
			   struct shb_quic_ack_view *v)
{
	static struct shb_quic_ack_range r;

	if (s->cfg.bad_ack == 1)
		r = (struct shb_quic_ack_range){ v->largest + 1000,
						 v->largest + 1000 };
	else
		r = (struct shb_quic_ack_range){ 0, (UINT64_C(1) << 62) - 1 };
	v->ranges = &r;
	v->count = 1;
	v->largest = r.hi;
}

static void put_ack(struct ts_server *s, struct out *o)
{
	struct shb_quic_ack_view v;
	enum shb_quic_pns pns = (enum shb_quic_pns)o->space;

	if (!shb_quic_recovery_ack_pending(&s->rec, pns) ||
	    shb_quic_recovery_ack_view(&s->rec, pns, s->now, &v) < 0)
		return;
	if (s->cfg.bad_ack && pns == SHB_QUIC_PNS_APP)
		bad_ack_ranges(s, &v);
	size_t k = shb_quic_ack_ranges_fit(v.ranges, v.count, v.ack_delay << 3, 3,
					   oroom(o));
	size_t n = k ? shb_quic_ack_frame_encode(o->p + o->len, oroom(o), v.ranges,
						 k, v.ack_delay << 3, 3)
		     : 0;

	if (!n)
		return;
	o->len += n;
	o->ack_largest = v.largest;
	o->ack_owed = shb_quic_recovery_ack_owed(&s->rec, pns);
}

static void put_crypto(struct ts_server *s, struct out *o)
{
	struct ts_space *sp = &s->sp[o->space];
	struct tp_stream *cs = &s->tls.out[level_of[o->space]];

	while (sp->c_next < cs->len && oref(o)) {
		size_t taken;
		size_t n = shb_quic_crypto_frame_encode(o->p + o->len, oroom(o),
							sp->c_next,
							cs->data + sp->c_next,
							cs->len - sp->c_next, &taken);

		if (!n)
			break;
		o->len += n;
		addref(o, R_CRYPTO, 0, sp->c_next, taken, 0);
		sp->c_next += (uint32_t)taken;
	}
}

static uint64_t credit(const struct ts_server *s, const struct ts_stream *t)
{
	uint64_t want = t->tx_len - t->tx_next;
	uint64_t a = t->tx_max > t->tx_next ? t->tx_max - t->tx_next : 0;
	uint64_t b = s->tx_max_data > s->tx_data ? s->tx_max_data - s->tx_data : 0;

	if (a < want)
		want = a;
	return b < want ? b : want;
}

/* A STREAM frame with the bytes of [off, off + len), built in place. */
static bool put_stream(struct ts_server *s, struct out *o, struct ts_stream *t,
		       uint64_t off, uint64_t len, bool fin, size_t *taken)
{
	uint8_t tmp[1500];
	size_t n;

	(void)s;
	if (!oref(o))
		return false;
	if (len > sizeof(tmp))
		len = sizeof(tmp);
	for (uint64_t i = 0; i < len; i++)
		tmp[i] = t->fixed ? t->fixed[off + i] : ts_byte(t->id, off + i);
	n = shb_quic_stream_frame_encode(o->p + o->len, oroom(o), t->id, off,
					 len ? tmp : NULL, (size_t)len, fin,
					 SHB_QUIC_STREAM_MODE_LEN, taken);
	if (!n)
		return false;
	o->len += n;
	fin = fin && *taken == len && off + len == t->tx_len;
	addref(o, R_STREAM, t->id, off, *taken, fin);
	return true;
}

static void put_stream_all(struct ts_server *s, struct out *o, struct ts_stream *t)
{
	struct shb_quic_frame f = {0};
	size_t taken;

	if (t->reset_pending && oref(o)) {
		f.type = SHB_QUIC_FT_RESET_STREAM;
		f.u.reset_stream.stream_id = t->id;
		f.u.reset_stream.error_code = t->reset_code;
		f.u.reset_stream.final_size = t->reset_final;
		if (put(o, &f)) {
			addref(o, R_RESET, t->id, 0, 0, 0);
			t->reset_pending = false;
		}
	}
	if (t->stop_pending && oref(o)) {
		f.type = SHB_QUIC_FT_STOP_SENDING;
		f.u.stop_sending.stream_id = t->id;
		f.u.stop_sending.error_code = t->stop_code;
		if (put(o, &f)) {
			addref(o, R_STOP, t->id, 0, 0, 0);
			t->stop_pending = false;
		}
	}
	if (t->msd_pending && oref(o)) {
		f.type = SHB_QUIC_FT_MAX_STREAM_DATA;
		f.u.stream_limit.stream_id = t->id;
		f.u.stream_limit.limit = t->rx_max;
		if (put(o, &f)) {
			addref(o, R_MAX_STREAM_DATA, t->id, 0, 0, 0);
			t->msd_pending = false;
		}
	}
	if (!t->responding || t->reset_done)
		return;
	while (t->nrtx) {
		/* Lowest offset first, as real stacks do: the receiver waits
		 * for the first gap. */
		int lo = 0;

		for (int i = 1; i < t->nrtx; i++)
			if (t->rtx[i].off < t->rtx[lo].off)
				lo = i;
		struct ts_range *r = &t->rtx[lo];
		bool fin = r->off + r->len == t->tx_len && t->fin_rtx;

		if (!put_stream(s, o, t, r->off, r->len, fin, &taken))
			return;
		if (fin && taken == r->len)
			t->fin_rtx = false;
		r->off += taken;
		r->len -= taken;
		if (!r->len) {
			t->nrtx--;
			memmove(r, r + 1, (size_t)(t->nrtx - lo) * sizeof(*r));
		}
	}
	if (t->fin_rtx) {
		if (!put_stream(s, o, t, t->tx_len, 0, true, &taken))
			return;
		t->fin_rtx = false;
	}
	while (t->tx_next < t->tx_len || (!t->fin_sent && !t->fixed)) {
		uint64_t a = credit(s, t);
		bool fin = t->tx_next + a == t->tx_len && !t->fixed;

		if (!a && !(fin && !t->fin_sent))
			return;
		if (!put_stream(s, o, t, t->tx_next, a, fin, &taken))
			return;
		t->tx_next += taken;
		s->tx_data += taken;
		if (fin && taken == a)
			t->fin_sent = true;
	}
}

static void put_app(struct ts_server *s, struct out *o)
{
	struct shb_quic_frame f = {0};

	if (s->inj_left && o->verdict >= 0 && oroom(o) >= s->inj_len) {
		memcpy(o->p + o->len, s->inj, s->inj_len);
		o->len += s->inj_len;
		o->elic = true;
		s->inj_left--;
	}

	if (s->hs_done_pending && oref(o)) {
		f.type = SHB_QUIC_FT_HANDSHAKE_DONE;
		if (put(o, &f)) {
			addref(o, R_HANDSHAKE_DONE, 0, 0, 0, 0);
			s->hs_done_pending = false;
		}
	}
	if (s->md_pending && oref(o)) {
		f.type = SHB_QUIC_FT_MAX_DATA;
		f.u.limit = s->rx_max_data;
		if (put(o, &f)) {
			addref(o, R_MAX_DATA, 0, 0, 0, 0);
			s->md_pending = false;
		}
	}
	if (s->ms_pending && oref(o)) {
		f.type = SHB_QUIC_FT_MAX_STREAMS_BIDI;
		f.u.limit = s->max_streams_bidi;
		if (put(o, &f)) {
			addref(o, R_MAX_STREAMS, 0, 0, 0, 0);
			s->ms_pending = false;
		}
	}
	if (s->pc_pending && o->verdict >= 0) {
		f.type = SHB_QUIC_FT_PATH_CHALLENGE;
		memcpy(f.u.path_data, s->pc_data, 8);
		if (put(o, &f))
			s->pc_pending = false;
	}
	for (int i = 0; i < TS_CIDS; i++) {
		struct ts_cid *c = &s->cids[i];

		if (!c->pending || !oref(o))
			continue;
		f.type = SHB_QUIC_FT_NEW_CONNECTION_ID;
		f.u.new_cid.seq = c->seq;
		f.u.new_cid.retire_prior_to = c->rpt;
		f.u.new_cid.cid = c->cid.id;
		f.u.new_cid.cid_len = c->cid.len;
		f.u.new_cid.reset_token = c->token;
		if (put(o, &f)) {
			addref(o, R_NEW_CID, 0, c->seq, 0, 0);
			c->pending = false;
		}
	}
	for (size_t k = 0; k < s->nst && oref(o); k++) {
		struct ts_stream *t = &s->st[(s->rr + k) % s->nst];

		put_stream_all(s, o, t);
	}
	if (s->nst)
		s->rr = (s->rr + 1) % s->nst;
}

static bool fill(struct ts_server *s, struct out *o)
{
	put_ack(s, o);
	if (o->verdict >= 0) {
		if (o->space == 2)
			put_app(s, o);
		else
			put_crypto(s, o);
	}
	if (!o->elic && o->verdict >= 0 &&
	    shb_quic_recovery_probes(&s->rec, (enum shb_quic_pns)o->space) > 0) {
		struct shb_quic_frame f = {.type = SHB_QUIC_FT_PING};

		put(o, &f);
	}
	return o->elic || o->ack_owed;
}

static size_t finish(struct ts_server *s, struct out *o)
{
	size_t min = shb_quic_hp_min_payload(o->lay.pn_len);
	size_t have = o->len - o->lay.len;
	struct shb_quic_sent_desc d = {0};

	if (have < min) {
		memset(o->p + o->len, 0, min - have);
		o->len += min - have;
	}
	size_t plen = o->len + 16;

	if (o->space != 2)
		shb_quic_hdr_set_length(o->p, &o->lay, plen);
	shb_quic_protect(&s->sp[o->space].tx, o->pn, o->p, o->lay.pn_offset,
			 o->len - o->lay.len, plen);
	d.ack_largest = o->ack_largest;
	d.size = (uint32_t)plen;
	d.ack_eliciting = o->elic;
	shb_quic_recovery_on_sent(&s->rec, (enum shb_quic_pns)o->space, &d,
				  o->refs, o->nrefs, s->now);
	if (getenv("H_SLOG"))
		fprintf(stderr, "S %.1f sent sp %d pn %llu len %zu elic %d refs %u "
			"first ref %u off %llu probes %u\n",
			(double)s->now / 1e6 - 1000, o->space,
			(unsigned long long)o->pn, plen, o->elic, o->nrefs,
			o->nrefs ? o->refs[0].kind : 0,
			o->nrefs ? (unsigned long long)o->refs[0].offset : 0ULL,
			shb_quic_recovery_probes(&s->rec, (enum shb_quic_pns)o->space));
	return plen;
}

static size_t send_close(struct ts_server *s, uint8_t *out, size_t cap)
{
	struct out o;
	struct shb_quic_frame f = {0};
	int space = s->sp[2].tx_installed ? 2 : s->sp[1].tx_installed ? 1 : 0;

	s->close_pending = false;
	s->closed = true;
	if (!obegin(s, &o, space, out, cap))
		return 0;
	f.type = s->close_app && space == 2 ? SHB_QUIC_FT_CONNECTION_CLOSE_APP
					    : SHB_QUIC_FT_CONNECTION_CLOSE;
	f.u.close.error_code = s->close_code;
	f.u.close.reason = (const uint8_t *)s->close_reason;
	f.u.close.reason_len = strlen(s->close_reason);
	put(&o, &f);
	return finish(s, &o);
}

size_t ts_send(struct ts_server *s, uint8_t *out, size_t cap, uint64_t now)
{
	struct out o[3];
	size_t used = 0;
	int n = 0;

	s->now = now;
	if (cap > 1200)
		cap = 1200;
	if (s->raw_len) {
		size_t len = s->raw_len;

		memcpy(out, s->raw, len);
		s->raw_len = 0;
		return len;
	}
	if (s->close_pending)
		return send_close(s, out, cap);
	if (!s->started || s->closed)
		return 0;
	for (int space = 0; space < 3; space++) {
		struct ts_space *sp = &s->sp[space];

		if (sp->discarded || !sp->tx_installed || cap - used < 64)
			continue;
		if (!obegin(s, &o[n], space, out + used, cap - used) ||
		    !fill(s, &o[n]))
			continue;
		used += o[n].len + 16;
		n++;
	}
	used = 0;
	for (int i = 0; i < n; i++)
		used += finish(s, &o[i]);
	if (n && s->hs_discard_after_send) {
		s->hs_discard_after_send = false;
		discard(s, 1);
	}
	return used;
}

uint64_t ts_deadline(const struct ts_server *s)
{
	if (!s->started || s->closed)
		return NONE;
	return shb_quic_recovery_deadline(&s->rec);
}

/* PTO in the application space: the probes carry the oldest outstanding
 * stream data again (as ngtcp2 and quic-go do), so a receiver that
 * could not take newer data still sees the bytes it waits for. */
struct reclaim {
	struct ts_server *s;
	int left;
};

static void reclaim_one(void *ctx, enum shb_quic_pns space,
			const struct shb_quic_sent *pkt,
			const struct shb_quic_frame_ref *refs)
{
	struct reclaim *r = ctx;

	(void)space;
	if (r->left <= 0)
		return;
	r->left--;
	for (uint16_t i = 0; i < pkt->nrefs; i++) {
		struct ts_stream *t = find(r->s, refs[i].id);

		if (refs[i].kind == R_STREAM && t && !t->reset_done) {
			rtx_add(t, refs[i].offset, refs[i].len);
			if (refs[i].flags & 1)
				t->fin_rtx = true;
		}
	}
}

void ts_timeout(struct ts_server *s, uint64_t now)
{
	struct shb_quic_timeout t;

	s->now = now;
	shb_quic_recovery_on_timeout(&s->rec, now, &t);
	if (getenv("H_SLOG"))
		fprintf(stderr, "S %.1f timeout kind %u space %u lost %u\n",
			(double)now / 1e6 - 1000, t.kind, t.space, t.lost);
	if (t.kind == SHB_QUIC_TIMEOUT_PTO && t.space != 2)
		s->sp[t.space].c_next = s->sp[t.space].c_acked;
	if (t.kind == SHB_QUIC_TIMEOUT_PTO && t.space == 2) {
		struct reclaim r = {s, 2};

		shb_quic_recovery_foreach_outstanding(&s->rec, SHB_QUIC_PNS_APP,
						      reclaim_one, &r);
	}
}

/* ---- recovery callbacks ----------------------------------------------------------- */

static void rtx_add(struct ts_stream *t, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	for (int i = 0; i < t->nrtx; i++) {
		struct ts_range *r = &t->rtx[i];

		if (off <= r->off + r->len && off + len >= r->off) {
			uint64_t lo = off < r->off ? off : r->off;
			uint64_t hi = off + len > r->off + r->len ? off + len
								  : r->off + r->len;

			r->off = lo;
			r->len = hi - lo;
			return;
		}
	}
	if (t->nrtx == TS_RTX) {
		/* widen the last one; resending more is harmless */
		struct ts_range *r = &t->rtx[TS_RTX - 1];
		uint64_t lo = off < r->off ? off : r->off;
		uint64_t hi = off + len > r->off + r->len ? off + len : r->off + r->len;

		r->off = lo;
		r->len = hi - lo;
		return;
	}
	t->rtx[t->nrtx].off = off;
	t->rtx[t->nrtx].len = len;
	t->nrtx++;
}

static void on_acked(void *ctx, enum shb_quic_pns space,
		     const struct shb_quic_sent *pkt,
		     const struct shb_quic_frame_ref *refs)
{
	struct ts_server *s = ctx;

	for (uint16_t i = 0; i < pkt->nrefs; i++) {
		const struct shb_quic_frame_ref *r = &refs[i];
		struct ts_space *sp = &s->sp[space];

		if (r->kind == R_CRYPTO && r->offset <= sp->c_acked &&
		    r->offset + r->len > sp->c_acked)
			sp->c_acked = (uint32_t)(r->offset + r->len);
		if (r->kind == R_STREAM && (r->flags & 1)) {
			struct ts_stream *t = find(s, r->id);

			if (t)
				t->fin_acked = true;
		}
	}
}

static void on_lost(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *pkt,
		    const struct shb_quic_frame_ref *refs)
{
	struct ts_server *s = ctx;

	for (uint16_t i = 0; i < pkt->nrefs; i++) {
		const struct shb_quic_frame_ref *r = &refs[i];
		struct ts_stream *t = r->id != NONE ? find(s, r->id) : NULL;

		switch (r->kind) {
		case R_CRYPTO:
			if (r->offset < s->sp[space].c_next)
				s->sp[space].c_next = (uint32_t)r->offset;
			break;
		case R_STREAM:
			if (t && !t->reset_done) {
				rtx_add(t, r->offset, r->len);
				if (r->flags & 1)
					t->fin_rtx = true;
			}
			break;
		case R_HANDSHAKE_DONE:
			s->hs_done_pending = true;
			break;
		case R_MAX_DATA:
			s->md_pending = true;
			break;
		case R_MAX_STREAMS:
			s->ms_pending = true;
			break;
		case R_MAX_STREAM_DATA:
			if (t && t->rx_final == NONE)
				t->msd_pending = true;
			break;
		case R_RESET:
			if (t)
				t->reset_pending = true;
			break;
		case R_STOP:
			if (t)
				t->stop_pending = true;
			break;
		case R_NEW_CID:
			for (int k = 0; k < TS_CIDS; k++)
				if (s->cids[k].used && s->cids[k].seq == r->offset)
					s->cids[k].pending = true;
			break;
		default:
			break;
		}
	}
}

/* ---- what the tests look at ------------------------------------------------------------ */

bool ts_handshake_done(const struct ts_server *s)
{
	return s->hs_done;
}

const uint8_t *ts_stream_data(const struct ts_server *s, uint64_t id,
			      size_t *len, bool *fin)
{
	const struct ts_stream *t = find(s, id);

	*len = t ? (size_t)t->rx_contig : 0;
	*fin = t && t->rx_final != NONE && t->rx_contig == t->rx_final;
	return t ? t->rx : NULL;
}

bool ts_stream_got_reset(const struct ts_server *s, uint64_t id,
			 uint64_t *code, uint64_t *final_size)
{
	const struct ts_stream *t = find(s, id);

	if (!t || !t->got_reset)
		return false;
	*code = t->got_reset_code;
	*final_size = t->got_reset_final;
	return true;
}

bool ts_stream_got_stop(const struct ts_server *s, uint64_t id, uint64_t *code)
{
	const struct ts_stream *t = find(s, id);

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
	const struct ts_stream *t = find(s, id);

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
	const struct ts_stream *t = find(s, id);

	return t ? t->rx_high : 0;
}

/* ---- what the tests make it do ---------------------------------------------------------- */

void ts_respond(struct ts_server *s, uint64_t id, uint64_t len)
{
	start_response(s, get(s, id), len);
}

void ts_reset_stream(struct ts_server *s, uint64_t id, uint64_t code)
{
	struct ts_stream *t = get(s, id);

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
	struct ts_stream *t = get(s, id);

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
	struct ts_stream *t = get(s, id);

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
		rnd(c->cid.id, 8);
		rnd(c->token, 16);
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
	rnd(s->pc_data, 8);
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
		rnd(out, len);
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
