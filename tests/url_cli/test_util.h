/* Shared pieces of the URL and command-line tests. */
#ifndef SHB_TEST_URL_CLI_UTIL_H
#define SHB_TEST_URL_CLI_UTIL_H

#include <stddef.h>
#include <CUnit/CUnit.h>

extern CU_TestInfo shb_url_tests[];
extern CU_TestInfo shb_duration_tests[];
extern CU_TestInfo shb_cli_tests[];
extern CU_TestInfo shb_cli_body_tests[];
extern CU_TestInfo shb_cli_value_tests[];
extern CU_TestInfo shb_cli_target_tests[];
extern CU_TestInfo shb_route_tests[];
extern CU_TestInfo shb_plugin_opt_tests[];
extern CU_TestInfo shb_cli_hint_tests[];

struct shb_config;

/* Runs shb_cli_parse on {"shb", args..., NULL} with writable copies. */
int shb_test_parse(struct shb_config *cfg, char *err, size_t errlen,
		   const char *const *args);
/* Parses args, which must fail with exactly `want` on one line. */
void shb_test_expect_error(const char *want, const char *const *args);

#define PARSE(cfg, err, ...)                                                   \
	shb_test_parse((cfg), (err), sizeof(err),                              \
		       (const char *const[]){__VA_ARGS__, NULL})
#define EXPECT_ERROR(want, ...)                                                \
	shb_test_expect_error((want), (const char *const[]){__VA_ARGS__, NULL})

/* A fresh private directory (mkdtemp under $TMPDIR), removed with its
 * files by shb_test_rmdir. */
char *shb_test_mkdir(void);
void shb_test_rmdir(char *dir);
/* Writes n bytes to dir/name; returns the malloc'd full path. */
char *shb_test_write(const char *dir, const char *name, const void *data,
		     size_t n);

#endif
