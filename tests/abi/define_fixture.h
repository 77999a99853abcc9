/* Descriptors shared by the SHB_PLUGIN_DEFINE fixtures (define_c.c and
 * define_cxx.cc). Positional initializers so that the same text compiles as
 * C11 and as C++11; only the members the test reads are meaningful. */
#ifndef SHB_TEST_DEFINE_FIXTURE_H
#define SHB_TEST_DEFINE_FIXTURE_H

#include <shb/shb.h>

#define SHB_TEST_PROTO_DESC(name)                                              \
	{sizeof(struct shb_proto_desc), SHB_TRANSPORT_STREAM, 0, 0, name,      \
	 NULL, NULL, NULL, NULL, 0, 8, NULL, NULL, NULL, 0, 0, 0, 0, NULL,    \
	 NULL, 0, 0}
#define SHB_TEST_REPORT_DESC(name)                                             \
	{sizeof(struct shb_report_desc), 0, name, NULL, NULL, NULL}

#endif
