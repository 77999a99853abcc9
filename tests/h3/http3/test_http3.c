/* The h3/http3 test executable. */
#include "http3_tests.h"

CU_SuiteInfo shb_test_suites[] = {
	{"h3_defs", NULL, NULL, NULL, NULL, shb_h3t_defs_tests},
	{"h3_varint", NULL, NULL, NULL, NULL, shb_h3t_varint_tests},
	{"qpack", NULL, NULL, NULL, NULL, shb_h3t_qpack_tests},
	{"qpack_dyn", NULL, NULL, NULL, NULL, shb_h3t_qpack_dyn_tests},
	{"h3_request", NULL, NULL, NULL, NULL, shb_h3t_request_tests},
	{"h3_response", NULL, NULL, NULL, NULL, shb_h3t_response_tests},
	{"h3_peer", NULL, NULL, NULL, NULL, shb_h3t_peer_tests},
	{"h3_look", NULL, NULL, NULL, NULL, shb_h3t_look_tests},
	CU_SUITE_INFO_NULL,
};
