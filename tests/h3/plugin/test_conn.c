/* One connection's life as the core drives it: the handshake gates
 * requests, our control and QPACK streams, requests handed to QUIC as the
 * prepared bytes, capacity, cancel, one-shot connections, shutdown. */
#include <stdlib.h>
#include <string.h>

#include "h3_defs.h"
#include "h3_local.h"
#include "h3p_tests.h"

static void test_handshake_gates_requests(void)
{
	struct h3p_fx f;

	h3p_open(&f, 0, 4, NULL, 0);
	CU_ASSERT_EQUAL(f.q->cfg.max_bidi_streams, 4);
	CU_ASSERT_EQUAL(f.q->cfg.max_dgram, 1200);
	CU_ASSERT_EQUAL(f.q->cfg.handshake_timeout, 5000000000ull);
	CU_ASSERT_EQUAL(f.q->cfg.idle_timeout, SHB_H3_MIN_IDLE_NS);
	CU_ASSERT_STRING_EQUAL(f.q->cfg.server_name, "example.com");
	CU_ASSERT_PTR_EQUAL(f.q->cfg.tls, &f.mod->tls);
	CU_ASSERT_PTR_NULL(f.q->cfg.log); /* no debug */
	/* The ClientHello is to be written; no request before the handshake. */
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT_EQUAL(h3p_vt_issue(&f, f.prep, 1, f.now), SHB_E_BUSY);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK); /* nothing queued */
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	fq_q_handshake(f.q);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 4);
	CU_ASSERT_EQUAL(h3p_kit.event_count, 1);
	CU_ASSERT_EQUAL(h3p_kit.events[0].ev.kind, SHB_CEV_HANDSHAKE_DONE);
	h3p_close(&f);
}

static void test_local_streams(void)
{
	struct h3p_fx f;
	uint8_t ctl[SHB_H3_LOCAL_CONTROL_MAX];
	size_t n = shb_h3_local_control(ctl, sizeof(ctl), NULL, 0);

	h3p_open_ready(&f, 1);
	CU_ASSERT_EQUAL_FATAL(f.q->uni_count, 3);
	CU_ASSERT_EQUAL(f.q->uni[0].id, 2);
	CU_ASSERT_EQUAL(f.q->uni[0].len, n);
	CU_ASSERT(memcmp(f.q->uni[0].bytes, ctl, n) == 0);
	/* type 0x00, SETTINGS (0x04) with capacity 0, blocked 0, 1 MiB */
	CU_ASSERT_EQUAL(f.q->uni[0].bytes[0], 0x00);
	CU_ASSERT_EQUAL(f.q->uni[0].bytes[1], 0x04);
	CU_ASSERT_EQUAL(f.q->uni[1].id, 6);
	CU_ASSERT_EQUAL(f.q->uni[1].len, 1);
	CU_ASSERT_EQUAL(f.q->uni[1].bytes[0], 0x02);
	CU_ASSERT_EQUAL(f.q->uni[2].id, 10);
	CU_ASSERT_EQUAL(f.q->uni[2].len, 1);
	CU_ASSERT_EQUAL(f.q->uni[2].bytes[0], 0x03);
	/* never reset or finished */
	CU_ASSERT_EQUAL(f.q->op_count, 0);
	h3p_close(&f);
}

static void test_issue_sends_prepared_bytes(void)
{
	struct h3p_fx f;

	h3p_open_ready(&f, 3);
	uint64_t a = h3p_issue(&f), b = h3p_issue(&f), c = h3p_issue(&f);
	CU_ASSERT(a != b && b != c);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT_EQUAL(h3p_vt_issue(&f, f.prep, 99, f.now), SHB_E_BUSY);
	CU_ASSERT_EQUAL_FATAL(f.q->send_count, 3);
	for (size_t i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(f.q->sends[i].id, 4 * i);
		CU_ASSERT_PTR_EQUAL(f.q->sends[i].data, f.prep->bytes); /* borrowed */
		CU_ASSERT_EQUAL(f.q->sends[i].len, f.prep->len);
		CU_ASSERT_EQUAL(f.q->sends[i].fin, 1);
	}
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_WANT_WRITE);
	h3p_close(&f);
}

/* A POST: HEADERS, DATA header and body in one block with FIN. */
static void test_post_bytes(void)
{
	struct h3p_fx f;

	h3p_open(&f, 0, 1, "a=1", 0);
	fq_q_handshake(f.q);
	h3p_recv(&f);
	h3p_issue(&f);
	CU_ASSERT_EQUAL_FATAL(f.q->send_count, 1);
	const struct fq_stream_send *s = &f.q->sends[0];
	CU_ASSERT_EQUAL(s->len, f.prep->headers_len + 2 + 3);
	CU_ASSERT_EQUAL(s->data[f.prep->headers_len], 0x00); /* DATA */
	CU_ASSERT_EQUAL(s->data[f.prep->headers_len + 1], 3);
	CU_ASSERT(memcmp(s->data + s->len - 3, "a=1", 3) == 0);
	CU_ASSERT_EQUAL(s->fin, 1);
	h3p_close(&f);
}

/* capacity() = min(-p, the server's stream credit) - requests open. */
static void test_capacity_accounting(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n;

	fq_default_credit = 5;
	h3p_open_ready(&f, 8);
	fq_default_credit = 100;
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 5);
	for (int i = 0; i < 5; i++)
		h3p_issue(&f);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	/* MAX_STREAMS raises the credit: now -p bounds it */
	f.q->credit = 20;
	fq_q_available(f.q);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 3);
	/* a response completes: one more */
	n = h3p_headers_status_idx(b, 25);
	fq_q_data(f.q, 8, b, n, 1);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 1);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 4);
	h3p_close(&f);
}

static void test_cancel(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n;

	h3p_open_ready(&f, 2);
	uint64_t a = h3p_issue(&f);
	uint64_t c2 = h3p_issue(&f);
	h3p_vt_cancel(&f, a, f.now);
	h3p_vt_cancel(&f, 12345, f.now); /* unknown: ignored */
	const struct fq_op *r = fq_op_find(f.q, 'r', 0), *t = fq_op_find(f.q, 't', 0);
	CU_ASSERT_PTR_NOT_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(t);
	if (r && t) {
		CU_ASSERT_EQUAL(r->code, SHB_H3_REQUEST_CANCELLED);
		CU_ASSERT_EQUAL(t->code, SHB_H3_REQUEST_CANCELLED);
	}
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 1);
	/* late bytes for the cancelled stream are ignored; never reported */
	n = h3p_headers_status_idx(b, 25);
	fq_q_data(f.q, 0, b, n, 1);
	fq_q_data(f.q, 4, b, n, 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 1);
	CU_ASSERT_PTR_NULL(h3p_done_for(a));
	CU_ASSERT_PTR_NOT_NULL(h3p_done_for(c2));
	h3p_close(&f);
}

/* --disable-keepalive: one request, then a clean close. */
static void test_one_request_per_connection(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n = h3p_headers_status_idx(b, 25);

	h3p_open(&f, SHB_RUN_DISABLE_KEEPALIVE, 1, NULL, 0);
	fq_q_handshake(f.q);
	h3p_recv(&f);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 1);
	h3p_issue(&f);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_DRAINING);
	fq_q_data(f.q, 0, b, n, 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 1);
	CU_ASSERT(f.q->closed_locally);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_H3_NO_ERROR);
	/* The close is written, and the connection is finished only once
	 * the core asked for more (its send completed): closed before, the
	 * socket would be shut down with the close still queued. */
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_WANT_WRITE | SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_WANT_WRITE | SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), f.now + SHB_H3_CLOSE_GRACE_NS);
	CU_ASSERT_EQUAL(h3p_write(&f), 0);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_DRAINING | SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), SHB_TSTAMP_NONE);
	CU_ASSERT_EQUAL(h3p_write(&f), 0);
	CU_ASSERT_PTR_NULL(h3p_vt_error_detail(&f));
	h3p_close(&f);
}

/* A clean end whose close went out but whose send the core never
 * reported: finished after the grace period, by the timer. */
static void test_clean_close_by_timer(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n = h3p_headers_status_idx(b, 25);

	h3p_open(&f, SHB_RUN_DISABLE_KEEPALIVE, 1, NULL, 0);
	fq_q_handshake(f.q);
	h3p_recv(&f);
	h3p_issue(&f);
	fq_q_data(f.q, 0, b, n, 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), SHB_TSTAMP_NONE);
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	shb_tstamp d = h3p_vt_next_deadline(&f);
	CU_ASSERT_EQUAL(d, f.now + SHB_H3_CLOSE_GRACE_NS);
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, d - 1), SHB_OK);
	CU_ASSERT_FALSE(h3p_vt_state(&f) & SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, d), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_DRAINING | SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), SHB_TSTAMP_NONE);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 1);
	CU_ASSERT_PTR_NULL(h3p_vt_error_detail(&f));
	h3p_close(&f);
}

/* The core's goodbye: shutdown(GRACEFUL), then one datagram. */
static void test_shutdown(void)
{
	struct h3p_fx f;
	uint8_t buf[1200];
	size_t seg = 0;

	h3p_open_ready(&f, 4);
	h3p_issue(&f);
	h3p_write(&f);
	h3p_vt_shutdown(&f, SHB_SHUT_GRACEFUL, f.now);
	CU_ASSERT(f.q->closed_locally);
	CU_ASSERT_EQUAL(f.q->close_code, SHB_H3_NO_ERROR);
	CU_ASSERT_EQUAL(h3p_vt_write_dgrams(&f, buf, sizeof(buf), &seg, f.now), 100);
	CU_ASSERT_EQUAL(seg, 100);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_WANT_WRITE | SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(h3p_vt_write_dgrams(&f, buf, sizeof(buf), &seg, f.now), 0);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_DRAINING | SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 0); /* the core owns them now */
	h3p_close(&f);

	h3p_open_ready(&f, 4);
	h3p_vt_shutdown(&f, SHB_SHUT_ABORT, f.now);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_CLOSED | SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(h3p_vt_write_dgrams(&f, buf, sizeof(buf), &seg, f.now), 0);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), SHB_TSTAMP_NONE);
	h3p_close(&f);
}

static void test_deadline_passthrough(void)
{
	struct h3p_fx f;

	h3p_open(&f, 0, 1, NULL, 0);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), SHB_TSTAMP_NONE);
	f.q->deadline = f.now + 777;
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), f.now + 777);
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, f.now + 777), SHB_OK);
	h3p_close(&f);
}

static void test_small_datagrams_refused(void)
{
	struct h3p_fx f;
	struct shb_transport_info info = {.struct_size = sizeof(info), .max_dgram = 1000};

	h3p_open(&f, 0, 1, NULL, 0);
	struct shb_kit_conn c2;
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&c2, &f.km), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_ready(&c2, &info), SHB_E_UNSUPPORTED);
	CU_ASSERT_STRING_EQUAL(shb_kit_conn_error_detail(&c2),
			       "QUIC needs datagrams of 1200 bytes; the transport allows 1000");
	shb_kit_conn_fini(&c2);
	h3p_close(&f);
}

static void test_debug_traces(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n = h3p_headers_status_idx(b, 25);

	h3p_open(&f, 0, 2, NULL, 1);
	CU_ASSERT_PTR_NOT_NULL(f.q->cfg.log);
	CU_ASSERT(h3p_logged("w3.0: QUIC handshake starts (SNI example.com, -p 2)"));
	h3p_write(&f);
	CU_ASSERT(h3p_logged("sent 1 datagram, 100 bytes (segments of 100)"));
	f.q->cfg.log(f.q->cfg.user, "packet 0 Initial");
	CU_ASSERT(h3p_logged("3 w3.0: quic: packet 0 Initial"));
	fq_q_handshake(f.q);
	h3p_recv(&f);
	CU_ASSERT(h3p_logged("received 1 datagram, 1200 bytes"));
	CU_ASSERT(h3p_logged("QUIC handshake done in 2.000 ms"));
	h3p_issue(&f);
	fq_q_reset(f.q, 0, SHB_H3_INTERNAL_ERROR);
	h3p_recv(&f);
	CU_ASSERT(h3p_logged("stream 0: stream reset by the server: H3_INTERNAL_ERROR (0x102)"));
	h3p_issue(&f);
	fq_q_data(f.q, 4, b, n, 1);
	h3p_recv(&f);
	h3p_vt_shutdown(&f, SHB_SHUT_GRACEFUL, f.now);
	CU_ASSERT(h3p_logged("shutdown: closing with H3_NO_ERROR"));
	CU_ASSERT(h3p_logged("connection ended: closed by us (0 requests in flight; 2 requests"));
	h3p_close(&f);
	h3p_reset(0);
}

CU_TestInfo shb_h3p_conn_tests[] = {
	{"the handshake gates requests", test_handshake_gates_requests},
	{"control and QPACK streams", test_local_streams},
	{"issue hands over the prepared bytes", test_issue_sends_prepared_bytes},
	{"POST bytes", test_post_bytes},
	{"capacity accounting", test_capacity_accounting},
	{"cancel", test_cancel},
	{"one request per connection", test_one_request_per_connection},
	{"clean close by timer", test_clean_close_by_timer},
	{"shutdown", test_shutdown},
	{"deadline passthrough", test_deadline_passthrough},
	{"small datagrams refused", test_small_datagrams_refused},
	{"debug traces", test_debug_traces},
	CU_TEST_INFO_NULL,
};
