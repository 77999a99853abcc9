/* The recovery test executable: ACK tracker, RTT estimator, congestion
 * controller, sent-packet ring, and loss detection / PTO driven by a
 * scripted clock. */
#include "recovery_tests.h"

CU_SuiteInfo shb_test_suites[] = {
	{"quic_ackrx", NULL, NULL, NULL, NULL, shb_rec_ackrx_tests},
	{"quic_rtt", NULL, NULL, NULL, NULL, shb_rec_rtt_tests},
	{"quic_cc", NULL, NULL, NULL, NULL, shb_rec_cc_tests},
	{"quic_sent", NULL, NULL, NULL, NULL, shb_rec_sent_tests},
	{"quic_loss", NULL, NULL, NULL, NULL, shb_rec_loss_tests},
	{"quic_pto", NULL, NULL, NULL, NULL, shb_rec_pto_tests},
	{"quic_pacer", NULL, NULL, NULL, NULL, shb_rec_pacer_tests},
	CU_SUITE_INFO_NULL,
};
