/* The connection tests' harness: see conn_harness.h. */
#include "conn_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tp_cert g_cert, g_big;

int h_suite_init(void)
{
	if (tp_cert_make(&g_cert, "localhost") != 0 ||
	    tp_cert_make_big(&g_big, "localhost", 250) != 0)
		return -1;
	return 0;
}

int h_suite_clean(void)
{
	tp_cert_free(&g_cert);
	tp_cert_free(&g_big);
	return 0;
}

const struct tp_cert *h_cert(void)
{
	return &g_cert;
}

const struct tp_cert *h_big_cert(void)
{
	return &g_big;
}

/* ---- links ------------------------------------------------------------------- */

static uint64_t xrand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void enqueue(struct h_link *l, const uint8_t *d, size_t len, uint64_t at)
{
	size_t i;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->q = realloc(l->q, l->cap * sizeof(*l->q));
	}
	/* Sorted by delivery time; equal times keep sending order. */
	for (i = l->n; i > 0 && l->q[i - 1].at > at; i--)
		;
	memmove(&l->q[i + 1], &l->q[i], (l->n - i) * sizeof(*l->q));
	l->q[i].at = at;
	l->q[i].len = len;
	memcpy(l->q[i].data, d, len);
	l->n++;
}

static bool dropped(struct h_link *l, uint64_t idx)
{
	if (l->drop_all || idx < l->drop_first)
		return true;
	for (int i = 0; i < 8; i++)
		if (l->drop_list[i] == idx + 1)
			return true;
	return l->loss_pct && xrand(&l->rng) % 100 < l->loss_pct;
}

static void link_send(struct h_link *l, const uint8_t *d, size_t len,
		      uint64_t now)
{
	uint64_t idx = l->sent++;
	uint64_t at = now + l->delay;

	if (idx == 0 && len <= sizeof(l->first)) {
		memcpy(l->first, d, len);
		l->first_len = len;
	}
	if (len > sizeof(l->q[0].data) || dropped(l, idx))
		return;
	if (l->reorder_pct && xrand(&l->rng) % 100 < l->reorder_pct)
		at += l->delay / 2 + xrand(&l->rng) % (l->delay + 1);
	enqueue(l, d, len, at);
	if (l->dup_pct && xrand(&l->rng) % 100 < l->dup_pct)
		enqueue(l, d, len, at + xrand(&l->rng) % (l->delay + 1));
}

static uint64_t link_next(const struct h_link *l)
{
	return l->n ? l->q[0].at : UINT64_MAX;
}

/* ---- the client application ------------------------------------------------------- */

struct h_stream *h_stream(struct harness *h, uint64_t id)
{
	for (size_t i = 0; i < h->nst; i++)
		if (h->st[i].id == id)
			return &h->st[i];
	if (h->nst == H_MAX_STREAMS)
		return NULL;
	struct h_stream *s = &h->st[h->nst++];

	memset(s, 0, sizeof(*s));
	s->id = id;
	return s;
}

static void on_data(struct harness *h, const struct shb_quic_event *ev)
{
	struct h_stream *s = h_stream(h, ev->stream_id);

	if (!s)
		return;
	if (ev->offset != s->len)
		s->bad_offsets++;
	if (s->len + ev->len > s->cap) {
		size_t n = s->cap ? s->cap : 4096;

		while (n < s->len + ev->len)
			n *= 2;
		s->data = realloc(s->data, n);
		s->cap = n;
	}
	for (size_t i = 0; i < ev->len; i++) {
		if (h->check_bytes && (ev->stream_id & 3) == 0 &&
		    ev->data[i] != ts_byte(ev->stream_id, ev->offset + i))
			s->bad_bytes++;
	}
	if (ev->len)
		memcpy(s->data + s->len, ev->data, ev->len);
	s->len += ev->len;
	if (ev->fin) {
		s->fin = true;
		s->fin_events++;
		if (h->auto_retire && (ev->stream_id & 3) == 0)
			shb_quic_conn_stream_retire(h->c, ev->stream_id, 0x10c);
	}
}

static void on_event(void *user, const struct shb_quic_event *ev)
{
	struct harness *h = user;
	struct h_stream *s;

	h->events++;
	switch (ev->kind) {
	case SHB_QUIC_EV_HANDSHAKE_DONE:
		h->hs_done++;
		break;
	case SHB_QUIC_EV_STREAM_OPENED:
		s = h_stream(h, ev->stream_id);
		if (s)
			s->opened = true;
		break;
	case SHB_QUIC_EV_STREAM_DATA:
		on_data(h, ev);
		break;
	case SHB_QUIC_EV_STREAM_RESET:
		s = h_stream(h, ev->stream_id);
		if (s) {
			s->reset = true;
			s->reset_code = ev->code;
			s->final_size = ev->final_size;
		}
		break;
	case SHB_QUIC_EV_STOP_SENDING:
		s = h_stream(h, ev->stream_id);
		if (s) {
			s->stop = true;
			s->stop_code = ev->code;
		}
		break;
	case SHB_QUIC_EV_STREAMS_AVAILABLE:
		h->streams_available++;
		break;
	case SHB_QUIC_EV_CLOSED:
		h->closed++;
		h->close = *ev->close;
		snprintf(h->close_reason, sizeof(h->close_reason), "%s",
			 ev->close->reason ? ev->close->reason : "");
		break;
	default:
		break;
	}
	if (h->hook)
		h->hook(h, ev);
}

/* ---- set-up -------------------------------------------------------------------------- */

/* H_LOG=1 in the environment prints the client's trace. */
static void log_line(void *user, const char *line)
{
	struct harness *h = user;

	fprintf(stderr, "[%9.3f ms] %s\n", (double)h->now / 1e6 - 1000, line);
}

int h_init(struct harness *h, const struct shb_quic_conn_config *cfg,
	   const struct ts_config *scfg, uint64_t seed)
{
	struct shb_quic_tls_config tcfg = {0};
	struct shb_quic_conn_config k = {0};
	struct ts_config sk = {0};
	char err[128];
	int rc;

	memset(h, 0, sizeof(*h));
	h->check_bytes = true;
	h->now = 1000 * H_MS;
	h->up.delay = h->down.delay = 10 * H_MS;
	h->up.rng = seed * 2654435761u + 1;
	h->down.rng = seed * 40503u + 7;
	if (shb_quic_tls_ctx_init(&h->tls, &tcfg, err, sizeof(err)) != 0)
		return -1;
	if (cfg)
		k = *cfg;
	k.tls = &h->tls;
	if (!k.server_name)
		k.server_name = "localhost";
	if (!k.max_bidi_streams)
		k.max_bidi_streams = 16;
	k.on_event = on_event;
	k.user = h;
	if (getenv("H_LOG"))
		k.log = log_line;
	if (scfg)
		sk = *scfg;
	if (!sk.cert)
		sk.cert = &g_cert;
	h->s = ts_new(&sk);
	h->c = shb_quic_conn_new(&k, h->now, &rc);
	return h->s && h->c ? 0 : -1;
}

void h_fini(struct harness *h)
{
	shb_quic_conn_free(h->c);
	ts_free(h->s);
	shb_quic_tls_ctx_deinit(&h->tls);
	free(h->up.q);
	free(h->down.q);
	for (size_t i = 0; i < h->nst; i++)
		free(h->st[i].data);
}

/* ---- running ----------------------------------------------------------------------------- */

/* Takes one train from the client and checks its shape: equal segments
 * but the last, none over 1200 bytes, Initial datagrams of 1200 or more. */
static bool client_train(struct harness *h)
{
	static uint8_t buf[64 * 1200];
	size_t seg = 0;
	bool probe = false;

	for (int i = 0; i < QC_SPACES; i++)
		if (shb_quic_recovery_probes(&h->c->rec, (enum shb_quic_pns)i))
			probe = true;
	ptrdiff_t n = shb_quic_conn_write(h->c, buf, sizeof(buf), &seg, h->now);

	if (n <= 0)
		return false;
	if (probe) {
		uint64_t k = ((size_t)n + seg - 1) / seg;

		h->probe_trains++;
		if (k > h->probe_train_max)
			h->probe_train_max = k;
	}
	h->trains++;
	if (seg == 0 || seg > 1200)
		h->bad_trains++;
	size_t count = 0;

	for (size_t off = 0; off < (size_t)n; off += seg, count++) {
		size_t len = (size_t)n - off < seg ? (size_t)n - off : seg;

		if (len > 1200)
			h->oversize++;
		if (off + len < (size_t)n && len != seg)
			h->bad_trains++;
		/* A long header Initial (type bits 00) starts the datagram. */
		if ((buf[off] & 0xb0) == 0x80 && len < 1200)
			h->short_initials++;
		h->datagrams++;
		link_send(&h->up, buf + off, len, h->now);
	}
	if (count > h->max_train)
		h->max_train = count;
	return true;
}

static bool server_out(struct harness *h)
{
	uint8_t buf[1500];
	size_t n = ts_send(h->s, buf, sizeof(buf), h->now);

	if (!n)
		return false;
	link_send(&h->down, buf, n, h->now);
	return true;
}

static bool deliver(struct harness *h)
{
	bool any = false;

	while (h->up.n && h->up.q[0].at <= h->now) {
		struct h_dgram d = h->up.q[0];

		memmove(h->up.q, h->up.q + 1, --h->up.n * sizeof(d));
		h->up.delivered++;
		ts_recv(h->s, d.data, d.len, h->now);
		any = true;
	}
	while (h->down.n && h->down.q[0].at <= h->now) {
		struct h_dgram d = h->down.q[0];

		memmove(h->down.q, h->down.q + 1, --h->down.n * sizeof(d));
		h->down.delivered++;
		shb_quic_conn_recv(h->c, d.data, d.len, h->now);
		any = true;
	}
	return any;
}

void h_inject(struct harness *h, uint8_t *d, size_t len)
{
	shb_quic_conn_recv(h->c, d, len, h->now);
}

static bool pump(struct harness *h)
{
	bool any = false;

	for (int i = 0; i < 10000 && client_train(h); i++)
		any = true;
	for (int i = 0; i < 10000 && server_out(h); i++)
		any = true;
	if (deliver(h))
		any = true;
	return any;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

bool h_run(struct harness *h, bool (*cond)(struct harness *h), uint64_t max)
{
	uint64_t end = h->now + max;
	unsigned spins = 0;

	for (;;) {
		if (pump(h) && ++spins < 100000)
			continue;
		spins = 0;
		if (cond && cond(h))
			return true;
		uint64_t t = min64(link_next(&h->up), link_next(&h->down));

		t = min64(t, shb_quic_conn_deadline(h->c));
		t = min64(t, ts_deadline(h->s));
		if (t > end)
			break;
		if (t > h->now)
			h->now = t;
		if (shb_quic_conn_deadline(h->c) <= h->now)
			shb_quic_conn_on_timeout(h->c, h->now);
		if (ts_deadline(h->s) <= h->now)
			ts_timeout(h->s, h->now);
	}
	if (end > h->now)
		h->now = end;
	return cond ? cond(h) : true;
}

bool h_cond_handshake(struct harness *h)
{
	return h->hs_done > 0 && ts_handshake_done(h->s);
}

bool h_cond_closed(struct harness *h)
{
	return shb_quic_conn_state(h->c) == SHB_QUIC_CONN_CLOSED;
}

bool h_cond_quiet(struct harness *h)
{
	/* Data the pacer holds back is not quiet: want_write() says no
	 * until its time comes; nor is an ACK the policy holds back, which
	 * the peer may be waiting for. */
	return h->up.n == 0 && h->down.n == 0 && !shb_quic_conn_want_write(h->c) &&
	       qc_tx_paced_until(h->c) == QC_NONE &&
	       shb_quic_recovery_ack_deadline(&h->c->rec) == QC_NONE;
}

int64_t h_request(struct harness *h, const uint8_t *data, size_t len)
{
	int64_t id = shb_quic_conn_bidi_open(h->c);

	if (id < 0)
		return id;
	int rc = shb_quic_conn_bidi_send(h->c, (uint64_t)id, data, len, 1);

	return rc < 0 ? rc : id;
}

void h_dump(struct harness *h)
{
	struct shb_quic_conn *c = h->c;
	struct shb_quic_conn_stats st;

	shb_quic_conn_stats(c, &st);
	fprintf(stderr,
		"t=%.1f ms state %u cwnd %llu inflight %llu tx %llu/%llu rx "
		"%llu/%llu consumed %llu ro free %u sendq %u deadline %lld "
		"want %d lost %llu pto %llu rcvd %llu dropped %llu links %zu/%zu\n",
		(double)h->now / 1e6 - 1000, c->state, (unsigned long long)st.cwnd,
		(unsigned long long)st.bytes_in_flight,
		(unsigned long long)c->tx_data, (unsigned long long)c->tx_max_data,
		(unsigned long long)c->rx_data, (unsigned long long)c->rx_max_data,
		(unsigned long long)c->rx_consumed, c->ro.nfree, c->sq_len,
		(long long)shb_quic_conn_deadline(c),
		shb_quic_conn_want_write(c), (unsigned long long)st.packets_lost,
		(unsigned long long)st.pto_count,
		(unsigned long long)st.packets_received,
		(unsigned long long)st.packets_dropped, h->up.n, h->down.n);
	for (uint32_t i = 0; i < c->nslots; i++) {
		struct qc_stream *s = &c->st[i];

		if (s->used)
			fprintf(stderr,
				"  stream %llu rx %llu/%llu max %llu final %lld "
				"blocks %u done %u\n",
				(unsigned long long)s->id,
				(unsigned long long)s->rx_off,
				(unsigned long long)s->rx_high,
				(unsigned long long)s->rx_max, (long long)s->rx_final,
				s->ro.blocks, s->rx_done);
	}
	ts_dump(h->s);
}
