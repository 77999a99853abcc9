/* Decoding QUIC v1 frames (RFC 9000 Sections 12.4 and 19) and the
 * packet-type rules of Table 3. */
#include <string.h>

#include "quic_ack_body.h"
#include "quic_frame.h"
#include "quic_header.h"
#include "quic_rd.h"
#include "quic_wire_err.h"

#define LAST_TYPE SHB_QUIC_FT_HANDSHAKE_DONE

/* Table 3 as bit masks over the packet types that may carry a frame. */
enum { PI = 1, PH = 2, P0 = 4, P1 = 8 };

static const uint8_t allowed_in[LAST_TYPE + 1] = {
	[SHB_QUIC_FT_PADDING] = PI | PH | P0 | P1,
	[SHB_QUIC_FT_PING] = PI | PH | P0 | P1,
	[SHB_QUIC_FT_ACK] = PI | PH | P1,
	[SHB_QUIC_FT_ACK_ECN] = PI | PH | P1,
	[SHB_QUIC_FT_RESET_STREAM] = P0 | P1,
	[SHB_QUIC_FT_STOP_SENDING] = P0 | P1,
	[SHB_QUIC_FT_CRYPTO] = PI | PH | P1,
	[SHB_QUIC_FT_NEW_TOKEN] = P1,
	[0x08] = P0 | P1, [0x09] = P0 | P1, [0x0a] = P0 | P1,
	[0x0b] = P0 | P1, [0x0c] = P0 | P1, [0x0d] = P0 | P1,
	[0x0e] = P0 | P1, [0x0f] = P0 | P1,
	[SHB_QUIC_FT_MAX_DATA] = P0 | P1,
	[SHB_QUIC_FT_MAX_STREAM_DATA] = P0 | P1,
	[SHB_QUIC_FT_MAX_STREAMS_BIDI] = P0 | P1,
	[SHB_QUIC_FT_MAX_STREAMS_UNI] = P0 | P1,
	[SHB_QUIC_FT_DATA_BLOCKED] = P0 | P1,
	[SHB_QUIC_FT_STREAM_DATA_BLOCKED] = P0 | P1,
	[SHB_QUIC_FT_STREAMS_BLOCKED_BIDI] = P0 | P1,
	[SHB_QUIC_FT_STREAMS_BLOCKED_UNI] = P0 | P1,
	[SHB_QUIC_FT_NEW_CONNECTION_ID] = P0 | P1,
	[SHB_QUIC_FT_RETIRE_CONNECTION_ID] = P0 | P1,
	[SHB_QUIC_FT_PATH_CHALLENGE] = P0 | P1,
	[SHB_QUIC_FT_PATH_RESPONSE] = P1,
	[SHB_QUIC_FT_CONNECTION_CLOSE] = PI | PH | P0 | P1,
	[SHB_QUIC_FT_CONNECTION_CLOSE_APP] = P0 | P1,
	[SHB_QUIC_FT_HANDSHAKE_DONE] = P1,
};

/* What to say when a frame of this type ends early. */
static const char *const truncated[LAST_TYPE + 1] = {
	[SHB_QUIC_FT_RESET_STREAM] = "RESET_STREAM frame truncated",
	[SHB_QUIC_FT_STOP_SENDING] = "STOP_SENDING frame truncated",
	[SHB_QUIC_FT_CRYPTO] = "CRYPTO frame truncated",
	[SHB_QUIC_FT_NEW_TOKEN] = "NEW_TOKEN frame truncated",
	[0x08] = "STREAM frame truncated", [0x09] = "STREAM frame truncated",
	[0x0a] = "STREAM frame truncated", [0x0b] = "STREAM frame truncated",
	[0x0c] = "STREAM frame truncated", [0x0d] = "STREAM frame truncated",
	[0x0e] = "STREAM frame truncated", [0x0f] = "STREAM frame truncated",
	[SHB_QUIC_FT_MAX_DATA] = "MAX_DATA frame truncated",
	[SHB_QUIC_FT_MAX_STREAM_DATA] = "MAX_STREAM_DATA frame truncated",
	[SHB_QUIC_FT_MAX_STREAMS_BIDI] = "MAX_STREAMS frame truncated",
	[SHB_QUIC_FT_MAX_STREAMS_UNI] = "MAX_STREAMS frame truncated",
	[SHB_QUIC_FT_DATA_BLOCKED] = "DATA_BLOCKED frame truncated",
	[SHB_QUIC_FT_STREAM_DATA_BLOCKED] =
		"STREAM_DATA_BLOCKED frame truncated",
	[SHB_QUIC_FT_STREAMS_BLOCKED_BIDI] = "STREAMS_BLOCKED frame truncated",
	[SHB_QUIC_FT_STREAMS_BLOCKED_UNI] = "STREAMS_BLOCKED frame truncated",
	[SHB_QUIC_FT_NEW_CONNECTION_ID] = "NEW_CONNECTION_ID frame truncated",
	[SHB_QUIC_FT_RETIRE_CONNECTION_ID] =
		"RETIRE_CONNECTION_ID frame truncated",
	[SHB_QUIC_FT_PATH_CHALLENGE] = "PATH_CHALLENGE frame truncated",
	[SHB_QUIC_FT_PATH_RESPONSE] = "PATH_RESPONSE frame truncated",
	[SHB_QUIC_FT_CONNECTION_CLOSE] = "CONNECTION_CLOSE frame truncated",
	[SHB_QUIC_FT_CONNECTION_CLOSE_APP] =
		"CONNECTION_CLOSE frame truncated",
};

/* Body decoders return SHB_QUIC_OK, TRUNC (the input ended: the caller
 * supplies the per-type message) or an error code with f->why set. */
#define TRUNC 1

static int fail(struct shb_quic_frame *f, int rc, const char *why)
{
	f->why = why;
	return rc;
}

static int ptype_bit(uint32_t ptype)
{
	switch (ptype) {
	case SHB_QUIC_PT_INITIAL:
		return PI;
	case SHB_QUIC_PT_HANDSHAKE:
		return PH;
	case SHB_QUIC_PT_0RTT:
		return P0;
	case SHB_QUIC_PT_1RTT:
		return P1;
	default:
		return 0;
	}
}

static int is_datagram(uint64_t type)
{
	return type == SHB_QUIC_FT_DATAGRAM || type == SHB_QUIC_FT_DATAGRAM_LEN;
}

int shb_quic_frame_allowed(uint64_t type, uint32_t ptype)
{
	if (is_datagram(type)) /* RFC 9221 Section 4: 0-RTT and 1-RTT */
		return (ptype_bit(ptype) & (P0 | P1)) != 0;
	return type <= LAST_TYPE && (allowed_in[type] & ptype_bit(ptype));
}

int shb_quic_frame_ack_eliciting(uint64_t type)
{
	return type != SHB_QUIC_FT_PADDING && type != SHB_QUIC_FT_ACK &&
	       type != SHB_QUIC_FT_ACK_ECN &&
	       type != SHB_QUIC_FT_CONNECTION_CLOSE &&
	       type != SHB_QUIC_FT_CONNECTION_CLOSE_APP;
}

static int rd2(struct shb_quic_rd *r, uint64_t *a, uint64_t *b)
{
	return shb_quic_rd_varint(r, a) < 0 || shb_quic_rd_varint(r, b) < 0 ?
		       TRUNC : SHB_QUIC_OK;
}

static int dec_stream(struct shb_quic_rd *r, uint64_t type,
		      struct shb_quic_frame *f)
{
	struct shb_quic_frame_stream *s = &f->u.stream;
	uint64_t len;

	s->fin = (type & SHB_QUIC_STREAM_FIN) != 0;
	s->has_offset = (type & SHB_QUIC_STREAM_OFF) != 0;
	s->has_len = (type & SHB_QUIC_STREAM_LEN) != 0;
	if (shb_quic_rd_varint(r, &s->stream_id) < 0)
		return TRUNC;
	if (s->has_offset && shb_quic_rd_varint(r, &s->offset) < 0)
		return TRUNC;
	if (!s->has_len)
		len = r->left;
	else if (shb_quic_rd_varint(r, &len) < 0)
		return TRUNC;
	if (shb_quic_rd_bytes(r, len, &s->data) < 0)
		return TRUNC;
	s->len = (size_t)len;
	if (len > SHB_QUIC_MAX_STREAM_OFFSET - s->offset)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING,
			    "STREAM offset + length above 2^62-1");
	return SHB_QUIC_OK;
}

static int dec_crypto(struct shb_quic_rd *r, struct shb_quic_frame *f)
{
	struct shb_quic_frame_crypto *c = &f->u.crypto;
	uint64_t len;

	if (rd2(r, &c->offset, &len) || shb_quic_rd_bytes(r, len, &c->data) < 0)
		return TRUNC;
	c->len = (size_t)len;
	if (len > SHB_QUIC_MAX_STREAM_OFFSET - c->offset)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING,
			    "CRYPTO offset + length above 2^62-1");
	return SHB_QUIC_OK;
}

static int dec_new_token(struct shb_quic_rd *r, struct shb_quic_frame *f)
{
	uint64_t len;

	if (shb_quic_rd_varint(r, &len) < 0 ||
	    shb_quic_rd_bytes(r, len, &f->u.new_token.token) < 0)
		return TRUNC;
	if (len == 0)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING, "empty NEW_TOKEN");
	f->u.new_token.len = (size_t)len;
	return SHB_QUIC_OK;
}

static int dec_stream_count(struct shb_quic_rd *r, struct shb_quic_frame *f)
{
	if (shb_quic_rd_varint(r, &f->u.limit) < 0)
		return TRUNC;
	if (f->u.limit > SHB_QUIC_MAX_STREAMS)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING,
			    "stream count above 2^60");
	return SHB_QUIC_OK;
}

static int dec_new_cid(struct shb_quic_rd *r, struct shb_quic_frame *f)
{
	struct shb_quic_frame_new_cid *n = &f->u.new_cid;

	if (rd2(r, &n->seq, &n->retire_prior_to) ||
	    shb_quic_rd_u8(r, &n->cid_len) < 0)
		return TRUNC;
	if (n->cid_len < 1 || n->cid_len > 20)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING,
			    "NEW_CONNECTION_ID length outside 1..20");
	if (shb_quic_rd_bytes(r, n->cid_len, &n->cid) < 0 ||
	    shb_quic_rd_bytes(r, SHB_QUIC_STATELESS_RESET_TOKEN_LEN,
			      &n->reset_token) < 0)
		return TRUNC;
	if (n->retire_prior_to > n->seq)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING,
			    "NEW_CONNECTION_ID retires beyond its sequence");
	return SHB_QUIC_OK;
}

static int dec_path(struct shb_quic_rd *r, struct shb_quic_frame *f)
{
	const uint8_t *p;

	if (shb_quic_rd_bytes(r, SHB_QUIC_PATH_DATA_LEN, &p) < 0)
		return TRUNC;
	memcpy(f->u.path_data, p, SHB_QUIC_PATH_DATA_LEN);
	return SHB_QUIC_OK;
}

static int dec_close(struct shb_quic_rd *r, uint64_t type,
		     struct shb_quic_frame *f)
{
	struct shb_quic_frame_close *c = &f->u.close;
	uint64_t len;

	if (shb_quic_rd_varint(r, &c->error_code) < 0)
		return TRUNC;
	if (type == SHB_QUIC_FT_CONNECTION_CLOSE &&
	    shb_quic_rd_varint(r, &c->frame_type) < 0)
		return TRUNC;
	if (shb_quic_rd_varint(r, &len) < 0 ||
	    shb_quic_rd_bytes(r, len, &c->reason) < 0)
		return TRUNC;
	c->reason_len = (size_t)len;
	return SHB_QUIC_OK;
}

static int dec_body(struct shb_quic_rd *r, uint64_t type,
		    struct shb_quic_frame *f)
{
	switch (type) {
	case SHB_QUIC_FT_PADDING:
		f->u.padding = 1;
		while (r->left && r->p[0] == 0) {
			shb_quic_rd_skip(r, 1);
			f->u.padding++;
		}
		return SHB_QUIC_OK;
	case SHB_QUIC_FT_PING:
	case SHB_QUIC_FT_HANDSHAKE_DONE:
		return SHB_QUIC_OK;
	case SHB_QUIC_FT_ACK:
	case SHB_QUIC_FT_ACK_ECN:
		return shb_quic_ack_decode_body(r, type == SHB_QUIC_FT_ACK_ECN,
						&f->u.ack, &f->why);
	case SHB_QUIC_FT_RESET_STREAM:
		if (rd2(r, &f->u.reset_stream.stream_id,
			&f->u.reset_stream.error_code))
			return TRUNC;
		return shb_quic_rd_varint(r, &f->u.reset_stream.final_size) < 0 ?
			       TRUNC : SHB_QUIC_OK;
	case SHB_QUIC_FT_STOP_SENDING:
		return rd2(r, &f->u.stop_sending.stream_id,
			   &f->u.stop_sending.error_code);
	case SHB_QUIC_FT_CRYPTO:
		return dec_crypto(r, f);
	case SHB_QUIC_FT_NEW_TOKEN:
		return dec_new_token(r, f);
	case SHB_QUIC_FT_MAX_DATA:
	case SHB_QUIC_FT_DATA_BLOCKED:
		return shb_quic_rd_varint(r, &f->u.limit) < 0 ? TRUNC
							       : SHB_QUIC_OK;
	case SHB_QUIC_FT_MAX_STREAM_DATA:
	case SHB_QUIC_FT_STREAM_DATA_BLOCKED:
		return rd2(r, &f->u.stream_limit.stream_id,
			   &f->u.stream_limit.limit);
	case SHB_QUIC_FT_MAX_STREAMS_BIDI:
	case SHB_QUIC_FT_MAX_STREAMS_UNI:
	case SHB_QUIC_FT_STREAMS_BLOCKED_BIDI:
	case SHB_QUIC_FT_STREAMS_BLOCKED_UNI:
		return dec_stream_count(r, f);
	case SHB_QUIC_FT_NEW_CONNECTION_ID:
		return dec_new_cid(r, f);
	case SHB_QUIC_FT_RETIRE_CONNECTION_ID:
		return shb_quic_rd_varint(r, &f->u.retire_seq) < 0 ? TRUNC
								  : SHB_QUIC_OK;
	case SHB_QUIC_FT_PATH_CHALLENGE:
	case SHB_QUIC_FT_PATH_RESPONSE:
		return dec_path(r, f);
	case SHB_QUIC_FT_CONNECTION_CLOSE:
	case SHB_QUIC_FT_CONNECTION_CLOSE_APP:
		return dec_close(r, type, f);
	default: /* 0x08..0x0f */
		return dec_stream(r, type, f);
	}
}

/* RFC 9221 Section 4: the payload, after a Length field for 0x31, else
 * to the packet's end. */
static int dec_datagram(struct shb_quic_rd *r, uint64_t type,
			struct shb_quic_frame *f)
{
	uint64_t n = r->left;

	f->type = SHB_QUIC_FT_DATAGRAM;
	if (type == SHB_QUIC_FT_DATAGRAM_LEN && shb_quic_rd_varint(r, &n) < 0)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING, "DATAGRAM frame truncated");
	if (shb_quic_rd_bytes(r, n, &f->u.datagram.data) < 0)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING, "DATAGRAM frame truncated");
	f->u.datagram.len = (size_t)n;
	return SHB_QUIC_OK;
}

int shb_quic_frame_decode(const uint8_t *in, size_t len, uint32_t ptype,
			  struct shb_quic_frame *f)
{
	struct shb_quic_rd r = {in, len};
	uint64_t type;
	size_t tlen;
	int rc;

	memset(f, 0, sizeof(*f));
	tlen = shb_quic_varint_decode(in, len, &type);
	if (!tlen)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING, "frame type truncated");
	if (type > LAST_TYPE && !is_datagram(type))
		return fail(f, SHB_QUIC_E_FRAME_ENCODING, "unknown frame type");
	if (tlen != 1)
		return fail(f, SHB_QUIC_E_PROTOCOL,
			    "frame type not in its shortest encoding");
	if (!shb_quic_frame_allowed(type, ptype))
		return fail(f, SHB_QUIC_E_PROTOCOL,
			    "frame type not allowed in this packet type");
	shb_quic_rd_skip(&r, 1);
	if (is_datagram(type)) {
		rc = dec_datagram(&r, type, f);
		f->wire_len = len - r.left;
		return rc;
	}
	f->type = (type & ~(uint64_t)7) == SHB_QUIC_FT_STREAM ?
			  SHB_QUIC_FT_STREAM : type;
	rc = dec_body(&r, type, f);
	if (rc == TRUNC)
		return fail(f, SHB_QUIC_E_FRAME_ENCODING, truncated[type]);
	if (rc != SHB_QUIC_OK)
		return rc;
	f->wire_len = len - r.left;
	return SHB_QUIC_OK;
}
