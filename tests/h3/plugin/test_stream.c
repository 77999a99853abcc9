/* Request and server streams: responses (every split), interim
 * responses, malformed responses, resets, REQUEST_REJECTED, GOAWAY, the
 * server's control and unknown streams. */
#include <string.h>

#include "h3_defs.h"
#include "h3p_tests.h"

/* HEADERS(:status 200) DATA("hello") DATA("") then an unknown frame. */
static size_t response_200(uint8_t *b)
{
	size_t n = h3p_headers_status_idx(b, 25);
	n += h3p_data(b + n, "hello");
	n += h3p_data(b + n, "");
	b[n++] = 0x21; /* reserved frame type, 2 bytes of payload */
	b[n++] = 0x02;
	b[n++] = 0xaa;
	b[n++] = 0xbb;
	return n;
}

static void check_ok(const struct shb_kit_done *d, shb_tstamp first, shb_tstamp done,
		     uint64_t hdr)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 200);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 5);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, hdr);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, first);
	CU_ASSERT_EQUAL(d->res.ts_done, done);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_NONE);
}

/* The response split in two at every offset, in two recv calls (and once
 * more with the FIN alone in a third). */
static void test_response_every_split(void)
{
	uint8_t b[64];
	size_t n = response_200(b);

	for (size_t k = 0; k <= n; k++) {
		struct h3p_fx f;
		h3p_open_ready(&f, 1);
		uint64_t cookie = h3p_issue(&f);
		fq_q_data(f.q, 0, b, k, 0);
		CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
		shb_tstamp first = f.now;
		CU_ASSERT_EQUAL(h3p_kit.done_count, 0);
		fq_q_data(f.q, 0, b + k, n - k, k % 2);
		CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
		if (k % 2 == 0) {
			CU_ASSERT_EQUAL(h3p_kit.done_count, 0);
			fq_q_data(f.q, 0, NULL, 0, 1);
			CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
		}
		/* 5 HEADERS + 2 + 2 DATA headers + 4 unknown frame */
		check_ok(h3p_done_for(cookie), first, f.now, n - 5);
		const struct fq_op *t = fq_op_find(f.q, 't', 0);
		CU_ASSERT(t && t->code == SHB_H3_NO_ERROR);
		CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 1);
		h3p_close(&f);
	}
}

static void test_interim_skipped(void)
{
	struct h3p_fx f;
	uint8_t b[64];
	size_t n;

	h3p_open_ready(&f, 1);
	uint64_t cookie = h3p_issue(&f);
	n = h3p_headers_status_idx(b, 24);      /* 103 */
	n += h3p_headers_status_idx(b + n, 63); /* 100 */
	n += h3p_headers_status_idx(b + n, 25); /* 200 */
	n += h3p_data(b + n, "hello");
	fq_q_data(f.q, 0, b, n, 1);
	h3p_recv(&f);
	check_ok(h3p_done_for(cookie), f.now, f.now, 18);
	h3p_close(&f);
}

/* Any status counts as a complete response. */
static void test_error_status_ok(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n;

	h3p_open_ready(&f, 1);
	uint64_t cookie = h3p_issue(&f);
	n = h3p_headers_status_idx(b, 27); /* 404 */
	fq_q_data(f.q, 0, b, n, 1);
	h3p_recv(&f);
	const struct shb_kit_done *d = h3p_done_for(cookie);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 404);
	h3p_close(&f);
}

/* A stream that ends without a final status is a malformed response:
 * an error for that request, the connection goes on. */
static void test_no_status(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n;

	h3p_open_ready(&f, 2);
	uint64_t a = h3p_issue(&f);
	uint64_t b2 = h3p_issue(&f);
	n = h3p_headers_status_idx(b, 24); /* only a 103 */
	fq_q_data(f.q, 0, b, n, 1);
	fq_q_data(f.q, 4, NULL, 0, 1); /* nothing at all */
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	const struct shb_kit_done *d = h3p_done_for(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_H3);
	CU_ASSERT_EQUAL(d->res.err_code, SHB_H3_REQUEST_INCOMPLETE);
	CU_ASSERT(strstr(d->detail, "malformed HTTP/3 response") != NULL);
	CU_ASSERT(strstr(d->detail, "H3_REQUEST_INCOMPLETE (0x10d)") != NULL);
	d = h3p_done_for(b2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_code, SHB_H3_REQUEST_INCOMPLETE);
	CU_ASSERT_FALSE(f.q->closed_locally);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 2);
	h3p_close(&f);
}

/* Hostile responses: a 17th interim response and a request
 * pseudo-header fail that request only, with a detail naming the cap or
 * the rule; a section decoding above 256 KiB closes the connection. */
static void test_hostile_sections(void)
{
	struct h3p_fx f;
	uint8_t b[256];
	size_t n = 0;
	static const uint8_t path[] = {0x01, 0x04, 0x00, 0x00, 0xd9, 0xc1};

	h3p_open_ready(&f, 3);
	uint64_t a = h3p_issue(&f);
	uint64_t c2 = h3p_issue(&f);
	uint64_t c3 = h3p_issue(&f);
	for (int i = 0; i < 17; i++)
		n += h3p_headers_status_idx(b + n, 24); /* 103 */
	fq_q_data(f.q, 0, b, n, 0);
	fq_q_data(f.q, 4, path, sizeof(path), 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	const struct shb_kit_done *d = h3p_done_for(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_code, SHB_H3_EXCESSIVE_LOAD);
	CU_ASSERT_STRING_EQUAL(d->detail,
			       "malformed HTTP/3 response: more than 16 interim "
			       "(1xx) responses (cap 16) (H3_EXCESSIVE_LOAD "
			       "(0x107))");
	d = h3p_done_for(c2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_code, SHB_H3_MESSAGE_ERROR);
	CU_ASSERT(strstr(d->detail, "request or unknown pseudo-header field "
			 "in a response") != NULL);
	CU_ASSERT_FALSE(f.q->closed_locally);
	/* A QPACK bomb: 1-octet lines of 36 decoded octets each. */
	static uint8_t bomb[16 + 8000];

	n = 0;
	bomb[n++] = 0x01;
	bomb[n++] = 0x40 | ((8003 >> 8) & 0x3f);
	bomb[n++] = 8003 & 0xff;
	bomb[n++] = 0x00;
	bomb[n++] = 0x00;
	bomb[n++] = 0xd9;
	memset(bomb + n, 0xc2, 8000); /* age: 0 */
	n += 8000;
	for (size_t off = 0; off < n; off += 1000)
		fq_q_data(f.q, 8, bomb + off, n - off < 1000 ? n - off : 1000,
			  0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT(f.q->closed_locally);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_H3_EXCESSIVE_LOAD);
	CU_ASSERT_PTR_NULL(h3p_done_for(c3)); /* the core fails it */
	h3p_write(&f);
	CU_ASSERT_EQUAL(h3p_write(&f), SHB_E_PROTO);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f),
			       "HTTP/3 error H3_EXCESSIVE_LOAD (0x107): response "
			       "on stream 8: decoded field section above 262144 "
			       "octets (cap 262144)");
	h3p_close(&f);
}

/* A dynamic table reference cannot come from a server that respects
 * capacity 0: QPACK_DECOMPRESSION_FAILED closes the connection. Our
 * CONNECTION_CLOSE is written first, then the error is returned. */
static void test_dynamic_reference(void)
{
	struct h3p_fx f;
	static const uint8_t b[] = {0x01, 0x03, 0x00, 0x00, 0x80}; /* T=0 */

	h3p_open_ready(&f, 2);
	h3p_issue(&f);
	h3p_issue(&f);
	h3p_write(&f);
	fq_q_data(f.q, 0, b, sizeof(b), 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT(f.q->closed_locally);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_QPACK_DECOMPRESSION_FAILED);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 0); /* the core fails them */
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_WANT_WRITE);
	CU_ASSERT_FALSE(h3p_vt_state(&f) & SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(h3p_write(&f), 100); /* the close */
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(h3p_write(&f), SHB_E_PROTO);
	const char *d = h3p_vt_error_detail(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT(strstr(d, "HTTP/3 error QPACK_DECOMPRESSION_FAILED (0x200): "
			 "response on stream 0: ") == d);
	CU_ASSERT_EQUAL(h3p_kit.event_count, 2);
	CU_ASSERT_EQUAL(h3p_kit.events[1].ev.kind, SHB_CEV_CONN_ERROR);
	CU_ASSERT_EQUAL(h3p_kit.events[1].ev.err_space, SHB_ERRSPACE_H3);
	CU_ASSERT_EQUAL(h3p_kit.events[1].ev.err_code, SHB_QPACK_DECOMPRESSION_FAILED);
	h3p_close(&f);
}

/* The error is also returned by on_timer once the close went out, should
 * the core not write again. */
static void test_deferred_error_by_timer(void)
{
	struct h3p_fx f;
	static const uint8_t b[] = {0x01, 0x03, 0x00, 0x00, 0x80};

	h3p_open_ready(&f, 1);
	h3p_issue(&f);
	fq_q_data(f.q, 0, b, sizeof(b), 0);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), SHB_TSTAMP_NONE);
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	shb_tstamp d = h3p_vt_next_deadline(&f);
	CU_ASSERT_EQUAL(d, f.now + SHB_H3_CLOSE_GRACE_NS);
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, d - 1), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, d), SHB_E_PROTO);
	h3p_close(&f);
}

static void test_resets(void)
{
	struct h3p_fx f;

	h3p_open_ready(&f, 3);
	uint64_t a = h3p_issue(&f), b = h3p_issue(&f), c = h3p_issue(&f);
	fq_q_reset(f.q, 0, SHB_H3_REQUEST_REJECTED);
	fq_q_reset(f.q, 4, SHB_H3_INTERNAL_ERROR);
	fq_q_reset(f.q, 8, 0x4242);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	const struct shb_kit_done *d = h3p_done_for(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_REFUSED);
	d = h3p_done_for(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_RESET);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_H3);
	CU_ASSERT_EQUAL(d->res.err_code, SHB_H3_INTERNAL_ERROR);
	CU_ASSERT_STRING_EQUAL(d->detail,
			       "stream reset by the server: H3_INTERNAL_ERROR (0x102)");
	d = h3p_done_for(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_RESET);
	CU_ASSERT_EQUAL(d->res.err_code, 0x4242);
	CU_ASSERT_STRING_EQUAL(d->detail,
			       "stream reset by the server: application error 0x4242");
	CU_ASSERT_EQUAL(fq_op_count(f.q, 't'), 3);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 3);
	CU_ASSERT_FALSE(f.q->closed_locally);
	h3p_close(&f);
}

/* STOP_SENDING on a request stream: the answer may still come. */
static void test_stop_sending_request(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n = h3p_headers_status_idx(b, 25);

	h3p_open_ready(&f, 1);
	uint64_t a = h3p_issue(&f);
	fq_q_stop(f.q, 0, SHB_H3_NO_ERROR);
	fq_q_data(f.q, 0, b, n, 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT(h3p_done_for(a) && h3p_done_for(a)->res.outcome == SHB_REQ_OK);
	h3p_close(&f);
}

/* The server's control stream: SETTINGS, then GOAWAY(8) while streams
 * 0, 4, 8 and 12 are open. 8 and 12 are cancelled and refused; 0 and 4
 * finish; then the connection closes with H3_NO_ERROR. */
static void test_goaway(void)
{
	struct h3p_fx f;
	static const uint8_t ctl[] = {0x00, 0x04, 0x00, 0x07, 0x01, 0x08};
	uint8_t b[16];
	size_t n = h3p_headers_status_idx(b, 25);

	h3p_open_ready(&f, 8);
	uint64_t k[4];
	for (int i = 0; i < 4; i++)
		k[i] = h3p_issue(&f);
	fq_q_opened(f.q, 3);
	fq_q_data(f.q, 3, ctl, sizeof(ctl), 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 2);
	for (int i = 2; i < 4; i++) {
		const struct shb_kit_done *d = h3p_done_for(k[i]);
		CU_ASSERT(d && d->res.outcome == SHB_REQ_REFUSED);
		const struct fq_op *r = fq_op_find(f.q, 'r', 4 * (uint64_t)i);
		const struct fq_op *t = fq_op_find(f.q, 't', 4 * (uint64_t)i);
		CU_ASSERT(r && r->code == SHB_H3_REQUEST_CANCELLED);
		CU_ASSERT(t && t->code == SHB_H3_REQUEST_CANCELLED);
	}
	CU_ASSERT_PTR_NULL(fq_op_find(f.q, 'r', 0));
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT_EQUAL(h3p_vt_state(&f) & (SHB_CS_DRAINING | SHB_CS_CLOSED),
			SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(h3p_kit.events[h3p_kit.event_count - 1].ev.kind, SHB_CEV_GOAWAY);
	CU_ASSERT_EQUAL(h3p_kit.events[h3p_kit.event_count - 1].ev.last_accepted, 4);
	fq_q_data(f.q, 0, b, n, 1);
	h3p_recv(&f);
	CU_ASSERT_FALSE(f.q->closed_locally);
	fq_q_data(f.q, 4, b, n, 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT(h3p_done_for(k[0]) && h3p_done_for(k[0])->res.outcome == SHB_REQ_OK);
	CU_ASSERT(h3p_done_for(k[1]) && h3p_done_for(k[1])->res.outcome == SHB_REQ_OK);
	CU_ASSERT(f.q->closed_locally);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_H3_NO_ERROR);
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_WANT_WRITE | SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(h3p_write(&f), 0);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_DRAINING | SHB_CS_CLOSED);
	h3p_close(&f);
}

/* GOAWAY(0) with nothing accepted, and a reset at/above the GOAWAY ID
 * counts as refused too. */
static void test_goaway_zero(void)
{
	struct h3p_fx f;
	static const uint8_t ctl[] = {0x00, 0x04, 0x00, 0x07, 0x01, 0x00};

	h3p_open_ready(&f, 2);
	uint64_t a = h3p_issue(&f);
	fq_q_opened(f.q, 3);
	fq_q_data(f.q, 3, ctl, sizeof(ctl), 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT(h3p_done_for(a) && h3p_done_for(a)->res.outcome == SHB_REQ_REFUSED);
	CU_ASSERT_EQUAL(h3p_kit.events[h3p_kit.event_count - 1].ev.last_accepted, UINT64_MAX);
	CU_ASSERT(f.q->closed_locally); /* nothing left */
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	CU_ASSERT_FALSE(h3p_vt_state(&f) & SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(h3p_write(&f), 0);
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_CLOSED);
	h3p_close(&f);
}

/* An unknown stream type is stopped with H3_STREAM_CREATION_ERROR; a
 * second control stream, a reset control stream and STOP_SENDING on our
 * control stream are connection errors. */
static void test_server_uni_streams(void)
{
	struct h3p_fx f;
	static const uint8_t grease[] = {0x21, 'x', 'y'};
	static const uint8_t ctl[] = {0x00, 0x04, 0x00};
	static const uint8_t ctl2[] = {0x00};

	h3p_open_ready(&f, 1);
	fq_q_opened(f.q, 3);
	fq_q_data(f.q, 3, grease, sizeof(grease), 0);
	fq_q_opened(f.q, 7);
	fq_q_data(f.q, 7, ctl, sizeof(ctl), 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	const struct fq_op *t = fq_op_find(f.q, 't', 3);
	CU_ASSERT(t && t->code == SHB_H3_STREAM_CREATION_ERROR);
	CU_ASSERT(f.c->peer.settings_received);
	CU_ASSERT_FALSE(f.q->closed_locally);
	fq_q_opened(f.q, 11);
	fq_q_data(f.q, 11, ctl2, sizeof(ctl2), 0);
	h3p_recv(&f);
	CU_ASSERT(f.q->closed_locally);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_H3_STREAM_CREATION_ERROR);
	h3p_close(&f);

	h3p_open_ready(&f, 1);
	fq_q_opened(f.q, 3);
	fq_q_data(f.q, 3, ctl, sizeof(ctl), 0);
	fq_q_reset(f.q, 3, SHB_H3_NO_ERROR);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_H3_CLOSED_CRITICAL_STREAM);
	CU_ASSERT(strstr(h3p_vt_error_detail(&f), "server reset its control stream 3") != NULL);
	h3p_close(&f);

	h3p_open_ready(&f, 1);
	fq_q_stop(f.q, 2, SHB_H3_NO_ERROR);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_H3_CLOSED_CRITICAL_STREAM);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f),
			       "HTTP/3 error H3_CLOSED_CRITICAL_STREAM (0x104): "
			       "the server stopped our stream 2");
	h3p_close(&f);
}

/* The server's SETTINGS_MAX_FIELD_SECTION_SIZE is respected. */
static void test_field_section_limit(void)
{
	struct h3p_fx f;
	/* control stream: SETTINGS {0x06: 10} */
	static const uint8_t ctl[] = {0x00, 0x04, 0x02, 0x06, 0x0a};

	h3p_open_ready(&f, 2);
	fq_q_opened(f.q, 3);
	fq_q_data(f.q, 3, ctl, sizeof(ctl), 0);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(f.c->peer.max_field_section_size, 10);
	uint64_t a = h3p_issue(&f);
	const struct shb_kit_done *d = h3p_done_for(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_LOCAL_ERROR);
	CU_ASSERT(strstr(d->detail, "SETTINGS_MAX_FIELD_SECTION_SIZE (10)") != NULL);
	CU_ASSERT_EQUAL(f.q->send_count, 0);
	h3p_close(&f);
}

CU_TestInfo shb_h3p_stream_tests[] = {
	{"response split at every offset", test_response_every_split},
	{"interim responses skipped", test_interim_skipped},
	{"error status is a response", test_error_status_ok},
	{"stream ends without a status", test_no_status},
	{"dynamic reference closes the connection", test_dynamic_reference},
	{"deferred error by timer", test_deferred_error_by_timer},
	{"resets", test_resets},
	{"STOP_SENDING on a request", test_stop_sending_request},
	{"GOAWAY", test_goaway},
	{"GOAWAY 0", test_goaway_zero},
	{"server unidirectional streams", test_server_uni_streams},
	{"field section limit", test_field_section_limit},
	{"interim cap, pseudo-headers, QPACK bomb", test_hostile_sections},
	CU_TEST_INFO_NULL,
};
