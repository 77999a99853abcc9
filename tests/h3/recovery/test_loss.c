/* Loss detection through struct shb_quic_recovery with a scripted clock:
 * RTT from ACKs, packet- and time-threshold losses, reordered, duplicate
 * and invalid ACK frames, ACK-only packets, trimming our ACK ranges, one
 * window reduction per recovery period, persistent congestion, the full
 * ring, and a randomised comparison with a naive model. */
#include <string.h>

#include "recovery_tests.h"

static struct rh h;

#define APP SHB_QUIC_PNS_APP
#define INI SHB_QUIC_PNS_INITIAL
#define HSK SHB_QUIC_PNS_HANDSHAKE
/* The default start: RFC 9002 7.2 for 1200-byte datagrams. */
#define WIN0 UINT64_C(12000)

static const struct shb_quic_rtt *rtt(void)
{
	return shb_quic_recovery_rtt(&h.r);
}

static const struct shb_quic_cc *cc(void)
{
	return shb_quic_recovery_cc(&h.r);
}

/* RFC 9002 5.3 on the numbers of test_rtt.c, fed through ACK frames. */
static void test_rtt_from_acks(void)
{
	rh_init(&h, NULL);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 0, 10 * MS, T0 + 100 * MS), 1);
	CU_ASSERT_EQUAL(rtt()->latest, 100 * MS);
	CU_ASSERT_EQUAL(rtt()->smoothed, 100 * MS);
	CU_ASSERT_EQUAL(rtt()->var, 50 * MS);
	CU_ASSERT_EQUAL(rtt()->min, 100 * MS);
	CU_ASSERT_EQUAL(rtt()->first_sample_time, T0 + 100 * MS);
	/* Not confirmed yet: a 10 ms delay is used unclamped. */
	rh_send(&h, APP, SZ, 1, T0 + 200 * MS, NULL);
	rh_ack(&h, APP, 1, 1, 10 * MS, T0 + 320 * MS);
	CU_ASSERT_EQUAL(rtt()->smoothed, 101250000);
	CU_ASSERT_EQUAL(rtt()->var, 40 * MS);
	/* Confirmed, peer max_ack_delay 5 ms: the 10 ms delay counts as 5,
	 * adjusted 115: rttvar (3*40 + 13.75)/4, srtt (7*101.25 + 115)/8. */
	shb_quic_recovery_handshake_confirmed(&h.r, T0 + 330 * MS);
	shb_quic_recovery_set_peer_max_ack_delay(&h.r, 5 * MS);
	rh_send(&h, APP, SZ, 1, T0 + 400 * MS, NULL);
	rh_ack(&h, APP, 2, 2, 10 * MS, T0 + 520 * MS);
	CU_ASSERT_EQUAL(rtt()->latest, 120 * MS);
	CU_ASSERT_EQUAL(rtt()->var, 33437500);
	CU_ASSERT_EQUAL(rtt()->smoothed, 102968750);
	CU_ASSERT_EQUAL(rh_count(&h, RH_ACKED), 3);
	rh_free(&h);

	/* Initial ACKs never subtract the delay. */
	rh_init(&h, NULL);
	rh_send(&h, INI, SZ, 1, T0, NULL);
	rh_ack(&h, INI, 0, 0, 0, T0 + 100 * MS);
	rh_send(&h, INI, SZ, 1, T0 + 200 * MS, NULL);
	rh_ack(&h, INI, 1, 1, 10 * MS, T0 + 320 * MS);
	CU_ASSERT_EQUAL(rtt()->smoothed, (7 * 100 * MS + 120 * MS) / 8);
	CU_ASSERT_EQUAL(rtt()->var, (3 * 50 * MS + 20 * MS) / 4);
	rh_free(&h);
}

/* An RTT sample needs the frame's largest to be newly acknowledged and
 * something newly acknowledged to be ack-eliciting. */
static void test_rtt_sample_conditions(void)
{
	rh_init(&h, NULL);
	for (int i = 0; i < 3; i++)
		rh_send(&h, APP, SZ, 1, T0 + (uint64_t)i * MS, NULL);
	rh_ack(&h, APP, 2, 2, 0, T0 + 50 * MS);
	CU_ASSERT_EQUAL(rtt()->latest, 48 * MS);
	/* 0 and 1 are new but 2 is not: no sample. */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 2, 0, T0 + 90 * MS), 2);
	CU_ASSERT_EQUAL(rtt()->latest, 48 * MS);
	CU_ASSERT_EQUAL(rtt()->smoothed, 48 * MS);
	/* An ACK-only packet acknowledged alone: no sample. */
	rh_send(&h, APP, 40, 0, T0 + 100 * MS, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 3, 3, 0, T0 + 400 * MS), 1);
	CU_ASSERT_EQUAL(rtt()->latest, 48 * MS);
	/* ... but with an ack-eliciting one newly acked too, the largest
	 * (ACK-only) gives the sample. */
	rh_send(&h, APP, SZ, 1, T0 + 500 * MS, NULL);
	rh_send(&h, APP, 40, 0, T0 + 510 * MS, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 4, 5, 0, T0 + 530 * MS), 2);
	CU_ASSERT_EQUAL(rtt()->latest, 20 * MS);
	rh_free(&h);
}

/* 0..5 sent 1 ms apart; ACK [3,4] at 50 ms: 0 and 1 are 3+ below the
 * largest (lost), 2 is not and waits for the time threshold 9/8 * 46 ms,
 * which the loss timer then declares. */
static void test_packet_and_time_threshold(void)
{
	struct shb_quic_timeout to;

	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 6; i++)
		rh_send(&h, APP, SZ, 1, T0 + (uint64_t)i * MS, NULL);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 6 * SZ);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 3, 4, 0, T0 + 50 * MS), 2);
	CU_ASSERT_EQUAL(rh_count(&h, RH_ACKED), 2);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 2);
	CU_ASSERT_TRUE(rh_has(&h, RH_ACKED, APP, 3));
	CU_ASSERT_TRUE(rh_has(&h, RH_ACKED, APP, 4));
	CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, 0));
	CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, 1));
	/* The callbacks carry the references given at send time. */
	for (uint32_t i = 0; i < h.nev; i++) {
		CU_ASSERT_EQUAL(h.ev[i].nrefs, 1);
		CU_ASSERT_EQUAL(h.ev[i].tag, h.ev[i].pn);
		CU_ASSERT_EQUAL(h.ev[i].ref0.id, h.ev[i].pn);
		CU_ASSERT_EQUAL(h.ev[i].ref0.offset, h.ev[i].pn * 100);
		CU_ASSERT_EQUAL(h.ev[i].ref0.kind, 7);
		CU_ASSERT_EQUAL(h.ev[i].time_sent, T0 + h.ev[i].pn * MS);
	}
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 2 * SZ);
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_acked(&h.r, APP), 4);
	/* Loss timer: sent at 2 ms + 51.75 ms. */
	CU_ASSERT_EQUAL(shb_quic_recovery_deadline(&h.r), T0 + 53750000);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_timeout(&h.r, T0 + 53749999, &to),
			SHB_QUIC_TIMEOUT_NONE);
	CU_ASSERT_EQUAL(to.kind, SHB_QUIC_TIMEOUT_NONE);
	rh_clear_events(&h);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_timeout(&h.r, T0 + 53750000, &to),
			SHB_QUIC_TIMEOUT_LOSS);
	CU_ASSERT_EQUAL(to.kind, SHB_QUIC_TIMEOUT_LOSS);
	CU_ASSERT_EQUAL(to.lost, 1);
	CU_ASSERT_EQUAL(h.nev, 1);
	CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, 2));
	/* Sent before the recovery period began: no second reduction. */
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 2);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, SZ);
	/* Left: 5 in flight, so the PTO from its send time: srtt 46 +
	 * 4 * 23 + max_ack_delay 25 = 163 ms. */
	CU_ASSERT_EQUAL(shb_quic_recovery_deadline(&h.r), T0 + 168 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->packets_lost, 3);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->packets_acked, 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->packets_sent, 6);
	rh_free(&h);
}

/* A packet only one below the largest is lost by time when an ACK comes
 * late enough. */
static void test_time_threshold_on_ack(void)
{
	rh_init(&h, NULL);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	rh_ack(&h, APP, 0, 0, 0, T0 + 20 * MS);
	rh_send(&h, APP, SZ, 1, T0 + 30 * MS, NULL);
	rh_send(&h, APP, SZ, 1, T0 + 80 * MS, NULL);
	rh_clear_events(&h);
	/* latest 20 ms: loss delay 22.5 ms; 1 was sent 70 ms ago. */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 2, 2, 0, T0 + 100 * MS), 1);
	CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, 1));
	CU_ASSERT_TRUE(rh_has(&h, RH_ACKED, APP, 2));
	CU_ASSERT_EQUAL(h.nev, 2);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 0);
	rh_free(&h);
}

static int ack2(enum shb_quic_pns sp, uint64_t lo1, uint64_t hi1, uint64_t lo2,
		uint64_t hi2, uint64_t now)
{
	struct shb_quic_ack_range rg[2] = {{lo1, hi1}, {lo2, hi2}};

	return shb_quic_recovery_on_ack(&h.r, sp, rg, 2, 0, now);
}

/* Two ACK frames arriving in the opposite order to the one they were
 * sent in, with several ranges. */
static void test_out_of_order_acks(void)
{
	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 10; i++)
		rh_send(&h, APP, SZ, 1, T0 + (uint64_t)i * MS, NULL);
	CU_ASSERT_EQUAL(ack2(APP, 8, 9, 5, 6, T0 + 100 * MS), 4);
	CU_ASSERT_EQUAL(rtt()->latest, 91 * MS);
	/* 0..4 are 3+ below 9; 7 waits for the time threshold. */
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 5);
	for (uint64_t pn = 0; pn < 5; pn++)
		CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, pn));
	CU_ASSERT_EQUAL(shb_quic_recovery_deadline(&h.r),
			T0 + 7 * MS + 102375000);
	rh_clear_events(&h);
	/* The older frame: only 7 is news (0..2 and 4 were declared lost). */
	CU_ASSERT_EQUAL(ack2(APP, 4, 7, 0, 2, T0 + 101 * MS), 1);
	CU_ASSERT_EQUAL(h.nev, 1);
	CU_ASSERT_TRUE(rh_has(&h, RH_ACKED, APP, 7));
	CU_ASSERT_EQUAL(rtt()->latest, 94 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_acked(&h.r, APP), 9);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_deadline(&h.r), SHB_QUIC_TIME_NONE);
	rh_free(&h);
}

/* The same frame twice: the second changes nothing at all. */
static void test_duplicate_ack(void)
{
	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 4; i++)
		rh_send(&h, APP, SZ, 1, T0 + (uint64_t)i * MS, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 1, 0, T0 + 50 * MS), 2);
	struct shb_quic_rtt r1 = *rtt();
	struct shb_quic_cc c1 = *cc();
	struct shb_quic_recovery_stats s1 = *shb_quic_recovery_stats(&h.r);
	uint64_t d1 = shb_quic_recovery_deadline(&h.r);

	rh_clear_events(&h);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 1, 0, T0 + 70 * MS), 0);
	CU_ASSERT_EQUAL(h.nev, 0);
	CU_ASSERT_EQUAL(memcmp(&r1, rtt(), sizeof(r1)), 0);
	CU_ASSERT_EQUAL(memcmp(&c1, cc(), sizeof(c1)), 0);
	CU_ASSERT_EQUAL(memcmp(&s1, shb_quic_recovery_stats(&h.r),
			       sizeof(s1)), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_deadline(&h.r), d1);
	rh_free(&h);
}

struct bad_it {
	int calls;
};

static int bad_next(void *p, struct shb_quic_ack_range *out)
{
	struct bad_it *it = p;

	if (it->calls++ == 0) {
		out->lo = 3;
		out->hi = 3;
		return 1;
	}
	return -1;
}

static void test_invalid_acks(void)
{
	struct shb_quic_ack_range rg[2];

	rh_init(&h, NULL);
	for (int i = 0; i < 6; i++)
		rh_send(&h, APP, SZ, 1, T0, NULL);
	/* Never sent: nothing changes. */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 6, 0, T0 + 10 * MS),
			SHB_QUIC_RECOVERY_E_PROTOCOL);
	CU_ASSERT_EQUAL(rh_ack(&h, HSK, 0, 0, 0, T0 + 10 * MS),
			SHB_QUIC_RECOVERY_E_PROTOCOL);
	CU_ASSERT_EQUAL(h.nev, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_acked(&h.r, APP),
			SHB_QUIC_PN_NONE);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 3, 2, 0, T0 + 10 * MS),
			SHB_QUIC_RECOVERY_E_FRAME);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_ack(&h.r, APP, rg, 0, 0, T0),
			SHB_QUIC_RECOVERY_E_FRAME);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_ack(&h.r, APP, NULL, 1, 0, T0),
			SHB_QUIC_RECOVERY_E_FRAME);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_ack(&h.r, 7, rg, 1, 0, T0),
			SHB_QUIC_RECOVERY_E_INVALID);
	CU_ASSERT_EQUAL(h.nev, 0);
	/* Adjacent ranges (no gap) are malformed; the first range was
	 * applied already, and its consequences too (0..2 lost: 3 below 5;
	 * all were sent at T0, 10 ms is within the time threshold). */
	CU_ASSERT_EQUAL(ack2(APP, 5, 5, 3, 4, T0 + 10 * MS),
			SHB_QUIC_RECOVERY_E_FRAME);
	CU_ASSERT_TRUE(rh_has(&h, RH_ACKED, APP, 5));
	CU_ASSERT_EQUAL(rh_count(&h, RH_ACKED), 1);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 3);
	/* Overlapping ranges. */
	CU_ASSERT_EQUAL(ack2(APP, 4, 4, 3, 5, T0 + 11 * MS),
			SHB_QUIC_RECOVERY_E_FRAME);
	CU_ASSERT_TRUE(rh_has(&h, RH_ACKED, APP, 4));
	/* Nothing new in the good range, then a bad one. */
	CU_ASSERT_EQUAL(ack2(APP, 1, 1, 0, 0, T0 + 12 * MS),
			SHB_QUIC_RECOVERY_E_FRAME);
	CU_ASSERT_EQUAL(rh_count(&h, RH_ACKED), 2);
	/* An iterator reporting a malformed frame after one range. */
	struct bad_it it = {0};

	CU_ASSERT_EQUAL(shb_quic_recovery_on_ack_iter(&h.r, APP, bad_next, &it,
						      0, T0 + 13 * MS),
			SHB_QUIC_RECOVERY_E_FRAME);
	CU_ASSERT_EQUAL(it.calls, 2);
	CU_ASSERT_TRUE(rh_has(&h, RH_ACKED, APP, 3));
	CU_ASSERT_EQUAL(rh_count(&h, RH_ACKED), 3);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 3);
	/* The state stayed consistent. */
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 0);
	rh_free(&h);
}

/* ACK-only packets: not in flight, no window, no timer. */
static void test_ack_only_not_in_flight(void)
{
	struct shb_quic_recovery_config cfg = {.initial_window = 2400};
	int rc;

	rh_init(&h, &cfg);
	for (int i = 0; i < 5000; i++) {
		rh_send(&h, APP, 50, 0, T0 + (uint64_t)i, &rc);
		CU_ASSERT_EQUAL_FATAL(rc, SHB_QUIC_RECOVERY_OK);
	}
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_deadline(&h.r), SHB_QUIC_TIME_NONE);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
			SHB_QUIC_SEND_OK);
	/* ACK-only records make room for newer ones before the ring grows:
	 * it holds its start size (quic_sent.h). */
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP),
			SHB_QUIC_SENT_START_RECS);
	rh_send(&h, APP, SZ, 1, T0 + 10 * MS, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_OK);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, SZ);
	/* Acknowledging both kinds: only the ack-eliciting bytes grow the
	 * window (slow start). */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 4990, 5000, 0, T0 + 30 * MS), 11);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 0);
	CU_ASSERT_EQUAL(cc()->cwnd, 2400 + SZ);
	rh_free(&h);
}

/* Receive side through recovery: our ACK in packet 0; when the peer
 * acknowledges packet 0, the ranges it carried are forgotten. */
static void test_trim_through_recovery(void)
{
	struct shb_quic_ack_view v;

	rh_init(&h, NULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_received(&h.r, APP),
			SHB_QUIC_PN_NONE);
	for (uint64_t pn = 0; pn < 10; pn++)
		CU_ASSERT_EQUAL(shb_quic_recovery_on_received(&h.r, APP, pn, 1,
							      T0),
				SHB_QUIC_ACKRX_NEW);
	CU_ASSERT_TRUE(shb_quic_recovery_ack_owed(&h.r, APP));
	CU_ASSERT_FALSE(shb_quic_recovery_ack_owed(&h.r, HSK));
	CU_ASSERT_EQUAL(shb_quic_recovery_ack_view(&h.r, APP, T0, &v), 0);
	CU_ASSERT_EQUAL(v.largest, 9);
	struct shb_quic_sent_desc d = {.tag = 42, .ack_largest = v.largest,
				       .size = 30};

	CU_ASSERT_EQUAL(shb_quic_recovery_on_sent(&h.r, APP, &d, NULL, 0,
						  T0 + MS),
			SHB_QUIC_RECOVERY_OK);
	CU_ASSERT_FALSE(shb_quic_recovery_ack_owed(&h.r, APP));
	CU_ASSERT_FALSE(shb_quic_recovery_ack_pending(&h.r, APP));
	shb_quic_recovery_on_received(&h.r, APP, 10, 0, T0 + 2 * MS);
	CU_ASSERT_FALSE(shb_quic_recovery_ack_owed(&h.r, APP));
	CU_ASSERT_TRUE(shb_quic_recovery_ack_pending(&h.r, APP));
	shb_quic_recovery_on_received(&h.r, APP, 11, 1, T0 + 2 * MS);
	CU_ASSERT_TRUE(shb_quic_recovery_ack_owed(&h.r, APP));
	CU_ASSERT_EQUAL(shb_quic_recovery_ack_view(&h.r, APP, T0, &v), 0);
	CU_ASSERT_EQUAL(v.count, 1);
	CU_ASSERT_EQUAL(v.ranges[0].lo, 0);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 0, 0, T0 + 20 * MS), 1);
	CU_ASSERT_EQUAL(h.ev[0].tag, 42);
	CU_ASSERT_EQUAL(shb_quic_recovery_ack_view(&h.r, APP, T0, &v), 0);
	CU_ASSERT_EQUAL(v.count, 1);
	CU_ASSERT_EQUAL(v.ranges[0].lo, 10);
	CU_ASSERT_EQUAL(v.ranges[0].hi, 11);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_received(&h.r, APP, 5, 1, T0),
			SHB_QUIC_ACKRX_DUPLICATE);
	CU_ASSERT_EQUAL(shb_quic_recovery_largest_received(&h.r, APP), 11);
	rh_free(&h);
}

/* Losses from one flight reduce the window once; losses of packets sent
 * after the reduction reduce it again. */
static void test_one_reduction_per_period(void)
{
	rh_init(&h, NULL);
	for (int i = 0; i < 10; i++)
		rh_send(&h, APP, SZ, 1, T0 + (uint64_t)i * MS, NULL);
	rh_ack(&h, APP, 5, 5, 0, T0 + 100 * MS); /* 0..2 lost */
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 3);
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 2);
	CU_ASSERT_EQUAL(cc()->acked_carry, 0); /* 5 is not counted */
	rh_ack(&h, APP, 6, 6, 0, T0 + 101 * MS); /* 3 lost, same period */
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 4);
	/* ... and 6, sent before the period began, does not count either. */
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 2);
	CU_ASSERT_EQUAL(cc()->acked_carry, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->congestion_events, 1);
	for (int i = 0; i < 4; i++)
		rh_send(&h, APP, SZ, 1, T0 + (uint64_t)(200 + i) * MS, NULL);
	rh_clear_events(&h);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 11, 13, 0, T0 + 300 * MS), 3);
	/* 4, 7, 8, 9 (old) and 10 (sent after the period began) lost. */
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 5);
	CU_ASSERT_TRUE(rh_has(&h, RH_LOST, APP, 10));
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 4);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->congestion_events, 2);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 0);
	rh_free(&h);
}

/* Sends 1..7 after a first RTT sample (packet 0 acked at 100 ms):
 * times in ms from T0; e[i] says whether packet i is ack-eliciting. */
static void persistent_setup(const int e[8])
{
	static const uint64_t at[8] = {0, 200, 700, 1200, 1300, 1400, 1410,
				       1420};

	rh_init(&h, NULL);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	rh_ack(&h, APP, 0, 0, 0, T0 + 100 * MS);
	for (int i = 1; i < 8; i++)
		rh_send(&h, APP, SZ, e[i], T0 + at[i] * MS, NULL);
	rh_clear_events(&h);
}

/* After the ACK of 7 at 1500 ms: srtt 97.5, rttvar 42.5, so the
 * persistent congestion duration is 3 * (97.5 + 170 + 25) = 877.5 ms.
 * Lost: 1..4 (packet threshold). 1 (200) to 3 (1200) spans 1000 ms. */
static void test_persistent_congestion(void)
{
	const int all[8] = {1, 1, 1, 1, 1, 1, 1, 1};

	persistent_setup(all);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 7, 7, 0, T0 + 1500 * MS), 1);
	CU_ASSERT_EQUAL(rtt()->smoothed, 97500000);
	CU_ASSERT_EQUAL(rtt()->var, 42500000);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 4);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->persistent_congestion, 1);
	/* Minimum window, recovery over, so the acked 1200 bytes count
	 * (slow start; 8400 bytes were in flight, the window is full). */
	CU_ASSERT_EQUAL(cc()->cwnd, 2400 + SZ);
	/* Packet 0's ACK did not grow the window: 1200 of 12000 bytes in
	 * flight is application-limited (RFC 9002 7.8). */
	CU_ASSERT_EQUAL(cc()->ssthresh, WIN0 / 2);
	rh_free(&h);
}

/* Packet 2 acknowledged in between breaks the run: 3..4 span 100 ms. */
static void test_persistent_needs_consecutive(void)
{
	const int all[8] = {1, 1, 1, 1, 1, 1, 1, 1};

	persistent_setup(all);
	CU_ASSERT_EQUAL(ack2(APP, 7, 7, 2, 2, T0 + 1500 * MS), 2);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 3);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->persistent_congestion, 0);
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 2); /* 0 was app-limited */
	rh_free(&h);
}

/* Lost ACK-only packets can neither open nor close the run: with 1 and 3
 * ACK-only, the ack-eliciting ends are 2 (700) and 4 (1300): 600 ms. */
static void test_persistent_needs_ack_eliciting(void)
{
	const int some[8] = {1, 0, 1, 0, 1, 1, 1, 1};

	persistent_setup(some);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 7, 7, 0, T0 + 1500 * MS), 1);
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 4);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->persistent_congestion, 0);
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 2); /* 0 was app-limited */
	rh_free(&h);
}

/* Without an earlier RTT sample, the first sample is taken by the very
 * ACK that declares the losses, after all of them were sent: no
 * persistent congestion, however long the lost run. */
static void test_persistent_needs_rtt_sample(void)
{
	static const uint64_t at[6] = {0, 2000, 4000, 4100, 4200, 4300};

	rh_init(&h, NULL);
	for (int i = 0; i < 6; i++)
		rh_send(&h, APP, SZ, 1, T0 + at[i] * MS, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 5, 5, 0, T0 + 4400 * MS), 1);
	CU_ASSERT_EQUAL(rtt()->first_sample_time, T0 + 4400 * MS);
	/* 0..2 by packet threshold, 3 and 4 by time (loss delay 112.5 ms). */
	CU_ASSERT_EQUAL(rh_count(&h, RH_LOST), 5);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->persistent_congestion, 0);
	CU_ASSERT_EQUAL(cc()->cwnd, WIN0 / 2);
	rh_free(&h);
}

static void test_ring_full(void)
{
	struct shb_quic_recovery_config cfg = {
		.ring_capacity = {0, 0, 8},
		.ref_capacity = {0, 0, 16},
	};
	uint32_t max = 0;
	int rc;

	rh_init(&h, &cfg);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_OK);
	CU_ASSERT_EQUAL(max, 16);
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
				SHB_QUIC_SEND_OK);
		rh_send(&h, APP, SZ, 1, T0 + (uint64_t)i, &rc);
		CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_OK);
	}
	/* 6 of 8 used: the last 2 are kept for probes. */
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_RING_FULL);
	CU_ASSERT_EQUAL(max, 0);
	rh_send(&h, APP, SZ, 1, T0 + 10, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_E_FULL);
	rh_send(&h, APP, 40, 0, T0 + 11, &rc);
	CU_ASSERT_EQUAL(rc, SHB_QUIC_RECOVERY_NOT_RECORDED);
	CU_ASSERT_EQUAL(shb_quic_recovery_next_pn(&h.r, APP), 8);
	CU_ASSERT_EQUAL(cc()->bytes_in_flight, 6 * SZ);
	/* Unrecorded packets were still sent: acknowledging them is no
	 * protocol violation, and frees the ring. */
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 7, 0, T0 + 20 * MS), 6);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.r, APP), 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_OK);
	/* More references than can_send() allowed. */
	struct shb_quic_frame_ref refs[17];
	struct shb_quic_sent_desc d = {.ack_largest = SHB_QUIC_PN_NONE,
				       .size = SZ, .ack_eliciting = 1};

	memset(refs, 0, sizeof(refs));
	CU_ASSERT_EQUAL(shb_quic_recovery_on_sent(&h.r, APP, &d, refs, 17, T0),
			SHB_QUIC_RECOVERY_E_FULL);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_sent(&h.r, APP, &d, NULL, 1, T0),
			SHB_QUIC_RECOVERY_E_INVALID);
	CU_ASSERT_EQUAL(shb_quic_recovery_on_sent(&h.r, APP, &d, refs, 16,
						  T0 + 21 * MS),
			SHB_QUIC_RECOVERY_OK);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, &max),
			SHB_QUIC_SEND_OK);
	CU_ASSERT_EQUAL(max, 0);
	rh_free(&h);
}

/* ---- model ------------------------------------------------------------- */

#define NPN 3000

struct lm_pkt {
	uint64_t time;
	uint8_t eliciting, state; /* state: 0 out, 1 acked, 2 lost */
};

static struct lm_pkt lm[NPN];
static uint8_t peer_got[NPN];

/* Events of `kind` for ack-eliciting packets. */
static uint32_t eliciting_events(int kind, uint64_t next)
{
	uint32_t n = 0;

	for (uint64_t p = 0; p < next; p++)
		n += lm[p].eliciting && rh_has(&h, kind, APP, p);
	return n;
}

/* The peer receives ~75% of the packets; each ACK frame lists every
 * packet it received so far (largest first); the model applies the RFC
 * rules by brute force and must agree on every acked and lost packet and
 * on bytes in flight. A ring of 255 records is used whole from the start
 * and nothing is ever evicted; one of 256 starts at 32 and grows, and
 * evicts ACK-only records before it grows (quic_sent.h): those may then
 * go unreported, every ack-eliciting packet still agrees. */
static void model_random(uint32_t ring, int strict)
{
	uint64_t seed = 4242;
	/* A window of 200 packets: enough in flight to grow the ring. */
	struct shb_quic_recovery_config cfg = {.ring_capacity = {0, 0, ring},
					       .initial_window = 200 * SZ};

	uint32_t grown = 0;

	for (int round = 0; round < 12; round++) {
		uint64_t now = T0, next = 0, largest = SHB_QUIC_PN_NONE;
		/* One step in 4 is an ACK frame; the growing ring also sees
		 * runs of up to 64 packets between ACKs. */
		uint64_t ack_one_in = strict ? 4 : UINT64_C(4) << (round % 5);

		rh_init(&h, &cfg);
		memset(lm, 0, sizeof(lm));
		memset(peer_got, 0, sizeof(peer_got));
		while (next < NPN - 4) {
			uint64_t x = rh_rand(&seed);

			now += (x >> 8) % (2 * MS);
			if (x % ack_one_in != 0) {
				int el = (x >> 20) % 5 != 0;
				int rc;

				if (el && shb_quic_recovery_can_send(&h.r, APP,
						SZ, NULL) == SHB_QUIC_SEND_RING_FULL)
					continue;
				uint64_t pn = rh_send(&h, APP, SZ, el, now, &rc);

				/* With an ACK one step in 4 the ring stays
				 * short: nothing is ever left unrecorded. With
				 * long runs an ACK-only packet may find the
				 * ring full of ack-eliciting ones. */
				CU_ASSERT_FATAL(rc == SHB_QUIC_RECOVERY_OK ||
						(!strict && !el &&
						 rc == SHB_QUIC_RECOVERY_NOT_RECORDED));
				lm[pn].time = now;
				lm[pn].eliciting = (uint8_t)el;
				peer_got[pn] = (x >> 30) % 4 != 0;
				next = pn + 1;
				continue;
			}
			/* An ACK frame of all received, largest first. */
			static struct shb_quic_ack_range rg[NPN];
			uint32_t n = 0;

			for (int64_t p = (int64_t)next - 1; p >= 0; p--) {
				if (!peer_got[p])
					continue;
				if (n > 0 && rg[n - 1].lo == (uint64_t)p + 1)
					rg[n - 1].lo = (uint64_t)p;
				else
					rg[n++] = (struct shb_quic_ack_range){
						(uint64_t)p, (uint64_t)p};
			}
			if (n == 0)
				continue;
			rh_clear_events(&h);
			now += MS;
			int rc = shb_quic_recovery_on_ack(&h.r, APP, rg, n, 0,
							  now);

			CU_ASSERT_FATAL(rc >= 0);
			if (largest == SHB_QUIC_PN_NONE || rg[0].hi > largest)
				largest = rg[0].hi;
			uint32_t newly = 0;

			for (uint64_t p = 0; p < next; p++) {
				if (peer_got[p] && lm[p].state == 0) {
					lm[p].state = 1;
					newly++;
					if (strict || lm[p].eliciting)
						CU_ASSERT_FATAL(rh_has(&h, RH_ACKED, APP, p));
				}
			}
			if (strict)
				CU_ASSERT_EQUAL_FATAL((uint32_t)rc, newly);
			CU_ASSERT_FATAL((uint32_t)rc <= newly);
			uint64_t delay = shb_quic_rtt_loss_delay(rtt());
			uint32_t lost = 0;

			for (uint64_t p = 0; newly && p <= largest; p++) {
				if (lm[p].state != 0)
					continue;
				if (lm[p].time + delay <= now || largest - p >= 3) {
					lm[p].state = 2;
					lost += strict || lm[p].eliciting;
					if (strict || lm[p].eliciting)
						CU_ASSERT_FATAL(rh_has(&h, RH_LOST, APP, p));
				}
			}
			if (strict) {
				CU_ASSERT_EQUAL_FATAL(rh_count(&h, RH_LOST), lost);
				CU_ASSERT_EQUAL_FATAL(rh_count(&h, RH_ACKED), newly);
			} else {
				CU_ASSERT_EQUAL_FATAL(eliciting_events(RH_LOST, next), lost);
			}
			uint64_t bif = 0;

			for (uint64_t p = 0; p < next; p++)
				if (lm[p].state == 0 && lm[p].eliciting)
					bif += SZ;
			CU_ASSERT_EQUAL_FATAL(cc()->bytes_in_flight, bif);
		}
		if (shb_quic_sent_ring_cap(&h.r.s[APP].sent) > grown)
			grown = shb_quic_sent_ring_cap(&h.r.s[APP].sent);
		rh_free(&h);
	}
	CU_ASSERT_EQUAL(grown, strict ? ring : 256);
}

static void test_model_random(void)
{
	model_random(255, 1);
}

static void test_model_random_growing(void)
{
	model_random(256, 0);
}

CU_TestInfo shb_rec_loss_tests[] = {
	{"RTT from ACK frames (worked numbers)", test_rtt_from_acks},
	{"when an ACK gives an RTT sample", test_rtt_sample_conditions},
	{"packet threshold, then loss timer", test_packet_and_time_threshold},
	{"time threshold on a late ACK", test_time_threshold_on_ack},
	{"out-of-order ACK frames", test_out_of_order_acks},
	{"duplicate ACK frame changes nothing", test_duplicate_ack},
	{"invalid ACK frames", test_invalid_acks},
	{"ACK-only packets are not in flight", test_ack_only_not_in_flight},
	{"our ACK ranges trimmed via recovery", test_trim_through_recovery},
	{"one reduction per recovery period", test_one_reduction_per_period},
	{"persistent congestion", test_persistent_congestion},
	{"persistent congestion: consecutive only",
	 test_persistent_needs_consecutive},
	{"persistent congestion: ack-eliciting ends",
	 test_persistent_needs_ack_eliciting},
	{"persistent congestion: after an RTT sample",
	 test_persistent_needs_rtt_sample},
	{"ring full", test_ring_full},
	{"random sends and ACKs vs naive model", test_model_random},
	{"the same with a growing ring", test_model_random_growing},
	CU_TEST_INFO_NULL,
};
