/* Datagrams out. Packets are built directly in the caller's buffer: the
 * plaintext of every packet of a datagram first (Initial, Handshake,
 * 1-RTT, coalesced), then padding inside the last packet (Initial
 * datagrams reach 1200 bytes; a datagram followed by more of the train
 * fills the segment size), then Length fields, sealing and header
 * protection, then the records for loss recovery. Since the padding is
 * decided before anything is sealed, a datagram always has exactly the
 * size it must, and nothing numbered is ever dropped. */
#include "quic_conn_int.h"

#include <string.h>

#include "quic_pn.h"
#include "quic_wire_err.h"

/* Below this many bytes left, no further packet is started. */
#define QC_MIN_PACKET 48u
/* Below this many bytes of room, no further STREAM frame is tried. */
#define QC_MIN_STREAM_ROOM 24u

struct pkt {
	int space;
	uint8_t *p;  /* first byte of the packet */
	size_t cap;  /* bytes the packet may take, tag included */
	size_t len;  /* header and frames so far */
	struct shb_quic_hdr_layout lay;
	uint64_t pn;
	uint64_t ack_largest;
	uint32_t max_refs;
	int verdict; /* enum shb_quic_send_verdict */
	uint8_t eliciting;
	uint8_t ack_owed;
	uint8_t has_close;
	uint32_t nrefs;
	struct shb_quic_frame_ref refs[QC_PKT_REFS];
};

static size_t room(const struct pkt *k)
{
	size_t used = k->len + SHB_QUIC_AEAD_TAG_LEN;

	return k->cap > used ? k->cap - used : 0;
}

static uint8_t *at(struct pkt *k)
{
	return k->p + k->len;
}

/* May the packet take one more frame that must be tracked? */
static bool can_ref(const struct pkt *k)
{
	return k->verdict >= 0 && k->nrefs < k->max_refs;
}

static void add_ref(struct pkt *k, uint16_t kind, uint64_t id,
		    uint64_t offset, uint64_t len, uint16_t flags)
{
	struct shb_quic_frame_ref *r = &k->refs[k->nrefs++];

	r->kind = kind;
	r->id = id;
	r->offset = offset;
	r->len = (uint32_t)len;
	r->flags = flags;
	k->eliciting = 1;
}

/* Encodes a fixed-form frame; false when it does not fit. */
static bool put_frame(struct pkt *k, const struct shb_quic_frame *f)
{
	size_t n = shb_quic_frame_encode(at(k), room(k), f);

	if (!n)
		return false;
	k->len += n;
	if (shb_quic_frame_ack_eliciting(f->type))
		k->eliciting = 1;
	return true;
}

static const uint32_t ptype_of[QC_SPACES] = {
	SHB_QUIC_PT_INITIAL, SHB_QUIC_PT_HANDSHAKE, SHB_QUIC_PT_1RTT};

static bool space_sendable(const struct shb_quic_conn *c, int space)
{
	return !c->sp[space].discarded &&
	       shb_quic_keys_ready(&c->sp[space].tx);
}

static bool begin(struct shb_quic_conn *c, struct pkt *k, int space,
		  uint8_t *p, size_t cap)
{
	struct shb_quic_hdr_spec spec = {0};
	enum shb_quic_pns pns = (enum shb_quic_pns)space;

	memset(k, 0, offsetof(struct pkt, refs));
	spec.type = ptype_of[space];
	spec.dcid = c->dcid.id;
	spec.dcid_len = c->dcid.len;
	spec.scid = c->scid.id;
	spec.scid_len = c->scid.len;
	if (space == QC_INITIAL && c->token_len) {
		spec.token = c->token;
		spec.token_len = c->token_len;
	}
	spec.pn = shb_quic_recovery_next_pn(&c->rec, pns);
	spec.pn_len = shb_quic_pn_len(spec.pn,
				      shb_quic_recovery_largest_acked(&c->rec, pns));
	spec.length_size = 2;
	spec.key_phase = c->key_phase;
	if (shb_quic_hdr_build(p, cap, &spec, &k->lay) != SHB_QUIC_OK ||
	    k->lay.len + SHB_QUIC_AEAD_TAG_LEN + 8 > cap)
		return false;
	k->space = space;
	k->p = p;
	k->cap = cap;
	k->len = k->lay.len;
	k->pn = spec.pn;
	k->ack_largest = SHB_QUIC_PN_NONE;
	/* c->now is the `now` of the write() being served. */
	k->verdict = shb_quic_recovery_can_send_at(&c->rec, pns, cap,
						   &k->max_refs, c->now);
	if (k->max_refs > QC_PKT_REFS)
		k->max_refs = QC_PKT_REFS;
	return true;
}

static void put_ack(struct shb_quic_conn *c, struct pkt *k, uint64_t now)
{
	enum shb_quic_pns pns = (enum shb_quic_pns)k->space;
	struct shb_quic_ack_view v;
	uint64_t delay_us;
	size_t n;

	if (!shb_quic_recovery_ack_pending(&c->rec, pns) ||
	    shb_quic_recovery_ack_view(&c->rec, pns, now, &v) < 0)
		return;
	delay_us = v.ack_delay << SHB_QUIC_ACK_DELAY_EXPONENT;
	n = shb_quic_ack_ranges_fit(v.ranges, v.count, delay_us,
				    SHB_QUIC_ACK_DELAY_EXPONENT, room(k));
	if (!n)
		return;
	n = shb_quic_ack_frame_encode(at(k), room(k), v.ranges, n, delay_us,
				      SHB_QUIC_ACK_DELAY_EXPONENT);
	if (!n)
		return;
	k->len += n;
	k->ack_largest = v.largest;
	k->ack_owed = (uint8_t)shb_quic_recovery_ack_owed(&c->rec, pns);
}

static void fill_crypto(struct shb_quic_conn *c, struct pkt *k)
{
	struct qc_csend *cs = &c->sp[k->space].cs;

	while (cs->next < cs->len && can_ref(k)) {
		size_t taken = 0;
		size_t n = shb_quic_crypto_frame_encode(at(k), room(k), cs->next,
							cs->data + cs->next,
							cs->len - cs->next, &taken);

		if (!n)
			break;
		k->len += n;
		add_ref(k, QC_REF_CRYPTO, 0, cs->next, taken, 0);
		cs->next += (uint32_t)taken;
	}
}

/* One STREAM frame of s->sbuf[off .. off + len); false if none fit. */
static bool put_stream(struct shb_quic_conn *c, struct pkt *k,
		       struct qc_stream *s, uint64_t off, uint64_t len,
		       int fin, size_t *taken)
{
	size_t n;

	(void)c;
	*taken = 0;
	if (!can_ref(k) || room(k) < QC_MIN_STREAM_ROOM)
		return false;
	n = shb_quic_stream_frame_encode(at(k), room(k), s->id, off,
					 len ? s->sbuf + (off - s->sbase) : NULL,
					 (size_t)len,
					 fin, SHB_QUIC_STREAM_MODE_LEN, taken);
	if (!n)
		return false;
	k->len += n;
	fin = fin && *taken == len;
	add_ref(k, QC_REF_STREAM, s->id, off, *taken, fin ? QC_REF_FIN : 0);
	s->inflight++;
	return true;
}

static bool range_ends_at(const struct qc_stream *s, uint64_t end)
{
	for (uint8_t i = 0; i < s->nrtx; i++)
		if (s->rtx[i].off + s->rtx[i].len == end)
			return true;
	return false;
}

static void fill_stream_data(struct shb_quic_conn *c, struct pkt *k,
			     struct qc_stream *s)
{
	size_t taken;

	/* Lost bytes first: they need no new credit. */
	while (s->nrtx) {
		struct qc_range *r = &s->rtx[0];
		int fin = s->fin_rtx && r->off + r->len == s->slen;

		if (!put_stream(c, k, s, r->off, r->len, fin, &taken))
			return;
		c->stats.stream_bytes_resent += taken;
		if (fin && taken == r->len)
			s->fin_rtx = 0;
		r->off += taken;
		r->len -= taken;
		if (r->len == 0) {
			memmove(&s->rtx[0], &s->rtx[1],
				(size_t)(s->nrtx - 1) * sizeof(s->rtx[0]));
			s->nrtx--;
		}
	}
	if (s->fin_rtx && !range_ends_at(s, s->slen)) {
		if (!put_stream(c, k, s, s->slen, 0, 1, &taken))
			return;
		s->fin_rtx = 0;
	}
	uint64_t avail = qc_stream_credit(c, s);

	if (avail == 0 && !(s->fin && !s->fin_sent && s->tx_next == s->slen))
		return;
	int fin = s->fin && s->tx_next + avail == s->slen;

	if (!put_stream(c, k, s, s->tx_next, avail, fin, &taken))
		return;
	s->tx_next += taken;
	c->tx_data += taken;
	if (fin && taken == avail)
		s->fin_sent = 1;
}

static void fill_stream(struct shb_quic_conn *c, struct pkt *k,
			struct qc_stream *s)
{
	struct shb_quic_frame f = {0};

	if (s->reset_pending && can_ref(k)) {
		f.type = SHB_QUIC_FT_RESET_STREAM;
		f.u.reset_stream.stream_id = s->id;
		f.u.reset_stream.error_code = s->reset_code;
		f.u.reset_stream.final_size = s->reset_final;
		if (put_frame(k, &f)) {
			add_ref(k, QC_REF_RESET_STREAM, s->id, 0, 0, 0);
			s->reset_pending = 0;
			s->inflight++;
		}
	}
	if (s->stop_pending && can_ref(k)) {
		f.type = SHB_QUIC_FT_STOP_SENDING;
		f.u.stop_sending.stream_id = s->id;
		f.u.stop_sending.error_code = s->stop_code;
		if (put_frame(k, &f)) {
			add_ref(k, QC_REF_STOP_SENDING, s->id, 0, 0, 0);
			s->stop_pending = 0;
		}
	}
	if (s->msd_pending && can_ref(k)) {
		f.type = SHB_QUIC_FT_MAX_STREAM_DATA;
		f.u.stream_limit.stream_id = s->id;
		f.u.stream_limit.limit = s->rx_max;
		if (put_frame(k, &f)) {
			add_ref(k, QC_REF_MAX_STREAM_DATA, s->id, 0, 0, 0);
			s->msd_pending = 0;
		}
	}
	if (!s->reset)
		fill_stream_data(c, k, s);
}

static void fill_conn_ctrl(struct shb_quic_conn *c, struct pkt *k)
{
	struct shb_quic_frame f = {0};

	if (c->path_resp_pending && k->verdict >= 0) {
		f.type = SHB_QUIC_FT_PATH_RESPONSE;
		memcpy(f.u.path_data, c->path_resp, SHB_QUIC_PATH_DATA_LEN);
		if (put_frame(k, &f))
			c->path_resp_pending = 0;
	}
	if (c->md_pending && can_ref(k)) {
		f.type = SHB_QUIC_FT_MAX_DATA;
		f.u.limit = c->rx_max_data;
		if (put_frame(k, &f)) {
			add_ref(k, QC_REF_MAX_DATA, 0, 0, 0, 0);
			c->md_pending = 0;
		}
	}
	if (c->msu_pending && can_ref(k)) {
		f.type = SHB_QUIC_FT_MAX_STREAMS_UNI;
		f.u.limit = c->peer_uni_limit;
		if (put_frame(k, &f)) {
			add_ref(k, QC_REF_MAX_STREAMS_UNI, 0, 0, 0, 0);
			c->msu_pending = 0;
		}
	}
	for (unsigned i = 0; i < QC_RETIRE_MAX && can_ref(k); i++) {
		struct qc_retire *e = &c->retire[i];

		if (e->state != 1)
			continue;
		f.type = SHB_QUIC_FT_RETIRE_CONNECTION_ID;
		f.u.retire_seq = e->seq;
		if (!put_frame(k, &f))
			break;
		add_ref(k, QC_REF_RETIRE_CID, 0, e->seq, 0, 0);
		e->state = 2;
	}
}

static void fill_app(struct shb_quic_conn *c, struct pkt *k)
{
	uint32_t n = c->sq_len;

	fill_conn_ctrl(c, k);
	/* Each stream in the queue gets one turn per packet. */
	while (n-- && can_ref(k) && room(k) >= QC_MIN_STREAM_ROOM) {
		struct qc_stream *s = qc_sendq_pop(c);

		if (!s)
			break;
		fill_stream(c, k, s);
		if (qc_stream_has_ctrl(s) || qc_stream_has_data(c, s))
			qc_sendq_push(c, s);
	}
}

static void fill_ping(struct shb_quic_conn *c, struct pkt *k)
{
	struct shb_quic_frame f = {.type = SHB_QUIC_FT_PING};
	enum shb_quic_pns pns = (enum shb_quic_pns)k->space;
	bool probe = shb_quic_recovery_probes(&c->rec, pns) > 0;
	bool keepalive = k->space == QC_APP && c->ping_pending;

	if (k->eliciting || k->verdict < 0 || !(probe || keepalive))
		return;
	if (put_frame(k, &f) && keepalive)
		c->ping_pending = 0;
}

/* Fills one packet; false when it carries nothing worth sending. */
static bool fill(struct shb_quic_conn *c, struct pkt *k, uint64_t now)
{
	put_ack(c, k, now);
	if (k->verdict >= 0) {
		if (k->space == QC_APP)
			fill_app(c, k);
		else
			fill_crypto(c, k);
	}
	fill_ping(c, k);
	/* An ACK that is not owed never makes a packet by itself. */
	return k->eliciting || k->ack_owed || k->has_close;
}

static void pad(struct pkt *k, size_t n)
{
	memset(at(k), 0, n);
	k->len += n;
}

/* Header protection samples 4 bytes past the packet number start. */
static void pad_for_sample(struct pkt *k)
{
	size_t min = shb_quic_hp_min_payload(k->lay.pn_len);
	size_t have = k->len - k->lay.len;

	if (have < min)
		pad(k, min - have);
}

/* Seals a finished packet in place; returns its length or 0. */
static size_t seal(struct shb_quic_conn *c, struct pkt *k)
{
	size_t plen = k->len + SHB_QUIC_AEAD_TAG_LEN;

	if (k->space != QC_APP &&
	    shb_quic_hdr_set_length(k->p, &k->lay, plen) != SHB_QUIC_OK)
		return 0;
	int n = shb_quic_protect(&c->sp[k->space].tx, k->pn, k->p,
				 k->lay.pn_offset, k->len - k->lay.len, plen);

	return n < 0 ? 0 : (size_t)n;
}

static void record(struct shb_quic_conn *c, struct pkt *k, size_t size,
		   uint64_t now)
{
	struct shb_quic_sent_desc d = {
		.ack_largest = k->ack_largest,
		.size = (uint32_t)size,
		.ack_eliciting = k->eliciting,
	};

	shb_quic_recovery_on_sent(&c->rec, (enum shb_quic_pns)k->space, &d,
				  k->refs, k->nrefs, now);
	if (k->eliciting && !c->sent_since_recv) {
		c->idle_start = now;
		c->sent_since_recv = 1;
	}
}

/* More to send after the packets of this datagram? `mask`: spaces that
 * have a packet in it (their ACK and probe are being served). `paced`:
 * the pacer may hold data back (at c->now); false asks what would go out
 * if it did not. */
static bool wanted(const struct shb_quic_conn *c, unsigned mask, bool paced)
{
	for (int space = 0; space < QC_SPACES; space++) {
		enum shb_quic_pns pns = (enum shb_quic_pns)space;
		bool here = (mask >> space) & 1;

		if (!space_sendable(c, space))
			continue;
		if (!here && (shb_quic_recovery_ack_owed(&c->rec, pns) ||
			      shb_quic_recovery_probes(&c->rec, pns) > 0))
			return true;
		if ((paced ? shb_quic_recovery_can_send_at(&c->rec, pns,
							   c->cfg.max_dgram,
							   NULL, c->now)
			   : shb_quic_recovery_can_send(&c->rec, pns,
							c->cfg.max_dgram,
							NULL)) < 0)
			continue;
		if (space != QC_APP) {
			if (c->sp[space].cs.next < c->sp[space].cs.len)
				return true;
			continue;
		}
		if (c->md_pending || c->msu_pending || c->path_resp_pending ||
		    c->ping_pending)
			return true;
		for (unsigned i = 0; i < QC_RETIRE_MAX; i++)
			if (c->retire[i].state == 1)
				return true;
		for (uint32_t i = 0; i < c->sq_len; i++) {
			const struct qc_stream *s =
				&c->st[c->sendq[(c->sq_head + i) % c->nslots]];

			if (s->used &&
			    (qc_stream_has_ctrl(s) || qc_stream_has_data(c, s)))
				return true;
		}
	}
	return false;
}

bool qc_tx_wanted(const struct shb_quic_conn *c)
{
	return wanted(c, 0, true);
}

uint64_t qc_tx_paced_until(const struct shb_quic_conn *c)
{
	uint64_t t = shb_quic_recovery_pacer_time(&c->rec);

	if (t <= c->now || wanted(c, 0, true) || !wanted(c, 0, false))
		return QC_NONE;
	return t;
}

static size_t build_datagram(struct shb_quic_conn *c, uint8_t *out, size_t cap,
			     uint64_t now)
{
	struct pkt pk[QC_SPACES];
	size_t used = 0, target;
	unsigned np = 0, mask = 0;
	bool handshake_sent = false;

	for (int space = 0; space < QC_SPACES; space++) {
		if (!space_sendable(c, space) || cap - used < QC_MIN_PACKET)
			continue;
		struct pkt *k = &pk[np];

		if (!begin(c, k, space, out + used, cap - used) || !fill(c, k, now))
			continue;
		pad_for_sample(k);
		used += k->len + SHB_QUIC_AEAD_TAG_LEN;
		mask |= 1u << space;
		np++;
	}
	if (np == 0)
		return 0;
	target = used;
	if ((mask & 1u) && target < QC_MIN_INITIAL)
		target = QC_MIN_INITIAL;
	if (wanted(c, mask, true))
		target = cap;
	if (target > used)
		pad(&pk[np - 1], target - used);
	used = 0;
	for (unsigned i = 0; i < np; i++) {
		size_t n = seal(c, &pk[i]);

		if (!n) {
			qc_fail(c, SHB_QUIC_TE_INTERNAL_ERROR, 0,
				"packet protection failed");
			return 0;
		}
		record(c, &pk[i], n, now);
		used += n;
		handshake_sent |= pk[i].space == QC_HANDSHAKE;
	}
	/* RFC 9001 4.9.1: Initial keys go once a Handshake packet is sent. */
	if (handshake_sent && !c->sp[QC_INITIAL].discarded)
		qc_discard_space(c, QC_INITIAL, now);
	return used;
}

/* The CONNECTION_CLOSE datagram: one packet in each space that has keys;
 * an application close only in 1-RTT, APPLICATION_ERROR elsewhere (RFC
 * 9000 Section 10.2.3). */
static size_t build_close(struct shb_quic_conn *c, uint8_t *out, size_t cap,
			  uint64_t now)
{
	struct pkt pk[QC_SPACES];
	size_t used = 0;
	unsigned np = 0;
	bool initial = false;

	(void)now;
	for (int space = 0; space < QC_SPACES; space++) {
		struct shb_quic_frame f = {0};
		struct pkt *k = &pk[np];

		if (!space_sendable(c, space) ||
		    !begin(c, k, space, out + used, cap - used))
			continue;
		if (c->close_app && space == QC_APP) {
			f.type = SHB_QUIC_FT_CONNECTION_CLOSE_APP;
			f.u.close.error_code = c->close_code;
			f.u.close.reason = (const uint8_t *)c->reason;
			f.u.close.reason_len = strlen(c->reason);
		} else if (c->close_app) {
			f.type = SHB_QUIC_FT_CONNECTION_CLOSE;
			f.u.close.error_code = SHB_QUIC_TE_APPLICATION_ERROR;
		} else {
			f.type = SHB_QUIC_FT_CONNECTION_CLOSE;
			f.u.close.error_code = c->close_code;
			f.u.close.frame_type = c->close_frame_type;
			f.u.close.reason = (const uint8_t *)c->reason;
			f.u.close.reason_len = strlen(c->reason);
		}
		if (!put_frame(k, &f))
			continue;
		pad_for_sample(k);
		used += k->len + SHB_QUIC_AEAD_TAG_LEN;
		initial |= space == QC_INITIAL;
		np++;
	}
	if (np == 0)
		return 0;
	if (initial && used < QC_MIN_INITIAL)
		pad(&pk[np - 1], QC_MIN_INITIAL - used);
	used = 0;
	for (unsigned i = 0; i < np; i++) {
		size_t n = seal(c, &pk[i]);

		if (!n)
			return 0;
		used += n;
	}
	return used;
}

ptrdiff_t qc_tx_train(struct shb_quic_conn *c, uint8_t *buf, size_t cap,
		      size_t *seg, uint64_t now)
{
	size_t maxd = c->cfg.max_dgram, total = 0;
	size_t limit = cap / maxd;
	unsigned count = 0;

	if (c->state == SHB_QUIC_CONN_CLOSING) {
		size_t n = build_close(c, buf, maxd, now);

		c->state = SHB_QUIC_CONN_CLOSED;
		*seg = n;
		return (ptrdiff_t)n;
	}
	if (limit > QC_MAX_TRAIN)
		limit = QC_MAX_TRAIN;
	for (int s = 0; s < QC_SPACES; s++)
		if (shb_quic_recovery_probes(&c->rec, (enum shb_quic_pns)s) > 0 &&
		    limit > 2)
			limit = 2; /* a probe is a probe, not a burst */
	while (count < limit && !qc_ended(c)) {
		size_t n = build_datagram(c, buf + total, maxd, now);

		if (n == 0)
			break;
		total += n;
		count++;
		if (n < maxd)
			break; /* a shorter datagram ends the train */
	}
	if (qc_ended(c) && c->state == SHB_QUIC_CONN_CLOSING)
		return qc_tx_train(c, buf, cap, seg, now);
	/* Data left behind by the pacer, not by the window or for want of
	 * data, still counts as using the window (RFC 9002 7.8). Asked only
	 * when the pacer is holding: the common case costs one compare. */
	shb_quic_recovery_set_pacing_limited(
		&c->rec, shb_quic_recovery_pacer_time(&c->rec) > now &&
				 wanted(c, 0, false));
	*seg = count > 1 ? maxd : total;
	return (ptrdiff_t)total;
}
