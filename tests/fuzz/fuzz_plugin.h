/* The protocol plugin a fuzz target links in whole (its plugin entry is
 * the target's own symbol): initialised with the target's fake host, its
 * one protocol descriptor. Shared by the fake hosts of h1 and h2. */
#ifndef SHB_FUZZ_PLUGIN_H
#define SHB_FUZZ_PLUGIN_H

#include <shb/shb.h>

#include "fuzz_input.h"

extern const struct shb_plugin_entry shb_plugin_entry_v1;

/* Once per process: later calls return the first call's descriptor. */
static inline const struct shb_proto_desc *fz_plugin_desc(const struct shb_host *host)
{
	static const struct shb_proto_desc *d;
	const struct shb_proto_factory *f;

	if (d)
		return d;
	FZ_CHECK(shb_plugin_entry_v1.init(host) == SHB_OK);
	f = shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);
	FZ_CHECK(f && f->count == 1);
	d = f->get(0);
	return d;
}

#endif
