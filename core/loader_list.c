/* --list-plugins: every *.so of the search path probed in a child
 * process, so that a plugin that crashes or hangs in dlopen, init() or
 * its factories takes only the child down; one line per file and per
 * descriptor, refusals with their reason. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf_exports.h"
#include "loader_int.h"

struct seen {
	char **ids;
	char **paths;
	size_t count;
};

static const char *seen_path(const struct seen *s, const char *id)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->ids[i], id))
			return s->paths[i];
	return NULL;
}

static void seen_add(struct seen *s, const char *id, const char *path)
{
	char **ids = realloc(s->ids, (s->count + 1) * sizeof *ids);
	char **paths;

	if (!ids)
		return;
	s->ids = ids;
	paths = realloc(s->paths, (s->count + 1) * sizeof *paths);
	if (!paths)
		return;
	s->paths = paths;
	ids[s->count] = strdup(id);
	paths[s->count] = strdup(path);
	if (!ids[s->count] || !paths[s->count]) {
		free(ids[s->count]);
		free(paths[s->count]);
		return;
	}
	s->count++;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free(s->ids[i]);
		free(s->paths[i]);
	}
	free(s->ids);
	free(s->paths);
}

static void list_options(const struct shb_option_def *o, FILE *out)
{
	char key[64], val[64], text[256];

	for (uint32_t i = 0; o && o[i].key; i++)
		fprintf(out, "    option %s%s%s  %s\n",
			shb_loader_clean(o[i].key, key, sizeof key),
			o[i].value_name ? "=" : "",
			o[i].value_name ? shb_loader_clean(o[i].value_name, val, sizeof val)
					: "",
			shb_loader_clean(o[i].summary, text, sizeof text));
}

/* The 1.2 tables of a descriptor that passed its checks. */
static void proto_details(const void *desc, FILE *out)
{
	const struct shb_proto_desc *d = desc;
	const struct shb_scheme *s = NULL;
	char name[64];

	if (SHB_HAS(d, struct shb_proto_desc, scheme_defs))
		s = d->scheme_defs;
	for (uint32_t i = 0; s && s[i].name; i++)
		fprintf(out, "    scheme %s %u%s\n",
			shb_loader_clean(s[i].name, name, sizeof name),
			(unsigned)s[i].default_port,
			(s[i].flags & SHB_SCHEME_TLS) ? " tls" : "");
	if (SHB_HAS(d, struct shb_proto_desc, option_defs))
		list_options(d->option_defs, out);
}

static void report_details(const void *desc, FILE *out)
{
	const struct shb_report_desc *d = desc;

	if (SHB_HAS(d, struct shb_report_desc, option_defs))
		list_options(d->option_defs, out);
}

/* Prints one line per descriptor of kind k; returns 1 if any is refused. */
static int list_descs(const struct shb_loader_kind *k, const struct shb_plugin_file *f,
		      FILE *out, int *provided,
		      void (*details)(const void *desc, FILE *out))
{
	char why[LOADER_REASON_MAX], name[64], text[256];
	uint32_t count;
	int bad = 0;

	if (k->count(f, &count, why, sizeof why)) {
		fprintf(out, "  %-8s %-12s REFUSED: %s\n", k->noun, "-", why);
		return 1;
	}
	for (uint32_t i = 0; i < count; i++) {
		const void *d = k->get(f, i);
		int r = k->check(d, f->entry->abi_minor, why, sizeof why);

		if (r == -2)
			snprintf(name, sizeof name, "#%u", (unsigned)i);
		else
			shb_loader_clean(k->name(d), name, sizeof name);
		if (r < 0) {
			fprintf(out, "  %-8s %-12s REFUSED: %s\n", k->noun, name,
				why);
			bad = 1;
		} else {
			fprintf(out, "  %-8s %-12s %s\n", k->noun, name,
				shb_loader_clean(k->summary(d), text, sizeof text));
			details(d, out);
		}
		(*provided)++;
	}
	return bad;
}

/* A child record (see list_probe): 'R', the entry id (empty for a refused
 * file), NUL, the file's line without its newline, NUL, the lines after
 * it. The child's exit status is 1 when anything was refused. */
static int list_child(struct shb_loader *l, const char *path, FILE *out)
{
	const struct shb_plugin_entry *e;
	struct shb_plugin_file *f;
	char id[128], version[64], syms[512];
	int bad = 0, provided = 0;

	if (shb_loader_file_open(l, path, &f)) {
		fprintf(out, "R%c%s: REFUSED: %s%c", 0, path, strerror(errno), 0);
		return 1;
	}
	if (f->refused) {
		fprintf(out, "R%c%s: REFUSED: %s%c", 0, path, f->refused, 0);
		return 1;
	}
	e = f->entry;
	fprintf(out, "R%s%c%s: %s %s, ABI %u.%u%c", e->id, 0, path,
		shb_loader_clean(e->id, id, sizeof id),
		e->version ? shb_loader_clean(e->version, version, sizeof version)
			   : "(no version)",
		(unsigned)e->abi_major, (unsigned)e->abi_minor, 0);
	if (shb_elf_extra_exports_file(path, syms, sizeof syms))
		fprintf(out, "  WARNING: also exports %s (a plugin exports "
			"only %s)\n", syms, SHB_PLUGIN_ENTRY_SYMBOL);
	bad |= list_descs(&shb_loader_proto_kind, f, out, &provided,
			  proto_details);
	bad |= list_descs(&shb_loader_report_kind, f, out, &provided,
			  report_details);
	if (!bad && !provided) {
		fprintf(out, "  REFUSED: provides no protocol and no reporter\n");
		bad = 1;
	}
	return bad;
}

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

/* What a probe child sent: stage bytes, then maybe a record. */
struct probe {
	char *buf;
	size_t len;
	char stage;
	const char *record; /* after 'R', or NULL */
};

#define PROBE_MAX (1u << 20)
#define PROBE_TIMEOUT_MS 10000

/* Reads everything until EOF or the time limit. Returns 0 at EOF, -1 on
 * timeout. */
static int probe_read(int fd, struct probe *p)
{
	uint64_t deadline = 0;
	struct timespec ts;
	char chunk[4096];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 +
		   PROBE_TIMEOUT_MS;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
		if (now >= deadline)
			return -1;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -1 : 0;
		r = read(fd, chunk, sizeof chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		for (ssize_t i = 0; i < r; i++) {
			/* Stage bytes come before the record. */
			if (!p->record && chunk[i] != 'R') {
				p->stage = chunk[i];
				continue;
			}
			if (p->len + 1 >= PROBE_MAX)
				continue;
			if (!p->buf && !(p->buf = malloc(PROBE_MAX)))
				return 0;
			p->buf[p->len++] = chunk[i];
			p->record = p->buf + 1;
		}
	}
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

/* Prints one file's listing: the child's record, or why there is none.
 * Returns 1 when the file counts as refused. */
static int list_print(FILE *out, const char *path, struct probe *p,
		      int status, int timed_out, struct seen *seen)
{
	const char *id, *line, *rest, *end;
	const char *first;

	if (timed_out) {
		fprintf(out, "%s: REFUSED: did not finish within %d s, in %s\n",
			path, PROBE_TIMEOUT_MS / 1000, stage_name(p->stage));
		return 1;
	}
	if (WIFSIGNALED(status)) {
		fprintf(out, "%s: REFUSED: crashed (signal %d) in %s\n", path,
			WTERMSIG(status), stage_name(p->stage));
		return 1;
	}
	end = p->buf ? p->buf + p->len : NULL;
	id = p->record;
	line = id ? memchr(id, '\0', (size_t)(end - id)) : NULL;
	rest = line ? memchr(line + 1, '\0', (size_t)(end - line - 1)) : NULL;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1 || !rest) {
		fprintf(out, "%s: REFUSED: exited (status %d) in %s\n", path,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			stage_name(p->stage));
		return 1;
	}
	line++;
	rest++;
	fputs(line, out);
	if (*id) {
		first = seen_path(seen, id);
		if (first)
			fprintf(out, ", shadowed by %s", first);
		else
			seen_add(seen, id, path);
	}
	fputc('\n', out);
	fwrite(rest, 1, (size_t)(end - rest), out);
	return WEXITSTATUS(status);
}

/* One file, probed in a child process: a plugin that crashes or hangs in
 * dlopen, init() or its factories takes only the child down. */
static int list_probe(struct shb_loader *l, FILE *out, const char *path,
		      struct seen *seen)
{
	struct probe p = { 0 };
	int fds[2], status = 0, timed_out, bad;
	pid_t pid;

	fflush(out);
	fflush(stderr);
	if (pipe2(fds, O_CLOEXEC)) {
		fprintf(out, "%s: REFUSED: cannot probe: %s\n", path,
			strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(out, "%s: REFUSED: cannot probe: %s\n", path,
			strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		char *text = NULL;
		size_t len = 0;
		FILE *m;
		int rc;

		close(fds[0]);
		l->stage_fd = fds[1];
		m = open_memstream(&text, &len);
		if (!m)
			_exit(3);
		rc = list_child(l, path, m);
		if (fclose(m))
			_exit(3);
		write_all(fds[1], text, len);
		/* No exit handlers, no stdio flush: they are the parent's. */
		_exit(rc);
	}
	close(fds[1]);
	timed_out = probe_read(fds[0], &p);
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	bad = list_print(out, path, &p, status, timed_out, seen);
	free(p.buf);
	return bad;
}


int shb_loader_list(struct shb_loader *l, FILE *out)
{
	struct seen seen = { 0 };
	size_t files = 0;
	int refused = 0;

	if (l->failed) {
		fprintf(out, "out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < l->dir_count; i++) {
		char **names;
		size_t count;

		if (shb_loader_so_names(l->dirs[i], &names, &count)) {
			if (errno != ENOENT && errno != ENOTDIR)
				fprintf(out, "%s: cannot read: %s\n", l->dirs[i],
					strerror(errno));
			continue;
		}
		for (size_t j = 0; j < count; j++) {
			char *path = shb_loader_join(l->dirs[i], names[j]);

			if (path)
				refused += list_probe(l, out, path, &seen);
			free(path);
			free(names[j]);
			files++;
		}
		free(names);
	}
	if (!files) {
		fprintf(out, "no plugins in ");
		for (size_t i = 0; i < l->dir_count; i++)
			fprintf(out, "%s%s", i ? ", " : "", l->dirs[i]);
		fprintf(out, "%s\n", l->dir_count ? "" : "(empty search path)");
	}
	seen_free(&seen);
	return refused;
}

