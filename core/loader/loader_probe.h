/* Touching the files of the search path without trusting them: the *.so
 * names of a directory, and a plugin file loaded first in a child process
 * (a probe), so that one that crashes or hangs in dlopen, init() or its
 * factories takes only the child down. Used by the lookups of loader.c
 * and by --list-plugins (loader_list.c). Main thread only. */
#ifndef SHB_CORE_LOADER_PROBE_H
#define SHB_CORE_LOADER_PROBE_H

#include <stddef.h>
#include <stdio.h>

#include "loader/loader.h"

/* A probe child that has not finished by then is killed. */
#define SHB_PROBE_TIMEOUT_MS 10000

/* What a probe child sent: stage bytes ('o' dlopen, 'i' init, 'f'
 * factories, written by the loader as it goes), then a record starting
 * with 'R' that the child's callback wrote. */
struct shb_loader_probe {
	char *buf;          /* the record, malloc'd */
	size_t len;
	char stage;         /* the last stage byte */
	const char *record; /* after the 'R', or NULL when none came */
};

/* Runs child(l, arg, out) in a forked copy of this process, with the
 * loader's stage bytes going to the parent; what it prints to `out` is
 * sent as the record and its return value is the child's exit status.
 * Returns 0 when the child ended (*status from waitpid), 1 when it took
 * longer than SHB_PROBE_TIMEOUT_MS and was killed, -1 when no child could
 * be started (why set). p->buf is the caller's to free. */
int shb_loader_probe_run(struct shb_loader *l,
			 int (*child)(struct shb_loader *l, void *arg, FILE *out),
			 void *arg, struct shb_loader_probe *p, int *status,
			 char *why, size_t n);

/* Why a probe child gave no answer: "crashed (signal 4) in init()", "did
 * not finish within 10 s, in dlopen (its constructors)" or "exited
 * (status 3) in get_factory() or a descriptor". */
void shb_loader_probe_why(const struct shb_loader_probe *p, int status,
			  int timed_out, char *why, size_t n);

/* A question asked of a loaded file: 1 yes, 0 no. */
typedef int (*shb_loader_test)(struct shb_loader *l,
			       struct shb_plugin_file *f, void *arg);

/* Opens `path` for a lookup. A file this process has not loaded yet is
 * first loaded in a probe child, which also asks test(l, f, arg) there
 * (no test, or a file the child cannot open: yes); only when it says yes
 * is the file loaded here, with shb_loader_file_open. The test should
 * call what the caller will call here next (the factories and the
 * descriptors it reads), so that a crash there happens in the child. Inside a probe child (l->stage_fd >= 0) the file
 * is opened directly: the child is the sandbox already. Returns
 *   1  *out set (the file may still be refused: the caller asks again);
 *   0  the child said no: nothing was loaded here;
 *  -1  errno set: the path cannot be looked at (ENOENT: nothing there);
 *  -2  why set: the child crashed, hung or exited (shb_loader_probe_why),
 *      or could not be started. */
int shb_loader_open_probed(struct shb_loader *l, const char *path,
			   shb_loader_test test, void *arg,
			   struct shb_plugin_file **out, char *why, size_t n);

/* The *.so names in dir, sorted bytewise (locale-independent output),
 * each and the array malloc'd. Returns -1 with errno set when the
 * directory cannot be read. */
int shb_loader_so_names(const char *dir, char ***names, size_t *count);

#endif
