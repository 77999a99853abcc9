/* SHB_PLUGIN_DEFINE_FULL in C11: two protocols, one reporter, init,
 * deinit and an extension. test_define.c loads the built module. */
#include <string.h>

#include <shb/shb.h>
#include <shb/define.h>

#include "define_fixture.h"

static const struct shb_proto_desc one_desc = SHB_TEST_PROTO_DESC("one");
static const struct shb_proto_desc two_desc = SHB_TEST_PROTO_DESC("two");
static const struct shb_report_desc rep_desc = SHB_TEST_REPORT_DESC("rep");

/* What init and deinit saw, read back through the extension below. */
static struct {
	uint32_t inits;
	uint32_t deinits;
	const struct shb_host *host;
} calls;

static int c_init(const struct shb_host *host)
{
	calls.inits++;
	calls.host = host;
	/* A host without log: refused, so the test sees init's result. */
	return host && host->log ? SHB_OK : SHB_E_UNSUPPORTED;
}

static void c_deinit(void)
{
	calls.deinits++;
}

static const void *c_get_extension(const char *id)
{
	if (id && strcmp(id, "org.shb.test.define-calls/1") == 0)
		return &calls;
	return NULL;
}

SHB_PLUGIN_DEFINE_FULL("org.shb.test.define-c", "1.2.3", "shb", "https://example.org/",
		       "MIT", c_init, c_deinit, c_get_extension,
		       SHB_PROTOCOLS(&one_desc, &two_desc),
		       SHB_REPORTERS(&rep_desc));
