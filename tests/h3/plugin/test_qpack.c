/* QPACK's dynamic table through the plugin (qpack-table=, qpack-blocked=):
 * what our SETTINGS announce, the server's encoder stream filling the
 * table, responses that reference it (fields for req_response too),
 * streams blocked until the inserts arrive, and every instruction our
 * decoder stream sends: Insert Count Increment, Section Acknowledgment,
 * Stream Cancellation; and the errors that close the connection. */
#include <string.h>

#include "h3_defs.h"
#include "h3p_tests.h"

/* The server's encoder stream (id 3): its type, capacity 4096, then
 * :status 200 and x-a: 1, both with literal names. */
static const uint8_t enc[] = {
	0x02, 0x3f, 0xe1, 0x1f,
	0x47, ':', 's', 't', 'a', 't', 'u', 's', 0x03, '2', '0', '0',
	0x43, 'x', '-', 'a', 0x01, '1',
};
/* HEADERS: Required Insert Count 2 (encoded 3), Base 2, entries 0 and 1
 * relative to Base; then DATA "hi". */
static const uint8_t resp[] = {0x01, 0x04, 0x03, 0x00, 0x81, 0x80,
			       0x00, 0x02, 'h', 'i'};

static void open_qpack(struct h3p_fx *f, uint32_t flags, uint32_t table,
		       uint32_t blocked)
{
	h3p_qpack = (struct shb_h3_conn_config){table, blocked};
	h3p_open(f, flags, 4, NULL, 0);
	h3p_qpack = (struct shb_h3_conn_config){0, 0};
	fq_q_handshake(f->q);
	CU_ASSERT_EQUAL_FATAL(h3p_recv(f), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(f->q->uni_count, 3);
}

static void encoder(struct h3p_fx *f, const uint8_t *b, size_t n)
{
	fq_q_opened(f->q, 3);
	fq_q_data(f->q, 3, b, n, 0);
	CU_ASSERT_EQUAL(h3p_recv(f), SHB_OK);
}

/* Our decoder stream (the third uni stream) holds exactly hex. */
static int decoder_is(const struct h3p_fx *f, const uint8_t *want, size_t n)
{
	const struct fq_uni *u = &f->q->uni[2];

	return u->len == n && memcmp(u->bytes, want, n) == 0;
}

static void test_settings(void)
{
	static const uint8_t want[] = {0x00, 0x04, 0x0a, 0x01, 0x50, 0x00,
				       0x07, 0x10, 0x06, 0x80, 0x04, 0x00, 0x00};
	struct h3p_fx f;

	open_qpack(&f, 0, 4096, 16);
	CU_ASSERT_EQUAL(f.q->uni[0].len, sizeof(want));
	CU_ASSERT(memcmp(f.q->uni[0].bytes, want, sizeof(want)) == 0);
	CU_ASSERT_EQUAL(f.c->nblk, 16);
	CU_ASSERT_EQUAL(f.c->peer.table.limit, 4096);
	h3p_close(&f);
}

/* Inserts first: an Insert Count Increment of 2, then the response
 * decodes from the table and is acknowledged (stream 0: 0x80). */
static void test_inserts_then_response(void)
{
	static const uint8_t dec[] = {0x03, 0x02, 0x80};
	struct h3p_fx f;

	open_qpack(&f, 0, 4096, 4);
	encoder(&f, enc, sizeof(enc));
	CU_ASSERT_EQUAL(f.c->peer.table.inserted, 2);
	uint64_t cookie = h3p_issue(&f);
	fq_q_data(f.q, 0, resp, sizeof(resp), 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	const struct shb_kit_done *d = h3p_done_for(cookie);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 200);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 2);
	CU_ASSERT(decoder_is(&f, dec, sizeof(dec)));
	CU_ASSERT_EQUAL(f.c->qpack_acks, 1);
	CU_ASSERT_EQUAL(f.c->qpack_krc, 2);
	h3p_close(&f);
}

/* The response first, at every split: it waits (nothing reported), then
 * the inserts unblock it; the acknowledgment covers the inserts, so no
 * increment follows. The fields reach req_response. */
static void test_blocked_then_inserts(void)
{
	static const uint8_t dec[] = {0x03, 0x80};

	for (size_t cut = 0; cut <= sizeof(resp); cut++) {
		struct h3p_fx f;

		open_qpack(&f, SHB_RUN_WANT_RESPONSE, 4096, 1);
		uint64_t cookie = h3p_issue(&f);
		fq_q_data(f.q, 0, resp, cut, 0);
		CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
		fq_q_data(f.q, 0, resp + cut, sizeof(resp) - cut, 1);
		CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
		CU_ASSERT_EQUAL(h3p_kit.done_count, 0);
		CU_ASSERT_EQUAL(f.c->qpack_blocked, 1);
		encoder(&f, enc, sizeof(enc));
		const struct shb_kit_done *d = h3p_done_for(cookie);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->res.status, 200);
		CU_ASSERT_EQUAL(d->res.rx_body_bytes, 2);
		CU_ASSERT_EQUAL(d->res.rx_header_bytes, 8);
		CU_ASSERT(decoder_is(&f, dec, sizeof(dec)));
		CU_ASSERT_EQUAL_FATAL(h3p_kit.response_count, 1);
		CU_ASSERT_EQUAL(h3p_kit.responses[0].header_count, 1);
		CU_ASSERT_STRING_EQUAL(h3p_kit.responses[0].headers[0], "x-a: 1");
		CU_ASSERT_EQUAL(f.c->blk[0].used, 0);
		h3p_close(&f);
	}
}

/* Two streams blocked on different inserts: each goes on when its own
 * arrives, in the order of the inserts, whatever the order they
 * blocked in; each acknowledgment carries its stream (4 first: 0x84,
 * then 0: 0x80), and none is sent for a stream still waiting. */
static void test_unblock_order(void)
{
	/* stream 0 needs both entries (RIC 2), stream 4 only the first */
	static const uint8_t r1[] = {0x01, 0x03, 0x02, 0x00, 0x80};
	static const uint8_t dec1[] = {0x03, 0x84};
	static const uint8_t dec2[] = {0x03, 0x84, 0x80};
	struct h3p_fx f;

	open_qpack(&f, 0, 4096, 2);
	uint64_t c0 = h3p_issue(&f);
	uint64_t c1 = h3p_issue(&f);
	fq_q_data(f.q, 0, resp, 6, 1); /* HEADERS only, then FIN */
	fq_q_data(f.q, 4, r1, sizeof(r1), 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(f.c->qpack_blocked, 2);
	encoder(&f, enc, 16); /* type, capacity, :status 200 */
	CU_ASSERT_EQUAL(f.c->peer.table.inserted, 1);
	CU_ASSERT_PTR_NULL(h3p_done_for(c0));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h3p_done_for(c1));
	CU_ASSERT_EQUAL(h3p_done_for(c1)->res.status, 200);
	CU_ASSERT(decoder_is(&f, dec1, sizeof(dec1)));
	fq_q_data(f.q, 3, enc + 16, sizeof(enc) - 16, 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h3p_done_for(c0));
	CU_ASSERT_EQUAL(h3p_done_for(c0)->res.status, 200);
	CU_ASSERT(decoder_is(&f, dec2, sizeof(dec2)));
	CU_ASSERT_EQUAL(f.c->qpack_krc, 2);
	h3p_close(&f);
}

/* Two streams blocked with one announced: QPACK_DECOMPRESSION_FAILED. */
static void test_too_many_blocked(void)
{
	struct h3p_fx f;

	open_qpack(&f, 0, 4096, 1);
	h3p_issue(&f);
	h3p_issue(&f);
	fq_q_data(f.q, 0, resp, sizeof(resp), 1);
	fq_q_data(f.q, 4, resp, sizeof(resp), 1);
	h3p_recv(&f);
	CU_ASSERT(f.q->closed_locally);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_QPACK_DECOMPRESSION_FAILED);
	CU_ASSERT(strstr(f.c->detail, "stream 4 blocked on the dynamic table "
				      "beyond the 1 blocked streams we "
				      "announced") != NULL);
	h3p_close(&f);
	/* None announced: the first blocked stream is one too many. */
	open_qpack(&f, 0, 4096, 0);
	h3p_issue(&f);
	fq_q_data(f.q, 0, resp, sizeof(resp), 1);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_QPACK_DECOMPRESSION_FAILED);
	h3p_close(&f);
}

/* A blocked stream reset by the server, and one we cancel: Stream
 * Cancellation of each (stream 0: 0x40, stream 4: 0x44); a complete
 * response needs none. */
static void test_stream_cancellation(void)
{
	static const uint8_t dec[] = {0x03, 0x40, 0x44};
	struct h3p_fx f;

	open_qpack(&f, 0, 4096, 2);
	uint64_t c0 = h3p_issue(&f);
	uint64_t c1 = h3p_issue(&f);
	fq_q_data(f.q, 0, resp, 3, 0);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(f.c->blk[0].used, 1);
	fq_q_reset(f.q, 0, SHB_H3_INTERNAL_ERROR);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(h3p_done_for(c0)->res.outcome, SHB_REQ_RESET);
	CU_ASSERT_EQUAL(f.c->blk[0].used, 0);
	h3p_vt_cancel(&f, c1, f.now);
	CU_ASSERT(decoder_is(&f, dec, sizeof(dec)));
	CU_ASSERT_EQUAL(f.c->qpack_cancels, 2);
	h3p_close(&f);
}

/* Encoder stream errors close the connection with
 * QPACK_ENCODER_STREAM_ERROR; a reference the table cannot resolve with
 * QPACK_DECOMPRESSION_FAILED. */
static void test_errors(void)
{
	static const uint8_t big[] = {0x02, 0x3f, 0xe2, 0x1f}; /* 4097 */
	static const uint8_t bad_ref[] = {0x01, 0x03, 0x02, 0x00, 0x81};
	struct h3p_fx f;

	open_qpack(&f, 0, 4096, 1);
	encoder(&f, big, sizeof(big));
	CU_ASSERT_EQUAL(f.q->close_code, SHB_QPACK_ENCODER_STREAM_ERROR);
	CU_ASSERT(strstr(f.c->detail, "dynamic table capacity above the one "
				      "we announced") != NULL);
	h3p_close(&f);
	open_qpack(&f, 0, 4096, 1);
	encoder(&f, enc, sizeof(enc));
	h3p_issue(&f);
	fq_q_data(f.q, 0, bad_ref, sizeof(bad_ref), 1);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_QPACK_DECOMPRESSION_FAILED);
	CU_ASSERT(strstr(f.c->detail, "dynamic reference below entry 0") != NULL);
	h3p_close(&f);
	/* qpack-table=0: the same inserts are refused, as before. */
	open_qpack(&f, 0, 0, 0);
	encoder(&f, enc, sizeof(enc));
	CU_ASSERT_EQUAL(f.q->close_code, SHB_QPACK_ENCODER_STREAM_ERROR);
	CU_ASSERT_EQUAL(f.q->uni[2].len, 1);
	h3p_close(&f);
}

CU_TestInfo shb_h3p_qpack_tests[] = {
	{"SETTINGS announce the table", test_settings},
	{"inserts, then a response from the table", test_inserts_then_response},
	{"a blocked response, unblocked", test_blocked_then_inserts},
	{"blocked streams go on in the order of their inserts", test_unblock_order},
	{"more blocked streams than announced", test_too_many_blocked},
	{"Stream Cancellation", test_stream_cancellation},
	{"QPACK errors close the connection", test_errors},
	CU_TEST_INFO_NULL,
};
