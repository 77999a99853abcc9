/* HTTP/3 response reader: see h3_response.h. */
#include "h3_response.h"

#include <string.h>

#include "h3_defs.h"
#include "qpack_fields.h"

_Static_assert(SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE ==
		       SHB_QPACK_DEC_MAX_SECTION,
	       "the decoder enforces what we advertise");
_Static_assert(SHB_H3_MAX_INTERIM == 16, "end_headers names the cap");

/* Where the message is (RFC 9114 Section 4.1 frame sequence). */
enum phase {
	P_AWAIT_FINAL, /* before the final HEADERS (interim ones may come) */
	P_BODY,        /* after the final HEADERS: DATA, trailers */
	P_TRAILERS,    /* after the trailer HEADERS: nothing but FIN */
};

void shb_h3_resp_init(struct shb_h3_resp *r)
{
	memset(r, 0, sizeof(*r));
}

void shb_h3_resp_init_keep(struct shb_h3_resp *r, struct shb_h3_keep *keep)
{
	memset(r, 0, sizeof(*r));
	r->keep = keep;
	if (keep) {
		shb_buf_clear(&keep->section);
		shb_buf_clear(&keep->body);
		keep->truncated = 0;
		keep->nfields = 0;
	}
}

/* Payload in[n] of the current frame, kept when it is the head or the
 * body (an allocation failure keeps a prefix, marked truncated for the
 * body). */
static void keep_payload(struct shb_h3_resp *r, const uint8_t *in, size_t n)
{
	struct shb_h3_keep *k = r->keep;

	if (r->frame_type == SHB_H3_FRAME_HEADERS && r->phase == P_AWAIT_FINAL) {
		shb_buf_put(&k->section, in, n);
		return;
	}
	if (r->frame_type != SHB_H3_FRAME_DATA)
		return;
	uint64_t room = k->body_max > k->body.len ? k->body_max - k->body.len : 0;
	if (n > room)
		k->truncated = 1;
	if (room && shb_buf_put(&k->body, in, n < room ? n : (size_t)room) !=
			    SHB_BUF_OK)
		k->truncated = 1;
}

static int stop(struct shb_h3_resp *r, int rc, uint64_t code,
		const char *why)
{
	r->result = (int8_t)rc;
	r->error = code;
	r->detail = why;
	return rc;
}

static int conn_error(struct shb_h3_resp *r, uint64_t code, const char *why)
{
	return stop(r, SHB_H3_RESP_E_CONN, code, why);
}

static int stream_error(struct shb_h3_resp *r, uint64_t code,
			const char *why)
{
	return stop(r, SHB_H3_RESP_E_STREAM, code, why);
}

/* A frame type that never belongs on a request stream; 0 if it may. */
static int forbidden(struct shb_h3_resp *r, uint64_t type)
{
	switch (type) {
	case SHB_H3_FRAME_PUSH_PROMISE:
		return conn_error(r, SHB_H3_ID_ERROR,
				  "PUSH_PROMISE without MAX_PUSH_ID");
	case SHB_H3_FRAME_CANCEL_PUSH:
	case SHB_H3_FRAME_SETTINGS:
	case SHB_H3_FRAME_GOAWAY:
	case SHB_H3_FRAME_MAX_PUSH_ID:
		return conn_error(r, SHB_H3_FRAME_UNEXPECTED,
				  "control frame on a request stream");
	case SHB_H3_FRAME_H2_PRIORITY:
	case SHB_H3_FRAME_H2_PING:
	case SHB_H3_FRAME_H2_WINDOW_UPDATE:
	case SHB_H3_FRAME_H2_CONTINUATION:
		return conn_error(r, SHB_H3_FRAME_UNEXPECTED,
				  "reserved HTTP/2 frame type");
	default:
		return 0;
	}
}

static int start_headers(struct shb_h3_resp *r, uint64_t length)
{
	if (r->phase == P_TRAILERS)
		return conn_error(r, SHB_H3_FRAME_UNEXPECTED,
				  "HEADERS after the trailers");
	if (length > SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE)
		return stream_error(r, SHB_H3_EXCESSIVE_LOAD,
				    "HEADERS frame above "
				    "MAX_FIELD_SECTION_SIZE");
	if (length == 0)
		return conn_error(r, SHB_QPACK_DECOMPRESSION_FAILED,
				  "empty HEADERS frame");
	shb_qpack_dec_begin_table(&r->qd, length, r->table);
	if (r->keep && r->phase == P_AWAIT_FINAL)
		shb_buf_clear(&r->keep->section); /* an interim head's */
	return SHB_H3_RESP_MORE;
}

/* A frame header was read: check the type against the message state. */
static int start_frame(struct shb_h3_resp *r, uint64_t type, uint64_t length)
{
	int rc = forbidden(r, type);

	if (rc)
		return rc;
	if (type == SHB_H3_FRAME_HEADERS)
		rc = start_headers(r, length);
	else if (type == SHB_H3_FRAME_DATA && r->phase == P_AWAIT_FINAL)
		rc = conn_error(r, SHB_H3_FRAME_UNEXPECTED,
				"DATA before the response HEADERS");
	else if (type == SHB_H3_FRAME_DATA && r->phase == P_TRAILERS)
		rc = conn_error(r, SHB_H3_FRAME_UNEXPECTED,
				"DATA after the trailers");
	if (rc)
		return rc;
	r->frame_type = type;
	r->frame_left = length;
	r->in_frame = length > 0;
	return SHB_H3_RESP_MORE;
}

/* The final head's fields, kept: decoded now, while the table still
 * holds every entry the section references. */
static void keep_fields(struct shb_h3_resp *r)
{
	struct shb_h3_keep *k = r->keep;

	k->nfields = shb_qpack_fields(k->section.p, k->section.len, r->table,
				      &k->strs, &k->kvs);
}

/* A whole HEADERS frame was decoded. */
static int end_headers(struct shb_h3_resp *r)
{
	uint32_t st = r->qd.status;

	if (r->qd.ric > 0) {
		r->acks++;
		if (r->qd.ric > r->ack_ric)
			r->ack_ric = r->qd.ric;
	}

	if (r->phase == P_BODY) {
		/* RFC 9114 Section 4.3: none in trailers, :status included. */
		if (r->qd.pseudo)
			return stream_error(r, SHB_H3_MESSAGE_ERROR,
					    "pseudo-header field in the "
					    "trailers");
		r->phase = P_TRAILERS;
		return SHB_H3_RESP_MORE;
	}
	if (st == 0)
		return stream_error(r, SHB_H3_MESSAGE_ERROR,
				    "response HEADERS without :status");
	if (st == 101)
		return stream_error(r, SHB_H3_MESSAGE_ERROR,
				    "101 (Switching Protocols) in HTTP/3");
	if (st < 200) {
		/* Each one costs a HEADERS frame at most: a peer sending
		 * them without end keeps the request open for ever. */
		if (++r->interim > SHB_H3_MAX_INTERIM)
			return stream_error(r, SHB_H3_EXCESSIVE_LOAD,
					    "more than 16 interim (1xx) "
					    "responses (cap 16)");
		return SHB_H3_RESP_MORE;
	}
	r->status = st;
	r->phase = P_BODY;
	if (r->keep)
		keep_fields(r);
	return SHB_H3_RESP_MORE;
}

/* The decoder's rc as ours. */
static int headers_rc(struct shb_h3_resp *r, int rc)
{
	switch (rc) {
	case SHB_QPACK_DEC_MORE:
		return SHB_H3_RESP_MORE;
	case SHB_QPACK_DEC_DONE:
		return end_headers(r);
	case SHB_QPACK_DEC_BLOCKED:
		r->blocked = 1;
		return SHB_H3_RESP_BLOCKED;
	case SHB_QPACK_DEC_E_MESSAGE:
		return stream_error(r, SHB_H3_MESSAGE_ERROR, r->qd.detail);
	case SHB_QPACK_DEC_E_SIZE:
		return conn_error(r, SHB_H3_EXCESSIVE_LOAD, r->qd.detail);
	default:
		return conn_error(r, SHB_QPACK_DECOMPRESSION_FAILED,
				  r->qd.detail);
	}
}

static int headers_payload(struct shb_h3_resp *r, const uint8_t *in,
			   size_t n)
{
	return headers_rc(r, shb_qpack_dec_feed(&r->qd, in, n));
}

/* A blocked section's decoder goes on (or finishes a section whose
 * octets all came before it blocked). */
static int resume(struct shb_h3_resp *r)
{
	r->blocked = 0;
	return headers_rc(r, shb_qpack_dec_resume(&r->qd));
}

/* Up to len octets of the current frame's payload; returns the octets
 * used through *used. */
static int payload(struct shb_h3_resp *r, const uint8_t *in, size_t len,
		   size_t *used)
{
	size_t n = len < r->frame_left ? len : (size_t)r->frame_left;
	int rc = SHB_H3_RESP_MORE;

	if (r->keep)
		keep_payload(r, in, n);
	if (r->frame_type == SHB_H3_FRAME_HEADERS) {
		rc = headers_payload(r, in, n);
		if (rc == SHB_H3_RESP_BLOCKED) {
			/* The rest comes again once unblocked. */
			if (r->keep && !r->keep->section.err)
				r->keep->section.len -= n - r->qd.used;
			n = r->qd.used;
		}
	}
	if (r->frame_type == SHB_H3_FRAME_DATA)
		r->body_bytes += n;
	else
		r->header_bytes += n;
	r->frame_left -= n;
	r->in_frame = r->frame_left > 0;
	*used = n;
	return rc;
}

static int at_fin(struct shb_h3_resp *r)
{
	if (r->in_frame || shb_h3_fhead_started(&r->fh))
		return conn_error(r, SHB_H3_FRAME_ERROR,
				  "stream ended inside a frame");
	if (r->phase == P_AWAIT_FINAL)
		return stream_error(r, SHB_H3_REQUEST_INCOMPLETE,
				    "stream ended before the final status");
	r->result = SHB_H3_RESP_DONE;
	return SHB_H3_RESP_DONE;
}

int shb_h3_resp_feed(struct shb_h3_resp *r, const uint8_t *data, size_t len,
		     int fin)
{
	size_t i = 0, n;
	int rc = SHB_H3_RESP_MORE, done;
	uint64_t type, length;

	if (r->result)
		return r->result;
	if (r->blocked) {
		rc = resume(r);
		if (rc == SHB_H3_RESP_BLOCKED) {
			r->used = 0;
			return rc;
		}
	}
	while (i < len && rc == SHB_H3_RESP_MORE) {
		if (r->in_frame) {
			rc = payload(r, data + i, len - i, &n);
			i += n;
			continue;
		}
		n = shb_h3_fhead_feed(&r->fh, data + i, len - i, &type,
				      &length, &done);
		r->header_bytes += n;
		i += n;
		if (done)
			rc = start_frame(r, type, length);
	}
	if (rc == SHB_H3_RESP_BLOCKED) {
		r->used = i;
		return rc;
	}
	if (rc != SHB_H3_RESP_MORE)
		return rc;
	return fin ? at_fin(r) : SHB_H3_RESP_MORE;
}
