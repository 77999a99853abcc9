/* The glue over the real QUIC connection (plugins/h3/conn), with no
 * server: the first flight is one padded 1200-byte Initial, no request
 * before the handshake, garbage is dropped, probes follow the timer, and
 * the handshake timeout ends the connection with SHB_E_TIMEOUT and a
 * clear reason. Skipped when the connection part is not built. */
#include <string.h>

#include "h3p_tests.h"

#ifdef SHB_H3P_REAL_QUIC
static void open_real(struct h3p_fx *f)
{
	/* h3p_open installs the fake; start over on the real table. */
	h3p_open(f, 0, 4, NULL, 0);
	shb_kit_conn_fini(&f->kc);
	f->mod->ops = &shb_h3_quic_ops_real;
	struct shb_transport_info info = {.struct_size = sizeof(info), .max_dgram = 1200};
	shb_kit_clock_set(&h3p_kit.clock, f->now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f->kc, &f->km), SHB_OK);
	f->c = f->kc.mem;
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&f->kc, &info), SHB_OK);
}

static void test_first_flight_and_timeout(void)
{
	static uint8_t buf[64 * 1200];
	struct h3p_fx f;
	size_t seg = 0;
	shb_ssize n;
	int rc = SHB_OK, probes = 0;

	open_real(&f);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	CU_ASSERT(h3p_vt_state(&f) & SHB_CS_WANT_WRITE);
	n = h3p_vt_write_dgrams(&f, buf, sizeof(buf), &seg, f.now);
	CU_ASSERT_EQUAL(n, 1200);
	CU_ASSERT_EQUAL(seg, 1200);
	CU_ASSERT_EQUAL(buf[0] & 0xf0, 0xc0); /* long header, Initial */
	CU_ASSERT_EQUAL(h3p_vt_write_dgrams(&f, buf, sizeof(buf), &seg, f.now), 0);
	/* not QUIC: dropped without a word */
	memset(buf, 0x17, 200);
	struct shb_vec v = {buf, 200};
	CU_ASSERT_EQUAL(h3p_vt_recv_dgrams(&f, &v, 1, f.now + 1), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), 0);
	/* run the clock: probes, then the 5 s handshake timeout */
	for (int i = 0; i < 64 && rc == SHB_OK; i++) {
		shb_tstamp d = h3p_vt_next_deadline(&f);
		CU_ASSERT_FATAL(d != SHB_TSTAMP_NONE);
		CU_ASSERT_FATAL(d <= f.now + 5000000000ull + 1000000000ull);
		rc = h3p_vt_on_timer(&f, d);
		while (rc == SHB_OK && (h3p_vt_state(&f) & SHB_CS_WANT_WRITE)) {
			n = h3p_vt_write_dgrams(&f, buf, sizeof(buf), &seg, d);
			CU_ASSERT_FATAL(n > 0);
			CU_ASSERT(seg >= 1200); /* Initial probes stay padded */
			probes++;
		}
	}
	CU_ASSERT(probes >= 2);
	CU_ASSERT_EQUAL(rc, SHB_E_TIMEOUT);
	CU_ASSERT_STRING_EQUAL(h3p_vt_error_detail(&f), "QUIC handshake timed out after 5 s");
	CU_ASSERT_EQUAL(h3p_kit.done_count, 0);
	h3p_close(&f);
}
#else
static void test_first_flight_and_timeout(void)
{
}
#endif

CU_TestInfo shb_h3p_live_tests[] = {
	{"real connection: first flight and handshake timeout",
	 test_first_flight_and_timeout},
	CU_TEST_INFO_NULL,
};
