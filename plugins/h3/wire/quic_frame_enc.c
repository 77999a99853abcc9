/* Encoding QUIC v1 frames (RFC 9000 Section 19). Each encoder runs once
 * with a counting writer to give the size and once for real, so sizes
 * and bytes always agree. */
#include "quic_ack_body.h"
#include "quic_frame.h"
#include "quic_rd.h"

static int data_ok(const uint8_t *p, size_t len)
{
	return len == 0 || p != NULL;
}

static void put_stream(struct shb_quic_wr *w,
		       const struct shb_quic_frame_stream *s)
{
	uint8_t type = SHB_QUIC_FT_STREAM;

	if ((!s->has_offset && s->offset) || !data_ok(s->data, s->len) ||
	    s->offset > SHB_QUIC_MAX_STREAM_OFFSET ||
	    s->len > SHB_QUIC_MAX_STREAM_OFFSET - s->offset) {
		w->fail = 1;
		return;
	}
	type |= s->has_offset ? SHB_QUIC_STREAM_OFF : 0;
	type |= s->has_len ? SHB_QUIC_STREAM_LEN : 0;
	type |= s->fin ? SHB_QUIC_STREAM_FIN : 0;
	shb_quic_wr_u8(w, type);
	shb_quic_wr_varint(w, s->stream_id);
	if (s->has_offset)
		shb_quic_wr_varint(w, s->offset);
	if (s->has_len)
		shb_quic_wr_varint(w, s->len);
	shb_quic_wr_bytes(w, s->data, s->len);
}

static void put_crypto(struct shb_quic_wr *w,
		       const struct shb_quic_frame_crypto *c)
{
	if (!data_ok(c->data, c->len) || c->offset > SHB_QUIC_MAX_STREAM_OFFSET ||
	    c->len > SHB_QUIC_MAX_STREAM_OFFSET - c->offset) {
		w->fail = 1;
		return;
	}
	shb_quic_wr_u8(w, SHB_QUIC_FT_CRYPTO);
	shb_quic_wr_varint(w, c->offset);
	shb_quic_wr_varint(w, c->len);
	shb_quic_wr_bytes(w, c->data, c->len);
}

static void put_new_cid(struct shb_quic_wr *w,
			const struct shb_quic_frame_new_cid *n)
{
	if (n->cid_len < 1 || n->cid_len > 20 || !n->cid || !n->reset_token ||
	    n->retire_prior_to > n->seq) {
		w->fail = 1;
		return;
	}
	shb_quic_wr_u8(w, SHB_QUIC_FT_NEW_CONNECTION_ID);
	shb_quic_wr_varint(w, n->seq);
	shb_quic_wr_varint(w, n->retire_prior_to);
	shb_quic_wr_u8(w, n->cid_len);
	shb_quic_wr_bytes(w, n->cid, n->cid_len);
	shb_quic_wr_bytes(w, n->reset_token, SHB_QUIC_STATELESS_RESET_TOKEN_LEN);
}

static void put_close(struct shb_quic_wr *w, uint64_t type,
		      const struct shb_quic_frame_close *c)
{
	if (!data_ok(c->reason, c->reason_len)) {
		w->fail = 1;
		return;
	}
	shb_quic_wr_u8(w, (uint8_t)type);
	shb_quic_wr_varint(w, c->error_code);
	if (type == SHB_QUIC_FT_CONNECTION_CLOSE)
		shb_quic_wr_varint(w, c->frame_type);
	shb_quic_wr_varint(w, c->reason_len);
	shb_quic_wr_bytes(w, c->reason, c->reason_len);
}

/* The frames that are a type and one or two varints. */
static void put_simple(struct shb_quic_wr *w, const struct shb_quic_frame *f)
{
	shb_quic_wr_u8(w, (uint8_t)f->type);
	switch (f->type) {
	case SHB_QUIC_FT_RESET_STREAM:
		shb_quic_wr_varint(w, f->u.reset_stream.stream_id);
		shb_quic_wr_varint(w, f->u.reset_stream.error_code);
		shb_quic_wr_varint(w, f->u.reset_stream.final_size);
		break;
	case SHB_QUIC_FT_STOP_SENDING:
		shb_quic_wr_varint(w, f->u.stop_sending.stream_id);
		shb_quic_wr_varint(w, f->u.stop_sending.error_code);
		break;
	case SHB_QUIC_FT_MAX_STREAMS_BIDI:
	case SHB_QUIC_FT_MAX_STREAMS_UNI:
	case SHB_QUIC_FT_STREAMS_BLOCKED_BIDI:
	case SHB_QUIC_FT_STREAMS_BLOCKED_UNI:
		if (f->u.limit > SHB_QUIC_MAX_STREAMS)
			w->fail = 1;
		/* fall through */
	case SHB_QUIC_FT_MAX_DATA:
	case SHB_QUIC_FT_DATA_BLOCKED:
		shb_quic_wr_varint(w, f->u.limit);
		break;
	case SHB_QUIC_FT_MAX_STREAM_DATA:
	case SHB_QUIC_FT_STREAM_DATA_BLOCKED:
		shb_quic_wr_varint(w, f->u.stream_limit.stream_id);
		shb_quic_wr_varint(w, f->u.stream_limit.limit);
		break;
	case SHB_QUIC_FT_RETIRE_CONNECTION_ID:
		shb_quic_wr_varint(w, f->u.retire_seq);
		break;
	case SHB_QUIC_FT_PATH_CHALLENGE:
	case SHB_QUIC_FT_PATH_RESPONSE:
		shb_quic_wr_bytes(w, f->u.path_data, SHB_QUIC_PATH_DATA_LEN);
		break;
	default: /* PING, HANDSHAKE_DONE: the type is the whole frame */
		break;
	}
}

static void put_frame(struct shb_quic_wr *w, const struct shb_quic_frame *f)
{
	switch (f->type) {
	case SHB_QUIC_FT_PADDING:
		if (f->u.padding == 0)
			w->fail = 1;
		shb_quic_wr_zeros(w, f->u.padding);
		return;
	case SHB_QUIC_FT_ACK:
	case SHB_QUIC_FT_ACK_ECN:
		shb_quic_wr_u8(w, (uint8_t)f->type);
		shb_quic_ack_put_body(w, f->type == SHB_QUIC_FT_ACK_ECN,
				      &f->u.ack);
		return;
	case SHB_QUIC_FT_CRYPTO:
		put_crypto(w, &f->u.crypto);
		return;
	case SHB_QUIC_FT_NEW_TOKEN:
		if (f->u.new_token.len == 0 || !f->u.new_token.token)
			w->fail = 1;
		shb_quic_wr_u8(w, SHB_QUIC_FT_NEW_TOKEN);
		shb_quic_wr_varint(w, f->u.new_token.len);
		shb_quic_wr_bytes(w, f->u.new_token.token, f->u.new_token.len);
		return;
	case 0x08: case 0x09: case 0x0a: case 0x0b:
	case 0x0c: case 0x0d: case 0x0e: case 0x0f:
		put_stream(w, &f->u.stream);
		return;
	case SHB_QUIC_FT_NEW_CONNECTION_ID:
		put_new_cid(w, &f->u.new_cid);
		return;
	case SHB_QUIC_FT_CONNECTION_CLOSE:
	case SHB_QUIC_FT_CONNECTION_CLOSE_APP:
		put_close(w, f->type, &f->u.close);
		return;
	default:
		if (f->type > SHB_QUIC_FT_HANDSHAKE_DONE)
			w->fail = 1;
		else
			put_simple(w, f);
		return;
	}
}

size_t shb_quic_frame_len(const struct shb_quic_frame *f)
{
	struct shb_quic_wr w;

	shb_quic_wr_init(&w, NULL, 0);
	put_frame(&w, f);
	return w.fail ? 0 : w.n;
}

size_t shb_quic_frame_encode(uint8_t *out, size_t cap,
			     const struct shb_quic_frame *f)
{
	struct shb_quic_wr w;

	/* Validate and size first: nothing is written for a frame that
	 * cannot go out whole. */
	size_t n = shb_quic_frame_len(f);

	if (!n || !out || n > cap)
		return 0;
	shb_quic_wr_init(&w, out, cap);
	put_frame(&w, f);
	return w.fail ? 0 : w.n;
}

size_t shb_quic_padding_encode(uint8_t *out, size_t cap, size_t n)
{
	struct shb_quic_wr w;

	if (!out || n > cap)
		return 0;
	shb_quic_wr_init(&w, out, cap);
	shb_quic_wr_zeros(&w, n);
	return w.n;
}

/* The most data bytes t <= len that fit in `room` together with a Length
 * field announcing t. -1 when room cannot even hold a Length field. */
static int fit_with_len(size_t room, size_t len, size_t *take)
{
	size_t t;

	if (room == 0)
		return -1;
	t = len < room - 1 ? len : room - 1;
	/* At most three steps back, where the varint crosses a size. */
	while (t > 0 && t + shb_quic_varint_len(t) > room)
		t--;
	*take = t;
	return 0;
}

static size_t stream_hdr_len(uint64_t id, uint64_t offset)
{
	return 1 + shb_quic_varint_len(id) +
	       (offset ? shb_quic_varint_len(offset) : 0);
}

static int stream_args_ok(uint64_t id, uint64_t offset, size_t len,
			  unsigned mode)
{
	return mode <= SHB_QUIC_STREAM_MODE_FILL && id <= SHB_QUIC_VARINT_MAX &&
	       offset <= SHB_QUIC_MAX_STREAM_OFFSET &&
	       len <= SHB_QUIC_MAX_STREAM_OFFSET - offset;
}

size_t shb_quic_stream_frame_len(uint64_t stream_id, uint64_t offset,
				 size_t len, unsigned mode)
{
	if (!stream_args_ok(stream_id, offset, len, mode))
		return 0;
	return stream_hdr_len(stream_id, offset) + len +
	       (mode == SHB_QUIC_STREAM_MODE_LEN ? shb_quic_varint_len(len) : 0);
}

size_t shb_quic_stream_frame_encode(uint8_t *out, size_t cap,
				    uint64_t stream_id, uint64_t offset,
				    const uint8_t *data, size_t len, int fin,
				    unsigned mode, size_t *taken)
{
	struct shb_quic_frame f = {.type = SHB_QUIC_FT_STREAM};
	struct shb_quic_frame_stream *s = &f.u.stream;
	size_t hdr, take, flen, pad;

	*taken = 0;
	if (!out || !stream_args_ok(stream_id, offset, len, mode) ||
	    (!len && !fin) || !data_ok(data, len))
		return 0;
	hdr = stream_hdr_len(stream_id, offset);
	if (cap < hdr)
		return 0;
	if (mode == SHB_QUIC_STREAM_MODE_LEN) {
		if (fit_with_len(cap - hdr, len, &take) < 0)
			return 0;
	} else {
		take = len < cap - hdr ? len : cap - hdr;
	}
	if (take == 0 && len > 0)
		return 0;
	s->stream_id = stream_id;
	s->offset = offset;
	s->has_offset = offset != 0;
	s->has_len = mode == SHB_QUIC_STREAM_MODE_LEN;
	s->fin = fin && take == len;
	s->data = data;
	s->len = take;
	flen = shb_quic_frame_len(&f);
	pad = mode == SHB_QUIC_STREAM_MODE_FILL ? cap - flen : 0;
	/* PADDING goes first: a frame without Length must end the packet. */
	shb_quic_padding_encode(out, cap, pad);
	if (shb_quic_frame_encode(out + pad, cap - pad, &f) != flen)
		return 0;
	*taken = take;
	return pad + flen;
}

size_t shb_quic_crypto_frame_len(uint64_t offset, size_t len)
{
	if (offset > SHB_QUIC_MAX_STREAM_OFFSET ||
	    len > SHB_QUIC_MAX_STREAM_OFFSET - offset)
		return 0;
	return 1 + shb_quic_varint_len(offset) + shb_quic_varint_len(len) + len;
}

size_t shb_quic_crypto_frame_encode(uint8_t *out, size_t cap, uint64_t offset,
				    const uint8_t *data, size_t len,
				    size_t *taken)
{
	struct shb_quic_frame f = {.type = SHB_QUIC_FT_CRYPTO};
	size_t hdr, take, n;

	*taken = 0;
	if (!out || !data || len == 0 || !shb_quic_crypto_frame_len(offset, len))
		return 0;
	hdr = 1 + shb_quic_varint_len(offset);
	if (cap < hdr || fit_with_len(cap - hdr, len, &take) < 0 || take == 0)
		return 0;
	f.u.crypto.offset = offset;
	f.u.crypto.data = data;
	f.u.crypto.len = take;
	n = shb_quic_frame_encode(out, cap, &f);
	if (n)
		*taken = take;
	return n;
}
