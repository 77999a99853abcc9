/* The layout of extension org.shb.h2.proto/1 (<shb/ext/h2.h>) on x86-64,
 * included first so that the header is shown to be self-contained. A
 * plugin that wraps the h2 plugin is built against it: members are only
 * appended, and a change here is a new id (".../2"). Compiling this file
 * is the test. */
#include <shb/ext/h2.h>

#include <stddef.h>

#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(struct shb_h2_observer) == 32, "shb_h2_observer size");
_Static_assert(offsetof(struct shb_h2_observer, struct_size) == 0, "shb_h2_observer.struct_size");
_Static_assert(offsetof(struct shb_h2_observer, reserved0) == 4, "shb_h2_observer.reserved0");
_Static_assert(offsetof(struct shb_h2_observer, on_field) == 8, "shb_h2_observer.on_field");
_Static_assert(offsetof(struct shb_h2_observer, on_data) == 16, "shb_h2_observer.on_data");
_Static_assert(offsetof(struct shb_h2_observer, on_result) == 24, "shb_h2_observer.on_result");
_Static_assert(sizeof(struct shb_h2_proto_ext) == 24, "shb_h2_proto_ext size");
_Static_assert(offsetof(struct shb_h2_proto_ext, struct_size) == 0, "shb_h2_proto_ext.struct_size");
_Static_assert(offsetof(struct shb_h2_proto_ext, reserved0) == 4, "shb_h2_proto_ext.reserved0");
_Static_assert(offsetof(struct shb_h2_proto_ext, desc) == 8, "shb_h2_proto_ext.desc");
_Static_assert(offsetof(struct shb_h2_proto_ext, set_observer) == 16, "shb_h2_proto_ext.set_observer");
#endif
_Static_assert(SHB_H2_FIELD_HEADER == 1, "SHB_H2_FIELD_HEADER");
_Static_assert(SHB_H2_FIELD_TRAILER == 2, "SHB_H2_FIELD_TRAILER");
_Static_assert(sizeof(SHB_EXT_H2_PROTO) == sizeof("org.shb.h2.proto/1"),
	       "SHB_EXT_H2_PROTO");

int shb_abi_ext_h2(void);
int shb_abi_ext_h2(void)
{
	return 0;
}
