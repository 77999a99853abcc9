/* The plugin under the kit's fake host (shb/kit.h): init once, records
 * reset per test. */
#include <stdio.h>
#include <string.h>

#include "h2_tests.h"

/* Static: the plugin keeps the host from init() for the whole process. */
struct shb_kit_host shb_h2_kit;
static struct shb_kit_plugin plugin;

void shb_h2_test_reset(int debug)
{
	(void)shb_h2_test_desc(); /* the host exists from here on */
	shb_kit_host_reset(&shb_h2_kit);
	shb_h2_kit.log_level = debug ? SHB_LOG_TRACE : SHB_LOG_WARN;
}

const struct shb_proto_desc *shb_h2_test_desc(void)
{
	static int inited;
	const struct shb_proto_factory *f;
	char err[128];

	if (!inited) {
		CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&shb_h2_kit, SHB_ABI_MINOR), 0);
		CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_use(&plugin, &shb_plugin_entry_v1,
							 err, sizeof(err)),
				      0);
		CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_init(&plugin, &shb_h2_kit),
				      SHB_OK);
		inited = 1;
	}
	f = shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(f->count, 1);
	return f->get(0);
}

void shb_h2_test_config(struct shb_run_config *cfg, uint32_t run_flags,
			uint32_t parallel)
{
	/* http://example.com:80, one connection, one thread. */
	shb_kit_run_config_default(cfg, shb_h2_test_desc());
	cfg->flags = run_flags;
	cfg->parallel = parallel;
	cfg->response_body_max = shb_h2_test_body_max;
}

uint64_t shb_h2_test_body_max;

void *shb_h2_test_module(uint32_t run_flags, uint32_t parallel)
{
	const struct shb_proto_desc *d = shb_h2_test_desc();
	struct shb_run_config cfg;
	char err[128] = "";
	void *m = NULL;

	shb_h2_test_config(&cfg, run_flags, parallel);
	CU_ASSERT_EQUAL_FATAL(d->vt->module_create(&shb_h2_kit.host, &cfg, &m,
						   err, sizeof(err)),
			      SHB_OK);
	return m;
}

const char *shb_h2_test_log_line(size_t i)
{
	static char buf[SHB_KIT_LOG_MAX + 16];

	CU_ASSERT_FATAL(shb_h2_kit.log_count > i);
	snprintf(buf, sizeof(buf), "%u %s", shb_h2_kit.logs[i].level,
		 shb_h2_kit.logs[i].msg);
	return buf;
}
