/* The words for connection ends. */
#include <string.h>

#include "h3_errtext.h"
#include "h3p_tests.h"

static void test_names(void)
{
	char b[64];

	CU_ASSERT_STRING_EQUAL(shb_h3_transport_error_name(0x0a), "PROTOCOL_VIOLATION");
	CU_ASSERT_STRING_EQUAL(shb_h3_transport_error_name(0), "NO_ERROR");
	CU_ASSERT_STRING_EQUAL(shb_h3_transport_error_name(0x10), "NO_VIABLE_PATH");
	CU_ASSERT_STRING_EQUAL(shb_h3_transport_error_name(0x11),
			       "VERSION_NEGOTIATION_ERROR");
	CU_ASSERT_PTR_NULL(shb_h3_transport_error_name(0x12));
	CU_ASSERT_STRING_EQUAL(shb_h3_alert_name(42, b, sizeof(b)), "bad_certificate");
	CU_ASSERT_STRING_EQUAL(shb_h3_alert_name(40, b, sizeof(b)), "handshake_failure");
	CU_ASSERT_STRING_EQUAL(shb_h3_alert_name(120, b, sizeof(b)),
			       "no_application_protocol");
	CU_ASSERT_STRING_EQUAL(shb_h3_alert_name(201, b, sizeof(b)), "alert 201");
	CU_ASSERT_STRING_EQUAL(shb_h3_alert_name(42, b, 4), "bad");
	CU_ASSERT_STRING_EQUAL(shb_h3_app_code_text(0x10b, b, sizeof(b)),
			       "H3_REQUEST_REJECTED (0x10b)");
	CU_ASSERT_STRING_EQUAL(shb_h3_app_code_text(0x1234, b, sizeof(b)),
			       "application error 0x1234");
}

static int with_cert; /* ctx.has_cert of the next expect() */
static int in_hs;     /* ci.in_handshake of the next expect() */

static void expect(uint32_t origin, uint32_t app, uint64_t code, uint64_t frame,
		   const char *reason, int hs, int want_rc, const char *want)
{
	struct shb_quic_close_info ci = {origin, app, code, frame, reason, in_hs};
	struct shb_h3_close_ctx ctx = {5000000000ull, 30000000000ull, hs, with_cert};
	char out[200];

	CU_ASSERT_EQUAL(shb_h3_close_describe(&ci, &ctx, out, sizeof(out)), want_rc);
	CU_ASSERT_STRING_EQUAL(out, want);
}

static void test_describe(void)
{
	expect(SHB_QUIC_CLOSE_ERROR, 0, 0x12a, 0, "", 0, SHB_E_TLS,
	       "QUIC handshake failed: TLS alert 42 (bad_certificate)");
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x128, 0, "", 0, SHB_E_TLS,
	       "QUIC handshake failed: server sent TLS alert 40 (handshake_failure)");
	expect(SHB_QUIC_CLOSE_PEER, 1, 0x102, 0, "boom", 1, SHB_E_CLOSED,
	       "peer closed: H3_INTERNAL_ERROR (0x102): boom");
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x0a, 0, NULL, 0, SHB_E_CLOSED,
	       "peer closed during the QUIC handshake: PROTOCOL_VIOLATION (0xa)");
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x0a, 0, NULL, 1, SHB_E_CLOSED,
	       "peer closed: PROTOCOL_VIOLATION (0xa)");
	/* In a Handshake packet after ours completed: the server's was not. */
	in_hs = 1;
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x0a, 0, NULL, 1, SHB_E_CLOSED,
	       "peer closed before completing its QUIC handshake: PROTOCOL_VIOLATION (0xa)");
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x0a, 0, NULL, 0, SHB_E_CLOSED,
	       "peer closed during the QUIC handshake: PROTOCOL_VIOLATION (0xa)");
	in_hs = 0;
	expect(SHB_QUIC_CLOSE_ERROR, 0, 0x08, 0, "bad cid", 0, SHB_E_PROTO,
	       "QUIC handshake failed: TRANSPORT_PARAMETER_ERROR (0x8): bad cid");
	expect(SHB_QUIC_CLOSE_ERROR, 0, 0x07, 0x08, "", 1, SHB_E_PROTO,
	       "QUIC error: FRAME_ENCODING_ERROR (0x7) in frame 0x8");
	expect(SHB_QUIC_CLOSE_IDLE, 0, 0, 0, "", 1, SHB_E_TIMEOUT, "idle timeout after 30 s");
	expect(SHB_QUIC_CLOSE_HANDSHAKE_TIMEOUT, 0, 0, 0, "", 0, SHB_E_TIMEOUT,
	       "QUIC handshake timed out after 5 s");
	expect(SHB_QUIC_CLOSE_STATELESS_RESET, 0, 0, 0, "", 1, SHB_E_CLOSED,
	       "stateless reset from the server");
	expect(SHB_QUIC_CLOSE_VERSION, 0, 0, 0, "", 0, SHB_E_PROTO,
	       "the server does not support QUIC version 1");
	expect(SHB_QUIC_CLOSE_LOCAL, 1, 0x100, 0, "", 1, 0, "");
	/* certificate_required names the options, unless --cert was given */
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x174, 0, "", 1, SHB_E_TLS,
	       "TLS error: server sent TLS alert 116 (certificate_required): the "
	       "server wants a client certificate (--cert FILE --key FILE)");
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x12a, 0, "", 1, SHB_E_TLS,
	       "TLS error: server sent TLS alert 42 (bad_certificate): the "
	       "server wants a client certificate (--cert FILE --key FILE)");
	with_cert = 1;
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x174, 0, "", 1, SHB_E_TLS,
	       "TLS error: server sent TLS alert 116 (certificate_required)");
	expect(SHB_QUIC_CLOSE_PEER, 0, 0x12a, 0, "", 1, SHB_E_TLS,
	       "TLS error: server sent TLS alert 42 (bad_certificate)");
	with_cert = 0;
}

CU_TestInfo shb_h3p_errtext_tests[] = {
	{"error and alert names", test_names},
	{"connection end descriptions", test_describe},
	CU_TEST_INFO_NULL,
};
