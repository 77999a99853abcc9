/* Fixture: a plugin for a future ABI major. It exports only
 * shb_plugin_entry_v2, whose layout this shb cannot know; the loader must
 * recognise the name without reading it. */
#include <stdint.h>
#include <shb/shb.h>

struct fx_entry_v2 {
	uint32_t struct_size;
	uint32_t abi_major;
	uint32_t abi_minor;
	uint32_t flags;
	const char *id;
};

SHB_PLUGIN_EXPORT const struct fx_entry_v2 shb_plugin_entry_v2 = {
	.struct_size = sizeof(struct fx_entry_v2),
	.abi_major = 2,
	.abi_minor = 0,
	.id = "org.shb.test.abi2",
};
