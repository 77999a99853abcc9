/* shb-h2-peer modes: what the peer announces, and how it treats each
 * stream and event. The frame-level rules every mode shares are in
 * h2peer_conn.c. */
#include "h2peer.h"

#include <stdio.h>
#include <string.h>

#include "http_prefint.h"

/* Garbage connections wait this long without a new stream before they
 * send their bytes anyway (fewer than --wait-streams requests left). */
#define GARBAGE_QUIET_MS 100
/* refuse-first-flight holds answers until the client has as many streams
 * open as it may, or for this long: its concurrency becomes visible. */
#define HOLD_MS 2
#define FILLER_VALUE_LEN 1000
/* stall: how long the requests that are answered wait for it. */
#define STALL_ANSWER_MS 20

static void add_field(struct shb_buf *b, const char *name,
		      const char *value, size_t value_len)
{
	shb_hpack_encode_field(b, name, strlen(name), value, value_len);
}

/* :status, content-length 13 (the hello body), then filler fields up to
 * `size` octets: the block a continuation peer sends. */
static int build_block(struct shb_buf *b, const char *status,
		       uint64_t size)
{
	static char filler[FILLER_VALUE_LEN];

	memset(filler, 'f', sizeof(filler));
	add_field(b, ":status", status, 3);
	add_field(b, "content-length", "13", 2);
	for (unsigned i = 0; b->len < size && !b->err; i++) {
		char name[24];

		snprintf(name, sizeof(name), "x-filler-%04u", i);
		add_field(b, name, filler, sizeof(filler));
	}
	return b->err ? -1 : 0;
}

int shb_h2peer_mode_setup(struct shb_h2peer *p, char *err, size_t errlen)
{
	struct shb_h2peer_config *cfg = &p->cfg;

	switch (cfg->mode) {
	case SHB_H2PEER_GOAWAY_AFTER:
	case SHB_H2PEER_RESET:
	case SHB_H2PEER_STALL:
		if (!cfg->has_arg || cfg->arg == 0) {
			snprintf(err, errlen, "this mode needs a count N >= 1");
			return -1;
		}
		if (cfg->mode == SHB_H2PEER_GOAWAY_AFTER)
			cfg->goaway_after = (uint32_t)cfg->arg;
		break;
	case SHB_H2PEER_REFUSE_FIRST_FLIGHT:
		cfg->max_streams = cfg->has_arg ? (uint32_t)cfg->arg : 4;
		break;
	case SHB_H2PEER_TABLE_SIZE:
		cfg->send_table_size = 1;
		break;
	case SHB_H2PEER_SMALL_WINDOWS:
		if (!cfg->has_arg)
			cfg->arg = 204800;
		cfg->initial_window = 16384;
		cfg->grant_delay_ms = 1;
		break;
	case SHB_H2PEER_CONTINUATION:
		if (!cfg->has_arg)
			cfg->arg = 48 * 1024;
		if (build_block(&p->big, "200", cfg->arg) < 0) {
			snprintf(err, errlen, "out of memory for the block");
			return -1;
		}
		break;
	case SHB_H2PEER_PING:
		if (!cfg->has_arg || cfg->arg == 0)
			cfg->arg = 1;
		break;
	case SHB_H2PEER_HOSTILE:
		if (shb_h2peer_hostile_setup(p) < 0) {
			snprintf(err, errlen, "out of memory for the block");
			return -1;
		}
		break;
	default:
		break;
	}
	if (build_block(&p->hello, "200", 0) < 0 ||
	    build_block(&p->bad, "400", 0) < 0) {
		snprintf(err, errlen, "out of memory for the blocks");
		return -1;
	}
	return 0;
}

size_t shb_h2peer_mode_settings(const struct shb_h2peer *p,
				struct shb_h2_setting_kv *kv, size_t max)
{
	const struct shb_h2peer_config *cfg = &p->cfg;
	size_t n = 0;

	if (cfg->send_table_size && n < max)
		kv[n++] = (struct shb_h2_setting_kv){
			SHB_H2_SET_HEADER_TABLE_SIZE, (uint32_t)cfg->arg };
	if (cfg->max_streams && n < max)
		kv[n++] = (struct shb_h2_setting_kv){
			SHB_H2_SET_MAX_CONCURRENT_STREAMS, cfg->max_streams };
	if (cfg->initial_window != SHB_H2_DEFAULT_WINDOW && n < max)
		kv[n++] = (struct shb_h2_setting_kv){
			SHB_H2_SET_INITIAL_WINDOW_SIZE, cfg->initial_window };
	if (cfg->mode == SHB_H2PEER_HOSTILE)
		n += shb_h2peer_hostile_settings(p, kv + n, max - n);
	return n;
}

/* ---- garbage ------------------------------------------------------------- */

static void send_garbage(struct shb_h2peer_conn *c)
{
	uint8_t buf[SHB_H2_FRAME_HEADER_LEN + 16];

	memset(buf, 0, sizeof(buf));
	switch (c->peer->cfg.garbage) {
	case SHB_H2PEER_G_OVERSIZE:
		shb_h2_frame_header_write(buf, SHB_H2_MAX_FRAME_SIZE,
					  SHB_H2_DATA, 0, 1);
		shb_h2peer_send(c, buf, sizeof(buf));
		break;
	case SHB_H2PEER_G_SETTINGS_LEN:
		shb_h2_frame_header_write(buf, 7, SHB_H2_SETTINGS, 0, 0);
		shb_h2peer_send(c, buf, SHB_H2_FRAME_HEADER_LEN + 7);
		break;
	default:
		shb_h2_frame_header_write(buf, 4, SHB_H2_CONTINUATION,
					  SHB_H2_FLAG_END_HEADERS, c->last_id);
		shb_h2peer_send(c, buf, SHB_H2_FRAME_HEADER_LEN + 4);
		break;
	}
	c->garbage_sent = 1;
	c->peer->st.garbage_conns++;
	shb_h2peer_close(c);
}

/* Garbage goes out after the SETTINGS exchange, once the client has as
 * many requests here as it can: then it cannot start another one on
 * this connection before it reads the garbage, and every request the
 * client fails is one we saw. */
static void maybe_garbage(struct shb_h2peer_conn *c)
{
	if (!c->garbage || !c->acked || c->garbage_sent)
		return;
	if (shb_h2peer_open_streams(c) >= c->peer->cfg.wait_streams)
		send_garbage(c);
	else
		shb_h2peer_arm_timer(c, GARBAGE_QUIET_MS);
}

/* Answers every complete request, oldest table slot first. */
static void answer_held(struct shb_h2peer_conn *c)
{
	for (size_t i = 0; i < c->nstreams;) {
		if (c->streams[i].ended && !c->streams[i].ping_wait &&
		    !c->streams[i].stalled)
			shb_h2peer_answer(c, &c->streams[i], &c->peer->hello, 0);
		else
			i++;
	}
}

static void hold_or_answer(struct shb_h2peer_conn *c)
{
	if (shb_h2peer_open_streams(c) >= c->peer->cfg.max_streams)
		answer_held(c);
	else
		shb_h2peer_arm_timer(c, HOLD_MS);
}

void shb_h2peer_mode_timer(struct shb_h2peer_conn *c)
{
	if ((c->peer->cfg.mode == SHB_H2PEER_REFUSE_FIRST_FLIGHT ||
	     c->peer->cfg.mode == SHB_H2PEER_STALL) && !c->closing)
		answer_held(c);
	/* A garbage connection without a stream is left alone: the client
	 * would charge a failed connection that carried no request to its
	 * budget. */
	if (c->garbage && c->acked && !c->garbage_sent && c->seen > 0)
		send_garbage(c);
}

/* ---- stream events --------------------------------------------------------- */

void shb_h2peer_mode_acked(struct shb_h2peer_conn *c)
{
	maybe_garbage(c);
	if (c->peer->cfg.mode == SHB_H2PEER_HOSTILE)
		shb_h2peer_hostile_acked(c);
}

void shb_h2peer_mode_accepted(struct shb_h2peer_conn *c)
{
	if (c->peer->cfg.mode == SHB_H2PEER_HOSTILE)
		shb_h2peer_hostile_accepted(c);
}

void shb_h2peer_mode_writable(struct shb_h2peer_conn *c)
{
	if (c->peer->cfg.mode == SHB_H2PEER_HOSTILE)
		shb_h2peer_hostile_writable(c);
}

/* HPACK size updates: only the first block after the client ACKed a
 * lowered SETTINGS_HEADER_TABLE_SIZE may (and must) start with one.
 * Returns 1 when the stream was reset for lacking it. */
static int check_size_update(struct shb_h2peer_conn *c,
			     struct shb_h2peer_stream *s, const uint8_t *head,
			     size_t len)
{
	const struct shb_h2peer_config *cfg = &c->peer->cfg;
	struct shb_h2peer_stats *st = &c->peer->st;
	int has = len > 0 && (head[0] & 0xe0) == 0x20;
	int first = c->acked && !c->first_block_checked;
	int want = first && cfg->send_table_size && cfg->arg < 4096;
	uint64_t v = UINT64_MAX;
	size_t used;

	if (first)
		c->first_block_checked = 1;
	if (has) {
		st->size_updates++;
		if (shb_prefint_decode(head, len, 5, &v, &used) != SHB_PREFINT_DONE)
			v = UINT64_MAX;
	}
	if (want && (!has || v != cfg->arg)) {
		st->missing_updates++;
		fprintf(stderr, "shb-h2-peer: connection %llu: stream %u: no "
			"size update to %llu in the first block after the "
			"SETTINGS ACK\n", (unsigned long long)c->index, s->id,
			(unsigned long long)cfg->arg);
		shb_h2peer_reset(c, s, SHB_H2_COMPRESSION_ERROR);
		return 1;
	}
	if (has && !want)
		shb_h2peer_violation(c, "stream %u: unexpected size update to "
				     "%lld", s->id, (long long)v);
	return 0;
}

void shb_h2peer_mode_opened(struct shb_h2peer_conn *c,
			    struct shb_h2peer_stream *s, const uint8_t *head,
			    size_t len)
{
	if (check_size_update(c, s, head, len))
		return;
	if (c->peer->cfg.mode == SHB_H2PEER_HOSTILE &&
	    shb_h2peer_hostile_opened(c, s))
		return;
	if (c->peer->cfg.mode == SHB_H2PEER_REFUSE_FIRST_FLIGHT && !c->acked) {
		shb_h2peer_reset(c, s, SHB_H2_REFUSED_STREAM);
		return;
	}
	if (c->garbage) {
		c->peer->st.garbage_streams++;
		maybe_garbage(c);
	}
}

/* The HEADERS frame is cut at an offset that moves with the stream id,
 * the rest in CONTINUATION frames as large as the client allows. */
static void answer_big(struct shb_h2peer_conn *c, struct shb_h2peer_stream *s)
{
	size_t first = (size_t)s->id * 7919u % c->client_max_frame + 1;

	shb_h2peer_answer(c, s, &c->peer->big, first);
}

/* Every arg-th request is reset: alternately before any response, and
 * after the response head. */
static void answer_or_reset(struct shb_h2peer_conn *c,
			    struct shb_h2peer_stream *s)
{
	uint64_t n = ++c->peer->requests, every = c->peer->cfg.arg;

	if (n % every) {
		shb_h2peer_answer(c, s, &c->peer->hello, 0);
		return;
	}
	if ((n / every) % 2 == 0)
		shb_h2peer_send_block(c, s->id, &c->peer->hello, 0, 0);
	shb_h2peer_reset(c, s, SHB_H2_INTERNAL_ERROR);
}

void shb_h2peer_mode_request(struct shb_h2peer_conn *c,
			     struct shb_h2peer_stream *s)
{
	struct shb_h2peer *p = c->peer;

	if (c->closing || c->garbage)
		return; /* garbage connections answer nothing */
	switch (p->cfg.mode) {
	case SHB_H2PEER_SMALL_WINDOWS:
		if (s->body == p->cfg.arg) {
			p->st.bodies_ok++;
			shb_h2peer_answer(c, s, &p->hello, 0);
		} else {
			p->st.bodies_bad++;
			p->st.status400++;
			fprintf(stderr, "shb-h2-peer: stream %u: body of %llu "
				"octets\n", s->id, (unsigned long long)s->body);
			shb_h2peer_answer(c, s, &p->bad, 0);
		}
		break;
	case SHB_H2PEER_CONTINUATION:
		answer_big(c, s);
		break;
	case SHB_H2PEER_HOSTILE:
		shb_h2peer_hostile_request(c, s);
		break;
	case SHB_H2PEER_RESET:
		answer_or_reset(c, s);
		break;
	case SHB_H2PEER_REFUSE_FIRST_FLIGHT:
		hold_or_answer(c);
		break;
	case SHB_H2PEER_STALL:
		/* Held open until the client gives up on it (RST_STREAM); the
		 * others are answered a little later, so that some are always
		 * in flight beside a stalled one. */
		if (++p->requests % p->cfg.arg == 0)
			s->stalled = 1;
		else
			shb_h2peer_arm_timer(c, STALL_ANSWER_MS);
		break;
	case SHB_H2PEER_PING:
		if (++p->requests % p->cfg.arg == 0) {
			/* The answer waits for the ACK. */
			s->ping_wait = 1;
			shb_h2peer_ping(c, s->id);
			break;
		}
		shb_h2peer_answer(c, s, &p->hello, 0);
		break;
	default:
		shb_h2peer_answer(c, s, &p->hello, 0);
		break;
	}
}

void shb_h2peer_mode_ping_ack(struct shb_h2peer_conn *c, const uint8_t *data)
{
	struct shb_h2peer_stats *st = &c->peer->st;
	struct shb_h2peer_stream *s;
	uint32_t id;
	size_t i;

	for (i = 0; i < c->npings; i++)
		if (memcmp(c->pings[i].data, data, 8) == 0)
			break;
	if (i == c->npings) {
		st->ping_mismatches++;
		shb_h2peer_violation(c, "PING ACK with a payload we never sent");
		return;
	}
	if (i != 0)
		shb_h2peer_violation(c, "PING ACKs out of order");
	id = c->pings[i].stream_id;
	memmove(&c->pings[i], &c->pings[i + 1],
		(c->npings - i - 1) * sizeof(c->pings[0]));
	c->npings--;
	st->pings_acked++;
	s = id ? shb_h2peer_stream_find(c, id) : NULL;
	if (s && s->ping_wait && !c->closing)
		shb_h2peer_answer(c, s, &c->peer->hello, 0);
}

void shb_h2peer_mode_stream_done(struct shb_h2peer_conn *c, uint32_t id)
{
	uint32_t after = c->peer->cfg.goaway_after;

	/* Everything up to the highest stream opened so far is answered;
	 * streams above it are not, and the client must send them again. */
	if (after && !c->goaway_sent && !c->garbage && c->answered >= after)
		shb_h2peer_goaway(c, c->last_id, SHB_H2_NO_ERROR);
	if (c->goaway_sent && shb_h2peer_open_streams(c) == 0)
		shb_h2peer_close(c);
}
