/* The plugin under test (plugin.h): entry checks as the loader makes
 * them, init/deinit once, descriptor lookup. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "kit_int.h"

#define END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))

/* The ELF size of the symbol at `sym`, or 0 when unknown. */
static size_t sym_size(const void *sym)
{
	Dl_info info;
	const ElfW(Sym) *es = NULL;

	if (!dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) || !es ||
	    info.dli_saddr != sym)
		return 0;
	return es->st_size;
}

static int entry_check(struct shb_kit_plugin *p, char *err, size_t errlen)
{
	const struct shb_plugin_entry *e = p->entry;

	if (p->entry_size < END_OF(struct shb_plugin_entry, abi_minor)) {
		snprintf(err, errlen, "entry struct too short (%zu bytes)",
			 p->entry_size);
		return -1;
	}
	if (e->abi_major != SHB_ABI_MAJOR) {
		snprintf(err, errlen, "built for shb ABI %u, the kit provides ABI %d",
			 (unsigned)e->abi_major, SHB_ABI_MAJOR);
		return -1;
	}
	if (p->entry_size < END_OF(struct shb_plugin_entry, get_factory)) {
		snprintf(err, errlen, "entry struct too short (%zu bytes)",
			 p->entry_size);
		return -1;
	}
	if (e->abi_minor > SHB_ABI_MINOR) {
		snprintf(err, errlen, "needs shb ABI %d.%u, the kit provides %d.%d",
			 SHB_ABI_MAJOR, (unsigned)e->abi_minor, SHB_ABI_MAJOR,
			 SHB_ABI_MINOR);
		return -1;
	}
	if (!e->init || !e->get_factory) {
		snprintf(err, errlen, "plugin entry lacks a mandatory member (%s)",
			 e->init ? "get_factory" : "init");
		return -1;
	}
	return 0;
}

int shb_kit_plugin_use(struct shb_kit_plugin *p,
		       const struct shb_plugin_entry *entry, char *err,
		       size_t errlen)
{
	memset(p, 0, sizeof *p);
	p->entry = entry;
	p->entry_size = entry->struct_size;
	return entry_check(p, err, errlen);
}

int shb_kit_plugin_open(struct shb_kit_plugin *p, const char *path,
			char *err, size_t errlen)
{
	const struct shb_plugin_entry *e;
	size_t size;

	memset(p, 0, sizeof *p);
	dlerror();
	p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl) {
		const char *why = dlerror();

		snprintf(err, errlen, "dlopen failed: %s", why ? why : "?");
		return -1;
	}
	e = dlsym(p->dl, SHB_PLUGIN_ENTRY_SYMBOL);
	if (!e) {
		snprintf(err, errlen, "not an shb plugin (no %s symbol)",
			 SHB_PLUGIN_ENTRY_SYMBOL);
		dlclose(p->dl);
		p->dl = NULL;
		return -1;
	}
	/* The symbol's size bounds what we read even if struct_size lies. */
	size = sym_size(e);
	if (size == 0)
		size = sizeof *e;
	if (size >= sizeof e->struct_size && e->struct_size < size)
		size = e->struct_size;
	p->entry = e;
	p->entry_size = size;
	if (entry_check(p, err, errlen)) {
		dlclose(p->dl);
		p->dl = NULL;
		p->entry = NULL;
		return -1;
	}
	return 0;
}

int shb_kit_plugin_init(struct shb_kit_plugin *p, struct shb_kit_host *kh)
{
	int rc;

	if (p->inited || p->deinited) {
		shb_kit_violation(kh, "the kit inits a plugin only once");
		return SHB_E_STATE;
	}
	p->kh = kh;
	kh->plugin_id = p->entry->id;
	rc = p->entry->init(&kh->host);
	p->inited = rc == SHB_OK;
	return rc;
}

int shb_kit_plugin_provide(struct shb_kit_plugin *p, struct shb_kit_host *kh)
{
	if (!p->inited || !SHB_KIT_ENTRY_HAS(p, get_extension) ||
	    !p->entry->get_extension)
		return -1;
	return shb_kit_host_add_extension_provider(kh, p->entry->get_extension,
						   p->entry->id);
}

const struct shb_proto_desc *shb_kit_plugin_proto(struct shb_kit_plugin *p,
						  const char *name)
{
	const struct shb_proto_factory *f;

	if (!p->inited)
		return NULL;
	f = p->entry->get_factory(SHB_FACTORY_PROTOCOL);
	if (!f || f->struct_size < END_OF(struct shb_proto_factory, get) ||
	    !f->get)
		return NULL;
	for (uint32_t i = 0; i < f->count; i++) {
		const struct shb_proto_desc *d = f->get(i);

		if (d && (!name || (d->name && !strcmp(d->name, name))))
			return d;
	}
	return NULL;
}

const struct shb_report_desc *shb_kit_plugin_report(struct shb_kit_plugin *p,
						    const char *name)
{
	const struct shb_report_factory *f;

	if (!p->inited)
		return NULL;
	f = p->entry->get_factory(SHB_FACTORY_REPORTER);
	if (!f || f->struct_size < END_OF(struct shb_report_factory, get) ||
	    !f->get)
		return NULL;
	for (uint32_t i = 0; i < f->count; i++) {
		const struct shb_report_desc *d = f->get(i);

		if (d && (!name || (d->name && !strcmp(d->name, name))))
			return d;
	}
	return NULL;
}

void shb_kit_plugin_close(struct shb_kit_plugin *p)
{
	if (p->inited && !p->deinited && p->entry->deinit)
		p->entry->deinit();
	if (p->inited)
		p->deinited = 1;
	p->inited = 0;
	if (p->dl)
		dlclose(p->dl);
	p->dl = NULL;
}
