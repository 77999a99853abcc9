/* What the loader's files share: loader.c (search path, loading, lookup,
 * provenance, extensions), loader_desc.c (checking and copying
 * descriptors), loader_list.c (--list-plugins) and loader_probe.c (probe
 * children, directory listing). Not for the rest of the core, which uses
 * loader.h. Main thread only, like the loader. */
#ifndef SHB_CORE_LOADER_INT_H
#define SHB_CORE_LOADER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "loader/loader.h"

/* Bytes from the start of T to the end of member m. */
#define SHB_END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))

/* A refusal or lookup reason, one line. */
#define LOADER_REASON_MAX 512

/* What differs between protocols and reporters (loader_desc.c). check()
 * returns 0 when the descriptor is usable, -1 when it is refused but its
 * name can be trusted, -2 when even the name cannot be read. */
struct shb_loader_kind {
	const char *noun;       /* "protocol" */
	const char *prefix;     /* "shb-proto-" */
	int (*count)(const struct shb_plugin_file *f, uint32_t *count,
		     char *why, size_t n);
	const void *(*get)(const struct shb_plugin_file *f, uint32_t i);
	/* minor: the abi_minor the plugin's entry declares */
	int (*check)(const void *desc, uint32_t minor, char *why, size_t n);
	const char *(*name)(const void *desc);
	const char *(*summary)(const void *desc);
	void (*fill)(void *out, const void *desc,
		     const struct shb_plugin_file *f);
};

extern const struct shb_loader_kind shb_loader_proto_kind;
extern const struct shb_loader_kind shb_loader_report_kind;
extern const struct shb_loader_kind shb_loader_script_kind; /* loader_script.c */

/* snprintf into buf[n]; nothing when buf is NULL or n is 0. */
void shb_loader_fmt(char *buf, size_t n, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends s to buf at *pos, never past n (the text is cut instead). */
void shb_loader_append(char *buf, size_t n, size_t *pos, const char *s);
/* dir/file, malloc'd; NULL when out of memory. */
char *shb_loader_join(const char *dir, const char *file);
/* Plugin strings go to a terminal: s (NULL: "") copied into buf[n] with
 * control bytes as '?'. Returns buf. */
const char *shb_loader_clean(const char *s, char *buf, size_t n);

/* Returns 0 with *out set (the file may be refused), or -1 with errno set
 * when the path cannot be looked at (ENOENT: nothing there). Opens,
 * checks and inits a file once per device and inode. */
int shb_loader_file_open(struct shb_loader *l, const char *path,
			 struct shb_plugin_file **out);

#endif
