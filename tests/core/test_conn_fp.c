/* The connection fingerprints a run keeps (core/engine/conn_fp.c): the
 * first text of each kind, printable ASCII of at most SHB_CONN_FP_MAX
 * octets; anything else is ignored, and the results carry each kind in
 * its own member. */
#include <string.h>

#include <CUnit/CUnit.h>

#include <shb/results.h>

#include "engine/conn_fp.h"

static void test_first_kept(void)
{
	static struct shb_conn_fps f;

	memset(&f, 0, sizeof(f));
	CU_ASSERT_PTR_NULL(shb_conn_fp_get(&f, SHB_FP_H2_AKAMAI));
	shb_conn_fp_keep(&f, SHB_FP_H2_AKAMAI, "2:0|00|0|m,s,a,p");
	shb_conn_fp_keep(&f, SHB_FP_H2_AKAMAI, "1:1|00|0|m,a,s,p");
	CU_ASSERT_STRING_EQUAL(shb_conn_fp_get(&f, SHB_FP_H2_AKAMAI), "2:0|00|0|m,s,a,p");
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, "1-3-15");
	shb_conn_fp_keep(&f, SHB_FP_H3_SETTINGS, "1:0;GREASE");

	struct shb_results r;
	memset(&r, 0, sizeof(r));
	shb_conn_fp_results(&f, &r);
	CU_ASSERT_STRING_EQUAL(r.h2_fingerprint, "2:0|00|0|m,s,a,p");
	CU_ASSERT_STRING_EQUAL(r.quic_tp_fingerprint, "1-3-15");
	CU_ASSERT_STRING_EQUAL(r.h3_settings_fingerprint, "1:0;GREASE");
}

/* Unknown kinds, empty, unprintable and too long texts leave the slot
 * empty for a good one after them. */
static void test_refused(void)
{
	static struct shb_conn_fps f;
	static char big[SHB_CONN_FP_MAX + 2];

	memset(&f, 0, sizeof(f));
	shb_conn_fp_keep(&f, 0, "x");
	shb_conn_fp_keep(&f, 4, "x");
	CU_ASSERT_PTR_NULL(shb_conn_fp_get(&f, 0));
	CU_ASSERT_PTR_NULL(shb_conn_fp_get(&f, 4));
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, NULL);
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, "");
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, "1-2\n");
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, "1-\x7f");
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, "1-\xc3\xa9");
	memset(big, 'a', SHB_CONN_FP_MAX + 1);
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, big);
	CU_ASSERT_PTR_NULL(shb_conn_fp_get(&f, SHB_FP_QUIC_TP));
	big[SHB_CONN_FP_MAX] = '\0'; /* exactly the longest kept */
	shb_conn_fp_keep(&f, SHB_FP_QUIC_TP, big);
	CU_ASSERT_EQUAL(strlen(shb_conn_fp_get(&f, SHB_FP_QUIC_TP)), SHB_CONN_FP_MAX);
}

static CU_TestInfo tests[] = {
	{"the first of each kind is kept", test_first_kept},
	{"bad kinds and texts are ignored", test_refused},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"core_conn_fp", NULL, NULL, NULL, NULL, tests},
	CU_SUITE_INFO_NULL,
};
