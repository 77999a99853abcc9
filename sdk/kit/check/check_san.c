/* shb-plugin-check: plugins built with a sanitizer. A shared object built
 * with -fsanitize=address needs the ASan runtime loaded before anything
 * else: dlopen'd from a process without it, the runtime aborts the
 * process ("ASan runtime does not come first"). The checker finds the
 * runtime in the plugin's DT_NEEDED and, when this process lacks it, runs
 * itself again with the runtime in LD_PRELOAD: the user preloads nothing.
 * A checker built with the same sanitizer loads such a plugin directly. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_elf.h"

#define REEXEC_ENV "SHB_PLUGIN_CHECK_PRELOADED"

/* The runtimes that must come first, and a symbol each defines. */
static const struct {
	const char *soname_prefix;
	const char *symbol;
	const char *name;
} runtimes[] = {
	{"libasan.so", "__asan_init", "AddressSanitizer"},
	{"libhwasan.so", "__hwasan_init", "HWAddressSanitizer"},
	{"libtsan.so", "__tsan_init", "ThreadSanitizer"},
};

struct file {
	int fd;
};

static int file_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct file *f = ctx;

	return chk_pread(f->fd, buf, n, off);
}

/* The plugin's DT_NEEDED name starting with `prefix`: 1 found (in out). */
static int needed(const char *path, const char *prefix, char *out, size_t n)
{
	struct file f = {open(path, O_RDONLY | O_CLOEXEC)};
	struct chk_elf_src src = {file_read, &f, 0};
	struct stat st;
	int found = -1;

	if (f.fd < 0)
		return -1;
	if (!fstat(f.fd, &st)) {
		src.size = (uint64_t)st.st_size;
		found = chk_elf_needed(&src, prefix, out, n);
	}
	close(f.fd);
	return found;
}

int chk_sanitizer_reexec(struct chk *k, char **argv)
{
	char lib[128], *pre;
	const char *old;

	for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++) {
		if (needed(k->path, runtimes[i].soname_prefix, lib,
			   sizeof lib) != 1 ||
		    dlsym(RTLD_DEFAULT, runtimes[i].symbol))
			continue;
		if (getenv(REEXEC_ENV)) {
			chk_line(k, "FAIL", "entry", "%s is built with %s and "
				 "%s could not be loaded first (LD_PRELOAD=%s)",
				 k->path, runtimes[i].name, lib, lib);
			return 1;
		}
		chk_line(k, "INFO", "entry", "%s is built with %s: running "
			 "again with %s preloaded", k->path, runtimes[i].name,
			 lib);
		old = getenv("LD_PRELOAD");
		pre = malloc(strlen(lib) + (old ? strlen(old) + 2 : 1));
		if (!pre)
			return chk_line(k, "FAIL", "entry", "out of memory"), 1;
		sprintf(pre, "%s%s%s", lib, old && *old ? ":" : "",
			old ? old : "");
		setenv("LD_PRELOAD", pre, 1);
		setenv(REEXEC_ENV, "1", 1);
		fflush(stdout);
		execv("/proc/self/exe", argv);
		chk_line(k, "FAIL", "entry", "%s is built with %s; running "
			 "again with %s preloaded failed: %s", k->path,
			 runtimes[i].name, lib, "execv");
		free(pre);
		return 1;
	}
	return 0;
}
