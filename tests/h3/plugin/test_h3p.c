/* The HTTP/3 plugin's unit tests: suites of the files named. */
#include "h3p_tests.h"

CU_SuiteInfo shb_test_suites[] = {
	{"h3p_reqtab", NULL, NULL, NULL, NULL, shb_h3p_reqtab_tests},
	{"h3p_errtext", NULL, NULL, NULL, NULL, shb_h3p_errtext_tests},
	{"h3p_module", NULL, NULL, NULL, NULL, shb_h3p_module_tests},
	{"h3p_profile", NULL, NULL, NULL, NULL, shb_h3p_profile_tests},
	{"h3p_conn", NULL, NULL, NULL, NULL, shb_h3p_conn_tests},
	{"h3p_stream", NULL, NULL, NULL, NULL, shb_h3p_stream_tests},
	{"h3p_end", NULL, NULL, NULL, NULL, shb_h3p_end_tests},
	{"h3p_live", NULL, NULL, NULL, NULL, shb_h3p_live_tests},
	{"h3p_var", NULL, NULL, NULL, NULL, shb_h3p_var_tests},
	{"h3p_resp", NULL, NULL, NULL, NULL, shb_h3p_resp_tests},
	{"h3p_prio", NULL, NULL, NULL, NULL, shb_h3p_prio_tests},
	{"h3p_qpack", NULL, NULL, NULL, NULL, shb_h3p_qpack_tests},
	CU_SUITE_INFO_NULL,
};
