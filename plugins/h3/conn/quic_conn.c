/* The QUIC client connection: life cycle, events, close, the recovery
 * callbacks and the I/O entry points (the handshake: quic_conn_hs.c;
 * timers: quic_conn_timer.c). See quic_conn.h. */
#include "quic_conn_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gnutls/crypto.h>

#include "quic_wire_err.h"

/* ---- small helpers ------------------------------------------------------- */

void qc_log(struct shb_quic_conn *c, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!c->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->cfg.log(c->cfg.user, line);
}

void qc_emit(struct shb_quic_conn *c, const struct shb_quic_event *ev)
{
	/* The owner may close from inside a callback: nothing follows the
	 * CLOSED event, whatever was being delivered. */
	if (qc_ended(c) && ev->kind != SHB_QUIC_EV_CLOSED)
		return;
	c->in_event++;
	c->cfg.on_event(c->cfg.user, ev);
	c->in_event--;
}


/* Copies a reason phrase, replacing control bytes so it prints safely. */
static void set_reason(struct shb_quic_conn *c, const uint8_t *r, size_t n)
{
	if (n > SHB_QUIC_CONN_REASON_MAX)
		n = SHB_QUIC_CONN_REASON_MAX;
	for (size_t i = 0; i < n; i++)
		c->reason[i] = (r[i] < 0x20 || r[i] == 0x7f) ? '?' : (char)r[i];
	c->reason[n] = '\0';
	c->close.reason = c->reason;
}

static void emit_closed(struct shb_quic_conn *c)
{
	struct shb_quic_event ev = {.kind = SHB_QUIC_EV_CLOSED,
				    .close = &c->close};
	static const char *const origin[] = {
		"", "closed locally", "connection error", "closed by the server",
		"idle timeout", "handshake timeout", "stateless reset",
		"server does not support QUIC v1"};

	snprintf(c->detail, sizeof(c->detail), "%s (%s 0x%llx%s%s)",
		 origin[c->close.origin],
		 c->close.app ? "application" : "transport",
		 (unsigned long long)c->close.code, c->reason[0] ? ": " : "",
		 c->reason);
	qc_log(c, "closed: %s", c->detail);
	qc_emit(c, &ev);
}

/* ---- close ------------------------------------------------------------- */

static void start_close(struct shb_quic_conn *c, uint32_t origin, int app,
			uint64_t code, uint64_t frame_type, const char *why)
{
	c->close.origin = origin;
	c->close.app = (uint32_t)app;
	c->close.code = code;
	c->close.frame_type = frame_type;
	set_reason(c, (const uint8_t *)(why ? why : ""), why ? strlen(why) : 0);
	c->close_code = code;
	c->close_frame_type = frame_type;
	c->close_app = (uint8_t)app;
	/* A server that never heard from us needs no CONNECTION_CLOSE. */
	c->state = c->stats.ts_first_sent ? SHB_QUIC_CONN_CLOSING
					  : SHB_QUIC_CONN_CLOSED;
	emit_closed(c);
}

void qc_fail(struct shb_quic_conn *c, uint64_t code, uint64_t frame_type,
	     const char *why)
{
	if (qc_ended(c))
		return;
	start_close(c, SHB_QUIC_CLOSE_ERROR, 0, code, frame_type, why);
}

void qc_failf(struct shb_quic_conn *c, uint64_t code, uint64_t frame_type,
	      const char *fmt, ...)
{
	char why[SHB_QUIC_CONN_REASON_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	qc_fail(c, code, frame_type, why);
}

void qc_terminate(struct shb_quic_conn *c, uint32_t origin, uint32_t app,
		  uint64_t code, uint64_t frame_type, const uint8_t *reason,
		  size_t reason_len)
{
	if (qc_ended(c))
		return;
	c->state = SHB_QUIC_CONN_CLOSED;
	c->close.origin = origin;
	c->close.app = app;
	c->close.code = code;
	c->close.frame_type = frame_type;
	set_reason(c, reason ? reason : (const uint8_t *)"", reason_len);
	emit_closed(c);
}

void shb_quic_conn_close(struct shb_quic_conn *c, uint64_t app_code,
			 const char *reason, uint64_t now)
{
	if (!c || qc_ended(c))
		return;
	c->now = now;
	start_close(c, SHB_QUIC_CLOSE_LOCAL, 1, app_code, 0, reason);
}

/* ---- packets received ---------------------------------------------------- */

void qc_on_receipt(struct shb_quic_conn *c, uint64_t now)
{
	c->idle_start = now;
	c->last_rx = now;
	c->sent_since_recv = 0;
}

/* ---- recovery callbacks -------------------------------------------------- */

static void on_acked(void *ctx, enum shb_quic_pns space,
		     const struct shb_quic_sent *pkt,
		     const struct shb_quic_frame_ref *refs)
{
	for (uint16_t i = 0; i < pkt->nrefs; i++)
		qc_ref_acked(ctx, (int)space, &refs[i]);
}

static void on_lost(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *pkt,
		    const struct shb_quic_frame_ref *refs)
{
	struct shb_quic_conn *c = ctx;

	c->stats.packets_lost++;
	if (space == SHB_QUIC_PNS_APP && qc_probe_lost(c, pkt, refs))
		return;
	for (uint16_t i = 0; i < pkt->nrefs; i++)
		qc_ref_lost(c, (int)space, &refs[i]);
}

/* ---- life cycle ---------------------------------------------------------- */

int qc_random(struct shb_quic_conn *c, void *buf, size_t len)
{
	if (c->cfg.random)
		return c->cfg.random(c->cfg.user, buf, len);
	return gnutls_rnd(GNUTLS_RND_NONCE, buf, len) < 0 ? -1 : 0;
}

static void local_params(struct shb_quic_conn *c)
{
	struct shb_quic_tp *tp = &c->local_tp;

	shb_quic_tp_init(tp);
	tp->max_idle_timeout_ms = c->cfg.idle_timeout / SHB_QUIC_MS;
	tp->max_udp_payload_size = c->cfg.max_recv_dgram;
	tp->initial_max_data = c->cfg.conn_window;
	tp->initial_max_stream_data_bidi_local = c->cfg.stream_window;
	tp->initial_max_stream_data_bidi_remote = 0;
	tp->initial_max_stream_data_uni = c->cfg.uni_window;
	tp->initial_max_streams_bidi = 0;
	tp->initial_max_streams_uni = c->cfg.peer_uni;
	tp->max_ack_delay_ms = QC_MAX_ACK_DELAY_MS;
	tp->active_connection_id_limit = QC_CID_ANNOUNCE;
	shb_quic_cid_set(&tp->initial_scid, c->scid.id, c->scid.len);
}

/* The connection's memory is a private mapping, not the heap: its pages
 * cost nothing until written (most of the reorder pool never is, see
 * give_back_reorder_pages()) and go back to the kernel at close. calloc()
 * would write every page of a reused heap block, and blocks this size
 * come from the heap once glibc's dynamic mmap threshold has risen above
 * them (at the first free). */
static void *conn_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void conn_unmap(struct shb_quic_conn *c)
{
	munmap(c->mem, c->mem_len);
}

struct shb_quic_conn *shb_quic_conn_new(const struct shb_quic_conn_config *cfg,
					uint64_t now, int *rcp)
{
	struct shb_quic_conn_config k;
	struct shb_quic_recovery_config rcfg;
	struct shb_quic_recovery_cbs rcbs;
	struct qc_layout l;
	struct shb_quic_conn *c;
	uint8_t ids[16];
	int rc = SHB_QUIC_CONN_E_INVAL;

	if (!cfg)
		goto fail;
	k = *cfg;
	if (qc_check_config(&k) < 0)
		goto fail;
	qc_plan(&k, &l);
	rc = SHB_QUIC_CONN_E_NOMEM;
	c = conn_map(l.total);
	if (!c)
		goto fail;
	/* The stream tables in memory now: written slot by slot as streams
	 * cycle through them, they would make RSS creep for many minutes.
	 * The recovery rings are not: they start small and grow only when
	 * more packets are in flight (quic_sent.h); CRYPTO buffers fill in
	 * the handshake; the reorder pool is written only while it holds
	 * data. */
	memset((uint8_t *)c + l.streams, 0, l.uni - l.streams);
	c->mem = c;
	c->mem_len = l.total;
	c->cfg = k;
	c->now = now;
	c->state = SHB_QUIC_CONN_HANDSHAKE;
	qc_carve(c, (uint8_t *)c, &l);
	rcfg = qc_recovery_config(&k);
	rcbs = (struct shb_quic_recovery_cbs){on_acked, on_lost, c};
	if (shb_quic_recovery_init_in(&c->rec, &rcfg, &rcbs,
				      (uint8_t *)c + l.rec, l.rec_len) !=
	    SHB_QUIC_RECOVERY_OK) {
		conn_unmap(c);
		goto fail;
	}
	rc = SHB_QUIC_CONN_E_TLS;
	if (qc_random(c, ids, sizeof(ids)) < 0)
		goto fail_free;
	shb_quic_cid_set(&c->scid, ids, 8);
	shb_quic_cid_set(&c->odcid, ids + 8, 8);
	c->dcid = c->odcid;
	shb_quic_tp_init(&c->peer_tp);
	local_params(c);
	c->hs_deadline = QC_NONE;
	c->idle_timeout = k.idle_timeout;
	c->idle_start = now;
	c->last_rx = now;
	c->phase_start_pn = 0;
	c->rx_max_data = k.conn_window;
	c->peer_uni_limit = k.peer_uni;
	c->avail_was_zero = 1;
	if (qc_streams_init(c) < 0)
		goto fail_free;
	rc = qc_start_tls(c);
	if (rc != SHB_QUIC_CONN_OK)
		goto fail_free;
	qc_log(c, "new connection, %u request streams, %zu bytes",
	       k.max_bidi_streams, shb_quic_conn_memory(&k));
	if (rcp)
		*rcp = SHB_QUIC_CONN_OK;
	return c;
fail_free:
	shb_quic_conn_free(c);
fail:
	if (rcp)
		*rcp = rc;
	return NULL;
}

void shb_quic_conn_free(struct shb_quic_conn *c)
{
	if (!c)
		return;
	shb_quic_tls_deinit(&c->tls);
	for (int i = 0; i < QC_SPACES; i++) {
		shb_quic_keys_deinit(&c->sp[i].rx);
		shb_quic_keys_deinit(&c->sp[i].tx);
	}
	shb_quic_keys_deinit(&c->rx_next);
	shb_quic_keys_deinit(&c->rx_prev);
	shb_quic_keys_deinit(&c->tx_next);
	shb_quic_recovery_free(&c->rec);
	for (uint32_t i = 0; c->own && i < c->nbidi; i++)
		free(c->own[i].p);
	free(c->own);
	for (uint32_t i = 0; i < SHB_QUIC_CONN_MAX_UNI; i++)
		free(c->uni_tx[i].heap);
	conn_unmap(c);
}

/* ---- I/O entry points ---------------------------------------------------- */

/* Once the reorder pool is empty again after holding data (a loss), the
 * whole pages it wrote go back to the kernel: a connection keeps no more
 * memory than the out-of-order bytes it holds now, whatever it held
 * before. One madvise() per loss episode; the pool is the end of the
 * mapping, so rounding its end up to a page stays inside it. */
static void give_back_reorder_pages(struct shb_quic_conn *c)
{
	static size_t page;
	size_t used;
	uintptr_t start, end, map_end;

	if (c->ro.nfree != c->ro.n || !c->ro.fresh)
		return;
	used = shb_quic_ro_trim(&c->ro);
	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	start = ((uintptr_t)c->ro.b + page - 1) & ~(uintptr_t)(page - 1);
	end = ((uintptr_t)c->ro.b + used + page - 1) & ~(uintptr_t)(page - 1);
	map_end = (uintptr_t)c->mem + c->mem_len;
	if (end > map_end)
		end = map_end;
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_DONTNEED);
}

int qc_after_call(struct shb_quic_conn *c)
{
	if (!qc_ended(c))
		qc_check_streams_available(c);
	return qc_ended(c) ? SHB_QUIC_CONN_E_CLOSED : SHB_QUIC_CONN_OK;
}

int shb_quic_conn_recv(struct shb_quic_conn *c, uint8_t *dgram, size_t len,
		       uint64_t now)
{
	if (!c || (!dgram && len))
		return SHB_QUIC_CONN_E_INVAL;
	if (qc_ended(c))
		return SHB_QUIC_CONN_E_CLOSED;
	c->now = now;
	c->stats.bytes_received += len;
	qc_rx_datagram(c, dgram, len, now);
	if (c->nearly && !qc_ended(c))
		qc_rx_replay_early(c, now);
	give_back_reorder_pages(c);
	return qc_after_call(c);
}

ptrdiff_t shb_quic_conn_write(struct shb_quic_conn *c, uint8_t *buf,
			      size_t cap, size_t *segment_size, uint64_t now)
{
	if (!c || !buf || !segment_size)
		return SHB_QUIC_CONN_E_INVAL;
	*segment_size = 0;
	if (cap < c->cfg.max_dgram)
		return SHB_QUIC_CONN_E_INVAL;
	if (c->state == SHB_QUIC_CONN_CLOSED)
		return 0;
	c->now = now;
	ptrdiff_t n = qc_tx_train(c, buf, cap, segment_size, now);

	if (n > 0) {
		c->stats.bytes_sent += (uint64_t)n;
		if (!c->stats.ts_first_sent) {
			c->stats.ts_first_sent = now;
			c->hs_deadline = now + c->cfg.handshake_timeout;
		}
	}
	if (!qc_ended(c))
		qc_check_streams_available(c);
	return n;
}

int shb_quic_conn_want_write(const struct shb_quic_conn *c)
{
	if (!c || c->state == SHB_QUIC_CONN_CLOSED)
		return 0;
	if (c->state == SHB_QUIC_CONN_CLOSING)
		return 1;
	return qc_tx_wanted(c);
}

/* ---- state ----------------------------------------------------------------- */

uint32_t shb_quic_conn_state(const struct shb_quic_conn *c)
{
	return c ? c->state : SHB_QUIC_CONN_CLOSED;
}

const struct shb_quic_close_info *
shb_quic_conn_close_info(const struct shb_quic_conn *c)
{
	return &c->close;
}

const char *shb_quic_conn_error_detail(const struct shb_quic_conn *c)
{
	return c && c->close.origin != SHB_QUIC_CLOSE_NONE ? c->detail : NULL;
}

void shb_quic_conn_stats(const struct shb_quic_conn *c,
			 struct shb_quic_conn_stats *out)
{
	const struct shb_quic_rtt *rtt = shb_quic_recovery_rtt(&c->rec);
	const struct shb_quic_cc *cc = shb_quic_recovery_cc(&c->rec);

	*out = c->stats;
	out->stream_bytes_sent = c->tx_data;
	out->packets_sent = shb_quic_recovery_stats(&c->rec)->packets_sent;
	out->smoothed_rtt = rtt->smoothed;
	out->min_rtt = rtt->min;
	out->cwnd = cc->cwnd;
	out->bytes_in_flight = cc->bytes_in_flight;
	out->retried = c->retried;
}
