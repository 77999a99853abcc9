/* The kit tests' fixture (kit_fx.h). */
#include "kit_fx.h"

#include <stdio.h>
#include <stdlib.h>

#include <CUnit/CUnit.h>

struct shb_kit_host kh;

void fx_open(struct fx *f, const char *variant)
{
	const char *dir = getenv("SHB_KIT_FIXTURES");
	char path[512], err[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof path, "%s/shb-proto-kit%s.so", dir, variant);
	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&kh, SHB_ABI_MINOR), 0);
	if (shb_kit_plugin_open(&f->p, path, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", path, err);
		CU_FAIL_FATAL("fixture not loaded");
	}
	CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_init(&f->p, &kh), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f->m, &kh,
						    shb_kit_plugin_proto(&f->p, NULL),
						    NULL),
			      SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f->m, NULL), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_worker_init(&f->m), SHB_OK);
}

void fx_close(struct fx *f)
{
	shb_kit_module_destroy(&f->m);
	shb_kit_plugin_close(&f->p);
	shb_kit_host_fini(&kh);
}

void assert_violations(const char *const *want, size_t n)
{
	CU_ASSERT_EQUAL(kh.violation_count, n);
	for (size_t i = 0; i < n && i < kh.violation_count; i++)
		CU_ASSERT_STRING_EQUAL(kh.violations[i], want[i]);
	if (kh.violation_count != n)
		shb_kit_host_dump_violations(&kh, "  violation: ");
}
