/* Loader tests (test_loader.c has the rest): extensions between plugins
 * and from the host, and the provenance of what was loaded. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "engine/host.h"
#include "loader/loader.h"
#include "engine/run.h"
#include "loader_harness.h"
#include "shb_build_config.h"

/* ---- extensions -------------------------------------------------------------------- */

struct fx_ext {
	uint32_t struct_size;
	uint32_t reserved0;
	uintptr_t (*answer)(void);
};

#define FX_EXT_ID "org.shb.test.ext/1"

static void test_loader_extension(void)
{
	const char *dirs[] = { ext };
	struct shb_loader l;
	struct shb_proto_handle h;
	const struct shb_plugin_info *pi;
	size_t n = 0;
	char err[P] = "", want[P], real[PATH_MAX];
	void *module = NULL;

	open_loader(&l, dirs, 1);
	/* The consumer's init() asks for the extension: the loader loads the
	 * provider, later in the search path, to answer it. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "consumer", &h, err, P), 0);
	/* The consumer logs "init" once it has the extension. */
	CU_ASSERT_STRING_EQUAL(events, "init:org.shb.test.ext.provider;"
			       "init:org.shb.test.ext.consumer;");
	/* ...and uses it: module_create returns what answer() said. */
	CU_ASSERT_EQUAL(h.vt.module_create(&fake_host, NULL, &module, err, P),
			SHB_OK);
	CU_ASSERT_EQUAL((uintptr_t)module, 42);
	/* Provenance: the provider first (it answered during the lookup). */
	pi = shb_loader_plugins(&l, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(pi[0].role, "extension");
	CU_ASSERT_STRING_EQUAL(pi[0].name, FX_EXT_ID);
	CU_ASSERT_STRING_EQUAL(pi[0].id, "org.shb.test.ext.provider");
	CU_ASSERT_STRING_EQUAL(pi[1].role, "protocol");
	CU_ASSERT_STRING_EQUAL(pi[1].name, "consumer");
	pjoin(want, P, fixdir, "consumer.so.fx");
	CU_ASSERT_FATAL(realpath(want, real) != NULL);
	CU_ASSERT_STRING_EQUAL(pi[1].path, real);
	/* The consumer is deinited before what it uses. */
	events[0] = '\0';
	shb_loader_fini(&l);
	CU_ASSERT_STRING_EQUAL(events, "deinit:org.shb.test.ext.consumer;"
			       "deinit:org.shb.test.ext.provider;");
}

static void test_loader_extension_missing(void)
{
	const char *dirs[] = { extc };
	struct shb_loader l;
	struct shb_proto_handle h;
	char err[P], want[P];

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "consumer", &h, err, P), -1);
	snprintf(want, P, "%s/shb-proto-consumer.so: init failed: operation "
		 "not supported", extc);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_NULL(shb_loader_extension(&l, "org.shb.none/1"));
	shb_loader_fini(&l);
}

/* Asked outside any init() (as from module_create), the provider loaded
 * for it is deinited last. */
static void test_loader_extension_late(void)
{
	/* extp first: the search for the extension stops at the provider
	 * before it loads any other fixture. */
	const char *dirs[] = { extp, fixdir };
	struct shb_loader l;
	struct shb_proto_handle h;
	const struct fx_ext *e;
	char err[P];

	open_loader(&l, dirs, 2);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, P), 0);
	e = shb_loader_extension(&l, FX_EXT_ID);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->answer(), 42);
	/* Loaded once: asked again, the same table without a second init. */
	CU_ASSERT_PTR_EQUAL(shb_loader_extension(&l, FX_EXT_ID), e);
	CU_ASSERT_EQUAL(inits("org.shb.test.ext.provider"), 1);
	events[0] = '\0';
	shb_loader_fini(&l);
	CU_ASSERT_STRING_EQUAL(events, "deinit:org.shb.test.good;"
			       "deinit:org.shb.test.ext.provider;");
	/* After fini nothing answers. */
	CU_ASSERT_PTR_NULL(shb_loader_extension(&l, FX_EXT_ID));
}

/* The real host: the core's ids first, the loader's on the main thread
 * only. */
static void *worker_ask(void *arg)
{
	const struct shb_host *host = arg;
	static const void *got[2];

	got[0] = host->get_extension(FX_EXT_ID);
	got[1] = host->get_extension(SHB_EXT_RUN_ID);
	return got;
}

static void test_loader_host_extension(void)
{
	const char *dirs[] = { extp };
	const struct shb_host *host = shb_core_host();
	const struct fx_ext *e;
	const void *const *got;
	struct shb_loader l;
	pthread_t t;
	void *ret;

	open_loader(&l, dirs, 1);
	CU_ASSERT_PTR_NULL(host->get_extension(FX_EXT_ID));
	shb_host_set_extensions(shb_loader_extension, &l);
	CU_ASSERT_PTR_EQUAL(host->get_extension(SHB_EXT_RUN_ID),
			    &shb_ext_run_info);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, worker_ask, (void *)host) == 0);
	CU_ASSERT_FATAL(pthread_join(t, &ret) == 0);
	got = ret;
	CU_ASSERT_PTR_NULL(got[0]);
	CU_ASSERT_PTR_EQUAL(got[1], &shb_ext_run_info);
	/* Nothing was loaded for the worker's call. */
	CU_ASSERT_EQUAL(l.file_count, 0);
	e = host->get_extension(FX_EXT_ID);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->answer(), 42);
	shb_loader_fini(&l);
	shb_host_set_extensions(NULL, NULL);
	CU_ASSERT_PTR_NULL(host->get_extension(FX_EXT_ID));
}

/* ---- provenance ---------------------------------------------------------------------- */

static void test_loader_provenance(void)
{
	const char *dirs[] = { fixdir };
	const struct shb_plugin_info *pi, *again;
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;
	char err[P], path[P], real[PATH_MAX];
	size_t n = 99, m = 99;

	open_loader(&l, dirs, 1);
	CU_ASSERT_PTR_NULL(shb_loader_plugins(&l, &n));
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, P), 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, P), 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, "good", &r, err, P), 0);
	pi = shb_loader_plugins(&l, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	fixture(path, "shb-proto-good.so");
	CU_ASSERT_FATAL(realpath(path, real) != NULL);
	CU_ASSERT_EQUAL(real[0], '/');
	CU_ASSERT_STRING_EQUAL(pi[0].path, real);
	CU_ASSERT_STRING_EQUAL(pi[0].id, "org.shb.test.good");
	CU_ASSERT_STRING_EQUAL(pi[0].version, "1.2.3");
	CU_ASSERT_STRING_EQUAL(pi[0].role, "protocol");
	CU_ASSERT_STRING_EQUAL(pi[0].name, "good");
	CU_ASSERT_EQUAL(pi[0].abi_minor, SHB_ABI_MINOR);
	fixture(path, "shb-report-good.so");
	CU_ASSERT_FATAL(realpath(path, real) != NULL);
	CU_ASSERT_STRING_EQUAL(pi[1].path, real);
	CU_ASSERT_STRING_EQUAL(pi[1].id, "org.shb.test.report");
	CU_ASSERT_STRING_EQUAL(pi[1].role, "reporter");
	CU_ASSERT_STRING_EQUAL(pi[1].name, "good");
	/* A later lookup shows in a new array, never in one handed out. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, "goodrep", &r, err, P), 0);
	again = shb_loader_plugins(&l, &m);
	CU_ASSERT_EQUAL(m, 3);
	CU_ASSERT_STRING_EQUAL(again[2].name, "goodrep");
	CU_ASSERT_STRING_EQUAL(pi[1].name, "good");
	CU_ASSERT_PTR_NOT_EQUAL(pi, again);
	/* A failed lookup records nothing. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "norecv", &h, err, P), -1);
	shb_loader_plugins(&l, &m);
	CU_ASSERT_EQUAL(m, 3);
	shb_loader_fini(&l);
}

CU_TestInfo loader_ext_tests[] = {
	{ "extension", test_loader_extension },
	{ "extension_missing", test_loader_extension_missing },
	{ "extension_late", test_loader_extension_late },
	{ "host_extension", test_loader_host_extension },
	{ "provenance", test_loader_provenance },
	CU_TEST_INFO_NULL,
};
