/* The plugin as the loader sees it: entry, factory, descriptor, options, and
 * the built shared module's exports (path in SHB_H1_PLUGIN). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "h1_conn.h"
#include "h1_tests.h"

static void test_entry(void)
{
	const struct shb_plugin_entry *e = &shb_plugin_entry_v1;

	CU_ASSERT_EQUAL(e->struct_size, sizeof(*e));
	CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
	CU_ASSERT(e->abi_minor <= SHB_ABI_MINOR);
	CU_ASSERT_STRING_EQUAL(e->id, "org.shb.proto.h1");
	CU_ASSERT_PTR_NOT_NULL(e->init);
	CU_ASSERT_PTR_NULL(e->get_factory(SHB_FACTORY_REPORTER));
	CU_ASSERT_PTR_NULL(e->get_factory("shb.protocol/2"));
}

static void test_descriptor(void)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	const struct shb_proto_factory *f =
		shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);

	CU_ASSERT_PTR_NULL(f->get(1));
	CU_ASSERT_EQUAL(d->struct_size, sizeof(*d));
	CU_ASSERT_EQUAL(d->transport, SHB_TRANSPORT_STREAM);
	/* -p pipelines; absolute form for a forward proxy (since 1.3). */
	CU_ASSERT_EQUAL(d->flags, SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED |
				  SHB_PROTO_ABSOLUTE_FORM);
	CU_ASSERT_STRING_EQUAL(d->name, "h1");
	CU_ASSERT_STRING_EQUAL(d->display_name, "HTTP/1.1");
	CU_ASSERT_STRING_EQUAL(d->schemes[0], "http");
	CU_ASSERT_STRING_EQUAL(d->schemes[1], "https");
	CU_ASSERT_PTR_NULL(d->schemes[2]);
	CU_ASSERT_STRING_EQUAL(d->alpn[0], "http/1.1");
	CU_ASSERT_PTR_NULL(d->alpn[1]);
	CU_ASSERT_EQUAL(d->conn_size, sizeof(struct shb_h1_conn));
	CU_ASSERT_EQUAL(d->vt->struct_size, sizeof(struct shb_proto_vtable));
	CU_ASSERT_PTR_NULL(d->vt->recv_dgrams);
	CU_ASSERT_PTR_NULL(d->vt->write_dgrams);
	CU_ASSERT_PTR_NOT_NULL(d->vt->cancel);
}

static void test_options_rejected(void)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	static const struct shb_kv opts[] = {{"window", "1"}};
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.scheme = "http",
		.host = "h",
		.authority = "h",
		.options = opts,
		.option_count = 1,
	};
	char err[128] = "";
	void *m = NULL;

	CU_ASSERT_EQUAL(d->vt->module_create(&shb_h1_kit.host, &cfg, &m, err,
					     sizeof(err)),
			SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_STRING_EQUAL(err, "h1: unknown option 'window' (h1 has none)");
}

static void test_shared_module(void)
{
	const char *path = getenv("SHB_H1_PLUGIN");
	const struct shb_plugin_entry *e;
	void *h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	e = dlsym(h, SHB_PLUGIN_ENTRY_SYMBOL);
	CU_ASSERT_PTR_NOT_NULL(e);
	if (e) {
		CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
		CU_ASSERT_STRING_EQUAL(e->id, "org.shb.proto.h1");
		CU_ASSERT_PTR_NOT_NULL(e->get_factory(SHB_FACTORY_PROTOCOL));
	}
	/* Nothing but the entry is exported. */
	CU_ASSERT_PTR_NULL(dlsym(h, "shb_h1_scan_feed"));
	CU_ASSERT_PTR_NULL(dlsym(h, "shb_h1_conn_recv"));
	CU_ASSERT_PTR_NULL(dlsym(h, "shb_h1_request_encode"));
	dlclose(h);
}

CU_TestInfo shb_h1_module_tests[] = {
	{"entry", test_entry},
	{"descriptor", test_descriptor},
	{"options rejected", test_options_rejected},
	{"shared module exports", test_shared_module},
	CU_TEST_INFO_NULL,
};
