/* Files for the targets whose parser reads files named in its input
 * (--urls body files, {{line:FILE}}, --body-lines): a private scratch
 * directory made the working directory once, removed at exit, in which
 * a target writes the fuzzer's bytes as a file before each run. The
 * paths libFuzzer was given (corpus directories, the artifact prefix)
 * are made absolute first, so that they still name the same places.
 *
 * The parsers open whatever name the input gives, read-only. Names that
 * reach the machine's special files (dev/, proc/, sys/: a device read to
 * the 64 MiB cap, standard input) are left out so that a run stays fast
 * and never blocks: fz_files_tame says whether an input is free of them. */
#ifndef SHB_FUZZ_FILES_H
#define SHB_FUZZ_FILES_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fz_dir[64];

static inline void fz_files_remove(void)
{
	static const char *const names[] = {"f", "g", "u", "b"};

	if (chdir("/") != 0)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char p[96];

		snprintf(p, sizeof(p), "%s/%s", fz_dir, names[i]);
		unlink(p);
	}
	rmdir(fz_dir);
}

/* A relative path of argv made absolute from the working directory (the
 * copy is kept: argv is libFuzzer's until exit). */
static inline void fz_files_absolute(char **arg, size_t skip)
{
	static char cwd[4096];
	char *a = *arg, *p;

	if (a[skip] == '/' || a[skip] == '\0' || (!cwd[0] && !getcwd(cwd, sizeof(cwd))))
		return;
	p = malloc(strlen(cwd) + strlen(a) + 2);
	if (!p)
		abort();
	sprintf(p, "%.*s%s/%s", (int)skip, a, cwd, a + skip);
	*arg = p;
}

/* Once, from LLVMFuzzerInitialize: the scratch directory, made the
 * working directory once libFuzzer's paths are absolute; standard input
 * from /dev/null. */
static inline void fz_files_init(int *argc, char ***argv)
{
	static const char *const path_flags[] = {
		"-artifact_prefix=", "-exact_artifact_path=", "-dict=",
		"-merge_control_file=", "-features_dir=",
	};
	const char *tmp = getenv("TMPDIR");
	int fd = open("/dev/null", O_RDONLY);

	for (int i = 1; i < *argc; i++) {
		char **a = &(*argv)[i];
		if ((*a)[0] != '-') {
			fz_files_absolute(a, 0);
			continue;
		}
		for (size_t k = 0; k < sizeof(path_flags) / sizeof(path_flags[0]); k++)
			if (!strncmp(*a, path_flags[k], strlen(path_flags[k])))
				fz_files_absolute(a, strlen(path_flags[k]));
	}

	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	snprintf(fz_dir, sizeof(fz_dir), "%.40s/shb-fuzz-XXXXXX",
		 tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(fz_dir) || chdir(fz_dir) != 0)
		abort();
	atexit(fz_files_remove);
}

/* Writes p[0..n) as the file `name` of the scratch directory. */
static inline void fz_files_write(const char *name, const void *p, size_t n)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n))
		abort();
	close(fd);
}

/* 1 when p[0..n) names none of dev/, proc/, sys/. */
static inline int fz_files_tame(const uint8_t *p, size_t n)
{
	static const char *const bad[] = {"dev/", "proc/", "sys/"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (memmem(p, n, bad[i], strlen(bad[i])))
			return 0;
	return 1;
}

#endif
