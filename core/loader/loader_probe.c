/* Probing plugin files in a child process, and listing the *.so files of
 * a directory (see loader_probe.h).
 *
 * Why a child: a plugin runs its constructors in dlopen and its own code
 * in init() and its factories before the loader can check anything, and
 * a crash or a hang there cannot be recovered in the process that ran
 * it. A forked child loads the file first; the process only loads what
 * the child survived and answered yes for. A lookup by file name costs
 * one short-lived child; the scan by descriptor one per file until a
 * match, and only the match is loaded here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader/loader_int.h"
#include "loader/loader_probe.h"

/* A record larger than this is cut: --list-plugins output of one file. */
#define PROBE_MAX (1u << 20)

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Appends c to the record, growing it up to PROBE_MAX; -1 out of memory. */
static int record_put(struct shb_loader_probe *p, size_t *cap, char c)
{
	if (p->len + 1 >= PROBE_MAX)
		return 0;
	if (p->len + 1 >= *cap) {
		size_t want = *cap ? *cap * 2 : 256;
		char *b = realloc(p->buf, want);

		if (!b)
			return -1;
		p->buf = b;
		*cap = want;
	}
	p->buf[p->len++] = c;
	p->buf[p->len] = '\0';
	p->record = p->buf + 1;
	return 0;
}

/* Reads everything until EOF or the time limit. Returns 0 at EOF, 1 on
 * timeout. */
static int probe_read(int fd, struct shb_loader_probe *p)
{
	uint64_t deadline = now_ms() + SHB_PROBE_TIMEOUT_MS;
	size_t cap = 0;
	char chunk[4096];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t r;

		if (now >= deadline)
			return 1;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? 1 : 0;
		r = read(fd, chunk, sizeof chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		for (ssize_t i = 0; i < r; i++) {
			/* Stage bytes come before the record. */
			if (!p->record && chunk[i] != 'R')
				p->stage = chunk[i];
			else if (record_put(p, &cap, chunk[i]))
				return 0;
		}
	}
}

/* The child's side: never returns. */
static void probe_child(struct shb_loader *l,
			int (*child)(struct shb_loader *l, void *arg, FILE *out),
			void *arg, int fd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	l->stage_fd = fd;
	m = open_memstream(&text, &len);
	if (!m)
		_exit(3);
	rc = child(l, arg, m);
	if (fclose(m))
		_exit(3);
	write_all(fd, text, len);
	/* No exit handlers, no stdio flush: they are the parent's. */
	_exit(rc);
}

int shb_loader_probe_run(struct shb_loader *l,
			 int (*child)(struct shb_loader *l, void *arg, FILE *out),
			 void *arg, struct shb_loader_probe *p, int *status,
			 char *why, size_t n)
{
	int fds[2], timed_out;
	pid_t pid;

	memset(p, 0, sizeof *p);
	*status = 0;
	/* The child must not inherit unwritten output it would not flush. */
	fflush(stdout);
	fflush(stderr);
	if (pipe2(fds, O_CLOEXEC)) {
		shb_loader_fmt(why, n, "cannot probe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		shb_loader_fmt(why, n, "cannot probe: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		probe_child(l, child, arg, fds[1]);
	}
	close(fds[1]);
	timed_out = probe_read(fds[0], p);
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return timed_out;
}

static const char *stage_name(char c)
{
	switch (c) {
	case 'o': return "dlopen (its constructors)";
	case 'i': return "init()";
	case 'f': return "get_factory() or a descriptor";
	default: return "the loader";
	}
}

void shb_loader_probe_why(const struct shb_loader_probe *p, int status,
			  int timed_out, char *why, size_t n)
{
	if (timed_out)
		shb_loader_fmt(why, n, "did not finish within %d s, in %s",
		    SHB_PROBE_TIMEOUT_MS / 1000, stage_name(p->stage));
	else if (WIFSIGNALED(status))
		shb_loader_fmt(why, n, "crashed (signal %d) in %s",
		    WTERMSIG(status), stage_name(p->stage));
	else
		shb_loader_fmt(why, n, "exited (status %d) in %s",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		    stage_name(p->stage));
}

/* ---- a lookup's probe ------------------------------------------------------ */

struct question {
	const char *path;
	shb_loader_test test;
	void *arg;
};

/* In the child: "RN" when the file opens and the test says no, else
 * "RY". A file that cannot be opened is not the child's to explain: the
 * parent opens it itself and gets the same error. */
static int ask_child(struct shb_loader *l, void *arg, FILE *out)
{
	const struct question *q = arg;
	struct shb_plugin_file *f;
	int yes = shb_loader_file_open(l, q->path, &f) || !q->test ||
		  q->test(l, f, q->arg);

	fputs(yes ? "RY" : "RN", out);
	return 0;
}

static int known(const struct shb_loader *l, const struct stat *st)
{
	for (const struct shb_plugin_file *f = l->files; f; f = f->next)
		if (f->dev == st->st_dev && f->ino == st->st_ino)
			return 1;
	return 0;
}

int shb_loader_open_probed(struct shb_loader *l, const char *path,
			   shb_loader_test test, void *arg,
			   struct shb_plugin_file **out, char *why, size_t n)
{
	struct question q = { path, test, arg };
	struct shb_loader_probe p;
	struct stat st;
	int status, r;

	*out = NULL;
	if (stat(path, &st))
		return -1;
	if (l->stage_fd < 0 && !known(l, &st)) {
		r = shb_loader_probe_run(l, ask_child, &q, &p, &status, why, n);
		if (r < 0)
			return -2;
		if (r || !WIFEXITED(status) || WEXITSTATUS(status) ||
		    !p.record || (p.record[0] != 'Y' && p.record[0] != 'N')) {
			shb_loader_probe_why(&p, status, r, why, n);
			free(p.buf);
			return -2;
		}
		r = p.record[0] == 'Y';
		free(p.buf);
		if (!r)
			return 0;
	}
	return shb_loader_file_open(l, path, out) ? -1 : 1;
}

/* ---- directories ------------------------------------------------------------ */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int shb_loader_so_names(const char *dir, char ***names, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0;

	*names = NULL;
	*count = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nv;

		if (de->d_name[0] == '.' || len < 4 ||
		    strcmp(de->d_name + len - 3, ".so"))
			continue;
		nv = realloc(v, (n + 1) * sizeof *v);
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			v = nv ? nv : v;
			break;
		}
		v = nv;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, cmp_names);
	*names = v;
	*count = n;
	return 0;
}
