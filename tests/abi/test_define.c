/* SHB_PLUGIN_DEFINE (shb/define.h): the modules define_c.c (C11) and
 * define_cxx.cc (C++11), built like plugins, loaded as the core loads them
 * (paths in SHB_TEST_DEFINE_C and SHB_TEST_DEFINE_CXX). Both are compiled
 * with -Wpedantic -Werror. */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>

/* Mirrors the struct behind define_c.c's test extension. */
struct define_calls {
	uint32_t inits;
	uint32_t deinits;
	const struct shb_host *host;
};

static void log_nothing(uint32_t level, const char *plugin_id,
			const char *msg)
{
	(void)level;
	(void)plugin_id;
	(void)msg;
}

static void *open_module(const char *env, const struct shb_plugin_entry **e)
{
	const char *path = getenv(env);
	void *dl;

	*e = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dl);
	*e = dlsym(dl, SHB_PLUGIN_ENTRY_SYMBOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*e);
	return dl;
}

/* The ELF size of the exported entry: what the loader reads. */
static size_t entry_symbol_size(const void *entry)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (!dladdr1(entry, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return 0;
	return sym->st_size;
}

static void test_define_c_entry(void)
{
	const struct shb_plugin_entry *e;
	void *dl = open_module("SHB_TEST_DEFINE_C", &e);

	CU_ASSERT_EQUAL(e->struct_size, sizeof(struct shb_plugin_entry));
	CU_ASSERT_EQUAL(entry_symbol_size(e), sizeof(struct shb_plugin_entry));
	CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
	CU_ASSERT_EQUAL(e->abi_minor, SHB_TARGET_ABI_MINOR);
	CU_ASSERT_EQUAL(e->flags, 0);
	CU_ASSERT_STRING_EQUAL(e->id, "org.shb.test.define-c");
	CU_ASSERT_STRING_EQUAL(e->version, "1.2.3");
	CU_ASSERT_STRING_EQUAL(e->vendor, "shb");
	CU_ASSERT_STRING_EQUAL(e->url, "https://example.org/");
	CU_ASSERT_STRING_EQUAL(e->license, "MIT");
	/* Nothing but the entry is exported. */
	CU_ASSERT_PTR_NULL(dlsym(dl, "shb_define_init_"));
	CU_ASSERT_PTR_NULL(dlsym(dl, "shb_define_get_factory_"));
	CU_ASSERT_PTR_NULL(dlsym(dl, "shb_define_protos_"));
	dlclose(dl);
}

static void test_define_c_init_deinit_extension(void)
{
	const struct shb_plugin_entry *e;
	void *dl = open_module("SHB_TEST_DEFINE_C", &e);
	struct shb_host quiet = {.struct_size = sizeof(quiet)};
	struct shb_host host = {.struct_size = sizeof(host), .log = log_nothing};
	const struct define_calls *calls;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e->get_extension);
	CU_ASSERT_PTR_NULL(e->get_extension("org.shb.test.other/1"));
	calls = e->get_extension("org.shb.test.define-calls/1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(calls);
	CU_ASSERT_EQUAL(calls->inits, 0);
	/* init's own result comes back through the wrapper. */
	CU_ASSERT_EQUAL(e->init(&quiet), SHB_E_UNSUPPORTED);
	CU_ASSERT_EQUAL(calls->inits, 1);
	CU_ASSERT_EQUAL(e->init(&host), SHB_OK);
	CU_ASSERT_EQUAL(calls->inits, 2);
	CU_ASSERT_PTR_EQUAL(calls->host, &host);
	CU_ASSERT_EQUAL(calls->deinits, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->deinit);
	e->deinit();
	CU_ASSERT_EQUAL(calls->deinits, 1);
	dlclose(dl);
}

static void test_define_c_factories(void)
{
	const struct shb_plugin_entry *e;
	void *dl = open_module("SHB_TEST_DEFINE_C", &e);
	const struct shb_proto_factory *pf;
	const struct shb_report_factory *rf;

	pf = e->get_factory(SHB_FACTORY_PROTOCOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
	CU_ASSERT_EQUAL(pf->struct_size, sizeof(*pf));
	CU_ASSERT_EQUAL(pf->count, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pf->get(0));
	CU_ASSERT_PTR_NOT_NULL_FATAL(pf->get(1));
	CU_ASSERT_STRING_EQUAL(pf->get(0)->name, "one");
	CU_ASSERT_STRING_EQUAL(pf->get(1)->name, "two");
	CU_ASSERT_PTR_NULL(pf->get(2));
	CU_ASSERT_PTR_NULL(pf->get(UINT32_MAX));

	rf = e->get_factory(SHB_FACTORY_REPORTER);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf);
	CU_ASSERT_EQUAL(rf->struct_size, sizeof(*rf));
	CU_ASSERT_EQUAL(rf->count, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf->get(0));
	CU_ASSERT_STRING_EQUAL(rf->get(0)->name, "rep");
	CU_ASSERT_PTR_NULL(rf->get(1));

	CU_ASSERT_PTR_NULL(e->get_factory("shb.protocol/2"));
	CU_ASSERT_PTR_NULL(e->get_factory("shb.protocol"));
	CU_ASSERT_PTR_NULL(e->get_factory(""));
	CU_ASSERT_PTR_NULL(e->get_factory(NULL));
	dlclose(dl);
}

/* The short form from C++: NULL init, deinit and strings; an empty
 * protocol list answers NULL, not an empty factory. */
static void test_define_cxx(void)
{
	const struct shb_plugin_entry *e;
	void *dl = open_module("SHB_TEST_DEFINE_CXX", &e);
	struct shb_host host = {.struct_size = sizeof(host)};
	const struct shb_report_factory *rf;

	CU_ASSERT_EQUAL(e->struct_size, sizeof(struct shb_plugin_entry));
	CU_ASSERT_EQUAL(entry_symbol_size(e), sizeof(struct shb_plugin_entry));
	CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
	CU_ASSERT_EQUAL(e->abi_minor, SHB_TARGET_ABI_MINOR);
	CU_ASSERT_STRING_EQUAL(e->id, "org.shb.test.define-cxx");
	CU_ASSERT_PTR_NULL(e->version);
	CU_ASSERT_PTR_NULL(e->vendor);
	CU_ASSERT_PTR_NULL(e->url);
	CU_ASSERT_PTR_NULL(e->license);
	CU_ASSERT_PTR_NULL(e->get_extension);
	/* Mandatory for the loader even when the plugin gave none. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->init);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->deinit);
	CU_ASSERT_EQUAL(e->init(&host), SHB_OK);
	e->deinit();

	CU_ASSERT_PTR_NULL(e->get_factory(SHB_FACTORY_PROTOCOL));
	rf = e->get_factory(SHB_FACTORY_REPORTER);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf);
	CU_ASSERT_EQUAL(rf->count, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf->get(0));
	CU_ASSERT_STRING_EQUAL(rf->get(0)->name, "cxx");
	CU_ASSERT_PTR_NULL(rf->get(1));
	dlclose(dl);
}

static CU_TestInfo define_tests[] = {
	{"C entry and exports", test_define_c_entry},
	{"C init, deinit and extension", test_define_c_init_deinit_extension},
	{"C factories", test_define_c_factories},
	{"C++ short form", test_define_cxx},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"define", NULL, NULL, NULL, NULL, define_tests},
	CU_SUITE_INFO_NULL,
};
