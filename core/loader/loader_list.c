/* --list-plugins: every *.so of the search path probed in a child
 * process, so that a plugin that crashes or hangs in dlopen, init() or
 * its factories takes only the child down; one line per file and per
 * descriptor, refusals with their reason. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "loader/elf_exports.h"
#include "loader/loader_int.h"
#include "loader/loader_probe.h"

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

/* A script engine's file extensions ("    extension lua"). */
static void script_details(const void *desc, FILE *out)
{
	const struct shb_script_desc *d = desc;
	char ext[32];

	for (size_t i = 0; d->extensions[i]; i++)
		fprintf(out, "    extension %s\n",
			shb_loader_clean(d->extensions[i], ext, sizeof ext));
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
static int list_child(struct shb_loader *l, void *arg, FILE *out)
{
	const char *path = arg;
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
	bad |= list_descs(&shb_loader_script_kind, f, out, &provided,
			  script_details);
	if (!bad && !provided) {
		fprintf(out, "  REFUSED: provides no protocol, no reporter and "
			"no script engine\n");
		bad = 1;
	}
	return bad;
}

/* Prints one file's listing: the child's record, or why there is none.
 * Returns 1 when the file counts as refused. */
static int list_print(FILE *out, const char *path,
		      const struct shb_loader_probe *p,
		      int status, int timed_out, struct seen *seen)
{
	const char *id, *line, *rest, *end;
	const char *first;
	char why[LOADER_REASON_MAX];

	end = p->buf ? p->buf + p->len : NULL;
	id = p->record;
	line = id ? memchr(id, '\0', (size_t)(end - id)) : NULL;
	rest = line ? memchr(line + 1, '\0', (size_t)(end - line - 1)) : NULL;
	if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) > 1 || !rest) {
		shb_loader_probe_why(p, status, timed_out, why, sizeof why);
		fprintf(out, "%s: REFUSED: %s\n", path, why);
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
	struct shb_loader_probe p;
	char why[LOADER_REASON_MAX];
	int status, r, bad;

	fflush(out);
	r = shb_loader_probe_run(l, list_child, (void *)path, &p, &status, why,
				 sizeof why);
	if (r < 0) {
		fprintf(out, "%s: REFUSED: %s\n", path, why);
		return 1;
	}
	bad = list_print(out, path, &p, status, r, seen);
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

