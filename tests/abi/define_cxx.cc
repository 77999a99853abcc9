// SHB_PLUGIN_DEFINE in C++11: one reporter, no protocol, no init or deinit.
// test_define.c loads the built module.
#include <shb/shb.h>
#include <shb/define.h>

#include "define_fixture.h"

static const struct shb_report_desc cxx_desc = SHB_TEST_REPORT_DESC("cxx");

SHB_PLUGIN_DEFINE("org.shb.test.define-cxx", NULL, NULL, NULL,
		  SHB_NO_PROTOCOLS, SHB_REPORTERS(&cxx_desc));
