/* Send buffers owned by request stream slots (shb_quic_conn_bidi_buffer):
 * bytes written there arrive exactly, also when packets are lost and
 * resent after the caller's own copy is gone; the buffer is refused once
 * the stream's data was given, and a freed slot's buffer is reused. */
#include <string.h>

#include "conn_harness.h"
#include "conn_tests.h"

static void fill(uint8_t *p, size_t n, uint8_t salt)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + salt);
}

static void check_arrived(struct harness *h, uint64_t id, size_t n,
			  uint8_t salt)
{
	static uint8_t want[20000];
	size_t len;
	bool fin;
	const uint8_t *got = ts_stream_data(h->s, id, &len, &fin);

	CU_ASSERT_FATAL(n <= sizeof(want));
	fill(want, n, salt);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(len, n);
	CU_ASSERT_TRUE(fin);
	CU_ASSERT(len == n && memcmp(got, want, n) == 0);
}

static void test_owned_bytes(void)
{
	struct harness h;
	struct ts_config sc = {.response_len = 100};

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 5) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	/* Our next first and third datagrams are lost: their stream data is
	 * resent from the slots' buffers. */
	h.up.drop_list[0] = h.up.sent + 1;
	h.up.drop_list[1] = h.up.sent + 3;
	uint64_t sent0 = h.up.sent, delivered0 = h.up.delivered;
	CU_ASSERT_PTR_NULL(shb_quic_conn_bidi_buffer(h.c, 0, 10)); /* not open */
	int64_t a = shb_quic_conn_bidi_open(h.c);
	int64_t b = shb_quic_conn_bidi_open(h.c);
	CU_ASSERT_EQUAL_FATAL(a, 0);
	CU_ASSERT_EQUAL_FATAL(b, 4);
	uint8_t *pa = shb_quic_conn_bidi_buffer(h.c, 0, 12000);
	uint8_t *pb = shb_quic_conn_bidi_buffer(h.c, 4, 300);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pb);
	CU_ASSERT(pa != pb);
	fill(pa, 12000, 1);
	fill(pb, 300, 2);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_send(h.c, 0, pa, 12000, 1), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_send(h.c, 4, pb, 300, 1), 0);
	/* Given once: no other buffer for it. */
	CU_ASSERT_PTR_NULL(shb_quic_conn_bidi_buffer(h.c, 0, 10));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 60000 * H_MS));
	CU_ASSERT(h.up.delivered - delivered0 + 2 <= h.up.sent - sent0);
	check_arrived(&h, 0, 12000, 1);
	check_arrived(&h, 4, 300, 2);

	/* Both retired and settled: the slots are free, and the next
	 * streams get their buffers back, grown when asked for more. */
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 0, 0), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 4, 0), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL_FATAL(h.c->bidi_live, 0);
	int64_t c = shb_quic_conn_bidi_open(h.c);
	CU_ASSERT_EQUAL_FATAL(c, 8);
	uint8_t *pc = shb_quic_conn_bidi_buffer(h.c, 8, 200);
	CU_ASSERT(pc == pa || pc == pb);
	fill(pc, 200, 3);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_send(h.c, 8, pc, 200, 1), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	check_arrived(&h, 8, 200, 3);
	h_fini(&h);
}

CU_TestInfo shb_test_conn_own[] = {
	{"request bytes in slot-owned buffers", test_owned_bytes},
	CU_TEST_INFO_NULL,
};
