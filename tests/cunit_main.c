/* Shared CUnit runner: every test executable defines shb_test_suites[] and
 * links this main. `prog [SUITE]` runs all suites or the named one. The exit
 * status counts failed tests and suites (CU_get_error() does not). */
#include <stdio.h>
#include <string.h>
#include <CUnit/Basic.h>

extern CU_SuiteInfo shb_test_suites[];

int main(int argc, char **argv)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	if (CU_register_suites(shb_test_suites) != CUE_SUCCESS) {
		fprintf(stderr, "cannot register suites: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (argc > 1) {
		CU_pSuite s = CU_get_suite(argv[1]);
		if (!s) {
			fprintf(stderr, "no suite named %s\n", argv[1]);
			CU_cleanup_registry();
			return 2;
		}
		CU_basic_run_suite(s);
	} else {
		CU_basic_run_tests();
	}
	unsigned failed = CU_get_number_of_tests_failed() +
			  CU_get_number_of_suites_failed();
	unsigned ran = CU_get_number_of_tests_run();
	CU_cleanup_registry();
	if (ran == 0) {
		fprintf(stderr, "no test ran\n");
		return 1;
	}
	return failed ? 1 : 0;
}
