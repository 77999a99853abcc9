/* The plugin as the loader sees it: entry, factory, descriptor, module
 * options, prepared requests, and the built shared module's exports (path
 * in SHB_H3_PLUGIN). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h3p_tests.h"

static const struct shb_proto_desc *get_desc(void)
{
	const struct shb_proto_factory *f;

	h3p_reset(0); /* the kit's host is set up */
	CU_ASSERT_EQUAL_FATAL(shb_plugin_entry_v1.init(&h3p_kit.host), SHB_OK);
	f = shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->count, 1);
	CU_ASSERT_PTR_NULL(f->get(1));
	return f->get(0);
}

static void test_entry(void)
{
	const struct shb_plugin_entry *e = &shb_plugin_entry_v1;

	CU_ASSERT_EQUAL(e->struct_size, sizeof(*e));
	CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
	CU_ASSERT(e->abi_minor <= SHB_ABI_MINOR);
	CU_ASSERT_STRING_EQUAL(e->id, "org.shb.proto.h3");
	CU_ASSERT_PTR_NULL(e->get_factory(SHB_FACTORY_REPORTER));
	CU_ASSERT_PTR_NULL(e->get_factory(NULL));
}

static void test_descriptor(void)
{
	const struct shb_proto_desc *d = get_desc();

	CU_ASSERT_EQUAL(d->struct_size, sizeof(*d));
	CU_ASSERT_EQUAL(d->transport, SHB_TRANSPORT_DGRAM);
	CU_ASSERT_EQUAL(d->flags, SHB_PROTO_MULTIPLEXED);
	CU_ASSERT_STRING_EQUAL(d->name, "h3");
	CU_ASSERT_STRING_EQUAL(d->display_name, "HTTP/3");
	CU_ASSERT_STRING_EQUAL(d->schemes[0], "https");
	CU_ASSERT_PTR_NULL(d->schemes[1]);
	CU_ASSERT_STRING_EQUAL(d->alpn[0], "h3");
	CU_ASSERT_PTR_NULL(d->alpn[1]);
	CU_ASSERT_EQUAL(d->conn_size, sizeof(struct shb_h3_conn));
	CU_ASSERT_EQUAL(d->worker_size, sizeof(struct shb_h3_worker));
	CU_ASSERT_EQUAL(d->vt->struct_size, sizeof(struct shb_proto_vtable));
	CU_ASSERT_PTR_NOT_NULL(d->vt->recv_dgrams);
	CU_ASSERT_PTR_NOT_NULL(d->vt->write_dgrams);
	CU_ASSERT_PTR_NULL(d->vt->recv);
	CU_ASSERT_PTR_NULL(d->vt->pull_send);
	CU_ASSERT_PTR_NOT_NULL(d->vt->cancel);
	CU_ASSERT_PTR_NOT_NULL(d->vt->error_detail);
}

static int create(uint32_t flags, uint32_t parallel, const struct shb_kv *opts,
		  size_t nopt, char *err, size_t errlen, void **m)
{
	const struct shb_proto_desc *d = get_desc();
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = flags,
		.parallel = parallel,
		.scheme = flags & SHB_RUN_TLS ? "https" : "http",
		.host = "192.0.2.1",
		.authority = "192.0.2.1",
		.options = opts,
		.option_count = nopt,
	};
	return d->vt->module_create(&h3p_kit.host, &cfg, m, err, errlen);
}

static void test_module_options(void)
{
	static const struct shb_kv opts[] = {{"window", "1"}};
	const struct shb_proto_desc *d = get_desc();
	char err[160] = "";
	void *m = NULL;

	CU_ASSERT_EQUAL(create(SHB_RUN_TLS, 4, opts, 1, err, sizeof(err), &m), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "h3: unknown option 'window' (known: "
			       "initial-window, pacing, priority-update, "
			       "qpack-table, qpack-blocked, profile)");
	CU_ASSERT_EQUAL(create(0, 4, NULL, 0, err, sizeof(err), &m), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "h3: HTTP/3 runs over QUIC, which needs an https:// URL");
	CU_ASSERT_EQUAL(create(SHB_RUN_TLS, 5000, NULL, 0, err, sizeof(err), &m), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "h3: -p 5000 is above 4096");
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_EQUAL(create(SHB_RUN_TLS, 0, NULL, 0, err, sizeof(err), &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	struct shb_h3_module *mod = m;
	CU_ASSERT_EQUAL(mod->parallel, 1);
	CU_ASSERT_STRING_EQUAL(mod->server_name, "192.0.2.1");
	CU_ASSERT_EQUAL(mod->idle_timeout, SHB_H3_MIN_IDLE_NS);
	CU_ASSERT_PTR_EQUAL(mod->ops, &shb_h3_quic_ops_real);
	d->vt->module_destroy(m);
}

/* --proto-opt initial-window=BYTES and pacing=0|1: declared for the core,
 * parsed into the module (defaults: RFC window, paced), bad values
 * refused with one line. */
static void test_cc_options(void)
{
	static const struct shb_kv lab[] = {{"initial-window", "4M"},
					    {"pacing", "0"}};
	static const struct shb_kv plain[] = {{"initial-window", "64000"},
					      {"pacing", "1"}};
	static const struct {
		struct shb_kv kv;
		const char *err;
	} bad[] = {
		{{"initial-window", "2399"}, "h3: --proto-opt initial-window=2399: "
		 "expected bytes from 2400 to 1G (K and M suffixes allowed)"},
		{{"initial-window", "2G"}, "h3: --proto-opt initial-window=2G: "
		 "expected bytes from 2400 to 1G (K and M suffixes allowed)"},
		{{"initial-window", "12k5"}, "h3: --proto-opt initial-window=12k5: "
		 "expected bytes from 2400 to 1G (K and M suffixes allowed)"},
		{{"initial-window", NULL}, "h3: --proto-opt initial-window=: "
		 "expected bytes from 2400 to 1G (K and M suffixes allowed)"},
		{{"pacing", "yes"}, "h3: --proto-opt pacing=yes: expected 0 or 1"},
		{{"pacing", NULL}, "h3: --proto-opt pacing=: expected 0 or 1"},
	};
	const struct shb_proto_desc *d = get_desc();
	char err[160] = "";
	void *m = NULL;
	int n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d->option_defs);
	for (; d->option_defs[n].key; n++)
		CU_ASSERT_PTR_NOT_NULL(d->option_defs[n].summary);
	CU_ASSERT_EQUAL(n, 6); /* [2] priority-update: test_prio.c */
	CU_ASSERT_STRING_EQUAL(d->option_defs[5].key, "profile");
	CU_ASSERT_STRING_EQUAL(d->option_defs[0].key, "initial-window");
	CU_ASSERT_STRING_EQUAL(d->option_defs[0].value_name, "BYTES");
	CU_ASSERT_STRING_EQUAL(d->option_defs[1].key, "pacing");
	CU_ASSERT_STRING_EQUAL(d->option_defs[1].value_name, "0|1");

	CU_ASSERT_EQUAL_FATAL(create(SHB_RUN_TLS, 4, NULL, 0, err, sizeof(err), &m), SHB_OK);
	CU_ASSERT_EQUAL(((struct shb_h3_module *)m)->initial_window, 0);
	CU_ASSERT_EQUAL(((struct shb_h3_module *)m)->no_pacing, 0);
	d->vt->module_destroy(m);
	m = NULL;
	CU_ASSERT_EQUAL_FATAL(create(SHB_RUN_TLS, 4, lab, 2, err, sizeof(err), &m), SHB_OK);
	CU_ASSERT_EQUAL(((struct shb_h3_module *)m)->initial_window, 4194304);
	CU_ASSERT_EQUAL(((struct shb_h3_module *)m)->no_pacing, 1);
	d->vt->module_destroy(m);
	m = NULL;
	CU_ASSERT_EQUAL_FATAL(create(SHB_RUN_TLS, 4, plain, 2, err, sizeof(err), &m), SHB_OK);
	CU_ASSERT_EQUAL(((struct shb_h3_module *)m)->initial_window, 64000);
	CU_ASSERT_EQUAL(((struct shb_h3_module *)m)->no_pacing, 0);
	d->vt->module_destroy(m);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = NULL;
		err[0] = 0;
		CU_ASSERT_EQUAL(create(SHB_RUN_TLS, 4, &bad[i].kv, 1, err,
				       sizeof(err), &m), SHB_E_INVAL);
		CU_ASSERT_STRING_EQUAL(err, bad[i].err);
		CU_ASSERT_PTR_NULL(m);
	}
}

/* --proto-opt qpack-table=BYTES and qpack-blocked=N: defaults 0, the
 * browsers' 65536 and 100 at most, bad values refused with one line. */
static void test_qpack_options(void)
{
	static const struct shb_kv big[] = {{"qpack-table", "64K"},
					    {"qpack-blocked", "100"}};
	static const struct shb_kv some[] = {{"qpack-table", "4096"},
					     {"qpack-blocked", "16"}};
	static const char table_err[] = "expected bytes from 0 to 65536 (K "
					"suffix allowed)";
	static const struct {
		struct shb_kv kv;
		const char *err;
	} bad[] = {
		{{"qpack-table", "65537"}, "h3: --proto-opt qpack-table=65537: "},
		{{"qpack-table", "1M"}, "h3: --proto-opt qpack-table=1M: "},
		{{"qpack-table", "-1"}, "h3: --proto-opt qpack-table=-1: "},
		{{"qpack-table", NULL}, "h3: --proto-opt qpack-table=: "},
		{{"qpack-blocked", "101"}, "h3: --proto-opt qpack-blocked=101: "},
		{{"qpack-blocked", "1k"}, "h3: --proto-opt qpack-blocked=1k: "},
		{{"qpack-blocked", ""}, "h3: --proto-opt qpack-blocked=: "},
	};
	const struct shb_proto_desc *d = get_desc();
	char err[160] = "", want[160];
	void *m = NULL;
	struct shb_h3_module *hm;

	CU_ASSERT_STRING_EQUAL(d->option_defs[3].key, "qpack-table");
	CU_ASSERT_STRING_EQUAL(d->option_defs[4].key, "qpack-blocked");
	CU_ASSERT_EQUAL_FATAL(create(SHB_RUN_TLS, 4, NULL, 0, err, sizeof(err), &m), SHB_OK);
	hm = m;
	CU_ASSERT_EQUAL(hm->conf.qpack_max_table_capacity, 0);
	CU_ASSERT_EQUAL(hm->conf.qpack_blocked_streams, 0);
	d->vt->module_destroy(m);
	CU_ASSERT_EQUAL_FATAL(create(SHB_RUN_TLS, 4, big, 2, err, sizeof(err), &m), SHB_OK);
	hm = m;
	CU_ASSERT_EQUAL(hm->conf.qpack_max_table_capacity, 65536);
	CU_ASSERT_EQUAL(hm->conf.qpack_blocked_streams, 100);
	d->vt->module_destroy(m);
	CU_ASSERT_EQUAL_FATAL(create(SHB_RUN_TLS, 4, some, 2, err, sizeof(err), &m), SHB_OK);
	hm = m;
	CU_ASSERT_EQUAL(hm->conf.qpack_max_table_capacity, 4096);
	CU_ASSERT_EQUAL(hm->conf.qpack_blocked_streams, 16);
	d->vt->module_destroy(m);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = NULL;
		err[0] = 0;
		CU_ASSERT_EQUAL(create(SHB_RUN_TLS, 4, &bad[i].kv, 1, err,
				       sizeof(err), &m), SHB_E_INVAL);
		snprintf(want, sizeof(want), "%s%s", bad[i].err,
			 bad[i].kv.key[6] == 't' ? table_err
						 : "expected a number from 0 to 100");
		CU_ASSERT_STRING_EQUAL(err, want);
		CU_ASSERT_PTR_NULL(m);
	}
}

static void test_timeouts(void)
{
	const struct shb_proto_desc *d = get_desc();
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = SHB_RUN_TLS,
		.parallel = 8,
		.scheme = "https",
		.host = "localhost",
		.authority = "localhost:4433",
		.connect_timeout_ns = 2000000000ull,
		.request_timeout_ns = 90000000000ull,
	};
	char err[160] = "";
	void *m = NULL;

	CU_ASSERT_EQUAL_FATAL(d->vt->module_create(&h3p_kit.host, &cfg, &m, err, sizeof(err)),
			      SHB_OK);
	struct shb_h3_module *mod = m;
	CU_ASSERT_EQUAL(mod->handshake_timeout, 2000000000ull);
	CU_ASSERT_EQUAL(mod->idle_timeout, 90000000000ull);
	CU_ASSERT_EQUAL(mod->parallel, 8);
	d->vt->module_destroy(m);
}

/* The prepared request is the http3 part's encoding: sent as is. */
static void test_prepare(void)
{
	const struct shb_proto_desc *d = get_desc();
	static const struct shb_kv hdr[] = {{"X-Test", "1"}};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "https",
		.authority = "example.com",
		.path = "/",
		.headers = hdr,
		.header_count = 1,
	};
	struct shb_request bad = req;
	char err[160] = "";
	void *m = NULL, *p = NULL;

	CU_ASSERT_EQUAL_FATAL(create(SHB_RUN_TLS, 1, NULL, 0, err, sizeof(err), &m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(d->vt->prepare_request(m, &req, &p, err, sizeof(err)), SHB_OK);
	struct shb_h3_request *r = p;
	/* HEADERS frame of prefix, :method GET (17), :scheme https (23),
	 * :authority literal, :path / (1), then x-test: 1 */
	static const uint8_t want[] = {
		0x01, 0x1b, 0x00, 0x00, 0xd1, 0xd7, 0x50, 0x0b, 'e', 'x', 'a', 'm',
		'p', 'l', 'e', '.', 'c', 'o', 'm', 0xc1, 0x26, 'x', '-', 't', 'e',
		's', 't', 0x01, '1',
	};
	CU_ASSERT_EQUAL(r->len, sizeof(want));
	CU_ASSERT(r->len == sizeof(want) && memcmp(r->bytes, want, sizeof(want)) == 0);
	d->vt->release_request(m, p);
	bad.method = NULL;
	p = NULL;
	CU_ASSERT(d->vt->prepare_request(m, &bad, &p, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NULL(p);
	CU_ASSERT(err[0] != '\0');
	d->vt->module_destroy(m);
}

/* The built module exports exactly the entry symbol and its entry is the
 * one linked here. */
static void test_shared_module(void)
{
	const char *path = getenv("SHB_H3_PLUGIN");
	void *h;

	/* meson always builds the module and names it here. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const struct shb_plugin_entry *e = dlsym(h, SHB_PLUGIN_ENTRY_SYMBOL);
	CU_ASSERT_PTR_NOT_NULL(e);
	if (e) {
		CU_ASSERT_STRING_EQUAL(e->id, "org.shb.proto.h3");
		CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
	}
	CU_ASSERT_PTR_NULL(dlsym(h, "shb_h3_conn_issue"));
	CU_ASSERT_PTR_NULL(dlsym(h, "shb_quic_conn_new"));
	dlclose(h);
}

CU_TestInfo shb_h3p_module_tests[] = {
	{"entry", test_entry},
	{"descriptor", test_descriptor},
	{"module options", test_module_options},
	{"congestion options", test_cc_options},
	{"QPACK options", test_qpack_options},
	{"timeouts", test_timeouts},
	{"prepared request", test_prepare},
	{"shared module exports", test_shared_module},
	CU_TEST_INFO_NULL,
};
