/* Our unidirectional streams over a long life (the HTTP/3 control stream
 * carries a PRIORITY_UPDATE per request, RFC 9218 Section 7.2): bytes
 * the server acknowledged are dropped, so the 1 KiB kept per stream in
 * the connection's memory serves any number of bytes sent over time; what
 * is not acknowledged yet moves to a heap buffer of at most
 * SHB_QUIC_CONN_UNI_MAX_BUF; lost bytes are resent from the window even
 * after it moved; the server receives every byte once, in order. */
#include <string.h>

#include <CUnit/CUnit.h>

#include "conn_harness.h"
#include "conn_tests.h"

/* The byte at `off` of what the tests send on the control stream. */
static uint8_t pat(uint64_t off)
{
	return (uint8_t)(off * 37 + (off >> 9));
}

/* Sends n bytes of the pattern from *off on stream 2. */
static int send_pat(struct harness *h, uint64_t *off, size_t n)
{
	uint8_t b[2048];

	for (size_t i = 0; i < n; i++)
		b[i] = pat(*off + i);
	int rc = shb_quic_conn_uni_send(h->c, 2, b, n);
	if (rc == 0)
		*off += n;
	return rc;
}

/* The server has exactly total pattern bytes on stream 2, in order. */
static void check_server(struct harness *h, uint64_t total)
{
	size_t len;
	bool fin;
	const uint8_t *d = ts_stream_data(h->s, 2, &len, &fin);
	uint64_t bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(ts_uni_bytes(h->s, 2), total);
	CU_ASSERT_FALSE(fin);
	for (uint64_t i = 0; i < total && i < len; i++)
		bad += d[i] != pat(i);
	CU_ASSERT_EQUAL(bad, 0);
}

static void open_control(struct harness *h, uint64_t seed, uint32_t loss)
{
	CU_ASSERT_FATAL(h_init(h, NULL, NULL, seed) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(h, h_cond_handshake, 5000 * H_MS));
	h->up.loss_pct = h->down.loss_pct = loss;
	CU_ASSERT_EQUAL_FATAL(shb_quic_conn_uni_open(h->c), 2);
}

/* 40 KB in 100-byte pieces, 500 bytes every 30 ms while earlier ones
 * are still in flight (never a quiet moment): acknowledgements move the
 * window, which stays within the 1 KiB in the connection's memory. */
static void test_window_moves(void)
{
	struct harness h;
	uint64_t off = 0;

	open_control(&h, 31, 0);
	for (int round = 0; round < 80; round++) {
		for (int k = 0; k < 5; k++)
			CU_ASSERT_EQUAL(send_pat(&h, &off, 100), 0);
		CU_ASSERT_TRUE(h_run(&h, NULL, 30 * H_MS));
		CU_ASSERT(h.c->st[h.c->nbidi].sbase + 1024 >= off);
	}
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL(off, 40000);
	CU_ASSERT_PTR_NULL(h.c->uni_tx[0].heap);
	CU_ASSERT(h.c->uni_tx[0].acked == 40000 || h.c->st[0].slen == 40000);
	check_server(&h, 40000);
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

/* With 15% loss both ways and acknowledgements arriving out of order:
 * every byte arrives once and in order, lost ones resent after the
 * window moved past acknowledged bytes. */
static void test_window_with_loss(void)
{
	struct harness h;
	uint64_t off = 0;

	open_control(&h, 77, 15);
	for (int round = 0; round < 60; round++) {
		for (int k = 0; k < 8; k++)
			CU_ASSERT_EQUAL(send_pat(&h, &off, 90), 0);
		CU_ASSERT_TRUE(h_run(&h, NULL, 30 * H_MS));
	}
	h.up.loss_pct = h.down.loss_pct = 0;
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 20000 * H_MS));
	CU_ASSERT_EQUAL(off, 60 * 8 * 90);
	check_server(&h, off);
	CU_ASSERT(h.c->stats.stream_bytes_resent > 0);
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

/* Nothing acknowledged: 64 KiB fit (in a heap buffer), a byte more does
 * not and changes nothing; once the server acknowledged, room again. */
static void test_window_limit(void)
{
	struct harness h;
	uint64_t off = 0;

	open_control(&h, 5, 0);
	for (int k = 0; k < 64; k++)
		CU_ASSERT_EQUAL(send_pat(&h, &off, 1024), 0);
	CU_ASSERT_EQUAL(send_pat(&h, &off, 1), SHB_QUIC_CONN_E_LIMIT);
	CU_ASSERT_EQUAL(off, SHB_QUIC_CONN_UNI_MAX_BUF);
	CU_ASSERT_PTR_NOT_NULL(h.c->uni_tx[0].heap);
	CU_ASSERT_EQUAL(h.c->uni_tx[0].cap, SHB_QUIC_CONN_UNI_MAX_BUF);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 5000 * H_MS));
	CU_ASSERT_EQUAL(send_pat(&h, &off, 1000), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 5000 * H_MS));
	check_server(&h, SHB_QUIC_CONN_UNI_MAX_BUF + 1000);
	h_fini(&h);
}

CU_TestInfo shb_test_conn_uni[] = {
	{"uni stream: acknowledged bytes dropped", test_window_moves},
	{"uni stream: losses resent after the window moved",
	 test_window_with_loss},
	{"uni stream: at most 64 KiB unacknowledged", test_window_limit},
	CU_TEST_INFO_NULL,
};
