/* A configurable fixture plugin for the loader tests. meson builds it
 * several times with -D options, one .so per case:
 *
 *   FX_ID           entry id (required)
 *   FX_PROTO        name of the one protocol it provides (optional)
 *   FX_REPORT       name of the one reporter it provides (optional)
 *   FX_EXTRA        also provide protocol "good-dgram" and reporter
 *                   "goodrep" (the multi-descriptor plugin)
 *   FX_ABI_MAJOR    entry abi_major (default SHB_ABI_MAJOR)
 *   FX_ABI_MINOR    entry abi_minor (default SHB_ABI_MINOR)
 *   FX_INIT_RC      what init() returns (default SHB_OK)
 *   FX_UNDEF        init() calls a function nothing defines
 *   FX_NO_RECV      the protocol vtable has recv == NULL
 *   FX_CONN_SIZE    the protocol's conn_size (default 64)
 *   FX_VT_V10       the protocol vtable's struct_size ends at `issue`
 *   FX_NO_END       the reporter vtable has end == NULL
 *   FX_REPORT2      name of a second reporter in the same plugin
 *   FX_NO_TIMERS    no next_deadline and no on_timer (1.2: allowed)
 *   FX_ONLY_ON_TIMER  on_timer without next_deadline (always refused)
 *   FX_DEFS         1.2 scheme_defs/option_defs: 0 good, 1 bad scheme
 *                   ...; 9 to 16 the 1.4 request model and outcome names,
 *                   17 to 22 the 1.4 metrics table (9 has a good one)
 *                   name, 2 port 0, 3 duplicate scheme, 4 bad option key,
 *                   5 duplicate option, 6 max_dgram too large, 7 empty
 *                   option key, 8 seventeen schemes
 *   FX_CRASH_INIT   init() dies of SIGILL (--list-plugins must go on)
 *   FX_CRASH_FACTORY  get_factory() dies of SIGILL
 *   FX_EXTRA_SYMBOL also exports shb_fixture_extra (built without the
 *                   version script)
 *   FX_EXT_PROVIDE  entry->get_extension offers FX_EXT_ID
 *   FX_EXT_CONSUME  init() takes FX_EXT_ID through host->get_extension
 *                   (refuses to init without it); module_create returns
 *                   the extension's answer() as the module pointer
 *
 * init() and deinit() log "init" / "deinit" through the host so that the
 * test can count them. */
#include <shb/shb.h>

#ifndef FX_ABI_MAJOR
#define FX_ABI_MAJOR SHB_ABI_MAJOR
#endif
#ifndef FX_ABI_MINOR
#define FX_ABI_MINOR SHB_ABI_MINOR
#endif
#ifndef FX_INIT_RC
#define FX_INIT_RC SHB_OK
#endif
#ifndef FX_CONN_SIZE
#define FX_CONN_SIZE 64
#endif

static const struct shb_host *fx_host;

/* The extension the FX_EXT_* fixtures share. */
#define FX_EXT_ID "org.shb.test.ext/1"
struct fx_ext {
	uint32_t struct_size;
	uint32_t reserved0;
	uintptr_t (*answer)(void);
};

#ifdef FX_EXT_CONSUME
static const struct fx_ext *fx_ext;
#endif

/* Which tables a variant uses depends on the -D options. */
#define FX_MAYBE_UNUSED __attribute__((unused))

/* ---- protocol stubs: never called by the loader ---------------------------- */

static int fx_module_create(const struct shb_host *host,
			    const struct shb_run_config *cfg, void **module,
			    char *err, size_t errlen)
{
#ifdef FX_EXT_CONSUME
	*module = (void *)fx_ext->answer();
#else
	*module = NULL;
#endif
	return SHB_OK;
}

static void fx_module_destroy(void *module) {}

static int fx_prepare(void *module, const struct shb_request *req,
		      void **prepared, char *err, size_t errlen)
{
	*prepared = NULL;
	return SHB_OK;
}

static void fx_release(void *module, void *prepared) {}

static int fx_conn_init(void *module, void *worker, void *conn,
			struct shb_conn *handle, shb_tstamp now)
{
	return SHB_OK;
}

static void fx_conn_fini(void *conn) {}

static int fx_ready(void *conn, const struct shb_transport_info *info,
		    shb_tstamp now)
{
	return SHB_OK;
}

FX_MAYBE_UNUSED
static shb_ssize fx_recv(void *conn, const uint8_t *data, size_t len,
			 shb_tstamp now)
{
	return (shb_ssize)len;
}

static int fx_recv_eof(void *conn, shb_tstamp now) { return SHB_OK; }

static shb_ssize fx_pull_send(void *conn, struct shb_vec *vecs, size_t max,
			      shb_tstamp now)
{
	return 0;
}

static void fx_sent(void *conn, size_t n, shb_tstamp now) {}

static int fx_recv_dgrams(void *conn, struct shb_vec *dgrams, size_t count,
			  shb_tstamp now)
{
	return SHB_OK;
}

FX_MAYBE_UNUSED
static shb_ssize fx_write_dgrams(void *conn, uint8_t *buf, size_t cap,
				 size_t *segment_size, shb_tstamp now)
{
	return 0;
}

/* 1.4: any sizes, and a connection's size from the module. */
FX_MAYBE_UNUSED
static shb_ssize fx_write_dgrams_v(void *conn, uint8_t *buf, size_t cap,
				   uint16_t *sizes, size_t max_count,
				   size_t *count, shb_tstamp now)
{
	*count = 0;
	return 0;
}

FX_MAYBE_UNUSED
static size_t fx_conn_size_for(const void *module) { return 64; }

FX_MAYBE_UNUSED
static shb_tstamp fx_next_deadline(const void *conn) { return SHB_TSTAMP_NONE; }
FX_MAYBE_UNUSED
static int fx_on_timer(void *conn, shb_tstamp now) { return SHB_OK; }
static uint32_t fx_state(const void *conn) { return 0; }
static uint32_t fx_capacity(const void *conn) { return 1; }

static int fx_issue(void *conn, const void *prepared, uint64_t cookie,
		    shb_tstamp now)
{
	return SHB_OK;
}

static void fx_cancel(void *conn, uint64_t cookie, shb_tstamp now) {}
static void fx_shutdown(void *conn, uint32_t mode, shb_tstamp now) {}
static const char *fx_error_detail(const void *conn) { return NULL; }

/* Every member is set, also past struct_size in the FX_VT_V10 case: the
 * loader must not copy what the declared size does not cover. */
static const struct shb_proto_vtable fx_proto_vt FX_MAYBE_UNUSED = {
#ifdef FX_VT_V10
	.struct_size = offsetof(struct shb_proto_vtable, issue) +
		       sizeof(fx_proto_vt.issue),
#else
	.struct_size = sizeof(struct shb_proto_vtable),
#endif
	.module_create = fx_module_create,
	.module_destroy = fx_module_destroy,
	.prepare_request = fx_prepare,
	.release_request = fx_release,
	.conn_init = fx_conn_init,
	.conn_fini = fx_conn_fini,
	.on_transport_ready = fx_ready,
#ifndef FX_NO_RECV
	.recv = fx_recv,
#endif
	.recv_eof = fx_recv_eof,
	.pull_send = fx_pull_send,
	.sent = fx_sent,
#if !defined FX_NO_TIMERS && !defined FX_ONLY_ON_TIMER
	.next_deadline = fx_next_deadline,
#endif
#ifndef FX_NO_TIMERS
	.on_timer = fx_on_timer,
#endif
	.state = fx_state,
	.capacity = fx_capacity,
	.issue = fx_issue,
	.cancel = fx_cancel,
	.shutdown = fx_shutdown,
	.error_detail = fx_error_detail,
};

static const struct shb_proto_vtable fx_dgram_vt FX_MAYBE_UNUSED = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = fx_module_create,
	.module_destroy = fx_module_destroy,
	.prepare_request = fx_prepare,
	.conn_init = fx_conn_init,
	.conn_fini = fx_conn_fini,
	.on_transport_ready = fx_ready,
	.recv_dgrams = fx_recv_dgrams,
	/* No write_dgrams: since 1.4 write_dgrams_v stands in for it. */
	.next_deadline = fx_next_deadline,
	.on_timer = fx_on_timer,
	.state = fx_state,
	.capacity = fx_capacity,
	.issue = fx_issue,
	.conn_size_for = fx_conn_size_for,
	.write_dgrams_v = fx_write_dgrams_v,
};

static const char *const fx_schemes[] FX_MAYBE_UNUSED = { "http", NULL };

#ifdef FX_DEFS
FX_MAYBE_UNUSED
static const struct shb_scheme fx_scheme_defs[] = {
#if FX_DEFS == 1
	{ "W s", 80, 0 },
#elif FX_DEFS == 2
	{ "ws", 0, 0 },
#elif FX_DEFS == 3
	{ "ws", 80, 0 }, { "wss", 443, SHB_SCHEME_TLS }, { "ws", 8080, 0 },
#elif FX_DEFS == 8
	{ "s0", 1, 0 }, { "s1", 1, 0 }, { "s2", 1, 0 }, { "s3", 1, 0 },
	{ "s4", 1, 0 }, { "s5", 1, 0 }, { "s6", 1, 0 }, { "s7", 1, 0 },
	{ "s8", 1, 0 }, { "s9", 1, 0 }, { "sa", 1, 0 }, { "sb", 1, 0 },
	{ "sc", 1, 0 }, { "sd", 1, 0 }, { "se", 1, 0 }, { "sf", 1, 0 },
	{ "sg", 1, 0 },
#else
	{ "ws", 80, 0 }, { "wss", 443, SHB_SCHEME_TLS }, { "x-a.b+c", 65535, 0 },
#endif
	{ NULL, 0, 0 },
};

static const struct shb_option_def fx_option_defs[] = {
#if FX_DEFS == 4
	{ "Max-Frame", "BYTES", "bad: upper case" },
#elif FX_DEFS == 5
	{ "mode", "NAME", "once" }, { "mode", NULL, "twice" },
#elif FX_DEFS == 7
	{ "", NULL, "empty" },
#else
	{ "max-frame", "BYTES", "largest frame to send" },
	{ "no_mask", NULL, "send unmasked frames" },
#endif
	{ NULL, NULL, NULL },
};

/* 1.4: request model and outcome names, 9 good, 10 and up one fault each. */
#define FX_SP (SHB_APPSPACE_PRIVATE + 7)
static const struct shb_outcome_code fx_codes[] FX_MAYBE_UNUSED = {
	{ 0, "ok", 1, 0 }, { 1, "nil", 1, 0 },
#if FX_DEFS == 13
	{ 2, "nil", 0, 0 },
#elif FX_DEFS == 14
	{ 2, "a-b", 0, 0 },
#else
	{ 2, "error", 0, 0 },
#endif
	{ 0, NULL, 0, 0 },
};
static const struct shb_outcome_space fx_spaces[] FX_MAYBE_UNUSED = {
#if FX_DEFS == 10
	{ 5, 0, "redis", fx_codes },
#elif FX_DEFS == 11
	{ FX_SP, 0, "Redis", fx_codes },
#elif FX_DEFS == 12
	{ FX_SP, 0, "redis", fx_codes }, { FX_SP, 0, "other", NULL },
#elif FX_DEFS == 16
	{ FX_SP + 0, 0, "s0", NULL }, { FX_SP + 1, 0, "s1", NULL },
	{ FX_SP + 2, 0, "s2", NULL }, { FX_SP + 3, 0, "s3", NULL },
	{ FX_SP + 4, 0, "s4", NULL }, { FX_SP + 5, 0, "s5", NULL },
	{ FX_SP + 6, 0, "s6", NULL }, { FX_SP + 7, 0, "s7", NULL },
	{ FX_SP + 8, 0, "s8", NULL }, { FX_SP + 9, 0, "s9", NULL },
	{ FX_SP + 10, 0, "sa", NULL }, { FX_SP + 11, 0, "sb", NULL },
	{ FX_SP + 12, 0, "sc", NULL }, { FX_SP + 13, 0, "sd", NULL },
	{ FX_SP + 14, 0, "se", NULL }, { FX_SP + 15, 0, "sf", NULL },
	{ FX_SP + 16, 0, "sg", NULL },
#else
	{ FX_SP, 0, "redis", fx_codes }, { FX_SP + 1, 0, "resp3", NULL },
#endif
	{ 0, 0, NULL, NULL },
};
#endif

#ifdef FX_DEFS
/* 1.4: the metrics table, 9 good, 17 and up one fault each. */
static const struct shb_metric_def fx_metrics[] FX_MAYBE_UNUSED = {
	{ SHB_METRIC_COUNTER, 0, "msgs_sent", "messages", "messages sent" },
#if FX_DEFS == 17
	{ SHB_METRIC_LATENCY, 0, "9lat", NULL, NULL },
#elif FX_DEFS == 18
	{ SHB_METRIC_VALUE, 0, "msgs_sent", NULL, NULL },
#elif FX_DEFS == 19
	{ 7, 0, "depth", NULL, NULL },
#elif FX_DEFS == 20
	{ SHB_METRIC_VALUE, 0, "depth", "a\tb", NULL },
#else
	{ SHB_METRIC_LATENCY, 0, "msg_latency", NULL, "send to echo" },
#endif
	{ SHB_METRIC_VALUE, 0, "depth", "commands", NULL },
};
#endif

#ifdef FX_PROTO
static const struct shb_proto_desc fx_proto = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.name = FX_PROTO,
	.display_name = "Fixture",
	.summary = "fixture protocol " FX_ID,
	.schemes = fx_schemes,
	.conn_size = FX_CONN_SIZE,
	.vt = &fx_proto_vt,
#ifdef FX_DEFS
	.scheme_defs = fx_scheme_defs,
	.option_defs = fx_option_defs,
#if FX_DEFS == 6
	.max_dgram = 65528,
#endif
#if FX_DEFS >= 9
	.request_model = FX_DEFS == 15 ? 7 : SHB_REQMODEL_NONE,
	.outcome_spaces = fx_spaces,
	.metrics = FX_DEFS == 22 ? NULL : fx_metrics,
	.metric_count = FX_DEFS == 21 ? 33 : FX_DEFS == 22 ? 2 : 3,
#endif
#endif
};
#endif

#ifdef FX_EXTRA
static const struct shb_proto_desc fx_dgram = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_DGRAM,
	.name = "good-dgram",
	.summary = "fixture datagram protocol",
	.schemes = fx_schemes,
	.conn_size = 32,
	.vt = &fx_dgram_vt,
};
#endif

static const struct shb_proto_desc *const fx_protos[] = {
#ifdef FX_PROTO
	&fx_proto,
#endif
#ifdef FX_EXTRA
	&fx_dgram,
#endif
	NULL,
};

static const struct shb_proto_desc *fx_proto_get(uint32_t i)
{
	return fx_protos[i];
}

static const struct shb_proto_factory fx_proto_factory = {
	.struct_size = sizeof(struct shb_proto_factory),
	.count = sizeof fx_protos / sizeof fx_protos[0] - 1,
	.get = fx_proto_get,
};

/* ---- reporter stubs ----------------------------------------------------------- */

static int fx_rep_create(const struct shb_host *host,
			 const struct shb_ostream *out, const char *options,
			 void **rep, char *err, size_t errlen)
{
	*rep = NULL;
	return SHB_OK;
}

static int fx_rep_begin(void *rep, const struct shb_run_info *info)
{
	return SHB_OK;
}

FX_MAYBE_UNUSED
static int fx_rep_end(void *rep, const struct shb_results *r) { return SHB_OK; }
static void fx_rep_destroy(void *rep) {}

static const struct shb_report_vtable fx_report_vt FX_MAYBE_UNUSED = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = fx_rep_create,
	.begin = fx_rep_begin,
#ifndef FX_NO_END
	.end = fx_rep_end,
#endif
	.destroy = fx_rep_destroy,
};

#ifdef FX_REPORT
static const struct shb_report_desc fx_report = {
	.struct_size = sizeof(struct shb_report_desc),
	.name = FX_REPORT,
	.summary = "fixture reporter " FX_ID,
	.vt = &fx_report_vt,
#ifdef FX_DEFS
	.option_defs = fx_option_defs,
#endif
};
#endif

#ifdef FX_REPORT2
static const struct shb_report_desc fx_report2 = {
	.struct_size = sizeof(struct shb_report_desc),
	.name = FX_REPORT2,
	.summary = "second fixture reporter " FX_ID,
	.vt = &fx_report_vt,
};
#endif

#ifdef FX_EXTRA
static const struct shb_report_desc fx_goodrep = {
	.struct_size = sizeof(struct shb_report_desc),
	.name = "goodrep",
	.summary = "fixture reporter in a protocol plugin",
	.vt = &fx_report_vt,
};
#endif

static const struct shb_report_desc *const fx_reports[] = {
#ifdef FX_REPORT
	&fx_report,
#endif
#ifdef FX_REPORT2
	&fx_report2,
#endif
#ifdef FX_EXTRA
	&fx_goodrep,
#endif
	NULL,
};

static const struct shb_report_desc *fx_report_get(uint32_t i)
{
	return fx_reports[i];
}

static const struct shb_report_factory fx_report_factory = {
	.struct_size = sizeof(struct shb_report_factory),
	.count = sizeof fx_reports / sizeof fx_reports[0] - 1,
	.get = fx_report_get,
};

/* ---- entry ------------------------------------------------------------------ */

#ifdef FX_UNDEF
/* Defined nowhere: with RTLD_NOW, dlopen must fail on it. */
int shb_fixture_missing_function(void);
#endif

#ifdef FX_EXTRA_SYMBOL
SHB_PLUGIN_EXPORT int shb_fixture_extra = 1;
#endif

static int fx_init(const struct shb_host *host)
{
	fx_host = host;
#ifdef FX_UNDEF
	if (shb_fixture_missing_function())
		return SHB_E_INVAL;
#endif
#ifdef FX_CRASH_INIT
	__builtin_trap();
#endif
#ifdef FX_EXT_CONSUME
	fx_ext = host->get_extension(FX_EXT_ID);
	if (!fx_ext)
		return SHB_E_UNSUPPORTED;
#endif
	host->log(SHB_LOG_INFO, FX_ID, "init");
	return FX_INIT_RC;
}

static void fx_deinit(void)
{
	fx_host->log(SHB_LOG_INFO, FX_ID, "deinit");
}

/* No libc: keeps the fixtures free of any link dependency. */
FX_MAYBE_UNUSED
static int fx_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

#ifdef FX_EXT_PROVIDE
static uintptr_t fx_answer(void)
{
	return 42;
}

static const struct fx_ext fx_ext_table = {
	.struct_size = sizeof(struct fx_ext),
	.answer = fx_answer,
};

static const void *fx_get_extension(const char *id)
{
	return fx_streq(id, FX_EXT_ID) ? &fx_ext_table : NULL;
}
#endif

static const void *fx_get_factory(const char *id)
{
	const char *a = id, *b = SHB_FACTORY_PROTOCOL;

#ifdef FX_CRASH_FACTORY
	__builtin_trap();
#endif
	/* No libc: keeps the fixtures free of any link dependency. */
	while (*a && *a == *b)
		a++, b++;
	if (*a == *b)
		return fx_proto_factory.count ? &fx_proto_factory : NULL;
	a = id;
	b = SHB_FACTORY_REPORTER;
	while (*a && *a == *b)
		a++, b++;
	if (*a == *b)
		return fx_report_factory.count ? &fx_report_factory : NULL;
	return NULL;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = FX_ABI_MAJOR,
	.abi_minor = FX_ABI_MINOR,
	.id = FX_ID,
	.version = "1.2.3",
	.init = fx_init,
	.deinit = fx_deinit,
	.get_factory = fx_get_factory,
#ifdef FX_EXT_PROVIDE
	.get_extension = fx_get_extension,
#endif
};
