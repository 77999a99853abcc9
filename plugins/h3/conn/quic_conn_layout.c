/* The QUIC client connection's memory: one private mapping per
 * connection, planned from the configuration (the connection, CRYPTO
 * buffers, stream tables, unidirectional send buffers, the recovery part
 * and the reorder pool) and carved into its parts. See quic_conn.h. */
#include "quic_conn_int.h"

struct shb_quic_recovery_config qc_recovery_config(
	const struct shb_quic_conn_config *cfg)
{
	struct shb_quic_recovery_config rc = {0};

	/* A client sends requests and ACKs: 512 packets in flight (600 KB
	 * of upload) is plenty, and halves the recovery part's default. */
	rc.ring_capacity[QC_APP] = QC_APP_RING;
	rc.ref_capacity[QC_APP] = 4 * QC_APP_RING;
	rc.initial_window = cfg->initial_window;
	rc.max_datagram = cfg->max_dgram;
	rc.no_pacing = cfg->no_pacing;
	rc.ack_every = QC_ACK_EVERY;
	rc.ack_delay = QC_ACK_DELAY;
	return rc;
}

static size_t align16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

void qc_plan(const struct shb_quic_conn_config *cfg, struct qc_layout *l)
{
	static const uint32_t cs[QC_SPACES] = {
		QC_CSEND_INITIAL, QC_CSEND_HANDSHAKE, QC_CSEND_APP};
	static const uint32_t cr[QC_SPACES] = {
		QC_CRECV_INITIAL, QC_CRECV_HANDSHAKE, QC_CRECV_APP};
	size_t off = align16(sizeof(struct shb_quic_conn));
	struct shb_quic_recovery_config rc;

	l->nbidi = 2 * cfg->max_bidi_streams;
	l->nslots = l->nbidi + SHB_QUIC_CONN_MAX_UNI + QC_PEER_UNI_SLOTS +
		    (cfg->peer_uni - SHB_QUIC_CONN_PEER_UNI);
	l->map_cap = 1024;
	while (l->map_cap < 16 * cfg->max_bidi_streams)
		l->map_cap *= 2;
	for (int i = 0; i < QC_SPACES; i++) {
		l->csend[i] = off;
		off += align16(cs[i]);
		l->crecv[i] = off;
		off += align16(SHB_QUIC_CRECV_STORAGE(cr[i]));
	}
	l->streams = off;
	off += align16(l->nslots * sizeof(struct qc_stream));
	l->map = off;
	off += align16(l->map_cap * sizeof(uint16_t));
	l->freel = off;
	off += align16(l->nbidi * sizeof(uint32_t));
	l->sendq = off;
	off += align16(l->nslots * sizeof(uint32_t));
	l->uni = off;
	off += align16((size_t)SHB_QUIC_CONN_MAX_UNI * SHB_QUIC_CONN_UNI_BUF);
	rc = qc_recovery_config(cfg);
	l->rec_len = shb_quic_recovery_mem_size(&rc);
	l->rec = off;
	off += align16(l->rec_len);
	/* The pool last: give_back_reorder_pages() relies on it. */
	/* Flow control keeps out-of-order bytes within the connection
	 * window, so a pool of that size always holds them. */
	l->nro = SHB_QUIC_RO_BLOCKS_FOR(cfg->conn_window) + QC_RO_SLACK;
	l->ro = off;
	off += align16(l->nro * sizeof(struct shb_quic_ro_block));
	l->total = off;
}

/* Defaults for zero members and range checks of the sizes. */
static int apply_defaults(struct shb_quic_conn_config *k)
{
	if (k->max_bidi_streams > 4096 ||
	    (k->max_dgram && (k->max_dgram < 1200 || k->max_dgram > 1472)) ||
	    (k->max_recv_dgram && (k->max_recv_dgram < 1200 || k->max_recv_dgram > 65527)))
		return -1;
	if (k->max_bidi_streams == 0)
		k->max_bidi_streams = 1;
	if (!k->max_dgram)
		k->max_dgram = SHB_QUIC_CONN_MAX_DGRAM;
	if (!k->max_recv_dgram)
		k->max_recv_dgram = SHB_QUIC_CONN_MAX_DGRAM;
	if (!k->idle_timeout)
		k->idle_timeout = SHB_QUIC_CONN_IDLE_TIMEOUT;
	if (!k->handshake_timeout)
		k->handshake_timeout = SHB_QUIC_CONN_HANDSHAKE_TIMEOUT;
	if (!k->stream_window)
		k->stream_window = SHB_QUIC_CONN_STREAM_WINDOW;
	if (!k->conn_window)
		k->conn_window = SHB_QUIC_CONN_DATA_WINDOW;
	if (!k->uni_window)
		k->uni_window = k->stream_window;
	if (!k->peer_uni)
		k->peer_uni = SHB_QUIC_CONN_PEER_UNI;
	if (k->peer_uni < SHB_QUIC_CONN_PEER_UNI || k->peer_uni > QC_PEER_UNI_MAX ||
	    k->uni_window < 4096 || k->uni_window > SHB_QUIC_MAX_STREAM_OFFSET ||
	    k->tp_count > SHB_QUIC_TP_ITEMS_MAX || (k->tp_count && !k->tp_items))
		return -1;
	if (k->stream_window < 4096 || k->conn_window < 4096 ||
	    k->stream_window > SHB_QUIC_MAX_STREAM_OFFSET ||
	    k->conn_window > (UINT64_C(1) << 30))
		return -1;
	return 0;
}

int qc_check_config(struct shb_quic_conn_config *k)
{
	if (!k->tls || !k->on_event)
		return -1;
	return apply_defaults(k);
}

size_t shb_quic_conn_memory(const struct shb_quic_conn_config *cfg)
{
	struct shb_quic_conn_config k = *cfg;
	struct qc_layout l;

	if (apply_defaults(&k) < 0)
		return 0;
	qc_plan(&k, &l);
	return l.total;
}

void qc_carve(struct shb_quic_conn *c, uint8_t *base,
	      const struct qc_layout *l)
{
	static const uint32_t cs[QC_SPACES] = {
		QC_CSEND_INITIAL, QC_CSEND_HANDSHAKE, QC_CSEND_APP};
	static const uint32_t cr[QC_SPACES] = {
		QC_CRECV_INITIAL, QC_CRECV_HANDSHAKE, QC_CRECV_APP};

	for (int i = 0; i < QC_SPACES; i++) {
		c->sp[i].cs.data = base + l->csend[i];
		c->sp[i].cs.cap = cs[i];
		shb_quic_crecv_init(&c->sp[i].cr, base + l->crecv[i], cr[i]);
	}
	c->st = (struct qc_stream *)(void *)(base + l->streams);
	c->nslots = l->nslots;
	c->nbidi = l->nbidi;
	c->bidi_map = (uint16_t *)(void *)(base + l->map);
	c->map_cap = l->map_cap;
	c->free_bidi = (uint32_t *)(void *)(base + l->freel);
	c->sendq = (uint32_t *)(void *)(base + l->sendq);
	c->uni_buf = base + l->uni;
	shb_quic_ro_init(&c->ro, (struct shb_quic_ro_block *)(void *)(base + l->ro),
			 l->nro);
}
