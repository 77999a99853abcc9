/* shb plugin test kit: the plugin under test.
 *
 * Either a plugin linked into the test (its entry pointer) or a shared
 * module loaded with dlopen(RTLD_NOW | RTLD_LOCAL) as the core loads it.
 * The kit calls init() at most once and deinit() once after it, as the
 * core does.
 *
 * Thread: [main] of the test. */
#ifndef SHB_KIT_PLUGIN_H
#define SHB_KIT_PLUGIN_H

#include <shb/shb.h>
#include <shb/kit/host.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_kit_plugin {
	const struct shb_plugin_entry *entry;
	/* Bytes of the entry that may be read: the ELF symbol's size for a
	 * loaded module (bounded by its struct_size), else struct_size. */
	size_t entry_size;
	void *dl; /* dlopen handle, or NULL for an entry pointer */
	struct shb_kit_host *kh; /* set by shb_kit_plugin_init */
	int inited;
	int deinited;
};

/* Uses a linked-in entry. 0, or -1 with a line in err[errlen] when the
 * entry is unusable (too short, other major, no init/get_factory). */
int shb_kit_plugin_use(struct shb_kit_plugin *p,
		       const struct shb_plugin_entry *entry, char *err,
		       size_t errlen);
/* dlopens `path` and finds shb_plugin_entry_v1; the same checks. */
int shb_kit_plugin_open(struct shb_kit_plugin *p, const char *path,
			char *err, size_t errlen);
/* Calls entry->init(&kh->host) (once; a second call is refused) and sets
 * kh->plugin_id to the entry's id. The init() return code. */
int shb_kit_plugin_init(struct shb_kit_plugin *p, struct shb_kit_host *kh);
/* Makes an initialised plugin an extension provider of `kh`
 * (shb_kit_host_add_extension_provider with its entry->get_extension and
 * id), for a plugin under test that needs its extension: open and init
 * the provider first, provide, then init the plugin under test; close the
 * provider after it. 0, or -1 when `p` is not initialised, its entry has
 * no get_extension (ABI 1.1, or NULL) or the host has no room left. */
int shb_kit_plugin_provide(struct shb_kit_plugin *p, struct shb_kit_host *kh);
/* The protocol descriptor named `name`, or the first with NULL; NULL when
 * there is none (after init). */
const struct shb_proto_desc *shb_kit_plugin_proto(struct shb_kit_plugin *p,
						  const char *name);
/* The reporter descriptor named `name`, or the first with NULL. */
const struct shb_report_desc *shb_kit_plugin_report(struct shb_kit_plugin *p,
						    const char *name);
/* Calls deinit() if init() succeeded, then dlcloses a loaded module. */
void shb_kit_plugin_close(struct shb_kit_plugin *p);

/* Whether the entry has member m (by entry_size and struct_size). */
#define SHB_KIT_ENTRY_HAS(p, m)                                                \
	((p)->entry_size >= offsetof(struct shb_plugin_entry, m) +             \
				    sizeof(((struct shb_plugin_entry *)0)->m))

#ifdef __cplusplus
}
#endif
#endif
