/* The h2 test executable: the shared HTTP code (Huffman, integers), the
 * frame codec, HPACK, the response scanner, the connection through the
 * vtable, flow control, and the built shared module. */
#include "h2_tests.h"

CU_SuiteInfo shb_test_suites[] = {
	{"h2_huffman", NULL, NULL, NULL, NULL, shb_h2_huffman_tests},
	{"h2_prefint", NULL, NULL, NULL, NULL, shb_h2_prefint_tests},
	{"h2_hpack", NULL, NULL, NULL, NULL, shb_h2_hpack_tests},
	{"h2_hscan", NULL, NULL, NULL, NULL, shb_h2_hscan_tests},
	{"h2_hscan_table", NULL, NULL, NULL, NULL, shb_h2_hscan_table_tests},
	{"h2_hmemo", NULL, NULL, NULL, NULL, shb_h2_hmemo_tests},
	{"h2_frame", NULL, NULL, NULL, NULL, shb_h2_frame_tests},
	{"h2_conn", NULL, NULL, NULL, NULL, shb_h2_conn_tests},
	{"h2_conn_errors", NULL, NULL, NULL, NULL, shb_h2_conn_error_tests},
	{"h2_conn_streams", NULL, NULL, NULL, NULL, shb_h2_conn_stream_tests},
	{"h2_conn_hostile", NULL, NULL, NULL, NULL, shb_h2_conn_hostile_tests},
	{"h2_flow", NULL, NULL, NULL, NULL, shb_h2_flow_tests},
	{"h2_module", NULL, NULL, NULL, NULL, shb_h2_module_tests},
	{"h2_fields", NULL, NULL, NULL, NULL, shb_h2_fields_tests},
	{"h2_observe", NULL, NULL, NULL, NULL, shb_h2_observe_tests},
	{"h2_var", NULL, NULL, NULL, NULL, shb_h2_var_tests},
	{"h2_resp", NULL, NULL, NULL, NULL, shb_h2_resp_tests},
	{"h2_prio", NULL, NULL, NULL, NULL, shb_h2_prio_tests},
	{"h2_profile", NULL, NULL, NULL, NULL, shb_h2_profile_tests},
	CU_SUITE_INFO_NULL,
};
