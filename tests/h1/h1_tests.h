/* The h1 test executable: suites (one array per source file) and the fake
 * host that records what the plugin reports. */
#ifndef SHB_H1_TESTS_H
#define SHB_H1_TESTS_H

#include <CUnit/CUnit.h>

#include <shb/shb.h>

extern CU_TestInfo shb_h1_scan_tests[];
extern CU_TestInfo shb_h1_request_tests[];
extern CU_TestInfo shb_h1_conn_tests[];
extern CU_TestInfo shb_h1_module_tests[];

/* The plugin's entry, linked in from the static library. */
extern const struct shb_plugin_entry shb_plugin_entry_v1;

#define SHB_H1_TEST_MAX_DONE 16
#define SHB_H1_TEST_MAX_LOG 16

struct shb_h1_test_done {
	struct shb_conn *conn;
	uint64_t cookie;
	struct shb_req_result res;
	char detail[128]; /* copy of res.detail, "" when NULL */
	int has_detail;
};

/* What the fake host saw since shb_h1_test_reset(). */
struct shb_h1_test_log {
	size_t done_count;
	struct shb_h1_test_done done[SHB_H1_TEST_MAX_DONE];
	size_t log_count;
	char log[SHB_H1_TEST_MAX_LOG][256];
};

extern struct shb_h1_test_log shb_h1_seen;
extern const struct shb_host shb_h1_test_host;

/* Clears shb_h1_seen; `debug` non-zero makes log_enabled(DEBUG) true. */
void shb_h1_test_reset(int debug);

/* The protocol descriptor, after init() with the fake host. */
const struct shb_proto_desc *shb_h1_test_desc(void);

/* A module for a run with these enum shb_run_flags. */
void *shb_h1_test_module(uint32_t run_flags);

#endif
