/* Plugin discovery, loading and validation.
 *
 * Search order for a short name ("h1" -> shb-proto-h1.so, "json" ->
 * shb-report-json.so): each --plugin-dir in order, then each entry of
 * SHB_PLUGIN_PATH (colon-separated), then the compiled-in SHB_PLUGINDIR,
 * which SHB_PLUGIN_SYSTEM_PATH (colon-separated) replaces when it is set.
 * Both variables are read with secure_getenv. The first file that exists
 * and validates wins; when every file found was refused, the error is the
 * first refusal. A name containing '/' is a path to a .so.
 *
 * A plugin is refused, with one line naming the file and the reason, when
 * dlopen fails, the entry symbol is missing, its struct is short, the ABI
 * major differs, its minor is newer than ours, init fails, or its
 * descriptor/vtable is short or lacks a mandatory member. Nothing a plugin
 * file contains may crash the loader before those checks. */
#ifndef SHB_CORE_LOADER_H
#define SHB_CORE_LOADER_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <shb/shb.h>

/* One .so the loader opened (or tried to). A file is identified by device
 * and inode, so asking for it twice, by name or by path, opens and inits it
 * once; a refusal is remembered the same way. */
struct shb_plugin_file {
	char *path; /* as first opened */
	void *dl;   /* NULL when dlopen failed */
	const struct shb_plugin_entry *entry; /* set once init() succeeded */
	int inited;
	char *refused; /* why the file is unusable (no path prefix), or NULL */
	dev_t dev;
	ino_t ino;
	/* Files are allocated one by one and chained, newest first, so that a
	 * handle's `file` pointer stays valid until shb_loader_fini. */
	struct shb_plugin_file *next;
};

struct shb_loader {
	const struct shb_host *host; /* non-NULL; handed to every init() */
	char **dirs; /* the search path, resolved at init */
	size_t dir_count;
	struct shb_plugin_file *files; /* every plugin loaded so far (list) */
	size_t file_count;
	int failed; /* init ran out of memory: every lookup then fails */
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

/* Returns 0 and fills *out, or -1 with one line (no newline) in err,
 * "PATH: REASON" for a refused file. A short name selects the descriptor of
 * that name; a path selects the file's first descriptor. The handle's vt has
 * struct_size == sizeof(vt), whatever the plugin's vtable size was. */
int shb_loader_proto(struct shb_loader *l, const char *name_or_path,
		     struct shb_proto_handle *out, char *err, size_t errlen);
int shb_loader_report(struct shb_loader *l, const char *name_or_path,
		      struct shb_report_handle *out, char *err, size_t errlen);

/* --list-plugins: every *.so in the search path (each directory sorted by
 * name), one line per file:
 *   PATH: ID VERSION, ABI M.N[, shadowed by EARLIER-PATH]
 * followed by one indented line per protocol and reporter it provides
 * ("  protocol NAME  SUMMARY", or "  protocol NAME  REFUSED: REASON"), or
 *   PATH: REFUSED: REASON
 * A file whose id an earlier file already provided is shadowed. Loading a
 * file runs its init(), exactly as for a run. Returns the number of refused
 * files (a file with any refused descriptor counts). */
int shb_loader_list(struct shb_loader *l, FILE *out);

#endif
