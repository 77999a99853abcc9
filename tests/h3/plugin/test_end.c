/* How a connection ends: what the [conn] call returns, what
 * error_detail() says, and when the end is just the normal end. */
#include <string.h>

#include "h3_defs.h"
#include "h3p_tests.h"

/* A TLS alert we raised during the handshake: our CONNECTION_CLOSE goes
 * out first, then SHB_E_TLS (the core counts a TLS error). */
static void test_handshake_alert(void)
{
	struct h3p_fx f;

	h3p_open(&f, 0, 1, NULL, 0);
	h3p_write(&f);
	fq_q_closed(f.q, SHB_QUIC_CLOSE_ERROR, 0, 0x12a, "", 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	CU_ASSERT_EQUAL(h3p_write(&f), SHB_E_TLS);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f),
			       "QUIC handshake failed: TLS alert 42 (bad_certificate)");
	const struct shb_conn_event *ev = &h3p_kit.events[h3p_kit.event_count - 1].ev;
	CU_ASSERT_EQUAL(ev->kind, SHB_CEV_CONN_ERROR);
	CU_ASSERT_EQUAL(ev->err_space, SHB_ERRSPACE_TLS_ALERT);
	CU_ASSERT_EQUAL(ev->err_code, 42);
	h3p_close(&f);
}

/* The server's alert: nothing to send, the error at once. */
static void test_server_alert(void)
{
	struct h3p_fx f;

	h3p_open(&f, 0, 1, NULL, 0);
	fq_q_closed(f.q, SHB_QUIC_CLOSE_PEER, 0, 0x128, "", 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_E_TLS);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f),
			       "QUIC handshake failed: server sent TLS alert 40 "
			       "(handshake_failure)");
	h3p_close(&f);
}

static void test_peer_close_with_requests(void)
{
	struct h3p_fx f;

	h3p_open_ready(&f, 2);
	h3p_issue(&f);
	fq_q_closed(f.q, SHB_QUIC_CLOSE_PEER, 1, SHB_H3_INTERNAL_ERROR, "boom", 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_E_CLOSED);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f),
			       "peer closed: H3_INTERNAL_ERROR (0x102): boom");
	CU_ASSERT_EQUAL(h3p_kit.done_count, 0);
	CU_ASSERT_FALSE(h3p_vt_state(&f) & SHB_CS_CLOSED);
	h3p_close(&f);
}

/* A graceful close by the server with nothing in flight is the normal end
 * of a connection: CLOSED, no error. The same close before any request
 * was ever sent is an error (the core counts it once). */
static void test_peer_close_clean(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n = h3p_headers_status_idx(b, 25);

	h3p_open_ready(&f, 1);
	h3p_issue(&f);
	fq_q_data(f.q, 0, b, n, 1);
	fq_q_closed(f.q, SHB_QUIC_CLOSE_PEER, 1, SHB_H3_NO_ERROR, "", 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_kit.done_count, 1);
	CU_ASSERT_EQUAL(h3p_vt_state(&f), SHB_CS_DRAINING | SHB_CS_CLOSED);
	h3p_close(&f);

	h3p_open_ready(&f, 1);
	fq_q_closed(f.q, SHB_QUIC_CLOSE_PEER, 1, SHB_H3_NO_ERROR, "", 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_E_CLOSED);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f), "peer closed: H3_NO_ERROR (0x100)");
	h3p_close(&f);
}

static void test_idle(void)
{
	struct h3p_fx f;
	uint8_t b[16];
	size_t n = h3p_headers_status_idx(b, 25);

	/* with a request in flight: an error */
	h3p_open_ready(&f, 1);
	h3p_issue(&f);
	f.q->deadline = f.now + 30000000000ull;
	f.q->timeout_origin = SHB_QUIC_CLOSE_IDLE;
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), f.q->deadline);
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, f.q->deadline - 1), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, f.q->deadline), SHB_E_TIMEOUT);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f), "idle timeout after 30 s");
	h3p_close(&f);

	/* with nothing in flight: the normal end */
	h3p_open_ready(&f, 1);
	h3p_issue(&f);
	fq_q_data(f.q, 0, b, n, 1);
	h3p_recv(&f);
	f.q->deadline = f.now + 1;
	f.q->timeout_origin = SHB_QUIC_CLOSE_IDLE;
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, f.now + 1), SHB_OK);
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(h3p_vt_next_deadline(&f), SHB_TSTAMP_NONE);
	h3p_close(&f);
}

static void test_handshake_timeout(void)
{
	struct h3p_fx f;

	h3p_open(&f, 0, 1, NULL, 0);
	h3p_write(&f);
	f.q->deadline = f.now + 5000000000ull;
	f.q->timeout_origin = SHB_QUIC_CLOSE_HANDSHAKE_TIMEOUT;
	CU_ASSERT_EQUAL(h3p_vt_on_timer(&f, f.q->deadline), SHB_E_TIMEOUT);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f),
			       "QUIC handshake timed out after 5 s");
	/* stray datagrams afterwards change nothing */
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_E_TIMEOUT);
	h3p_close(&f);
}

static void test_stateless_reset(void)
{
	struct h3p_fx f;

	h3p_open_ready(&f, 1);
	h3p_issue(&f);
	fq_q_closed(f.q, SHB_QUIC_CLOSE_STATELESS_RESET, 0, 0, "", 0);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_E_CLOSED);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f), "stateless reset from the server");
	h3p_close(&f);
}

/* A transport error we detected after the handshake (e.g. a flow control
 * violation): close frame first, then SHB_E_PROTO. */
static void test_local_transport_error(void)
{
	struct h3p_fx f;

	h3p_open_ready(&f, 1);
	h3p_issue(&f);
	fq_q_closed(f.q, SHB_QUIC_CLOSE_ERROR, 0, 0x03, "over the limit", 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK); /* still before the close went out */
	CU_ASSERT_EQUAL(h3p_write(&f), 100);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_E_PROTO);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f),
			       "QUIC error: FLOW_CONTROL_ERROR (0x3): over the limit");
	h3p_close(&f);
}

CU_TestInfo shb_h3p_end_tests[] = {
	{"our TLS alert in the handshake", test_handshake_alert},
	{"the server's TLS alert", test_server_alert},
	{"peer close with requests in flight", test_peer_close_with_requests},
	{"clean peer close", test_peer_close_clean},
	{"idle timeout", test_idle},
	{"handshake timeout", test_handshake_timeout},
	{"stateless reset", test_stateless_reset},
	{"transport error found by us", test_local_transport_error},
	CU_TEST_INFO_NULL,
};
