/* Majors start at 1: there never was an shb_plugin_entry_v0. */
#include "abi_major.h"

#include <shb/version.h>

#include <dlfcn.h>
#include <stdio.h>

unsigned shb_other_abi_major(void *dl)
{
	char name[48];

	for (unsigned v = 1; v <= SHB_ABI_MAJOR + 16u; v++) {
		if (v == SHB_ABI_MAJOR)
			continue;
		snprintf(name, sizeof name, "shb_plugin_entry_v%u", v);
		if (dlsym(dl, name))
			return v;
	}
	return 0;
}
