/* shb-h2-peer hostile modes (tests/hostile): one broken rule of RFC 9113
 * or RFC 7541, or one flood, on every connection. The client is expected
 * to end each such connection (or stream) with an error and to keep its
 * memory bounded; the peer only plays the part. Floods stop reading the
 * client, so whatever the client answers piles up on its side. */
#include "h2peer.h"

#include <stdlib.h>
#include <string.h>

#define FLOOD_BATCH (64u * 1024u) /* octets queued per refill */
#define BOMB_VALUE 4000u          /* fits the 4096-octet dynamic table */
#define BOMB_REFS 16000u          /* ~64 MB of decoded fields */
#define FILLER_FIELD_VALUE 1000u
#define IDLE_GAP 2000u            /* idle-stream: odd, far above */

static void put(struct shb_buf *b, const void *data, size_t n)
{
	shb_buf_put(b, data, n);
}

static void put_byte(struct shb_buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void field(struct shb_buf *b, const char *name, const char *value)
{
	shb_hpack_encode_field(b, name, strlen(name), value, strlen(value));
}

/* :status 200 (static index 8) and the hello body's length. */
static void status_ok(struct shb_buf *b)
{
	put_byte(b, 0x88);
	field(b, "content-length", "13");
}

/* A literal field "x-h" without indexing whose value is the given
 * Huffman-coded octets (RFC 7541 6.2.2, 5.2). */
static void huffman_value(struct shb_buf *b, const uint8_t *v, uint8_t n)
{
	static const uint8_t name[] = { 0x00, 0x03, 'x', '-', 'h' };

	put(b, name, sizeof(name));
	put_byte(b, (uint8_t)(0x80 | n));
	put(b, v, n);
}

/* One literal field "x-f" without indexing of FILLER_FIELD_VALUE octets:
 * 1009 octets of well-formed HPACK. */
static void filler_field(struct shb_buf *b)
{
	static const uint8_t head[] = { 0x00, 0x03, 'x', '-', 'f',
					0x7f, 0xe9, 0x06 }; /* 127 + 873 */
	static char value[FILLER_FIELD_VALUE];

	memset(value, 'f', sizeof(value));
	put(b, head, sizeof(head));
	put(b, value, sizeof(value));
}

/* An HPACK bomb: one 4000-octet value enters the dynamic table (index
 * 62), then 16000 one-octet references to it. */
static void bomb(struct shb_buf *b)
{
	static const uint8_t head[] = { 0x40, 0x06, 'x', '-', 'b', 'o', 'm', 'b',
					0x7f, 0xa1, 0x1e }; /* 127 + 3873 */
	static char value[BOMB_VALUE];

	memset(value, 'b', sizeof(value));
	put(b, head, sizeof(head));
	put(b, value, sizeof(value));
	status_ok(b);
	for (unsigned i = 0; i < BOMB_REFS && !b->err; i++)
		put_byte(b, 0xbe);
}

/* The block each response-breaking mode answers with (in p->big). */
static void build_block(enum shb_h2peer_hostile x, struct shb_buf *b)
{
	static const uint8_t eos[] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t pad[] = { 0x1f, 0xff }; /* 'a', 11 bits of 1 */
	static const uint8_t overflow[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					    0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };

	switch (x) {
	case SHB_H2PEER_X_SIZE_UPDATE:
		shb_hpack_encode_size_update(b, 1u << 20);
		status_ok(b);
		break;
	case SHB_H2PEER_X_BAD_INDEX:
		put_byte(b, 0x80 | 70);
		status_ok(b);
		break;
	case SHB_H2PEER_X_HUFFMAN_EOS:
		status_ok(b);
		huffman_value(b, eos, sizeof(eos));
		break;
	case SHB_H2PEER_X_HUFFMAN_PAD:
		status_ok(b);
		huffman_value(b, pad, sizeof(pad));
		break;
	case SHB_H2PEER_X_INT_OVERFLOW:
		status_ok(b);
		put(b, overflow, sizeof(overflow));
		break;
	case SHB_H2PEER_X_PSEUDO_LATE:
		field(b, "content-length", "13");
		put_byte(b, 0x88);
		break;
	case SHB_H2PEER_X_REQUEST_PSEUDO:
		put_byte(b, 0x88);
		put_byte(b, 0x82); /* :method GET */
		field(b, "content-length", "13");
		break;
	case SHB_H2PEER_X_HPACK_BOMB:
		bomb(b);
		break;
	default:
		break;
	}
}

int shb_h2peer_hostile_setup(struct shb_h2peer *p)
{
	build_block(p->cfg.hostile, &p->big);
	return p->big.err ? -1 : 0;
}

size_t shb_h2peer_hostile_settings(const struct shb_h2peer *p,
				   struct shb_h2_setting_kv *kv, size_t max)
{
	if (max == 0)
		return 0;
	/* RFC 9113 5.1.2: 0 allows no stream at all, and the peer never
	 * raises it: a client may only wait, and must not wait forever. */
	if (p->cfg.hostile == SHB_H2PEER_X_NO_STREAMS) {
		kv[0] = (struct shb_h2_setting_kv){
			SHB_H2_SET_MAX_CONCURRENT_STREAMS, 0 };
		return 1;
	}
	if (p->cfg.hostile != SHB_H2PEER_X_SETTINGS_BAD)
		return 0;
	/* RFC 9113 6.5.2: above 2^31-1 is a FLOW_CONTROL_ERROR. */
	kv[0] = (struct shb_h2_setting_kv){ SHB_H2_SET_INITIAL_WINDOW_SIZE,
					    0x80000000u };
	return 1;
}

void shb_h2peer_hostile_accepted(struct shb_h2peer_conn *c)
{
	switch (c->peer->cfg.hostile) {
	case SHB_H2PEER_X_GOAWAY_STORM:
		shb_h2peer_goaway(c, 0, SHB_H2_NO_ERROR);
		shb_h2peer_close(c);
		break;
	case SHB_H2PEER_X_GOAWAY_OPEN:
		shb_h2peer_goaway(c, 0, SHB_H2_NO_ERROR);
		break;
	default:
		break;
	}
}

static void start_flood(struct shb_h2peer_conn *c, uint32_t id)
{
	c->flooding = 1;
	c->flood_id = id;
	shb_h2peer_stop_reading(c);
	shb_h2peer_hostile_writable(c);
}

void shb_h2peer_hostile_acked(struct shb_h2peer_conn *c)
{
	uint8_t junk[16] = { 0 };

	switch (c->peer->cfg.hostile) {
	case SHB_H2PEER_X_SETTINGS_FLOOD:
	case SHB_H2PEER_X_PING_FLOOD:
	case SHB_H2PEER_X_WINDOW_FLOOD:
		start_flood(c, 0);
		break;
	case SHB_H2PEER_X_WINDOW_OVERFLOW:
		/* 65535 + 2^31-1: past the largest window there is. */
		shb_h2peer_window_update(c, 0, SHB_H2_MAX_WINDOW);
		break;
	case SHB_H2PEER_X_DATA_STREAM0:
		shb_h2peer_frame(c, 5, SHB_H2_DATA, 0, 0, "hello");
		break;
	case SHB_H2PEER_X_OVERSIZE: {
		/* The header says 2^24-1 octets; a few follow, and the
		 * connection stays open: the header alone must do. */
		uint8_t h[SHB_H2_FRAME_HEADER_LEN];

		shb_h2_frame_header_write(h, SHB_H2_MAX_FRAME_SIZE, SHB_H2_DATA,
					  0, 1);
		shb_h2peer_send(c, h, sizeof(h));
		shb_h2peer_send(c, junk, sizeof(junk));
		break;
	}
	default:
		break;
	}
}

/* Returns 1 when the mode took the stream over. */
int shb_h2peer_hostile_opened(struct shb_h2peer_conn *c,
			      struct shb_h2peer_stream *s)
{
	switch (c->peer->cfg.hostile) {
	case SHB_H2PEER_X_REFUSE_ALL:
	/* RFC 9113 5.1.2: a stream above the limit (sent before our
	 * SETTINGS arrived) is refused. */
	case SHB_H2PEER_X_NO_STREAMS:
		shb_h2peer_reset(c, s, SHB_H2_REFUSED_STREAM);
		return 1;
	case SHB_H2PEER_X_RST_FLOOD:
		if (!c->flooding) {
			uint32_t id = s->id;

			shb_h2peer_reset(c, s, SHB_H2_CANCEL);
			start_flood(c, id);
		}
		return 1;
	default:
		return 0;
	}
}

static void push_promise(struct shb_h2peer_conn *c, uint32_t id)
{
	/* Promised stream 2; GET / http://localhost. */
	static const uint8_t f[] = { 0, 0, 0, 2, 0x82, 0x84, 0x86, 0x01, 0x09,
				     'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't' };

	shb_h2peer_frame(c, sizeof(f), SHB_H2_PUSH_PROMISE,
			 SHB_H2_FLAG_END_HEADERS, id, f);
}

void shb_h2peer_hostile_request(struct shb_h2peer_conn *c,
				struct shb_h2peer_stream *s)
{
	struct shb_h2peer *p = c->peer;
	uint32_t id = s->id;

	switch (p->cfg.hostile) {
	case SHB_H2PEER_X_SIZE_UPDATE:
	case SHB_H2PEER_X_BAD_INDEX:
	case SHB_H2PEER_X_HUFFMAN_EOS:
	case SHB_H2PEER_X_HUFFMAN_PAD:
	case SHB_H2PEER_X_INT_OVERFLOW:
	case SHB_H2PEER_X_PSEUDO_LATE:
	case SHB_H2PEER_X_REQUEST_PSEUDO:
	case SHB_H2PEER_X_HPACK_BOMB:
		shb_h2peer_answer(c, s, &p->big, 0);
		break;
	case SHB_H2PEER_X_CLOSED_STREAM:
		shb_h2peer_answer(c, s, &p->hello, 0);
		shb_h2peer_frame(c, 5, SHB_H2_DATA, 0, id, "hello");
		break;
	case SHB_H2PEER_X_IDLE_STREAM:
		/* The answer, on a stream id far above any the client used
		 * yet: an idle stream (RFC 9113 5.1). */
		shb_h2peer_send_block(c, id + IDLE_GAP, &p->hello, 0, 0);
		shb_h2peer_frame(c, SHB_H2PEER_BODY_LEN, SHB_H2_DATA,
				 SHB_H2_FLAG_END_STREAM, id + IDLE_GAP,
				 SHB_H2PEER_BODY);
		break;
	case SHB_H2PEER_X_DATA_FIRST:
		shb_h2peer_frame(c, SHB_H2PEER_BODY_LEN, SHB_H2_DATA,
				 SHB_H2_FLAG_END_STREAM, id, SHB_H2PEER_BODY);
		break;
	case SHB_H2PEER_X_HEADERS_STREAM0:
		shb_h2peer_send_block(c, 0, &p->hello, 0, 1);
		break;
	case SHB_H2PEER_X_STREAM_WINDOW_OVERFLOW:
		shb_h2peer_window_update(c, id, SHB_H2_MAX_WINDOW);
		shb_h2peer_answer(c, s, &p->hello, 0);
		break;
	case SHB_H2PEER_X_PUSH_PROMISE:
		push_promise(c, id);
		shb_h2peer_answer(c, s, &p->hello, 0);
		break;
	case SHB_H2PEER_X_CONTINUATION_ENDLESS:
		if (!c->flooding) {
			struct shb_buf b = SHB_BUF_INIT(256, SHB_H2PEER_BLOCK_MAX);

			put_byte(&b, 0x88);
			filler_field(&b);
			if (!b.err)
				shb_h2peer_frame(c, (uint32_t)b.len,
						 SHB_H2_HEADERS, 0, id, b.p);
			shb_buf_free(&b);
			c->flooding = 1;
			c->flood_id = id;
			shb_h2peer_hostile_writable(c);
		}
		break;
	default:
		/* Floods and the modes that break a rule once the SETTINGS
		 * are ACKed answer nothing: the break is all there is. */
		break;
	}
}

/* Refills the output with one batch of the flood. */
void shb_h2peer_hostile_writable(struct shb_h2peer_conn *c)
{
	static const uint8_t zero[8];
	uint8_t f[SHB_H2_FRAME_HEADER_LEN + 8];
	size_t n = 0, len;

	if (c->closing)
		return;
	switch (c->peer->cfg.hostile) {
	case SHB_H2PEER_X_CONTINUATION_ENDLESS: {
		struct shb_buf b = SHB_BUF_INIT(256, SHB_H2PEER_BLOCK_MAX);

		while (b.len + FILLER_FIELD_VALUE + 16 <= c->client_max_frame &&
		       !b.err)
			filler_field(&b);
		for (unsigned i = 0; i < 4 && !b.err; i++) {
			shb_h2peer_frame(c, (uint32_t)b.len,
					 SHB_H2_CONTINUATION, 0, c->flood_id,
					 b.p);
			c->peer->st.continuations++;
		}
		shb_buf_free(&b);
		return;
	}
	case SHB_H2PEER_X_SETTINGS_FLOOD:
		len = shb_h2_write_settings(f, NULL, 0);
		break;
	case SHB_H2PEER_X_PING_FLOOD:
		len = shb_h2_write_ping(f, zero, 0);
		break;
	case SHB_H2PEER_X_WINDOW_FLOOD:
		len = shb_h2_write_window_update(f, 0, 1);
		break;
	case SHB_H2PEER_X_RST_FLOOD:
		len = shb_h2_write_rst_stream(f, c->flood_id, SHB_H2_CANCEL);
		break;
	default:
		return;
	}
	while (n < FLOOD_BATCH) {
		shb_h2peer_send(c, f, len);
		n += len;
	}
}
