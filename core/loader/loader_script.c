/* Script engine descriptors (since 1.4, script.h): the loader kind that
 * finds "shb-script-NAME.so", checks its descriptor and vtable member by
 * member, and copies them into the latest layout, like protocols and
 * reporters (loader_desc.c). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "loader/loader_int.h"
#include "loader/loader_script.h"

/* A factory that claims more engines than this is corrupt. */
#define SCRIPT_MAX_DESCS 64u
/* Extensions one engine may list at most. */
#define SCRIPT_MAX_EXTS 16u

static int script_count(const struct shb_plugin_file *f, uint32_t *count,
			char *why, size_t n)
{
	const struct shb_script_factory *fa =
		f->entry->get_factory(SHB_FACTORY_SCRIPT);

	*count = 0;
	if (!fa)
		return 0;
	if (fa->struct_size < SHB_END_OF(struct shb_script_factory, get)) {
		shb_loader_fmt(why, n, "script factory too short (%u bytes)",
			       (unsigned)fa->struct_size);
		return -1;
	}
	if (fa->count && !fa->get) {
		shb_loader_fmt(why, n, "script factory lacks a mandatory member (get)");
		return -1;
	}
	if (fa->count > SCRIPT_MAX_DESCS) {
		shb_loader_fmt(why, n, "script factory lists %u entries (at most %u)",
			       (unsigned)fa->count, SCRIPT_MAX_DESCS);
		return -1;
	}
	*count = fa->count;
	return 0;
}

static const void *script_get(const struct shb_plugin_file *f, uint32_t i)
{
	const struct shb_script_factory *fa =
		f->entry->get_factory(SHB_FACTORY_SCRIPT);

	return fa->get(i);
}

static int lacks(const char *member, char *why, size_t n)
{
	shb_loader_fmt(why, n, "script descriptor lacks a mandatory member (%s)",
		       member);
	return -1;
}

/* Every vtable member is mandatory (script.h). */
static int vt_check(const struct shb_script_vtable *vt, char *why, size_t n)
{
	if (vt->struct_size < SHB_END_OF(struct shb_script_vtable, destroy)) {
		shb_loader_fmt(why, n, "script vtable too short (%u bytes)",
			       (unsigned)vt->struct_size);
		return -1;
	}
#define NEED(m)                                                                \
	do {                                                                   \
		if (!vt->m)                                                    \
			return lacks(#m, why, n);                              \
	} while (0)
	NEED(create);
	NEED(thread_create);
	NEED(thread_addr);
	NEED(thread_init);
	NEED(thread_hooks);
	NEED(request);
	NEED(delay);
	NEED(response);
	NEED(done);
	NEED(thread_destroy);
	NEED(destroy);
#undef NEED
	return 0;
}

static int exts_check(const char *const *exts, char *why, size_t n)
{
	uint32_t i = 0;

	if (!exts || !exts[0]) {
		shb_loader_fmt(why, n, "script descriptor lists no file extension");
		return -1;
	}
	for (; exts[i]; i++) {
		size_t len = strnlen(exts[i], 17);
		if (i >= SCRIPT_MAX_EXTS || len == 0 || len > 16 ||
		    strchr(exts[i], '.') || strchr(exts[i], '/')) {
			shb_loader_fmt(why, n, "script descriptor has a bad file "
				       "extension (#%u: 1..16 bytes, no dot)",
				       (unsigned)i);
			return -1;
		}
	}
	return 0;
}

static int script_check(const void *desc, uint32_t minor, char *why, size_t n)
{
	const struct shb_script_desc *d = desc;

	if (!d) {
		shb_loader_fmt(why, n, "script factory returned no descriptor");
		return -2;
	}
	if (d->struct_size < SHB_END_OF(struct shb_script_desc, vt)) {
		shb_loader_fmt(why, n, "script descriptor too short (%u bytes)",
			       (unsigned)d->struct_size);
		return -2;
	}
	if (!d->name || !d->name[0]) {
		shb_loader_fmt(why, n, "script descriptor has no name");
		return -2;
	}
	if (minor < 4) {
		shb_loader_fmt(why, n, "script engines are ABI 1.4; the plugin "
			       "says it needs only 1.%u", (unsigned)minor);
		return -1;
	}
	if (exts_check(d->extensions, why, n))
		return -1;
	if (!d->vt)
		return lacks("vt", why, n);
	return vt_check(d->vt, why, n);
}

static const char *script_name(const void *desc)
{
	return ((const struct shb_script_desc *)desc)->name;
}

static const char *script_summary(const void *desc)
{
	return ((const struct shb_script_desc *)desc)->summary;
}

static void script_fill(void *out, const void *desc,
			const struct shb_plugin_file *f)
{
	struct shb_script_handle *h = out;
	const struct shb_script_desc *d = desc;

	memset(h, 0, sizeof *h);
	h->desc = d;
	h->file = f;
	/* Every member is mandatory and checked: a plain copy of the
	 * members this layout has (a later minor's extra ones stay out). */
	size_t size = d->vt->struct_size < sizeof h->vt ? d->vt->struct_size :
						     sizeof h->vt;
	memcpy(&h->vt, d->vt, size);
	h->vt.struct_size = sizeof h->vt;
}

const struct shb_loader_kind shb_loader_script_kind = {
	"script", "shb-script-", script_count, script_get,
	script_check, script_name, script_summary, script_fill,
};
