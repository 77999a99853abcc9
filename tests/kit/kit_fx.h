/* The kit tests' fixture (test_kit.c, test_kit_host.c): the kit's fake
 * host they share, the fixture protocol of SHB_KIT_FIXTURES loaded with
 * one module created and prepared, and the check of the rule violations
 * the host recorded. */
#ifndef SHB_TEST_KIT_FX_H
#define SHB_TEST_KIT_FX_H

#include <stddef.h>
#include <CUnit/CUnit.h>
#include <shb/kit.h>

extern struct shb_kit_host kh;

/* The suites (test_kit.c registers them). */
extern CU_TestInfo kit_tests[], kit_host_tests[];

/* A loaded fixture with one module created and prepared. */
struct fx {
	struct shb_kit_plugin p;
	struct shb_kit_module m;
};

/* shb-proto-kit<variant>.so loaded, kh set up (fatal on failure). */
void fx_open(struct fx *f, const char *variant);
void fx_close(struct fx *f);
/* kh recorded exactly these violations, in order. */
void assert_violations(const char *const *want, size_t n);

#endif
