/* The handshake: starting TLS with our transport parameters, the TLS
 * callbacks (keys per level, CRYPTO bytes to send, the server's
 * transport parameters, alerts), CRYPTO bytes received, the handshake's
 * completion and confirmation, and discarding a packet number space.
 * Separate from quic_conn.c (life cycle, events, close, entry points)
 * because this is the part that speaks to TLS and maps its encryption
 * levels onto packet number spaces. */
#include "quic_conn_int.h"

#include <string.h>

#include "quic_wire_err.h"
#include "common/tls_verify_text.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static int level_space(enum shb_quic_level level)
{
	switch (level) {
	case SHB_QUIC_LEVEL_INITIAL:
		return QC_INITIAL;
	case SHB_QUIC_LEVEL_HANDSHAKE:
		return QC_HANDSHAKE;
	case SHB_QUIC_LEVEL_APPLICATION:
		return QC_APP;
	default:
		return -1;
	}
}

static enum shb_quic_level space_level(int space)
{
	static const enum shb_quic_level lv[QC_SPACES] = {
		SHB_QUIC_LEVEL_INITIAL, SHB_QUIC_LEVEL_HANDSHAKE,
		SHB_QUIC_LEVEL_APPLICATION};
	return lv[space];
}
/* ---- TLS callbacks ------------------------------------------------------- */

static int tls_secret(void *user, enum shb_quic_level level,
		      gnutls_cipher_algorithm_t cipher,
		      gnutls_mac_algorithm_t hash, const uint8_t *rx_secret,
		      const uint8_t *tx_secret, size_t secret_len)
{
	struct shb_quic_conn *c = user;
	int space = level_space(level);

	if (space < 0)
		return 0; /* 0-RTT: never used */
	struct qc_space *sp = &c->sp[space];

	/* Contexts are always emptied before new keys go in: see on_retry()
	 * in quic_conn_rx.c. */
	if (rx_secret) {
		shb_quic_keys_deinit(&sp->rx);
		if (space == QC_APP)
			shb_quic_keys_deinit(&c->rx_next);
		if (shb_quic_keys_init(&sp->rx, cipher, hash, rx_secret,
				       secret_len) != SHB_QUIC_CRYPTO_OK)
			return -1;
		if (space == QC_APP &&
		    shb_quic_keys_update(&c->rx_next, &sp->rx) !=
			    SHB_QUIC_CRYPTO_OK)
			return -1;
	}
	if (tx_secret) {
		shb_quic_keys_deinit(&sp->tx);
		if (space == QC_APP)
			shb_quic_keys_deinit(&c->tx_next);
		if (shb_quic_keys_init(&sp->tx, cipher, hash, tx_secret,
				       secret_len) != SHB_QUIC_CRYPTO_OK)
			return -1;
		if (space == QC_APP &&
		    shb_quic_keys_update(&c->tx_next, &sp->tx) !=
			    SHB_QUIC_CRYPTO_OK)
			return -1;
		if (space == QC_HANDSHAKE)
			shb_quic_recovery_handshake_keys(&c->rec);
	}
	qc_log(c, "keys for level %d (%s%s)", (int)level, rx_secret ? "rx" : "",
	       tx_secret ? " tx" : "");
	return 0;
}

static int tls_crypto_send(void *user, enum shb_quic_level level,
			   const uint8_t *data, size_t len)
{
	struct shb_quic_conn *c = user;
	int space = level_space(level);

	if (space < 0)
		return -1;
	struct qc_csend *cs = &c->sp[space].cs;

	if (c->sp[space].discarded || len > cs->cap - cs->len)
		return -1;
	/* The first Initial message is the ClientHello (one call per
	 * message); one after a HelloRetryRequest comes at a later offset. */
	if (level == SHB_QUIC_LEVEL_INITIAL && cs->len == 0 && c->cfg.client_hello)
		c->cfg.client_hello(c->cfg.user, data, len);
	memcpy(cs->data + cs->len, data, len);
	cs->len += (uint32_t)len;
	return 0;
}

static int tls_peer_params(void *user, const uint8_t *data, size_t len)
{
	struct shb_quic_conn *c = user;

	if (shb_quic_tp_decode_server(data, len, &c->peer_tp, &c->tp_why) !=
	    SHB_QUIC_OK)
		return -1;
	c->peer_tp_seen = 1;
	return 0;
}

static void tls_alert(void *user, enum shb_quic_level level,
		      uint8_t description)
{
	qc_log(user, "TLS alert %u at level %d", description, (int)level);
}

static const struct shb_quic_tls_callbacks tls_cbs = {
	.secret = tls_secret,
	.crypto_send = tls_crypto_send,
	.peer_params = tls_peer_params,
	.alert = tls_alert,
};

/* ---- handshake ----------------------------------------------------------- */

static uint64_t effective_idle(const struct shb_quic_conn *c)
{
	uint64_t t = c->cfg.idle_timeout;
	uint64_t peer = c->peer_tp.max_idle_timeout_ms;

	if (c->hs_done && peer) {
		uint64_t ns = peer > UINT64_MAX / 1000000u ? UINT64_MAX
							   : peer * 1000000u;
		t = min_u64(t, ns);
	}
	return t;
}

static void handshake_complete(struct shb_quic_conn *c)
{
	const char *why = NULL;
	const struct shb_quic_tp *tp = &c->peer_tp;

	if (!c->peer_tp_seen ||
	    shb_quic_tp_check_server_cids(tp, &c->odcid, &c->server_scid,
					  c->retried ? &c->retry_scid : NULL,
					  &why) != SHB_QUIC_OK) {
		qc_fail(c, SHB_QUIC_TE_TRANSPORT_PARAMETER_ERROR,
			SHB_QUIC_FT_CRYPTO,
			why ? why : "transport parameters missing");
		return;
	}
	/* RFC 9368 Section 4: the server's Chosen Version is the
	 * connection's (v1: shb speaks no other). */
	if (tp->has_version_info && tp->chosen_version != SHB_QUIC_VERSION_1) {
		qc_fail(c, SHB_QUIC_TE_VERSION_NEGOTIATION_ERROR,
			SHB_QUIC_FT_CRYPTO,
			"version_information chooses another version than 1");
		return;
	}
	c->hs_done = 1;
	c->hs_deadline = QC_NONE;
	c->state = SHB_QUIC_CONN_ESTABLISHED;
	c->stats.ts_handshake = c->now;
	c->tx_max_data = tp->initial_max_data;
	c->peer_max_bidi = tp->initial_max_streams_bidi;
	c->peer_max_uni = tp->initial_max_streams_uni;
	shb_quic_recovery_set_peer_max_ack_delay(
		&c->rec, tp->max_ack_delay_ms * SHB_QUIC_MS);
	if (tp->present & SHB_QUIC_TP_BIT(SHB_QUIC_TP_STATELESS_RESET_TOKEN)) {
		memcpy(c->cids[0].token, tp->stateless_reset_token,
		       SHB_QUIC_STATELESS_RESET_TOKEN_LEN);
		c->cids[0].has_token = 1;
	}
	c->idle_timeout = effective_idle(c);
	qc_log(c, "handshake done: idle %llu ms, bidi %llu, uni %llu, "
		  "max_data %llu",
	       (unsigned long long)(c->idle_timeout / SHB_QUIC_MS),
	       (unsigned long long)tp->initial_max_streams_bidi,
	       (unsigned long long)tp->initial_max_streams_uni,
	       (unsigned long long)tp->initial_max_data);

	struct shb_quic_event ev = {.kind = SHB_QUIC_EV_HANDSHAKE_DONE};

	qc_emit(c, &ev);
	if (!qc_ended(c) && shb_quic_conn_bidi_available(c) > 0)
		c->avail_was_zero = 0;
}

struct crypto_ctx {
	struct shb_quic_conn *c;
	enum shb_quic_level level;
};

static int crypto_deliver(void *p, const uint8_t *data, size_t len)
{
	struct crypto_ctx *x = p;

	if (shb_quic_tls_recv(&x->c->tls, x->level, data, len) !=
	    SHB_QUIC_CRYPTO_OK)
		return -1;
	return 0;
}

void qc_crypto_recv(struct shb_quic_conn *c, int space, uint64_t off,
		    const uint8_t *data, size_t len)
{
	struct crypto_ctx x = {c, space_level(space)};
	int rc;

	if (len == 0)
		return;
	rc = shb_quic_crecv_feed(&c->sp[space].cr, off, data, len,
				 crypto_deliver, &x);
	if (rc == SHB_QUIC_CRECV_E_FULL) {
		qc_failf(c, SHB_QUIC_TE_CRYPTO_BUFFER_EXCEEDED,
			 SHB_QUIC_FT_CRYPTO,
			 "CRYPTO data beyond the reassembly window (cap %u)",
			 c->sp[space].cr.cap);
		return;
	}
	if (rc < 0) {
		uint64_t code = shb_quic_tls_close_code(&c->tls);

		unsigned status;
		char why[SHB_QUIC_CONN_REASON_MAX + 1];

		if (code == SHB_QUIC_TE_TRANSPORT_PARAMETER_ERROR && c->tp_why)
			qc_fail(c, code, SHB_QUIC_FT_CRYPTO, c->tp_why);
		else if (shb_quic_tls_verify_failed(&c->tls, &status) &&
			 shb_tls_verify_text(status, c->cfg.server_name, why,
					     sizeof why) == 0)
			qc_fail(c, code, SHB_QUIC_FT_CRYPTO, why);
		else
			qc_fail(c, code ? code : SHB_QUIC_TE_INTERNAL_ERROR,
				SHB_QUIC_FT_CRYPTO, "TLS handshake failed");
		return;
	}
	if (!c->hs_done && shb_quic_tls_complete(&c->tls))
		handshake_complete(c);
}

void qc_discard_space(struct shb_quic_conn *c, int space, uint64_t now)
{
	struct qc_space *sp = &c->sp[space];

	if (sp->discarded)
		return;
	sp->discarded = 1;
	shb_quic_keys_deinit(&sp->rx);
	shb_quic_keys_deinit(&sp->tx);
	sp->cs.len = sp->cs.next = sp->cs.acked = 0;
	shb_quic_recovery_discard(&c->rec, (enum shb_quic_pns)space, now);
	for (unsigned i = 0; i < QC_EARLY_PKTS; i++) {
		if (c->early[i].len && c->early[i].space == space) {
			c->early[i].len = 0;
			c->nearly--;
		}
	}
	qc_log(c, "space %d discarded", space);
}

void qc_handshake_confirmed(struct shb_quic_conn *c, uint64_t now)
{
	if (c->confirmed)
		return;
	c->confirmed = 1;
	qc_discard_space(c, QC_HANDSHAKE, now);
	shb_quic_recovery_handshake_confirmed(&c->rec, now);
}

/* What a profile's list announces, read back from its encoding, against
 * what the connection enforces (quic_conn.h, tp_items). */
static bool items_match(const struct shb_quic_conn *c)
{
	const struct shb_quic_tp *t = &c->local_tp;
	const struct shb_quic_conn_config *k = &c->cfg;

	return t->initial_max_data == k->conn_window &&
	       t->initial_max_stream_data_bidi_local == k->stream_window &&
	       t->initial_max_stream_data_uni == k->uni_window &&
	       t->initial_max_streams_uni == k->peer_uni &&
	       t->max_udp_payload_size == k->max_recv_dgram &&
	       t->max_idle_timeout_ms == k->idle_timeout / SHB_QUIC_MS &&
	       t->active_connection_id_limit <= QC_CID_LIMIT &&
	       shb_quic_cid_eq(&t->initial_scid, c->scid.id, c->scid.len);
}

/* A profile's parameters into params[cap]: encoded in its order (or
 * permuted), then read back into local_tp. */
static int encode_items(struct shb_quic_conn *c, uint8_t *params, size_t cap,
			size_t *n)
{
	struct shb_quic_tp_item it[SHB_QUIC_TP_ITEMS_MAX];
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN];

	if (qc_random(c, rnd, sizeof(rnd)) < 0)
		return SHB_QUIC_CONN_E_TLS;
	memcpy(it, c->cfg.tp_items, c->cfg.tp_count * sizeof(it[0]));
	if (c->cfg.tp_shuffle)
		shb_quic_tp_items_shuffle(it, c->cfg.tp_count, rnd);
	if (shb_quic_tp_encode_items(params, cap, it, c->cfg.tp_count, &c->scid,
				     rnd, n) != SHB_QUIC_OK ||
	    shb_quic_tp_decode_server(params, *n, &c->local_tp, NULL) !=
		    SHB_QUIC_OK ||
	    !items_match(c))
		return SHB_QUIC_CONN_E_INVAL;
	return SHB_QUIC_CONN_OK;
}

int qc_start_tls(struct shb_quic_conn *c)
{
	uint8_t params[SHB_QUIC_TP_ITEMS_MAX_LEN];
	size_t n = 0;
	int rc;

	if (c->cfg.tp_count) {
		rc = encode_items(c, params, sizeof(params), &n);
		if (rc != SHB_QUIC_CONN_OK)
			return rc;
	} else if (shb_quic_tp_encode_client(params, sizeof(params), &c->local_tp,
					     &n) != SHB_QUIC_OK) {
		return SHB_QUIC_CONN_E_INVAL;
	}
	if (shb_quic_keys_init_initial(&c->sp[QC_INITIAL].tx,
				       &c->sp[QC_INITIAL].rx, c->odcid.id,
				       c->odcid.len) != SHB_QUIC_CRYPTO_OK)
		return SHB_QUIC_CONN_E_TLS;
	if (shb_quic_tls_init(&c->tls, c->cfg.tls, c->cfg.server_name, params,
			      n, &tls_cbs, c) != SHB_QUIC_CRYPTO_OK)
		return SHB_QUIC_CONN_E_TLS;
	if (shb_quic_tls_start(&c->tls) != SHB_QUIC_CRYPTO_OK)
		return SHB_QUIC_CONN_E_TLS;
	return SHB_QUIC_CONN_OK;
}

