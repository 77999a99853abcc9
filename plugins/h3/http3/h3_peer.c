/* The peer's unidirectional streams: see h3_peer.h. */
#include "h3_peer.h"

#include <string.h>

#include "h3_defs.h"

enum peer_flag {
	F_FAILED = 1u << 0,
	F_HAVE_CONTROL = 1u << 1,
	F_HAVE_ENCODER = 1u << 2,
	F_HAVE_DECODER = 1u << 3,
	F_FIRST_FRAME = 1u << 4, /* the control stream's first frame began */
	F_SEEN_TABLE_CAPACITY = 1u << 5,
	F_SEEN_FIELD_SECTION = 1u << 6,
	F_SEEN_BLOCKED_STREAMS = 1u << 7,
};

void shb_h3_peer_init_table(struct shb_h3_peer *p, uint32_t table_limit)
{
	memset(p, 0, sizeof(*p));
	p->max_field_section_size = SHB_H3_UNLIMITED;
	p->goaway_id = SHB_H3_NO_GOAWAY;
	shb_qpack_table_init(&p->table, table_limit);
	shb_qpack_encrd_init(&p->enc, p->table.limit);
}

void shb_h3_peer_init(struct shb_h3_peer *p)
{
	shb_h3_peer_init_table(p, 0);
}

void shb_h3_peer_fini(struct shb_h3_peer *p)
{
	shb_qpack_table_fini(&p->table);
	shb_qpack_encrd_fini(&p->enc);
}

static int fail(struct shb_h3_peer *p, uint64_t code, const char *why)
{
	p->flags |= F_FAILED;
	p->error = code;
	p->detail = why;
	return SHB_H3_PEER_ERROR;
}

/* ---- control stream ------------------------------------------------------ */

static int end_frame(struct shb_h3_peer *p)
{
	p->in_frame = 0;
	if (p->frame_type == SHB_H3_FRAME_SETTINGS) {
		if (p->field != 0 || shb_h3_varint_started(&p->vi))
			return fail(p, SHB_H3_FRAME_ERROR,
				    "SETTINGS frame ends inside a setting");
		p->settings_received = 1;
		return SHB_H3_EV_SETTINGS;
	}
	if (p->frame_type == SHB_H3_FRAME_GOAWAY && p->field == 0)
		return fail(p, SHB_H3_FRAME_ERROR,
			    "GOAWAY frame without a stream ID");
	return 0;
}

static int start_frame(struct shb_h3_peer *p, uint64_t type, uint64_t length)
{
	if (!(p->flags & F_FIRST_FRAME)) {
		if (type != SHB_H3_FRAME_SETTINGS)
			return fail(p, SHB_H3_MISSING_SETTINGS,
				    "control stream does not start with "
				    "SETTINGS");
		p->flags |= F_FIRST_FRAME;
	} else if (type == SHB_H3_FRAME_SETTINGS) {
		return fail(p, SHB_H3_FRAME_UNEXPECTED,
			    "second SETTINGS frame");
	}
	switch (type) {
	case SHB_H3_FRAME_CANCEL_PUSH:
		return fail(p, SHB_H3_ID_ERROR,
			    "CANCEL_PUSH without MAX_PUSH_ID");
	case SHB_H3_FRAME_DATA:
	case SHB_H3_FRAME_HEADERS:
	case SHB_H3_FRAME_PUSH_PROMISE:
	case SHB_H3_FRAME_MAX_PUSH_ID:
		return fail(p, SHB_H3_FRAME_UNEXPECTED,
			    "frame not allowed on the control stream");
	case SHB_H3_FRAME_H2_PRIORITY:
	case SHB_H3_FRAME_H2_PING:
	case SHB_H3_FRAME_H2_WINDOW_UPDATE:
	case SHB_H3_FRAME_H2_CONTINUATION:
		return fail(p, SHB_H3_FRAME_UNEXPECTED,
			    "reserved HTTP/2 frame type");
	default:
		break;
	}
	p->frame_type = type;
	p->frame_left = length;
	p->field = 0;
	shb_h3_varint_reset(&p->vi);
	p->in_frame = 1;
	return length == 0 ? end_frame(p) : 0;
}

_Static_assert(SHB_H3_MAX_SETTINGS == 64, "setting_id names the cap");

static int setting_id(struct shb_h3_peer *p, uint64_t id)
{
	uint32_t bit = 0;

	if (++p->settings > SHB_H3_MAX_SETTINGS)
		return fail(p, SHB_H3_EXCESSIVE_LOAD,
			    "more than 64 settings in SETTINGS (cap 64)");

	if (id == 0x00 || (id >= 0x02 && id <= 0x05))
		return fail(p, SHB_H3_SETTINGS_ERROR,
			    "HTTP/2 setting in SETTINGS");
	if (id == SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY)
		bit = F_SEEN_TABLE_CAPACITY;
	else if (id == SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE)
		bit = F_SEEN_FIELD_SECTION;
	else if (id == SHB_H3_SETTING_QPACK_BLOCKED_STREAMS)
		bit = F_SEEN_BLOCKED_STREAMS;
	if (p->flags & bit)
		return fail(p, SHB_H3_SETTINGS_ERROR, "duplicate setting");
	p->flags |= bit;
	p->setting_id = id;
	p->field = 1;
	return 0;
}

static int setting_value(struct shb_h3_peer *p, uint64_t v)
{
	switch (p->setting_id) {
	case SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY:
		p->qpack_max_table_capacity = v;
		break;
	case SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE:
		p->max_field_section_size = v;
		break;
	case SHB_H3_SETTING_QPACK_BLOCKED_STREAMS:
		p->qpack_blocked_streams = v;
		break;
	case SHB_H3_SETTING_H3_DATAGRAM: /* RFC 9297 Section 2.1.1 */
		if (v > 1)
			return fail(p, SHB_H3_SETTINGS_ERROR,
				    "H3_DATAGRAM setting neither 0 nor 1");
		break;
	default:
		break; /* unknown or reserved: ignored */
	}
	p->field = 0;
	return 0;
}

static int goaway(struct shb_h3_peer *p, uint64_t id)
{
	/* Only a client-initiated bidirectional stream ID (0 mod 4). */
	if (id % 4 != 0)
		return fail(p, SHB_H3_ID_ERROR,
			    "GOAWAY with a stream ID that is not a "
			    "client-initiated bidirectional one");
	if (p->goaway_id != SHB_H3_NO_GOAWAY && id > p->goaway_id)
		return fail(p, SHB_H3_ID_ERROR, "GOAWAY stream ID increased");
	p->goaway_id = id;
	p->field = 1;
	if (p->frame_left > 0)
		return fail(p, SHB_H3_FRAME_ERROR,
			    "GOAWAY frame longer than its stream ID");
	return SHB_H3_EV_GOAWAY;
}

/* One varint of a SETTINGS or GOAWAY payload is complete. */
static int field_done(struct shb_h3_peer *p, uint64_t v)
{
	if (p->frame_type == SHB_H3_FRAME_GOAWAY)
		return goaway(p, v);
	return p->field == 0 ? setting_id(p, v) : setting_value(p, v);
}

/* Payload octets of a SETTINGS or GOAWAY frame: a sequence of varints,
 * none of which may cross the frame's end. `n` <= frame_left. */
static int fields(struct shb_h3_peer *p, const uint8_t *in, size_t n)
{
	size_t i = 0;
	int ev = 0, rc, done;

	while (i < n) {
		size_t used;

		if (!shb_h3_varint_started(&p->vi) &&
		    shb_h3_varint_len_first(in[i]) > p->frame_left)
			return fail(p, SHB_H3_FRAME_ERROR,
				    "field runs past the frame's end");
		used = shb_h3_varint_feed(&p->vi, in + i, n - i, &done);
		i += used;
		p->frame_left -= used;
		if (!done)
			break;
		rc = field_done(p, p->vi.value);
		shb_h3_varint_reset(&p->vi);
		if (rc < 0)
			return rc;
		ev |= rc;
	}
	return ev;
}

/* Up to len octets of the current frame's payload; *used is set. */
static int payload(struct shb_h3_peer *p, const uint8_t *in, size_t len,
		   size_t *used)
{
	size_t n = len < p->frame_left ? len : (size_t)p->frame_left;
	int ev = 0;

	*used = n;
	if (p->frame_type == SHB_H3_FRAME_SETTINGS ||
	    p->frame_type == SHB_H3_FRAME_GOAWAY) {
		ev = fields(p, in, n);
		if (ev < 0)
			return ev;
	} else {
		p->frame_left -= n; /* unknown type: skipped */
	}
	if (p->frame_left == 0) {
		int rc = end_frame(p);

		if (rc < 0)
			return rc;
		ev |= rc;
	}
	return ev;
}

static int control_bytes(struct shb_h3_peer *p, const uint8_t *in,
			 size_t len)
{
	size_t i = 0, n;
	int ev = 0, rc, done;
	uint64_t type, length;

	while (i < len) {
		if (p->in_frame) {
			rc = payload(p, in + i, len - i, &n);
		} else {
			n = shb_h3_fhead_feed(&p->fh, in + i, len - i, &type,
					      &length, &done);
			rc = done ? start_frame(p, type, length) : 0;
		}
		if (rc < 0)
			return rc;
		ev |= rc;
		i += n;
	}
	return ev;
}

/* ---- QPACK streams ------------------------------------------------------- */

/* The encoder's instructions go to our table (with limit 0 it may only
 * confirm the capacity: Set Dynamic Table Capacity 0, the octet 0x20). */
static int encoder_bytes(struct shb_h3_peer *p, const uint8_t *in,
			 size_t len)
{
	long n = shb_qpack_encrd_feed(&p->enc, &p->table, in, len);

	if (n < 0)
		return fail(p, SHB_QPACK_ENCODER_STREAM_ERROR, p->enc.detail);
	return n > 0 ? SHB_H3_EV_INSERTS : 0;
}

/* The peer's decoder talks about our encoder, which never references the
 * dynamic table: only Stream Cancellation (01xxxxxx) makes sense. */
static int decoder_octet(struct shb_h3_peer *p, uint8_t o)
{
	int rc;

	if (p->dec_in_int)
		rc = shb_prefint_next(&p->dec_int, o);
	else if (o & 0x80)
		return fail(p, SHB_QPACK_DECODER_STREAM_ERROR,
			    "Section Acknowledgment for a section without "
			    "dynamic references");
	else if (o & 0x40)
		rc = shb_prefint_begin(&p->dec_int, o, 6);
	else
		return fail(p, SHB_QPACK_DECODER_STREAM_ERROR,
			    "Insert Count Increment without insertions");
	if (rc == SHB_PREFINT_E_RANGE)
		return fail(p, SHB_QPACK_DECODER_STREAM_ERROR,
			    "QPACK integer too large");
	p->dec_in_int = rc == SHB_PREFINT_MORE;
	return 0;
}

static int decoder_bytes(struct shb_h3_peer *p, const uint8_t *in,
			 size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (decoder_octet(p, in[i]) < 0)
			return SHB_H3_PEER_ERROR;
	return 0;
}

/* ---- stream types -------------------------------------------------------- */

static int claim(struct shb_h3_peer *p, uint32_t flag)
{
	if (p->flags & flag)
		return fail(p, SHB_H3_STREAM_CREATION_ERROR,
			    "second control or QPACK stream");
	p->flags |= flag;
	return 0;
}

static int set_type(struct shb_h3_peer *p, struct shb_h3_uni *u,
		    uint64_t type)
{
	u->type = type;
	switch (type) {
	case SHB_H3_STREAM_CONTROL:
		u->kind = SHB_H3_UNI_CONTROL;
		return claim(p, F_HAVE_CONTROL);
	case SHB_H3_STREAM_QPACK_ENCODER:
		u->kind = SHB_H3_UNI_QPACK_ENCODER;
		return claim(p, F_HAVE_ENCODER);
	case SHB_H3_STREAM_QPACK_DECODER:
		u->kind = SHB_H3_UNI_QPACK_DECODER;
		return claim(p, F_HAVE_DECODER);
	case SHB_H3_STREAM_PUSH:
		u->kind = SHB_H3_UNI_IGNORED;
		return fail(p, SHB_H3_ID_ERROR,
			    "push stream without MAX_PUSH_ID");
	default:
		u->kind = SHB_H3_UNI_IGNORED;
		return 0;
	}
}

static int stream_bytes(struct shb_h3_peer *p, struct shb_h3_uni *u,
			const uint8_t *in, size_t len)
{
	switch (u->kind) {
	case SHB_H3_UNI_CONTROL:
		return control_bytes(p, in, len);
	case SHB_H3_UNI_QPACK_ENCODER:
		return encoder_bytes(p, in, len);
	case SHB_H3_UNI_QPACK_DECODER:
		return decoder_bytes(p, in, len);
	default:
		return 0;
	}
}

int shb_h3_uni_feed(struct shb_h3_peer *p, struct shb_h3_uni *u,
		    const uint8_t *data, size_t len, int fin)
{
	size_t i = 0;
	int ev, done;

	if (p->flags & F_FAILED)
		return SHB_H3_PEER_ERROR;
	if (u->kind == SHB_H3_UNI_PENDING) {
		i = shb_h3_varint_feed(&u->vi, data, len, &done);
		if (!done)
			return 0; /* ended before its type: ignored */
		if (set_type(p, u, u->vi.value) < 0)
			return SHB_H3_PEER_ERROR;
	}
	ev = stream_bytes(p, u, data + i, len - i);
	if (ev < 0)
		return ev;
	if (fin && shb_h3_uni_is_critical(u))
		return fail(p, SHB_H3_CLOSED_CRITICAL_STREAM,
			    "the peer closed a critical stream");
	return ev;
}

int shb_h3_uni_reset(struct shb_h3_peer *p, struct shb_h3_uni *u)
{
	if (p->flags & F_FAILED)
		return SHB_H3_PEER_ERROR;
	if (shb_h3_uni_is_critical(u))
		return fail(p, SHB_H3_CLOSED_CRITICAL_STREAM,
			    "the peer reset a critical stream");
	return 0;
}
