/* Shared pieces of the URL and command-line tests. */
#ifndef SHB_TEST_URL_CLI_UTIL_H
#define SHB_TEST_URL_CLI_UTIL_H

#include <stddef.h>
#include <CUnit/CUnit.h>

extern CU_TestInfo shb_url_tests[];
extern CU_TestInfo shb_duration_tests[];
extern CU_TestInfo shb_cli_tests[];
extern CU_TestInfo shb_route_tests[];
extern CU_TestInfo shb_plugin_opt_tests[];

/* A fresh private directory (mkdtemp under $TMPDIR), removed with its
 * files by shb_test_rmdir. */
char *shb_test_mkdir(void);
void shb_test_rmdir(char *dir);
/* Writes n bytes to dir/name; returns the malloc'd full path. */
char *shb_test_write(const char *dir, const char *name, const void *data,
		     size_t n);

#endif
