/* Plugin discovery, loading and validation.
 *
 * Search order for a short name ("h1" -> shb-proto-h1.so, "json" ->
 * shb-report-json.so): each --plugin-dir in order, then each entry of
 * SHB_PLUGIN_PATH (colon-separated), then the compiled-in SHB_PLUGINDIR,
 * which SHB_PLUGIN_SYSTEM_PATH (colon-separated) replaces when it is set.
 * Both variables are read with secure_getenv. A name containing '/' is a
 * path to a .so: that file or nothing (a refusal is the error).
 *
 * A short name is looked up in two passes. First by file name: the first
 * file of that name that exists, validates and provides a descriptor of
 * that name wins. When none does, by descriptor: every *.so of the search
 * path (each directory sorted by name) is loaded in order and the first
 * descriptor named NAME wins, or the first descriptor of the kind in a
 * plugin whose entry id is NAME. Every file of the right name that was
 * passed over gets one warning line on `warn` (stderr) naming it and why,
 * so that a broken build in --plugin-dir never yields silently to an
 * installed copy. When nothing is found the error is the first such
 * refusal, else "unknown protocol" (naming the first file of the scan
 * that crashed, if any).
 *
 * Every file a lookup would load (by path, by file name, in the scan, or
 * for an extension) is loaded first in a child process that asks it the
 * lookup's question (loader_probe.h); only a file the child survived and
 * answered yes for is loaded into shb. A plugin that crashes or hangs in
 * dlopen, init() or its factories so costs a refusal, "PATH: crashed
 * (signal N) in init()", never the run; the scan skips it like any file
 * that does not match, and loads into shb only the file it picks.
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
	size_t entry_size; /* bytes of the entry we may read (ELF size) */
	int inited;
	unsigned asked; /* get_extension round that last asked it */
	char *refused; /* why the file is unusable (no path prefix), or NULL */
	dev_t dev;
	ino_t ino;
	/* Files are allocated one by one and chained, newest first, so that a
	 * handle's `file` pointer stays valid until shb_loader_fini. */
	struct shb_plugin_file *next;
};

struct shb_loader {
	const struct shb_host *host; /* non-NULL; handed to every init() */
	FILE *warn; /* warning lines; stderr after init, tests may redirect */
	char **dirs; /* the search path, resolved at init */
	size_t dir_count;
	struct shb_plugin_file *files; /* every plugin loaded so far (list) */
	size_t file_count;
	/* Initialised files in deinit order: fini walks it from the end. A
	 * plugin whose init() is running when another one's init() completes
	 * (it asked for an extension) comes after it, so it is deinited
	 * first; one loaded for an extension outside any init() goes to the
	 * front and is deinited last. */
	struct shb_plugin_file **order;
	size_t order_count;
	unsigned init_depth; /* init() calls running (nested via extensions) */
	unsigned ext_round;  /* get_extension calls so far */
	unsigned ext_loading; /* loading the search path for an extension */
	int closing;         /* fini is deiniting: no more loads */
	/* Provenance: what the run used (shb_loader_plugins). */
	struct shb_plugin_info *used;
	size_t used_count;
	struct shb_plugin_info **snapshots; /* arrays handed out, freed at fini */
	size_t snapshot_count;
	int stage_fd; /* --list-plugins child: progress bytes, else -1 */
	int failed; /* init ran out of memory: every lookup then fails */
};

/* A protocol chosen for the run. `vt` is a latest-layout copy of the
 * plugin's vtable: members the plugin's (older) vtable lacks are NULL. */
struct shb_proto_handle {
	const struct shb_proto_desc *desc;
	struct shb_proto_vtable vt;
	const struct shb_plugin_file *file;
};

/* since 1.4: a script engine (shb/script.h) for -s. */
struct shb_script_handle {
	const struct shb_script_desc *desc;
	struct shb_script_vtable vt;
	const struct shb_plugin_file *file;
};

struct shb_report_handle {
	const struct shb_report_desc *desc;
	struct shb_report_vtable vt;
	const struct shb_plugin_file *file;
};

/* [main] All of the loader is main-thread only. */
void shb_loader_init(struct shb_loader *l, const struct shb_host *host,
		     char *const *plugin_dirs, size_t dir_count);
/* Calls deinit on every initialised plugin (see `order`). dlclose is
 * skipped on purpose: it keeps atexit handlers and TLS libraries safe. */
void shb_loader_fini(struct shb_loader *l);

/* Returns 0 and fills *out, or -1 with one line (no newline) in err,
 * "PATH: REASON" for a refused file. A short name selects the descriptor of
 * that name; a path selects the file's first descriptor. The handle's vt has
 * struct_size == sizeof(vt), whatever the plugin's vtable size was. */
int shb_loader_proto(struct shb_loader *l, const char *name_or_path,
		     struct shb_proto_handle *out, char *err, size_t errlen);
int shb_loader_report(struct shb_loader *l, const char *name_or_path,
		      struct shb_report_handle *out, char *err, size_t errlen);
/* A script engine by language name ("lua": shb-script-lua.so) or path;
 * without one installed the error names the Debian package. */
int shb_loader_script(struct shb_loader *l, const char *name_or_path,
		      struct shb_script_handle *out, char *err, size_t errlen);

/* --list-plugins: every *.so in the search path (each directory sorted by
 * name), one line per file:
 *   PATH: ID VERSION, ABI M.N[, shadowed by EARLIER-PATH]
 * then "  WARNING: also exports SYM, SYM" when the file's .dynsym exports
 * more than the entry symbol, then one indented line per protocol and
 * reporter it provides ("  protocol NAME  SUMMARY", or
 * "  protocol NAME  REFUSED: REASON"), each followed by its 1.2 scheme_defs
 * ("    scheme NAME PORT[ tls]") and option_defs
 * ("    option KEY[=VALUE]  SUMMARY"); or
 *   PATH: REFUSED: REASON
 * A file whose id an earlier file already provided is shadowed. Each file
 * is probed in a child process (dlopen and init run there, exactly as for
 * a run; the loader itself loads nothing), so a plugin that crashes is
 * listed as "REFUSED: crashed (signal N) in STEP" and the listing goes on;
 * one that takes over 10 s is killed. Returns the number of refused files
 * (a file with any refused descriptor counts). */
int shb_loader_list(struct shb_loader *l, FILE *out);

/* [main] host->get_extension for ids the core does not answer itself:
 * asks every initialised plugin's entry->get_extension in init order, then
 * loads (and inits) the search path's plugins not loaded yet, in order,
 * asking each, until one answers. Plugins loaded so stay until
 * shb_loader_fini. NULL when nobody offers `id`, or during fini. The
 * signature suits shb_host_set_extensions (host.h): `loader` is a struct
 * shb_loader. */
const void *shb_loader_extension(void *loader, const char *id);

/* [main] Provenance: one entry per plugin the run used (each protocol or
 * reporter found, and each plugin that answered an extension, role
 * "extension" with the id asked as name), in the order they were first
 * found. The array and its strings are loader-owned and stay valid, never
 * changing, until shb_loader_fini; a later lookup does not show in an
 * array already returned. *count is set; NULL when nothing was used. */
const struct shb_plugin_info *shb_loader_plugins(struct shb_loader *l,
						 size_t *count);

#endif
