/* A fake host for driving the plugin through its ABI. */
#include <stdio.h>
#include <string.h>

#include "h2_tests.h"

struct shb_h2_test_log shb_h2_seen;
static int debug_on;

static void fake_log(uint32_t level, const char *plugin_id, const char *msg)
{
	size_t i = shb_h2_seen.log_count;

	CU_ASSERT_STRING_EQUAL(plugin_id, "org.shb.proto.h2");
	if (i < SHB_H2_TEST_MAX_LOG) {
		snprintf(shb_h2_seen.log[i], sizeof(shb_h2_seen.log[i]), "%u %s",
			 level, msg);
		shb_h2_seen.log_count++;
	}
}

static int32_t fake_log_enabled(uint32_t level)
{
	return level <= SHB_LOG_WARN || debug_on;
}

static void fake_req_done(struct shb_conn *conn, uint64_t cookie,
			  const struct shb_req_result *res)
{
	size_t i = shb_h2_seen.done_count;
	struct shb_h2_test_done *d;

	CU_ASSERT_FATAL(i < SHB_H2_TEST_MAX_DONE);
	CU_ASSERT_EQUAL(res->struct_size, sizeof(*res));
	/* Exactly once per cookie. */
	for (size_t k = 0; k < i; k++)
		CU_ASSERT(shb_h2_seen.done[k].cookie != cookie);
	d = &shb_h2_seen.done[i];
	d->conn = conn;
	d->cookie = cookie;
	d->res = *res;
	snprintf(d->detail, sizeof(d->detail), "%s",
		 res->detail ? res->detail : "");
	d->res.detail = NULL;
	shb_h2_seen.done_count++;
}

static void fake_conn_event(struct shb_conn *conn,
			    const struct shb_conn_event *ev)
{
	size_t i = shb_h2_seen.event_count;

	CU_ASSERT_FATAL(i < SHB_H2_TEST_MAX_EVENTS);
	CU_ASSERT_EQUAL(ev->struct_size, sizeof(*ev));
	shb_h2_seen.events[i].ev = *ev;
	snprintf(shb_h2_seen.events[i].detail,
		 sizeof(shb_h2_seen.events[i].detail), "%s",
		 ev->detail ? ev->detail : "");
	shb_h2_seen.events[i].ev.detail = NULL;
	shb_h2_seen.event_count++;
}

const struct shb_host shb_h2_test_host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "test",
	.log = fake_log,
	.log_enabled = fake_log_enabled,
	.req_done = fake_req_done,
	.conn_event = fake_conn_event,
};

void shb_h2_test_reset(int debug)
{
	memset(&shb_h2_seen, 0, sizeof(shb_h2_seen));
	debug_on = debug;
}

const struct shb_proto_desc *shb_h2_test_desc(void)
{
	static int inited;
	const struct shb_proto_factory *f;

	if (!inited) {
		CU_ASSERT_EQUAL_FATAL(shb_plugin_entry_v1.init(&shb_h2_test_host),
				      SHB_OK);
		inited = 1;
	}
	f = shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(f->count, 1);
	return f->get(0);
}

void *shb_h2_test_module(uint32_t run_flags, uint32_t parallel)
{
	const struct shb_proto_desc *d = shb_h2_test_desc();
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = run_flags,
		.connections = 1,
		.parallel = parallel,
		.threads = 1,
		.port = 80,
		.scheme = "http",
		.host = "example.com",
		.authority = "example.com",
	};
	char err[128] = "";
	void *m = NULL;

	CU_ASSERT_EQUAL_FATAL(d->vt->module_create(&shb_h2_test_host, &cfg, &m,
						   err, sizeof(err)),
			      SHB_OK);
	return m;
}
