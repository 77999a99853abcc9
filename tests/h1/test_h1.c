/* The h1 test executable: scanner, request encoder, connection through the
 * vtable, and the built shared module. */
#include "h1_tests.h"

CU_SuiteInfo shb_test_suites[] = {
	{"h1_scan", NULL, NULL, NULL, NULL, shb_h1_scan_tests},
	{"h1_request", NULL, NULL, NULL, NULL, shb_h1_request_tests},
	{"h1_conn", NULL, NULL, NULL, NULL, shb_h1_conn_tests},
	{"h1_module", NULL, NULL, NULL, NULL, shb_h1_module_tests},
	{"h1_var", NULL, NULL, NULL, NULL, shb_h1_var_tests},
	{"h1_resp", NULL, NULL, NULL, NULL, shb_h1_resp_tests},
	{"h1_pipe", NULL, NULL, NULL, NULL, shb_h1_pipe_tests},
	CU_SUITE_INFO_NULL,
};
