/* The QUIC client connection against the in-process test server. */
#include "conn_harness.h"
#include "conn_tests.h"

CU_SuiteInfo shb_test_suites[] = {
	{"conn_basic", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_basic},
	{"conn_loss", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_loss},
	{"conn_streams", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_streams},
	{"conn_misc", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_misc},
	{"conn_parts", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_parts},
	{"conn_hostile", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_hostile},
	{"conn_own", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_own},
	{"conn_uni", h_suite_init, h_suite_clean, NULL, NULL,
	 shb_test_conn_uni},
	CU_SUITE_INFO_NULL,
};
