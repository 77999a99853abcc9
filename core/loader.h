/* Plugin discovery, loading and validation.
 *
 * Search order for a short name ("h1" -> shb-proto-h1.so, "json" ->
 * shb-report-json.so): each --plugin-dir in order, then each entry of
 * SHB_PLUGIN_PATH (colon-separated), then the compiled-in SHB_PLUGINDIR.
 * A name containing '/' is a path to a .so. A plugin is refused, with one
 * line naming the file and the reason, when dlopen fails, the entry symbol
 * is missing, its struct is short, the ABI major differs, its minor is newer
 * than ours, init fails, or its descriptor/vtable is short or lacks a
 * mandatory member. Nothing a plugin file contains may crash the loader
 * before those checks. */
#ifndef SHB_CORE_LOADER_H
#define SHB_CORE_LOADER_H

#include <stddef.h>
#include <stdio.h>
#include <shb/shb.h>

struct shb_plugin_file {
	char *path;
	void *dl;
	const struct shb_plugin_entry *entry;
	int inited;
};

struct shb_loader {
	const struct shb_host *host;
	char **dirs; /* the search path, resolved at init */
	size_t dir_count;
	struct shb_plugin_file *files; /* every plugin loaded so far */
	size_t file_count;
};

/* A protocol chosen for the run. `vt` is a latest-layout copy of the
 * plugin's vtable: members the plugin's (older) vtable lacks are NULL. */
struct shb_proto_handle {
	const struct shb_proto_desc *desc;
	struct shb_proto_vtable vt;
	const struct shb_plugin_file *file;
};

struct shb_report_handle {
	const struct shb_report_desc *desc;
	struct shb_report_vtable vt;
	const struct shb_plugin_file *file;
};

void shb_loader_init(struct shb_loader *l, const struct shb_host *host,
		     char *const *plugin_dirs, size_t dir_count);
/* Calls deinit on every initialised plugin. dlclose is skipped on purpose:
 * it keeps atexit handlers and TLS libraries safe. */
void shb_loader_fini(struct shb_loader *l);

/* Returns 0 and fills *out, or -1 with one line in err. */
int shb_loader_proto(struct shb_loader *l, const char *name_or_path,
		     struct shb_proto_handle *out, char *err, size_t errlen);
int shb_loader_report(struct shb_loader *l, const char *name_or_path,
		      struct shb_report_handle *out, char *err, size_t errlen);

/* --list-plugins: every shb-*.so in the search path, with what it provides
 * or why it was refused. Returns the number of refused files. */
int shb_loader_list(struct shb_loader *l, FILE *out);

#endif
