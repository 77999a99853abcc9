/* The h1 test executable: suites (one array per source file) and the
 * kit's fake host that records what the plugin reports. */
#ifndef SHB_H1_TESTS_H
#define SHB_H1_TESTS_H

#include <CUnit/CUnit.h>

#include <shb/shb.h>
#include <shb/kit.h>

extern CU_TestInfo shb_h1_scan_tests[];
extern CU_TestInfo shb_h1_request_tests[];
extern CU_TestInfo shb_h1_conn_tests[];
extern CU_TestInfo shb_h1_module_tests[];
extern CU_TestInfo shb_h1_var_tests[];
extern CU_TestInfo shb_h1_resp_tests[];
extern CU_TestInfo shb_h1_pipe_tests[];

/* The plugin's entry, linked in from the static library. */
extern const struct shb_plugin_entry shb_plugin_entry_v1;

/* The fake host (the plugin test kit's): what the plugin reported since
 * shb_h1_test_reset() is in its records (done, logs), and every rule the
 * plugin broke in its violations. */
extern struct shb_kit_host shb_h1_kit;

/* Clears the kit's records; `debug` non-zero makes log_enabled(DEBUG)
 * true. */
void shb_h1_test_reset(int debug);

/* The protocol descriptor, after init() with the fake host. */
const struct shb_proto_desc *shb_h1_test_desc(void);

/* A module for a run with these enum shb_run_flags. */
void *shb_h1_test_module(uint32_t run_flags);

#endif
