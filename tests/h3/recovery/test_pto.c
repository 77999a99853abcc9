/* PTO: timing from the last ack-eliciting packet, doubling, probes counted
 * down, probes past the window and the ring reserve, the application
 * space only after confirmation, the earliest space, anti-deadlock before
 * the server acknowledged a Handshake packet, backoff reset rules, and
 * discarding a space. */
#include <string.h>

#include "recovery_tests.h"

static struct rh h;

#define APP SHB_QUIC_PNS_APP
#define INI SHB_QUIC_PNS_INITIAL
#define HSK SHB_QUIC_PNS_HANDSHAKE
#define PTO0 (999 * MS) /* 333 + 4 * 166.5 ms, before any sample */

static uint64_t deadline(void)
{
	return shb_quic_recovery_deadline(&h.r);
}

static int timeout(uint64_t now, struct shb_quic_timeout *to)
{
	return shb_quic_recovery_on_timeout(&h.r, now, to);
}

static void test_nothing_armed(void)
{
	struct shb_quic_timeout to;

	rh_init(&h, NULL);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	CU_ASSERT_EQUAL(timeout(T0 + 3600000 * MS, &to), SHB_QUIC_TIMEOUT_NONE);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 0);
	rh_free(&h);
}

static void test_pto_doubling_and_probes(void)
{
	struct shb_quic_timeout to;
	int rc;

	rh_init(&h, NULL);
	rh_send(&h, INI, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(deadline(), T0 + PTO0);
	CU_ASSERT_EQUAL(timeout(T0 + PTO0 - 1, &to), SHB_QUIC_TIMEOUT_NONE);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 0);
	CU_ASSERT_EQUAL(timeout(T0 + PTO0, &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.kind, SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, INI);
	CU_ASSERT_EQUAL(to.probes, 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, HSK), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_period(&h.r, INI), 2 * PTO0);
	/* Still counted from the last ack-eliciting packet sent. */
	CU_ASSERT_EQUAL(deadline(), T0 + 2 * PTO0);
	/* Another pass of the loop before the deadline: no new probes. */
	CU_ASSERT_EQUAL(timeout(T0 + PTO0 + 5 * MS, &to), SHB_QUIC_TIMEOUT_NONE);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 1);
	/* Probes count down as they are sent, each re-arming the PTO. */
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, INI, SZ, NULL),
			SHB_QUIC_SEND_PROBE);
	rh_send(&h, INI, SZ, 1, T0 + 1000 * MS, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_OK);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 1);
	CU_ASSERT_EQUAL(deadline(), T0 + 1000 * MS + 2 * PTO0);
	/* ACK-only packets are not probes. */
	rh_send(&h, INI, 50, 0, T0 + 1000 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 1);
	rh_send(&h, INI, SZ, 1, T0 + 1001 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, INI, SZ, NULL),
			SHB_QUIC_SEND_OK);
	rh_send(&h, INI, SZ, 1, T0 + 1002 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 0);
	CU_ASSERT_EQUAL(deadline(), T0 + 1002 * MS + 2 * PTO0);
	/* Second PTO: doubled again. */
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.probes, 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 2);
	CU_ASSERT_EQUAL(deadline(), T0 + 1002 * MS + 4 * PTO0);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->pto_fired, 2);
	/* Third. */
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(deadline(), T0 + 1002 * MS + 8 * PTO0);
	/* A PTO never declares anything lost. */
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 0);
	rh_free(&h);
}

/* The application space gets a PTO (with max_ack_delay, doubled too)
 * only once the handshake is confirmed. */
static void test_app_space(void)
{
	struct shb_quic_timeout to;

	rh_init(&h, NULL);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	rh_send(&h, HSK, SZ, 1, T0 + MS, NULL);
	CU_ASSERT_EQUAL(deadline(), T0 + MS + PTO0);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, HSK);
	rh_free(&h);

	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(deadline(), T0 + PTO0 + 25 * MS);
	shb_quic_recovery_set_peer_max_ack_delay(&h.r, 10 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_period(&h.r, APP), PTO0 + 10 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_period(&h.r, HSK), PTO0);
	rh_send(&h, APP, SZ, 1, T0 + MS, NULL);
	CU_ASSERT_EQUAL(deadline(), T0 + MS + PTO0 + 10 * MS);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, APP);
	CU_ASSERT_EQUAL(to.probes, 2);
	CU_ASSERT_EQUAL(deadline(), T0 + MS + 2 * (PTO0 + 10 * MS));
	rh_free(&h);
}

/* With several spaces in flight the earliest PTO wins. */
static void test_earliest_space(void)
{
	struct shb_quic_timeout to;

	rh_init(&h, NULL);
	shb_quic_recovery_handshake_keys(&h.r);
	rh_send(&h, INI, SZ, 1, T0, NULL);
	rh_send(&h, HSK, SZ, 1, T0 + 100 * MS, NULL);
	CU_ASSERT_EQUAL(deadline(), T0 + PTO0);
	/* Initial acknowledged at 200 ms: srtt 200, rttvar 100, so the
	 * Handshake PTO is 100 + 600 ms. */
	CU_ASSERT_EQUAL(rh_ack(&h, INI, 0, 0, 0, T0 + 200 * MS), 1);
	CU_ASSERT_EQUAL(deadline(), T0 + 700 * MS);
	CU_ASSERT_EQUAL(timeout(T0 + 700 * MS, &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, HSK);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, HSK), 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 0);
	rh_free(&h);
}

/* Probes may go past the congestion window. */
static void test_probe_past_window(void)
{
	struct shb_quic_recovery_config cfg = {.initial_window = 2400};
	struct shb_quic_timeout to;

	rh_init(&h, &cfg);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	rh_send(&h, APP, SZ, 1, T0 + MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
			SHB_QUIC_SEND_CWND);
	CU_ASSERT_EQUAL(deadline(), T0 + MS + PTO0 + 25 * MS);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
			SHB_QUIC_SEND_PROBE);
	rh_send(&h, APP, SZ, 1, T0 + 2000 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
			SHB_QUIC_SEND_PROBE);
	rh_send(&h, APP, SZ, 1, T0 + 2000 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, 4 * SZ);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
			SHB_QUIC_SEND_CWND);
	rh_free(&h);
}

/* Probes use the two reserved ring slots; with the ring completely full a
 * probe still goes out as an untracked PING. */
static void test_probe_ring_reserve(void)
{
	struct shb_quic_recovery_config cfg = {.ring_capacity = {0, 0, 6}};
	struct shb_quic_sent_desc ping = {.ack_largest = SHB_QUIC_PN_NONE,
					  .size = 30, .ack_eliciting = 1};
	struct shb_quic_timeout to;
	uint32_t max;
	int rc;

	rh_init(&h, &cfg);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 4; i++)
		rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_RING_FULL);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_PROBE);
	CU_ASSERT_EQUAL(max, 8); /* 12 references, 4 in use */
	rh_send(&h, APP, SZ, 1, T0 + 2000 * MS, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_OK);
	rh_send(&h, APP, SZ, 1, T0 + 2000 * MS, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_OK);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 6);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_RING_FULL);
	/* Next PTO, ring full: PING probes only. */
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_PROBE);
	CU_ASSERT_EQUAL(max, 0);
	rh_send(&h, APP, SZ, 1, T0 + 9000 * MS, &rc); /* carries a reference */
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_E_FULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, APP), 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_sent(&h.r, APP, &ping, NULL, 0,
						  T0 + 9000 * MS),
			SHB_QUIC_RECOVERY_NOT_RECORDED);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, APP), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, 6 * SZ);
	/* The PTO restarts from the untracked probe. */
	CU_ASSERT_EQUAL(deadline(), T0 + 9000 * MS + 4 * (PTO0 + 25 * MS));
	/* Its ACK also acknowledges the tracked packets. */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 7, 0, T0 + 9100 * MS), 6);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, APP), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_OK);
	rh_free(&h);
}

/* A full ring whose packets were all lost: the peer acknowledges only the
 * untracked PING probes. That ACK has no record to mark, yet it raises
 * the largest acknowledged: every record falls to the packet threshold,
 * the ring empties and the backoff ends. */
static void test_ack_of_untracked_probes(void)
{
	struct shb_quic_recovery_config cfg = {.ring_capacity = {0, 0, 6}};
	struct shb_quic_sent_desc ping = {.ack_largest = SHB_QUIC_PN_NONE,
					  .size = 30, .ack_eliciting = 1};
	struct shb_quic_timeout to;

	rh_init(&h, &cfg);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 4; i++)
		rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	rh_send(&h, APP, SZ, 1, T0 + 2000 * MS, NULL);
	rh_send(&h, APP, SZ, 1, T0 + 2000 * MS, NULL);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(shb_quic_recovery_on_sent(&h.r, APP, &ping, NULL,
							  0, T0 + 9000 * MS),
				SHB_QUIC_RECOVERY_NOT_RECORDED);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 6);
	CU_ASSERT_EQUAL(rh_count(&h, 0), 0);

	/* Packets 6 and 7 were the PINGs: no record is acknowledged. */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 6, 7, 0, T0 + 9100 * MS), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_acked(&h.r, APP), 7);
	CU_ASSERT_EQUAL(rh_count(&h, RH_ACKED), 0);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 6);
	for (uint64_t pn = 0; pn < 6; pn++)
		CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, pn));
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, APP), 0);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
			SHB_QUIC_SEND_OK);

	/* The same ACK again, or one below the largest, changes nothing. */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 6, 7, 0, T0 + 9200 * MS), 0);
	CU_ASSERT_EQUAL(rh_count(&h, 0), 6);
	rh_free(&h);
}

/* Before the server acknowledged a Handshake packet, the client keeps a
 * PTO armed with nothing in flight (RFC 9002 6.2.2.1). */
static void test_anti_deadlock(void)
{
	struct shb_quic_timeout to;

	rh_init(&h, NULL);
	rh_send(&h, INI, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, INI, 0, 0, 0, T0 + 100 * MS), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, 0);
	/* srtt 100, rttvar 50: 300 ms from now. */
	CU_ASSERT_EQUAL(deadline(), T0 + 400 * MS);
	CU_ASSERT_EQUAL(timeout(T0 + 400 * MS, &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, INI); /* no Handshake keys yet */
	CU_ASSERT_EQUAL(to.probes, 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 1);
	CU_ASSERT_EQUAL(deadline(), T0 + 1000 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, INI, SZ, NULL),
			SHB_QUIC_SEND_PROBE);
	rh_send(&h, INI, SZ, 1, T0 + 401 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, INI), 0);
	CU_ASSERT_EQUAL(deadline(), T0 + 1001 * MS);
	/* An Initial ACK does not reset the backoff yet: the client cannot
	 * know that the server validated its address. latest 99 ms: srtt
	 * 99.875, rttvar 37.75, PTO (99.875 + 151) * 2 = 501.75 ms. */
	CU_ASSERT_EQUAL(rh_ack(&h, INI, 1, 1, 0, T0 + 500 * MS), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 1);
	CU_ASSERT_EQUAL(deadline(), T0 + 1001750000);
	/* With Handshake keys the probe goes to the Handshake space. */
	shb_quic_recovery_handshake_keys(&h.r);
	CU_ASSERT_EQUAL(deadline(), T0 + 1001750000);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, HSK);
	CU_ASSERT_EQUAL(to.probes, 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 2);
	rh_send(&h, HSK, SZ, 1, T0 + 1100 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, HSK), 0);
	/* The server acknowledged a Handshake packet: backoff reset, and
	 * with nothing in flight nothing is armed any more. */
	CU_ASSERT_EQUAL(rh_ack(&h, HSK, 0, 0, 0, T0 + 1150 * MS), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 0);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	rh_free(&h);
}

/* After confirmation any ACK that acknowledges something new resets the
 * backoff and cancels owed probes. */
static void test_backoff_reset(void)
{
	struct shb_quic_timeout to;

	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(timeout(T0 + PTO0 + 25 * MS, &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 1);
	rh_send(&h, APP, SZ, 1, T0 + 1025 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, APP), 1);
	/* The probe is acknowledged; packet 0 is then lost by time (sent
	 * 1100 ms ago, loss delay 84.375 ms). */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 1, 1, 0, T0 + 1100 * MS), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, APP), 0);
	CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, 0));
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	rh_free(&h);
}

/* Discarding Initial (first Handshake packet sent) and Handshake
 * (confirmed): records out of bytes in flight without callbacks, loss
 * timer and ACK state gone, backoff reset, later calls refused. */
static void test_discard(void)
{
	struct shb_quic_timeout to;
	struct shb_quic_ack_view v;
	int rc;

	rh_init(&h, NULL);
	shb_quic_recovery_handshake_keys(&h.r);
	shb_quic_recovery_on_received(&h.r, INI, 0, 1, T0);
	rh_send(&h, INI, SZ, 1, T0, NULL);
	rh_send(&h, INI, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, INI, 1, 1, 0, T0 + 100 * MS), 1);
	/* 0 waits for the time threshold: 112.5 ms. */
	CU_ASSERT_EQUAL(deadline(), T0 + 112500000);
	rh_send(&h, HSK, SZ, 1, T0 + 101 * MS, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, 2 * SZ);
	CU_ASSERT_TRUE(shb_quic_recovery_ack_owed(&h.r, INI));

	shb_quic_recovery_discard(&h.r, INI, T0 + 101 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, SZ);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, INI), 0);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 0);
	CU_ASSERT_FALSE(shb_quic_recovery_ack_owed(&h.r, INI));
	CU_ASSERT_EQUAL(shb_quic_recovery_ack_view(&h.r, INI, T0, &v), -1);
	/* Only the Handshake PTO is left: srtt 100, rttvar 50. */
	CU_ASSERT_EQUAL(deadline(), T0 + 401 * MS);
	rh_send(&h, INI, SZ, 1, T0 + 102 * MS, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_E_INVALID);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_received(&h.r, INI, 1, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, INI, SZ, NULL),
			SHB_QUIC_SEND_DISCARDED);
	CU_ASSERT_EQUAL(rh_ack(&h, INI, 0, 0, 0, T0 + 103 * MS), 0);
	/* Not even checked against what was sent: the space is gone. */
	CU_ASSERT_EQUAL(rh_ack(&h, INI, 0, 100, 0, T0 + 103 * MS), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_acked(&h.r, INI), 1);
	CU_ASSERT_EQUAL(h.nev, 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, SZ);
	shb_quic_recovery_discard(&h.r, INI, T0 + 104 * MS); /* no-op */
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, SZ);

	CU_ASSERT_EQUAL(timeout(T0 + 401 * MS, &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, HSK);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 1);
	shb_quic_recovery_handshake_confirmed(&h.r, T0 + 402 * MS);
	shb_quic_recovery_discard(&h.r, HSK, T0 + 402 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_pto_count(&h.r), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_probes(&h.r, HSK), 0);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	CU_ASSERT_EQUAL(timeout(T0 + 100000 * MS, &to), SHB_QUIC_TIMEOUT_NONE);
	rh_free(&h);
}

/* The first Handshake packet may be ACK-only: Initial is then discarded
 * with nothing else in flight, and the anti-deadlock PTO must take over
 * in the Handshake space. */
static void test_discard_then_anti_deadlock(void)
{
	struct shb_quic_timeout to;
	int rc;

	rh_init(&h, NULL);
	rh_send(&h, INI, SZ, 1, T0, NULL);
	shb_quic_recovery_handshake_keys(&h.r);
	rh_send(&h, HSK, 40, 0, T0 + 50 * MS, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_OK);
	shb_quic_recovery_discard(&h.r, INI, T0 + 50 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->bytes_in_flight, 0);
	CU_ASSERT_EQUAL(deadline(), T0 + 50 * MS + PTO0);
	CU_ASSERT_EQUAL(timeout(deadline(), &to), SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(to.space, HSK);
	CU_ASSERT_EQUAL(to.probes, 1);
	rh_free(&h);
}

/* reset() gives a new connection's state with the same memory. */
static void test_reset(void)
{
	rh_init(&h, NULL);
	void *mem = h.r.mem;

	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 5; i++)
		rh_send(&h, APP, SZ, 1, T0, NULL);
	rh_ack(&h, APP, 4, 4, 0, T0 + 10 * MS);
	shb_quic_recovery_discard(&h.r, INI, T0);
	shb_quic_recovery_reset(&h.r);
	CU_ASSERT_PTR_EQUAL(h.r.mem, mem);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	CU_ASSERT_EQUAL(shb_quic_recovery_next_pn(&h.r, APP), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_acked(&h.r, APP),
			SHB_QUIC_PN_NONE);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->cwnd, UINT64_C(12000));
	CU_ASSERT_FALSE(shb_quic_rtt_has_sample(shb_quic_recovery_rtt(&h.r)));
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->packets_sent, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, INI, SZ, NULL),
			SHB_QUIC_SEND_OK);
	/* Not confirmed any more: an App packet alone arms nothing. */
	rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(deadline(), SHB_QUIC_TIME_NONE);
	rh_free(&h);
	/* Bad configurations are refused. */
	struct shb_quic_recovery r;
	struct shb_quic_recovery_config bad = {.ring_capacity = {3, 0, 0}};

	CU_ASSERT_EQUAL(shb_quic_recovery_init(&r, &bad, NULL),
			SHB_QUIC_RECOVERY_E_INVALID);
	shb_quic_recovery_free(&r);
	CU_ASSERT_EQUAL(shb_quic_recovery_init(&r, NULL, NULL),
			SHB_QUIC_RECOVERY_OK);
	shb_quic_recovery_free(&r);
	shb_quic_recovery_free(&r);
}

/* Rings in the caller's memory: the default sizes, refused when short,
 * used in place and never freed by the recovery part (the sanitizers
 * would report a free of static memory). */
static void test_rings_in_caller_memory(void)
{
	static uint64_t mem[(128u << 10) / 8];
	struct shb_quic_recovery r;
	struct shb_quic_recovery_config bad = {.ring_capacity = {3, 0, 0}};
	size_t need = shb_quic_recovery_mem_size(NULL);

	/* 32 + 32 + 1024 records of 48 bytes, twice as many references of
	 * 24 bytes. */
	CU_ASSERT_EQUAL(sizeof(struct shb_quic_sent), 48);
	CU_ASSERT_EQUAL(sizeof(struct shb_quic_frame_ref), 24);
	CU_ASSERT_EQUAL(need, (32 + 32 + 1024) * 48 + 2 * (32 + 32 + 1024) * 24);
	CU_ASSERT_EQUAL(shb_quic_recovery_mem_size(&bad), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_init_in(&r, NULL, NULL, mem, need - 1),
			SHB_QUIC_RECOVERY_E_INVALID);
	CU_ASSERT_EQUAL(shb_quic_recovery_init_in(&r, &bad, NULL, mem, sizeof(mem)),
			SHB_QUIC_RECOVERY_E_INVALID);
	CU_ASSERT_FATAL(need <= sizeof(mem));
	CU_ASSERT_EQUAL(shb_quic_recovery_init_in(&r, NULL, NULL, mem, need),
			SHB_QUIC_RECOVERY_OK);
	CU_ASSERT_PTR_EQUAL(r.mem, mem);
	shb_quic_recovery_free(&r);
	CU_ASSERT_PTR_NULL(r.mem);
	shb_quic_recovery_free(&r);
}

/* foreach_outstanding lists what a probe could carry again. */
struct seen {
	uint32_t n;
	uint64_t pn[8];
	uint64_t ref_offset[8];
};

static void seen_cb(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *p,
		    const struct shb_quic_frame_ref *refs)
{
	struct seen *s = ctx;

	CU_ASSERT_EQUAL(space, HSK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(refs);
	if (s->n < 8) {
		s->pn[s->n] = p->pn;
		s->ref_offset[s->n] = refs[0].offset;
	}
	s->n++;
}

static void test_foreach_outstanding(void)
{
	struct seen s;

	memset(&s, 0, sizeof(s));
	rh_init(&h, NULL);
	for (int i = 0; i < 5; i++)
		rh_send(&h, HSK, SZ, i != 2, T0, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, HSK, 1, 1, 0, T0 + MS), 1);
	/* Outstanding and ack-eliciting: 0, 3, 4 (2 is ACK-only). */
	shb_quic_recovery_foreach_outstanding(&h.r, HSK, seen_cb, &s);
	CU_ASSERT_EQUAL_FATAL(s.n, 3);
	CU_ASSERT_EQUAL(s.pn[0], 0);
	CU_ASSERT_EQUAL(s.pn[1], 3);
	CU_ASSERT_EQUAL(s.pn[2], 4);
	CU_ASSERT_EQUAL(s.ref_offset[2], 400);
	rh_free(&h);
}

CU_TestInfo shb_rec_pto_tests[] = {
	{"nothing armed", test_nothing_armed},
	{"rings in the caller's memory", test_rings_in_caller_memory},
	{"PTO timing, doubling, probes counted down",
	 test_pto_doubling_and_probes},
	{"application space after confirmation", test_app_space},
	{"earliest space wins", test_earliest_space},
	{"probes past the congestion window", test_probe_past_window},
	{"probes use the ring reserve, then PING", test_probe_ring_reserve},
	{"an ACK of untracked probes alone", test_ack_of_untracked_probes},
	{"anti-deadlock PTO before Handshake ACK", test_anti_deadlock},
	{"ACK resets backoff and probes", test_backoff_reset},
	{"discarding spaces", test_discard},
	{"discard, then anti-deadlock", test_discard_then_anti_deadlock},
	{"reset and bad configuration", test_reset},
	{"outstanding packets for probes", test_foreach_outstanding},
	CU_TEST_INFO_NULL,
};
