/* Suites of the connection tests. */
#ifndef SHB_TEST_CONN_TESTS_H
#define SHB_TEST_CONN_TESTS_H

#include <CUnit/CUnit.h>

extern CU_TestInfo shb_test_conn_basic[];
extern CU_TestInfo shb_test_conn_loss[];
extern CU_TestInfo shb_test_conn_streams[];
extern CU_TestInfo shb_test_conn_misc[];
extern CU_TestInfo shb_test_conn_parts[];
extern CU_TestInfo shb_test_conn_hostile[];
extern CU_TestInfo shb_test_conn_own[];
extern CU_TestInfo shb_test_conn_uni[];

#endif
