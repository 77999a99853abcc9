/* shb-h2-peer connections: the frame reader, the rules every mode checks
 * in the client, and the frames we write. See h2peer.h. */
#include "h2peer.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

/* How long a closing connection waits for the client to close its side. */
#define LINGER_MS 5000

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* ---- bookkeeping ---------------------------------------------------------- */

void shb_h2peer_violation(struct shb_h2peer_conn *c, const char *fmt, ...)
{
	struct shb_h2peer_stats *st = &c->peer->st;
	char line[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "shb-h2-peer: connection %llu: %s\n",
		(unsigned long long)c->index, line);
	if (st->violations++ == 0)
		snprintf(st->first_violation, sizeof(st->first_violation),
			 "%s", line);
}

/* A violation after which the input cannot be trusted: GOAWAY, close,
 * and ignore whatever else arrives. */
static void fatal(struct shb_h2peer_conn *c, uint32_t code, const char *what)
{
	shb_h2peer_violation(c, "%s", what);
	shb_h2peer_goaway(c, c->last_id, code);
	shb_h2peer_close(c);
	c->broken = 1;
}

struct shb_h2peer_stream *shb_h2peer_stream_find(struct shb_h2peer_conn *c,
						 uint32_t id)
{
	for (size_t i = 0; i < c->nstreams; i++)
		if (c->streams[i].id == id)
			return &c->streams[i];
	return NULL;
}

uint32_t shb_h2peer_open_streams(const struct shb_h2peer_conn *c)
{
	return (uint32_t)c->nstreams;
}

static struct shb_h2peer_stream *stream_add(struct shb_h2peer_conn *c,
					    uint32_t id)
{
	if (c->nstreams == c->cstreams) {
		size_t n = c->cstreams ? c->cstreams * 2 : 16;
		struct shb_h2peer_stream *p =
			realloc(c->streams, n * sizeof(*p));

		if (!p)
			return NULL;
		c->streams = p;
		c->cstreams = n;
	}
	struct shb_h2peer_stream *s = &c->streams[c->nstreams++];

	memset(s, 0, sizeof(*s));
	s->id = id;
	/* The client applies our INITIAL_WINDOW_SIZE once it has read our
	 * SETTINGS, which its ACK marks in its byte stream. */
	s->window = c->acked ? (int64_t)c->peer->cfg.initial_window
			     : SHB_H2_DEFAULT_WINDOW;
	return s;
}

/* Ends a stream on our side; pointers into the table become stale. */
static void stream_done(struct shb_h2peer_conn *c, struct shb_h2peer_stream *s)
{
	uint32_t id = s->id;
	size_t i = (size_t)(s - c->streams);

	c->streams[i] = c->streams[--c->nstreams];
	shb_h2peer_mode_stream_done(c, id);
}

/* ---- output ---------------------------------------------------------------- */

void shb_h2peer_send(struct shb_h2peer_conn *c, const void *data, size_t n)
{
	if (c->closing)
		return;
	if (bufferevent_write(c->bev, data, n) < 0)
		shb_h2peer_violation(c, "out of memory for output");
	else
		c->peer->st.bytes_out += n;
}

static void send_frame(struct shb_h2peer_conn *c, uint32_t len, uint8_t type,
		       uint8_t flags, uint32_t id, const void *payload)
{
	uint8_t h[SHB_H2_FRAME_HEADER_LEN];

	shb_h2_frame_header_write(h, len, type, flags, id);
	shb_h2peer_send(c, h, sizeof(h));
	if (len)
		shb_h2peer_send(c, payload, len);
}

void shb_h2peer_frame(struct shb_h2peer_conn *c, uint32_t len, uint8_t type,
		      uint8_t flags, uint32_t id, const void *payload)
{
	send_frame(c, len, type, flags, id, payload);
}

void shb_h2peer_send_block(struct shb_h2peer_conn *c, uint32_t id,
			   const struct shb_buf *block, size_t first_len,
			   int end_stream)
{
	size_t off = 0, max = c->client_max_frame;
	int first = 1;

	while (first || off < block->len) {
		size_t n = block->len - off;
		size_t lim = first && first_len && first_len < max ? first_len
								  : max;
		uint8_t flags = 0;

		if (n > lim)
			n = lim;
		if (first && end_stream)
			flags |= SHB_H2_FLAG_END_STREAM;
		if (off + n == block->len)
			flags |= SHB_H2_FLAG_END_HEADERS;
		send_frame(c, (uint32_t)n,
			   first ? SHB_H2_HEADERS : SHB_H2_CONTINUATION, flags,
			   id, block->p + off);
		if (!first)
			c->peer->st.continuations++;
		off += n;
		first = 0;
	}
}

void shb_h2peer_answer(struct shb_h2peer_conn *c, struct shb_h2peer_stream *s,
		       const struct shb_buf *block, size_t first_len)
{
	shb_h2peer_send_block(c, s->id, block, first_len, 0);
	send_frame(c, SHB_H2PEER_BODY_LEN, SHB_H2_DATA, SHB_H2_FLAG_END_STREAM,
		   s->id, SHB_H2PEER_BODY);
	c->peer->st.answered++;
	if (c->goaway_sent)
		c->peer->st.answered_late++;
	c->answered++;
	stream_done(c, s);
}

void shb_h2peer_reset(struct shb_h2peer_conn *c, struct shb_h2peer_stream *s,
		      uint32_t code)
{
	uint8_t f[SHB_H2_RST_STREAM_LEN];

	shb_h2peer_send(c, f, shb_h2_write_rst_stream(f, s->id, code));
	if (code == SHB_H2_REFUSED_STREAM)
		c->peer->st.refused++;
	else
		c->peer->st.resets_sent++;
	stream_done(c, s);
}

void shb_h2peer_goaway(struct shb_h2peer_conn *c, uint32_t last, uint32_t code)
{
	uint8_t f[SHB_H2_GOAWAY_LEN];

	if (c->goaway_sent || c->closing)
		return;
	shb_h2peer_send(c, f, shb_h2_write_goaway(f, last, code));
	c->goaway_sent = 1;
	c->goaway_last = last;
	c->peer->st.goaways_sent++;
}

void shb_h2peer_window_update(struct shb_h2peer_conn *c, uint32_t id,
			      uint32_t inc)
{
	uint8_t f[SHB_H2_WINDOW_UPDATE_LEN];

	shb_h2peer_send(c, f, shb_h2_write_window_update(f, id, inc));
	c->peer->st.window_updates++;
}

void shb_h2peer_ping(struct shb_h2peer_conn *c, uint32_t answer_id)
{
	struct shb_h2peer_ping *pg;
	uint8_t f[SHB_H2_PING_LEN];

	if (c->npings == c->cpings) {
		size_t n = c->cpings ? c->cpings * 2 : 8;
		void *p = realloc(c->pings, n * sizeof(*c->pings));

		if (!p) {
			shb_h2peer_violation(c, "out of memory for a PING");
			return;
		}
		c->pings = p;
		c->cpings = n;
	}
	pg = &c->pings[c->npings++];
	/* Unique per peer: the connection and a sequence number. */
	for (int i = 0; i < 4; i++) {
		pg->data[i] = (uint8_t)(c->index >> (24 - 8 * i));
		pg->data[4 + i] = (uint8_t)(c->ping_seq >> (24 - 8 * i));
	}
	c->ping_seq++;
	pg->stream_id = answer_id;
	shb_h2peer_send(c, f, shb_h2_write_ping(f, pg->data, 0));
	c->peer->st.pings_sent++;
}

static void do_shutdown(struct shb_h2peer_conn *c)
{
	c->shut = 1;
	shutdown(bufferevent_getfd(c->bev), SHUT_WR);
	shb_h2peer_arm_timer(c, LINGER_MS);
}

void shb_h2peer_close(struct shb_h2peer_conn *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		do_shutdown(c);
}

void shb_h2peer_stop_reading(struct shb_h2peer_conn *c)
{
	bufferevent_disable(c->bev, EV_READ);
}

void shb_h2peer_arm_timer(struct shb_h2peer_conn *c, uint32_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000),
			      (suseconds_t)(ms % 1000) * 1000 };

	evtimer_add(c->timer, &tv);
}

/* ---- frames received --------------------------------------------------- */

/* Gives back all consumed credit: the connection's, and that of streams
 * whose request body is not complete yet. Our view of a window grows when
 * the WINDOW_UPDATE is queued, before the client can use it, so a
 * negative window is always the client's fault. */
static void grant_all(struct shb_h2peer_conn *c)
{
	if (c->conn_consumed) {
		shb_h2peer_window_update(c, 0, (uint32_t)c->conn_consumed);
		c->conn_window += (int64_t)c->conn_consumed;
		c->conn_consumed = 0;
	}
	for (size_t i = 0; i < c->nstreams; i++) {
		struct shb_h2peer_stream *s = &c->streams[i];

		if (s->ended || !s->consumed)
			continue;
		shb_h2peer_window_update(c, s->id, (uint32_t)s->consumed);
		s->window += (int64_t)s->consumed;
		s->consumed = 0;
	}
}

static void on_grant_timer(evutil_socket_t fd, short what, void *arg)
{
	grant_all(arg);
}

/* After DATA on s: credit back at once, or once a window ran low (the
 * stream's is empty, or the connection's cannot take a full frame). */
static void grant(struct shb_h2peer_conn *c, struct shb_h2peer_stream *s)
{
	uint32_t ms = c->peer->cfg.grant_delay_ms;
	struct timeval tv = { 0, (suseconds_t)ms * 1000 };

	if (ms == 0) {
		grant_all(c);
		return;
	}
	if (((s && s->window <= 0) || c->conn_window < SHB_H2_MIN_FRAME_SIZE) &&
	    !evtimer_pending(c->grant_timer, NULL))
		evtimer_add(c->grant_timer, &tv);
}

static void on_data(struct shb_h2peer_conn *c,
		    const struct shb_h2_frame_header *h, const uint8_t *p)
{
	struct shb_h2peer_stats *st = &c->peer->st;
	struct shb_h2peer_stream *s = shb_h2peer_stream_find(c, h->stream_id);
	uint32_t pad = 0;

	if (h->stream_id == 0 || h->stream_id > c->last_id) {
		fatal(c, SHB_H2_PROTOCOL_ERROR, "DATA on a stream never opened");
		return;
	}
	if (h->flags & SHB_H2_FLAG_PADDED) {
		pad = h->length ? (uint32_t)p[0] + 1 : 1;
		if (pad > h->length) {
			fatal(c, SHB_H2_PROTOCOL_ERROR, "DATA padding too long");
			return;
		}
	}
	/* Flow control counts the whole payload, padding included. */
	c->conn_window -= h->length;
	c->conn_consumed += h->length;
	if (c->conn_window < 0)
		shb_h2peer_violation(c, "DATA beyond the connection window "
				     "(%lld)", (long long)c->conn_window);
	if (h->length > st->max_data_frame)
		st->max_data_frame = h->length;
	if (s && s->ended) {
		shb_h2peer_violation(c, "DATA on stream %u after END_STREAM",
				     s->id);
		s = NULL;
	}
	if (s) {
		s->window -= h->length;
		s->consumed += h->length;
		if (s->window < 0)
			shb_h2peer_violation(c, "DATA beyond the window of "
					     "stream %u (%lld)", s->id,
					     (long long)s->window);
		s->body += h->length - pad;
		st->body_bytes += h->length - pad;
		if (h->flags & SHB_H2_FLAG_END_STREAM)
			s->ended = 1;
	}
	grant(c, s);
	if (s && s->ended)
		shb_h2peer_mode_request(c, s);
}

/* Keeps the first octets of a header block (for the size update). */
static void block_bytes(struct shb_h2peer_conn *c, const uint8_t *p, size_t n)
{
	while (n-- && c->hb_head_len < sizeof(c->hb_head))
		c->hb_head[c->hb_head_len++] = *p++;
}

static void block_end(struct shb_h2peer_conn *c)
{
	uint32_t id = c->hb_id;
	struct shb_h2peer_stream *s;

	c->hb_id = 0;
	s = shb_h2peer_stream_find(c, id);
	if (!s)
		return; /* above our GOAWAY */
	shb_h2peer_mode_opened(c, s, c->hb_head, c->hb_head_len);
	s = shb_h2peer_stream_find(c, id); /* the mode may have ended it */
	if (s && c->hb_end_stream) {
		s->ended = 1;
		shb_h2peer_mode_request(c, s);
	}
}

static void open_stream(struct shb_h2peer_conn *c, uint32_t id)
{
	struct shb_h2peer_stats *st = &c->peer->st;
	uint32_t max = c->peer->cfg.max_streams;

	c->last_id = id;
	c->seen++;
	st->streams++;
	if (c->goaway_sent && id > c->goaway_last) {
		st->above_goaway++;
		return;
	}
	if (!stream_add(c, id)) {
		fatal(c, SHB_H2_INTERNAL_ERROR, "out of memory for a stream");
		return;
	}
	if (!c->acked)
		return;
	if (c->nstreams > st->max_open)
		st->max_open = c->nstreams;
	if (max && c->nstreams > max)
		shb_h2peer_violation(c, "stream %u: %zu streams open, the "
				     "limit is %u", id, c->nstreams, max);
}

static void on_headers(struct shb_h2peer_conn *c,
		       const struct shb_h2_frame_header *h, const uint8_t *p)
{
	uint32_t off = 0, pad = 0;

	if (h->flags & SHB_H2_FLAG_PADDED) {
		pad = h->length ? p[0] : 0;
		off = 1;
	}
	if (h->flags & SHB_H2_FLAG_PRIORITY)
		off += 5;
	if (off + pad > h->length) {
		fatal(c, SHB_H2_PROTOCOL_ERROR, "HEADERS too short for its flags");
		return;
	}
	if ((h->stream_id & 1) == 0 || h->stream_id <= c->last_id) {
		char what[80];

		/* shb sends no trailers: a block on an old id is a bug. */
		snprintf(what, sizeof(what), "HEADERS on stream %u after "
			 "stream %u", h->stream_id, c->last_id);
		fatal(c, SHB_H2_PROTOCOL_ERROR, what);
		return;
	}
	open_stream(c, h->stream_id);
	if (c->broken)
		return;
	c->hb_id = h->stream_id;
	c->hb_end_stream = (h->flags & SHB_H2_FLAG_END_STREAM) != 0;
	c->hb_head_len = 0;
	block_bytes(c, p + off, h->length - off - pad);
	if (h->flags & SHB_H2_FLAG_END_HEADERS)
		block_end(c);
}

static void on_continuation(struct shb_h2peer_conn *c,
			    const struct shb_h2_frame_header *h,
			    const uint8_t *p)
{
	if (!c->hb_id || h->stream_id != c->hb_id) {
		fatal(c, SHB_H2_PROTOCOL_ERROR,
		      "CONTINUATION outside a header block");
		return;
	}
	block_bytes(c, p, h->length);
	if (h->flags & SHB_H2_FLAG_END_HEADERS)
		block_end(c);
}

static void on_settings(struct shb_h2peer_conn *c,
			const struct shb_h2_frame_header *h, const uint8_t *p)
{
	uint8_t ack[SHB_H2_FRAME_HEADER_LEN];

	if (h->stream_id || ((h->flags & SHB_H2_FLAG_ACK) ? h->length != 0
			     : h->length % SHB_H2_SETTINGS_ENTRY_LEN != 0)) {
		fatal(c, SHB_H2_FRAME_SIZE_ERROR, "malformed SETTINGS");
		return;
	}
	if (h->flags & SHB_H2_FLAG_ACK) {
		if (c->acked) {
			shb_h2peer_violation(c, "a second SETTINGS ACK");
			return;
		}
		c->acked = 1;
		/* Streams opened before the ACK move to the new window. */
		for (size_t i = 0; i < c->nstreams; i++)
			c->streams[i].window += (int64_t)c->peer->cfg.initial_window -
						SHB_H2_DEFAULT_WINDOW;
		shb_h2peer_mode_acked(c);
		return;
	}
	for (uint32_t i = 0; i < h->length; i += SHB_H2_SETTINGS_ENTRY_LEN) {
		uint16_t id = (uint16_t)(p[i] << 8 | p[i + 1]);
		uint32_t v = get32(p + i + 2);

		if (id == SHB_H2_SET_MAX_FRAME_SIZE) {
			if (v < SHB_H2_MIN_FRAME_SIZE || v > SHB_H2_MAX_FRAME_SIZE) {
				fatal(c, SHB_H2_PROTOCOL_ERROR,
				      "SETTINGS_MAX_FRAME_SIZE out of range");
				return;
			}
			c->client_max_frame = v;
		}
	}
	c->got_settings = 1;
	shb_h2peer_send(c, ack, shb_h2_write_settings_ack(ack));
}

static void on_rst_stream(struct shb_h2peer_conn *c,
			  const struct shb_h2_frame_header *h, const uint8_t *p)
{
	struct shb_h2peer_stream *s;

	if (h->length != 4 || h->stream_id == 0) {
		fatal(c, SHB_H2_FRAME_SIZE_ERROR, "malformed RST_STREAM");
		return;
	}
	c->peer->st.client_resets++;
	fprintf(stderr, "shb-h2-peer: connection %llu: client reset stream "
		"%u (%s)\n", (unsigned long long)c->index, h->stream_id,
		shb_h2_error_name(get32(p)));
	s = shb_h2peer_stream_find(c, h->stream_id);
	if (s)
		stream_done(c, s); /* gone at the client: nothing more on it */
}

static void on_ping(struct shb_h2peer_conn *c,
		    const struct shb_h2_frame_header *h, const uint8_t *p)
{
	uint8_t f[SHB_H2_PING_LEN];

	if (h->length != 8 || h->stream_id) {
		fatal(c, SHB_H2_FRAME_SIZE_ERROR, "malformed PING");
		return;
	}
	if (h->flags & SHB_H2_FLAG_ACK)
		shb_h2peer_mode_ping_ack(c, p);
	else
		shb_h2peer_send(c, f, shb_h2_write_ping(f, p, 1));
}

static void on_goaway(struct shb_h2peer_conn *c,
		      const struct shb_h2_frame_header *h, const uint8_t *p)
{
	uint32_t code;

	if (h->length < 8 || h->stream_id) {
		fatal(c, SHB_H2_FRAME_SIZE_ERROR, "malformed GOAWAY");
		return;
	}
	code = get32(p + 4);
	c->peer->st.client_goaways++;
	if (code != SHB_H2_NO_ERROR) {
		c->peer->st.client_goaway_errors++;
		fprintf(stderr, "shb-h2-peer: connection %llu: client GOAWAY "
			"%s\n", (unsigned long long)c->index,
			shb_h2_error_name(code));
	}
}

static void on_window_update(struct shb_h2peer_conn *c,
			     const struct shb_h2_frame_header *h,
			     const uint8_t *p)
{
	if (h->length != 4) {
		fatal(c, SHB_H2_FRAME_SIZE_ERROR, "malformed WINDOW_UPDATE");
		return;
	}
	if ((get32(p) & SHB_H2_MAX_WINDOW) == 0)
		shb_h2peer_violation(c, "WINDOW_UPDATE of 0 on stream %u",
				     h->stream_id);
}

static void on_frame(struct shb_h2peer_conn *c,
		     const struct shb_h2_frame_header *h, const uint8_t *p)
{
	if (!c->got_settings &&
	    (h->type != SHB_H2_SETTINGS || (h->flags & SHB_H2_FLAG_ACK))) {
		fatal(c, SHB_H2_PROTOCOL_ERROR,
		      "the client's first frame is not SETTINGS");
		return;
	}
	if (c->hb_id && h->type != SHB_H2_CONTINUATION) {
		fatal(c, SHB_H2_PROTOCOL_ERROR,
		      "a frame inside a header block");
		return;
	}
	switch (h->type) {
	case SHB_H2_DATA: on_data(c, h, p); break;
	case SHB_H2_HEADERS: on_headers(c, h, p); break;
	case SHB_H2_CONTINUATION: on_continuation(c, h, p); break;
	case SHB_H2_PRIORITY:
		if (h->length != 5 || h->stream_id == 0)
			fatal(c, SHB_H2_FRAME_SIZE_ERROR, "malformed PRIORITY");
		break;
	case SHB_H2_RST_STREAM: on_rst_stream(c, h, p); break;
	case SHB_H2_SETTINGS: on_settings(c, h, p); break;
	case SHB_H2_PUSH_PROMISE:
		fatal(c, SHB_H2_PROTOCOL_ERROR, "PUSH_PROMISE from a client");
		break;
	case SHB_H2_PING: on_ping(c, h, p); break;
	case SHB_H2_GOAWAY: on_goaway(c, h, p); break;
	case SHB_H2_WINDOW_UPDATE: on_window_update(c, h, p); break;
	default: break; /* unknown types are ignored */
	}
}

/* ---- the reader ---------------------------------------------------------- */

/* Consumes whole frames from the input. */
static void read_frames(struct shb_h2peer_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);

	if (!c->preface_ok) {
		const uint8_t *p;

		if (evbuffer_get_length(in) < SHB_H2_PREFACE_LEN)
			return;
		p = evbuffer_pullup(in, SHB_H2_PREFACE_LEN);
		if (!p || memcmp(p, SHB_H2_PREFACE, SHB_H2_PREFACE_LEN) != 0) {
			fatal(c, SHB_H2_PROTOCOL_ERROR, "bad connection preface");
			return;
		}
		evbuffer_drain(in, SHB_H2_PREFACE_LEN);
		c->preface_ok = 1;
	}
	while (!c->broken) {
		struct shb_h2_frame_header h;
		uint8_t hdr[SHB_H2_FRAME_HEADER_LEN];
		const uint8_t *p;

		if (evbuffer_copyout(in, hdr, sizeof(hdr)) < (ev_ssize_t)sizeof(hdr))
			return;
		shb_h2_frame_header_parse(hdr, &h);
		if (h.length > SHB_H2PEER_MAX_FRAME) {
			fatal(c, SHB_H2_FRAME_SIZE_ERROR,
			      "a frame larger than SETTINGS_MAX_FRAME_SIZE");
			return;
		}
		if (evbuffer_get_length(in) < SHB_H2_FRAME_HEADER_LEN + h.length)
			return;
		p = evbuffer_pullup(in, SHB_H2_FRAME_HEADER_LEN + h.length);
		if (!p) {
			fatal(c, SHB_H2_INTERNAL_ERROR, "out of memory for input");
			return;
		}
		on_frame(c, &h, p + SHB_H2_FRAME_HEADER_LEN);
		evbuffer_drain(in, SHB_H2_FRAME_HEADER_LEN + h.length);
	}
}

/* ---- events -------------------------------------------------------------- */

static void on_read(struct bufferevent *bev, void *arg)
{
	struct shb_h2peer_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	c->peer->st.bytes_in += evbuffer_get_length(in) - c->in_left;
	if (c->broken)
		evbuffer_drain(in, evbuffer_get_length(in));
	else
		read_frames(c);
	c->in_left = evbuffer_get_length(in);
}

static void on_write(struct bufferevent *bev, void *arg)
{
	struct shb_h2peer_conn *c = arg;

	if (c->closing && !c->shut)
		do_shutdown(c);
	else if (c->flooding && !c->closing)
		shb_h2peer_mode_writable(c);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct shb_h2peer_conn *c = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		shb_h2peer_conn_free(c);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct shb_h2peer_conn *c = arg;

	if (c->shut)
		shb_h2peer_conn_free(c); /* the client never closed */
	else
		shb_h2peer_mode_timer(c);
}

void shb_h2peer_conn_free(struct shb_h2peer_conn *c)
{
	struct shb_h2peer *p = c->peer;

	if (c->seen == 0)
		p->st.idle_conns++;
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->bev)
		bufferevent_free(c->bev);
	if (c->timer)
		event_free(c->timer);
	if (c->grant_timer)
		event_free(c->grant_timer);
	free(c->streams);
	free(c->pings);
	free(c);
}

static void send_settings(struct shb_h2peer_conn *c)
{
	struct shb_h2_setting_kv kv[8];
	uint8_t f[SHB_H2_FRAME_HEADER_LEN + 8 * SHB_H2_SETTINGS_ENTRY_LEN];
	size_t n = shb_h2peer_mode_settings(c->peer, kv, 8);
	size_t len = shb_h2_write_settings(f, kv, n);

	c->peer->st.handshake_out = len + SHB_H2_FRAME_HEADER_LEN;
	shb_h2peer_send(c, f, len);
}

void shb_h2peer_accept(struct shb_h2peer *p, int fd)
{
	struct shb_h2peer_conn *c = calloc(1, sizeof(*c));
	int one = 1;

	p->st.connections++;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!c) {
		evutil_closesocket(fd);
		return;
	}
	c->peer = p;
	c->index = p->st.connections - 1;
	c->client_max_frame = SHB_H2_MIN_FRAME_SIZE;
	c->conn_window = SHB_H2_DEFAULT_WINDOW;
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	c->bev = bufferevent_socket_new(p->base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->timer = evtimer_new(p->base, on_timer, c);
	c->grant_timer = evtimer_new(p->base, on_grant_timer, c);
	if (!c->bev || !c->timer || !c->grant_timer) {
		if (!c->bev)
			evutil_closesocket(fd);
		shb_h2peer_conn_free(c);
		return;
	}
	bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	c->garbage = p->cfg.mode == SHB_H2PEER_GARBAGE && c->index % 3 == 2;
	/* Servers speak first: our SETTINGS go out before we read. */
	send_settings(c);
	shb_h2peer_mode_accepted(c);
}
