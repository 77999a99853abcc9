/* Fixture: exports shb_plugin_entry_v1, but only the three version fields
 * of it (12 bytes), as a plugin built against a mangled header would. With
 * FX_LIE its struct_size claims the full v1 entry: the loader must trust
 * the symbol's ELF size, not read past the object. */
#include <stdint.h>
#include <shb/shb.h>

struct fx_short_entry {
	uint32_t struct_size;
	uint32_t abi_major;
	uint32_t abi_minor;
};

SHB_PLUGIN_EXPORT const struct fx_short_entry shb_plugin_entry_v1 = {
#ifdef FX_LIE
	.struct_size = sizeof(struct shb_plugin_entry),
#else
	.struct_size = sizeof(struct fx_short_entry),
#endif
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
};
