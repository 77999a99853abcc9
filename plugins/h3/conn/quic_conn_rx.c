/* Datagrams in: coalesced packets, header protection, key selection (key
 * update as responder), decryption in place, Retry, Version Negotiation,
 * stateless resets, and frame dispatch. */
#include "quic_conn_int.h"

#include <string.h>

#include "quic_pn.h"
#include "quic_retry.h"
#include "quic_wire_err.h"

enum rx_result {
	RX_OK = 0,
	RX_DROP = 1,    /* unusable: drop silently */
	RX_NOKEYS = 2,  /* kept for later */
	RX_AUTH = 3,    /* failed to decrypt */
};

/* ---- stateless reset ----------------------------------------------------- */

/* Compares the datagram's last 16 bytes with every token we hold, in
 * constant time (RFC 9000 Section 10.3.1). */
static bool is_stateless_reset(const struct shb_quic_conn *c, const uint8_t *d,
			       size_t len)
{
	const uint8_t *tail;
	unsigned hit = 0;

	if (len < 21)
		return false;
	tail = d + len - SHB_QUIC_STATELESS_RESET_TOKEN_LEN;
	for (unsigned i = 0; i < QC_CID_LIMIT; i++) {
		const struct qc_cid *e = &c->cids[i];
		unsigned diff = 0;

		for (unsigned j = 0; j < SHB_QUIC_STATELESS_RESET_TOKEN_LEN; j++)
			diff |= (unsigned)(tail[j] ^ e->token[j]);
		hit |= (unsigned)(e->used & e->has_token) & (diff == 0);
	}
	return hit != 0;
}

static void check_reset(struct shb_quic_conn *c, const uint8_t *d, size_t len)
{
	if (c->hs_done && is_stateless_reset(c, d, len))
		qc_terminate(c, SHB_QUIC_CLOSE_STATELESS_RESET, 0, 0, 0,
			     (const uint8_t *)"stateless reset", 15);
}

/* ---- Retry and Version Negotiation --------------------------------------- */

static void on_version_negotiation(struct shb_quic_conn *c,
				   const struct shb_quic_hdr *h)
{
	/* Only before anything else from the server, and only if it echoes
	 * the connection IDs of our Initial (RFC 9000 Section 6.2). */
	if (c->got_server || c->retried ||
	    !shb_quic_cid_eq(&c->odcid, h->scid, h->scid_len) ||
	    shb_quic_vn_lists(h, SHB_QUIC_VERSION_1))
		return;
	qc_terminate(c, SHB_QUIC_CLOSE_VERSION, 0, 0, 0,
		     (const uint8_t *)"version negotiation", 19);
}

static void on_retry(struct shb_quic_conn *c, const uint8_t *pkt,
		     const struct shb_quic_hdr *h)
{
	struct qc_space *sp = &c->sp[QC_INITIAL];

	if (c->got_server || c->retried || h->token_len == 0 ||
	    h->token_len > QC_TOKEN_MAX ||
	    shb_quic_retry_verify(c->odcid.id, c->odcid.len, pkt,
				  h->packet_len) != SHB_QUIC_CRYPTO_OK) {
		c->stats.packets_dropped++;
		return;
	}
	memcpy(c->token, h->token, h->token_len);
	c->token_len = (uint16_t)h->token_len;
	shb_quic_cid_set(&c->retry_scid, h->scid, h->scid_len);
	c->dcid = c->retry_scid;
	c->retried = 1;
	c->retry_pn = shb_quic_recovery_next_pn(&c->rec, QC_INITIAL);
	/* Fresh contexts: GnuTLS 3.7.9's accelerated AES-GCM ignores a
	 * re-key of an existing handle (gnutls_aead_cipher_set_key returns 0
	 * and keeps the old key), which the crypto part relies on. */
	shb_quic_keys_deinit(&sp->tx);
	shb_quic_keys_deinit(&sp->rx);
	if (shb_quic_keys_init_initial(&sp->tx, &sp->rx, c->dcid.id,
				       c->dcid.len) != SHB_QUIC_CRYPTO_OK) {
		qc_fail(c, SHB_QUIC_TE_INTERNAL_ERROR, 0, "Initial keys");
		return;
	}
	/* The first flight again, from its first byte, with the token. */
	sp->cs.next = 0;
	sp->cs.acked = 0;
	qc_log(c, "Retry followed (token %zu bytes)", h->token_len);
}

/* ---- packets that arrived before their keys ------------------------------ */

static void keep_early(struct shb_quic_conn *c, int space, const uint8_t *pkt,
		       size_t len)
{
	for (unsigned i = 0; i < QC_EARLY_PKTS; i++) {
		struct qc_early *e = &c->early[i];

		if (e->len == 0 && len <= QC_EARLY_PKT_LEN) {
			memcpy(e->data, pkt, len);
			e->len = (uint16_t)len;
			e->space = (uint8_t)space;
			c->nearly++;
			return;
		}
	}
	c->stats.packets_dropped++;
}

/* ---- frames ---------------------------------------------------------------- */

static int ack_next(void *it, struct shb_quic_ack_range *out)
{
	return shb_quic_ack_iter_next(it, out);
}

static void on_ack_frame(struct shb_quic_conn *c, int space,
			 const struct shb_quic_frame *f, uint64_t now)
{
	struct shb_quic_ack_iter it;
	uint64_t delay = shb_quic_ack_delay_ns(
		f->u.ack.delay, (unsigned)c->peer_tp.ack_delay_exponent);
	int rc;

	shb_quic_ack_iter_init(&it, &f->u.ack);
	rc = shb_quic_recovery_on_ack_iter(&c->rec, (enum shb_quic_pns)space,
					   ack_next, &it, delay, now);
	if (rc == SHB_QUIC_RECOVERY_E_PROTOCOL)
		qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION, f->type,
			"ACK of a packet never sent");
	else if (rc == SHB_QUIC_RECOVERY_E_FRAME)
		qc_fail(c, SHB_QUIC_TE_FRAME_ENCODING_ERROR, f->type,
			"malformed ACK ranges");
}

static struct qc_cid *cid_by_seq(struct shb_quic_conn *c, uint64_t seq)
{
	for (unsigned i = 0; i < QC_CID_LIMIT; i++)
		if (c->cids[i].used && c->cids[i].seq == seq)
			return &c->cids[i];
	return NULL;
}

/* RETIRE_CONNECTION_ID frames wait in a fixed table until acknowledged:
 * a peer that retires faster than we can say so is refused. */
_Static_assert(QC_RETIRE_MAX == 16, "the reason below names the cap");
#define RETIRE_CAP_WHY \
	"more than 16 connection IDs waiting to be retired (cap 16)"

static bool queue_retire(struct shb_quic_conn *c, uint64_t seq)
{
	for (unsigned i = 0; i < QC_RETIRE_MAX; i++) {
		if (c->retire[i].state == 0) {
			c->retire[i].seq = seq;
			c->retire[i].state = 1;
			return true;
		}
	}
	return false;
}

/* Retires every stored ID below retire_prior_to and moves off the one in
 * use if it was among them (RFC 9000 Section 5.1.2). */
static void retire_below(struct shb_quic_conn *c, uint64_t rpt)
{
	for (unsigned i = 0; i < QC_CID_LIMIT; i++) {
		struct qc_cid *e = &c->cids[i];

		if (!e->used || e->seq >= rpt)
			continue;
		if (!queue_retire(c, e->seq)) {
			qc_fail(c, SHB_QUIC_TE_CONNECTION_ID_LIMIT_ERROR,
				SHB_QUIC_FT_NEW_CONNECTION_ID, RETIRE_CAP_WHY);
			return;
		}
		e->used = 0;
	}
	if (c->cids[c->cur_cid].used)
		return;
	for (unsigned i = 0; i < QC_CID_LIMIT; i++) {
		if (c->cids[i].used) {
			c->cur_cid = i;
			c->dcid = c->cids[i].cid;
			qc_log(c, "switched to connection ID %llu",
			       (unsigned long long)c->cids[i].seq);
			return;
		}
	}
}

static unsigned cids_used(const struct shb_quic_conn *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < QC_CID_LIMIT; i++)
		n += c->cids[i].used;
	return n;
}

static void on_new_cid(struct shb_quic_conn *c,
		       const struct shb_quic_frame_new_cid *f)
{
	struct qc_cid *e;

	if (c->dcid.len == 0) {
		qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION,
			SHB_QUIC_FT_NEW_CONNECTION_ID,
			"NEW_CONNECTION_ID with a zero-length ID in use");
		return;
	}
	e = cid_by_seq(c, f->seq);
	if (e) {
		if (!shb_quic_cid_eq(&e->cid, f->cid, f->cid_len) ||
		    memcmp(e->token, f->reset_token, 16) != 0)
			qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION,
				SHB_QUIC_FT_NEW_CONNECTION_ID,
				"connection ID sequence number reused");
		return;
	}
	if (f->seq < c->retire_prior_to) {
		/* Already retired by an earlier frame: say so at once. */
		if (!queue_retire(c, f->seq))
			qc_fail(c, SHB_QUIC_TE_CONNECTION_ID_LIMIT_ERROR,
				SHB_QUIC_FT_NEW_CONNECTION_ID, RETIRE_CAP_WHY);
		return;
	}
	e = NULL;
	for (unsigned i = 0; i < QC_CID_LIMIT && !e; i++)
		if (!c->cids[i].used)
			e = &c->cids[i];
	if (f->retire_prior_to > c->retire_prior_to) {
		c->retire_prior_to = f->retire_prior_to;
		/* Store the new one first so there is one to move to. */
		if (!e) {
			retire_below(c, f->retire_prior_to);
			for (unsigned i = 0; i < QC_CID_LIMIT && !e; i++)
				if (!c->cids[i].used)
					e = &c->cids[i];
		}
	}
	if (!e || cids_used(c) >= c->local_tp.active_connection_id_limit) {
		qc_fail(c, SHB_QUIC_TE_CONNECTION_ID_LIMIT_ERROR,
			SHB_QUIC_FT_NEW_CONNECTION_ID,
			"more connection IDs than our active_connection_id_limit");
		return;
	}
	e->used = 1;
	e->seq = f->seq;
	shb_quic_cid_set(&e->cid, f->cid, f->cid_len);
	memcpy(e->token, f->reset_token, 16);
	e->has_token = 1;
	if (c->retire_prior_to)
		retire_below(c, c->retire_prior_to);
}

/* RFC 9221 Section 3: welcome within the size we announced, counted and
 * dropped (HTTP/3 puts nothing shb reads in them); a PROTOCOL_VIOLATION
 * without an announcement or above it. */
static void on_datagram(struct shb_quic_conn *c, const struct shb_quic_frame *f)
{
	uint64_t max = c->local_tp.max_datagram_frame_size;

	if (!max)
		qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION, f->type,
			"DATAGRAM frame without our max_datagram_frame_size");
	else if (f->wire_len > max)
		qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION, f->type,
			"DATAGRAM frame above our max_datagram_frame_size");
	else
		c->stats.datagrams_received++;
}

static void on_frame(struct shb_quic_conn *c, int space,
		     const struct shb_quic_frame *f, uint64_t now)
{
	switch (f->type) {
	case SHB_QUIC_FT_PADDING:
	case SHB_QUIC_FT_PING:
	case SHB_QUIC_FT_NEW_TOKEN:
	case SHB_QUIC_FT_PATH_RESPONSE:
	case SHB_QUIC_FT_DATA_BLOCKED:
	case SHB_QUIC_FT_STREAM_DATA_BLOCKED:
	case SHB_QUIC_FT_STREAMS_BLOCKED_BIDI:
	case SHB_QUIC_FT_STREAMS_BLOCKED_UNI:
		break;
	case SHB_QUIC_FT_ACK:
	case SHB_QUIC_FT_ACK_ECN:
		on_ack_frame(c, space, f, now);
		break;
	case SHB_QUIC_FT_CRYPTO:
		qc_crypto_recv(c, space, f->u.crypto.offset, f->u.crypto.data,
			       f->u.crypto.len);
		break;
	case SHB_QUIC_FT_STREAM:
		qc_on_stream_frame(c, &f->u.stream);
		break;
	case SHB_QUIC_FT_RESET_STREAM:
		qc_on_reset_stream(c, f->u.reset_stream.stream_id,
				   f->u.reset_stream.error_code,
				   f->u.reset_stream.final_size);
		break;
	case SHB_QUIC_FT_STOP_SENDING:
		qc_on_stop_sending(c, f->u.stop_sending.stream_id,
				   f->u.stop_sending.error_code);
		break;
	case SHB_QUIC_FT_MAX_DATA:
		qc_on_max_data(c, f->u.limit);
		break;
	case SHB_QUIC_FT_MAX_STREAM_DATA:
		qc_on_max_stream_data(c, f->u.stream_limit.stream_id,
				      f->u.stream_limit.limit);
		break;
	case SHB_QUIC_FT_MAX_STREAMS_BIDI:
	case SHB_QUIC_FT_MAX_STREAMS_UNI:
		qc_on_max_streams(c, f->type == SHB_QUIC_FT_MAX_STREAMS_BIDI,
				  f->u.limit);
		break;
	case SHB_QUIC_FT_NEW_CONNECTION_ID:
		on_new_cid(c, &f->u.new_cid);
		break;
	case SHB_QUIC_FT_RETIRE_CONNECTION_ID:
		/* We issue no IDs beyond the first, and that one is the
		 * packet's own DCID, which may not be retired by it. */
		qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION, f->type,
			"RETIRE_CONNECTION_ID for an ID never issued");
		break;
	case SHB_QUIC_FT_PATH_CHALLENGE:
		memcpy(c->path_resp, f->u.path_data, SHB_QUIC_PATH_DATA_LEN);
		c->path_resp_pending = 1;
		break;
	case SHB_QUIC_FT_CONNECTION_CLOSE:
	case SHB_QUIC_FT_CONNECTION_CLOSE_APP:
		if (!qc_ended(c))
			c->close.in_handshake = space != QC_APP;
		qc_terminate(c, SHB_QUIC_CLOSE_PEER,
			     f->type == SHB_QUIC_FT_CONNECTION_CLOSE_APP,
			     f->u.close.error_code, f->u.close.frame_type,
			     f->u.close.reason, f->u.close.reason_len);
		break;
	case SHB_QUIC_FT_HANDSHAKE_DONE:
		qc_handshake_confirmed(c, now);
		break;
	case SHB_QUIC_FT_DATAGRAM:
		on_datagram(c, f);
		break;
	default:
		break;
	}
}

/* The first frames of a payload as the scan decoded them, so that
 * running them does not decode them again. A bulk download's packet holds
 * one STREAM frame, now and then behind an ACK, so a few cover nearly
 * every packet; frames past them are decoded a second time. The frames
 * point into the decrypted packet, which outlives both passes. */
#define RX_FRAMES_KEPT 4u

struct rx_frames {
	struct shb_quic_frame f[RX_FRAMES_KEPT];
	unsigned n;  /* frames kept in f */
	size_t rest; /* payload offset of the first frame not kept */
};

/* First pass over a payload: every frame must decode and be allowed in
 * the packet type. Also tells whether the packet is ack-eliciting and how
 * many reorder blocks its STREAM frames need. Returns false after
 * closing the connection. */
static bool scan_frames(struct shb_quic_conn *c, const uint8_t *p, size_t len,
			uint32_t ptype, int *eliciting, uint32_t *blocks,
			struct rx_frames *kept)
{
	size_t off = 0;

	*eliciting = 0;
	*blocks = 0;
	kept->n = 0;
	kept->rest = 0;
	if (len == 0) {
		qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION, 0,
			"packet without frames");
		return false;
	}
	while (off < len) {
		struct shb_quic_frame spare;
		struct shb_quic_frame *f =
			kept->n < RX_FRAMES_KEPT ? &kept->f[kept->n] : &spare;
		int rc = shb_quic_frame_decode(p + off, len - off, ptype, f);

		if (rc != SHB_QUIC_OK) {
			qc_fail(c, shb_quic_wire_err_code(rc), f->type,
				f->why ? f->why : "malformed frame");
			return false;
		}
		if (shb_quic_frame_ack_eliciting(f->type))
			*eliciting = 1;
		if (f->type == SHB_QUIC_FT_STREAM)
			*blocks += qc_stream_frame_blocks(c, &f->u.stream);
		off += f->wire_len;
		if (f != &spare) {
			kept->n++;
			kept->rest = off;
		}
	}
	return true;
}

static void run_frames(struct shb_quic_conn *c, int space, const uint8_t *p,
		       size_t len, uint32_t ptype, uint64_t now,
		       const struct rx_frames *kept)
{
	size_t off = kept->rest;

	for (unsigned i = 0; i < kept->n && !qc_ended(c); i++)
		on_frame(c, space, &kept->f[i], now);
	while (off < len && !qc_ended(c)) {
		struct shb_quic_frame f;

		if (shb_quic_frame_decode(p + off, len - off, ptype, &f) !=
		    SHB_QUIC_OK)
			return; /* cannot happen: scan_frames passed */
		on_frame(c, space, &f, now);
		off += f.wire_len;
	}
}

/* ---- packets ----------------------------------------------------------- */

static void rotate_keys(struct shb_quic_conn *c, uint64_t pn)
{
	struct qc_space *sp = &c->sp[QC_APP];
	struct shb_quic_keys t = c->rx_prev;

	c->rx_prev = sp->rx;
	sp->rx = c->rx_next;
	c->rx_next = t;
	t = sp->tx;
	sp->tx = c->tx_next;
	c->tx_next = t;
	/* The slots are emptied first: see on_retry() for why a handle is
	 * never re-keyed (one AEAD handle is created per key update). */
	shb_quic_keys_deinit(&c->rx_next);
	shb_quic_keys_deinit(&c->tx_next);
	if (shb_quic_keys_update(&c->rx_next, &sp->rx) != SHB_QUIC_CRYPTO_OK ||
	    shb_quic_keys_update(&c->tx_next, &sp->tx) != SHB_QUIC_CRYPTO_OK) {
		qc_fail(c, SHB_QUIC_TE_INTERNAL_ERROR, 0, "key update failed");
		return;
	}
	c->key_phase ^= 1;
	c->prev_valid = 1;
	c->phase_start_pn = pn;
	c->stats.key_updates++;
	qc_log(c, "key update by the server at packet %llu, phase %u",
	       (unsigned long long)pn, c->key_phase);
}

/* The 1-RTT keys a packet was sealed with, chosen before decrypting since
 * a failed attempt destroys the ciphertext (RFC 9001 Section 6.3). */
static const struct shb_quic_keys *app_keys(const struct shb_quic_conn *c,
					    uint8_t first, uint64_t pn,
					    bool *next)
{
	*next = false;
	if (shb_quic_hdr_key_phase(first) == c->key_phase)
		return &c->sp[QC_APP].rx;
	if (c->prev_valid && pn < c->phase_start_pn)
		return &c->rx_prev;
	*next = true;
	return &c->rx_next;
}

static int space_of(uint32_t type)
{
	switch (type) {
	case SHB_QUIC_PT_INITIAL:
		return QC_INITIAL;
	case SHB_QUIC_PT_HANDSHAKE:
		return QC_HANDSHAKE;
	case SHB_QUIC_PT_1RTT:
		return QC_APP;
	default:
		return -1;
	}
}

/* The first authenticated server packet fixes the server's connection ID
 * (RFC 9000 Section 7.2). */
static void first_server_packet(struct shb_quic_conn *c,
				const struct shb_quic_hdr *h)
{
	c->got_server = 1;
	shb_quic_cid_set(&c->server_scid, h->scid, h->scid_len);
	c->dcid = c->server_scid;
	c->cids[0].used = 1;
	c->cids[0].seq = 0;
	c->cids[0].cid = c->server_scid;
	c->cur_cid = 0;
}

static int rx_packet(struct shb_quic_conn *c, uint8_t *pkt,
		     const struct shb_quic_hdr *h, uint64_t now)
{
	int space = space_of(h->type);
	uint64_t trunc, pn;
	uint32_t blocks;
	int eliciting;
	struct rx_frames kept;

	if (space < 0 || c->sp[space].discarded)
		return RX_DROP;
	struct qc_space *sp = &c->sp[space];

	if (h->type == SHB_QUIC_PT_INITIAL && h->token_len)
		return RX_DROP; /* a server Initial never has a token */
	if (h->type != SHB_QUIC_PT_1RTT && c->got_server &&
	    !shb_quic_cid_eq(&c->server_scid, h->scid, h->scid_len))
		return RX_DROP;
	if (!shb_quic_keys_ready(&sp->rx)) {
		keep_early(c, space, pkt, h->packet_len);
		return RX_NOKEYS;
	}
	int pn_len = shb_quic_hp_remove(&sp->rx, pkt, h->packet_len,
					h->pn_offset, &trunc);

	if (pn_len < 0)
		return RX_DROP;
	pn = shb_quic_pn_decode(
		shb_quic_recovery_largest_received(&c->rec,
						   (enum shb_quic_pns)space),
		trunc, (unsigned)pn_len);
	size_t hdr_len = h->pn_offset + (size_t)pn_len;
	bool next = false;
	const struct shb_quic_keys *k =
		space == QC_APP ? app_keys(c, pkt[0], pn, &next) : &sp->rx;
	int n = shb_quic_open(k, pn, pkt, hdr_len, h->packet_len);

	if (n < 0)
		return RX_AUTH;
	if (shb_quic_hdr_reserved_ok(pkt[0]) != SHB_QUIC_OK) {
		qc_fail(c, SHB_QUIC_TE_PROTOCOL_VIOLATION, 0,
			"reserved header bits set");
		return RX_DROP;
	}
	if (next)
		rotate_keys(c, pn);
	if (!c->got_server && space != QC_APP)
		first_server_packet(c, h);
	const uint8_t *payload = pkt + hdr_len;

	if (!scan_frames(c, payload, (size_t)n, h->type, &eliciting, &blocks,
			 &kept))
		return RX_DROP;
	if (blocks > qc_ro_free(c)) {
		/* Out-of-order stream data we cannot hold all of. Flow
		 * control keeps this from happening (the connection window
		 * never exceeds the reorder pool) unless the server splits
		 * its data into many tiny runs. Use what we can (in-order
		 * bytes are delivered, so a gap-filling retransmission still
		 * makes progress) but do not acknowledge the packet, so the
		 * server sends it again. Every frame is harmless to process
		 * twice. */
		c->stats.packets_unacked++;
		qc_on_receipt(c, now);
		run_frames(c, space, payload, (size_t)n, h->type, now, &kept);
		return RX_OK;
	}
	if (shb_quic_recovery_on_received(&c->rec, (enum shb_quic_pns)space, pn,
					  eliciting, now) !=
	    SHB_QUIC_ACKRX_NEW)
		return RX_DROP;
	c->stats.packets_received++;
	qc_on_receipt(c, now);
	run_frames(c, space, payload, (size_t)n, h->type, now, &kept);
	return RX_OK;
}

static int rx_one(struct shb_quic_conn *c, uint8_t *pkt,
		  const struct shb_quic_hdr *h, uint64_t now)
{
	switch (h->type) {
	case SHB_QUIC_PT_VERSION_NEG:
		on_version_negotiation(c, h);
		return RX_OK;
	case SHB_QUIC_PT_RETRY:
		on_retry(c, pkt, h);
		return RX_OK;
	case SHB_QUIC_PT_0RTT:
		return RX_DROP;
	default:
		return rx_packet(c, pkt, h, now);
	}
}

void qc_rx_datagram(struct shb_quic_conn *c, uint8_t *d, size_t len,
		    uint64_t now)
{
	size_t off = 0;

	while (off < len && !qc_ended(c)) {
		struct shb_quic_hdr h;
		/* RFC 9287: once we sent grease_quic_bit, the QUIC bit may
		 * be 0 in anything the server sends. */
		int rc = shb_quic_hdr_parse_bit(d + off, len - off, c->scid.len,
						c->local_tp.grease_quic_bit, &h);

		if (rc != SHB_QUIC_OK ||
		    !shb_quic_cid_eq(&c->scid, h.dcid, h.dcid_len)) {
			/* A stateless reset looks like a short header packet
			 * we cannot read. */
			c->stats.packets_dropped++;
			if (!(d[off] & 0x80))
				check_reset(c, d, len);
			return;
		}
		rc = rx_one(c, d + off, &h, now);
		if (rc == RX_DROP || rc == RX_AUTH)
			c->stats.packets_dropped++;
		if (rc == RX_AUTH && h.type == SHB_QUIC_PT_1RTT)
			check_reset(c, d, len);
		off += h.packet_len;
	}
}

void qc_rx_replay_early(struct shb_quic_conn *c, uint64_t now)
{
	bool again = true;

	while (again && !qc_ended(c)) {
		again = false;
		for (unsigned i = 0; i < QC_EARLY_PKTS && !qc_ended(c); i++) {
			struct qc_early *e = &c->early[i];
			struct qc_space *sp = &c->sp[e->space];
			struct shb_quic_hdr h;
			size_t len = e->len;

			if (!len || sp->discarded || !shb_quic_keys_ready(&sp->rx))
				continue;
			e->len = 0;
			c->nearly--;
			again = true;
			if (shb_quic_hdr_parse_bit(e->data, len, c->scid.len,
						   c->local_tp.grease_quic_bit,
						   &h) != SHB_QUIC_OK ||
			    rx_packet(c, e->data, &h, now) != RX_OK)
				c->stats.packets_dropped++;
		}
	}
}
