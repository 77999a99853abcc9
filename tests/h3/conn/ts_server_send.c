/* The connection tests' QUIC server, its sending and its recovery
 * callbacks (ts_server_int.h). */
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
	if (s->cfg.clear_fixed_bit && sp.type == SHB_QUIC_PT_1RTT)
		p[0] &= (uint8_t)~0x40;
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
	struct tp_stream *cs = &s->tls.out[ts_level_of[o->space]];

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
		ts_discard(s, 1);
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
		struct ts_stream *t = ts_find(r->s, refs[i].id);

		if (refs[i].kind == R_STREAM && t && !t->reset_done) {
			ts_rtx_add(t, refs[i].offset, refs[i].len);
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

void ts_rtx_add(struct ts_stream *t, uint64_t off, uint64_t len)
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

void ts_on_acked(void *ctx, enum shb_quic_pns space,
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
			struct ts_stream *t = ts_find(s, r->id);

			if (t)
				t->fin_acked = true;
		}
	}
}

void ts_on_lost(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *pkt,
		    const struct shb_quic_frame_ref *refs)
{
	struct ts_server *s = ctx;

	for (uint16_t i = 0; i < pkt->nrefs; i++) {
		const struct shb_quic_frame_ref *r = &refs[i];
		struct ts_stream *t = r->id != NONE ? ts_find(s, r->id) : NULL;

		switch (r->kind) {
		case R_CRYPTO:
			if (r->offset < s->sp[space].c_next)
				s->sp[space].c_next = (uint32_t)r->offset;
			break;
		case R_STREAM:
			if (t && !t->reset_done) {
				ts_rtx_add(t, r->offset, r->len);
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
