/* The error of a lookup that found nothing (see loader_unknown.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader/loader_probe.h"
#include "loader/loader_unknown.h"

/* Names listed as found; more are counted ("and 3 more"). */
#define FOUND_MAX 12

/* The protocols and reporters shb ships in packages of their own, and the
 * Debian package holding each: when one is not found, the error says it
 * is not installed rather than unknown, and where to get it. Keep in step
 * with debian/control. */
static const struct shipped {
	const char *name;
	const char *title;
	const char *package;
} shipped_protos[] = {
	{ "h1", "HTTP/1.1", "shb" },
	{ "h2", "HTTP/2", "shb-plugin-h2" },
	{ "h3", "HTTP/3", "shb-plugin-h3" },
}, shipped_reports[] = {
	{ "tui", "tui reporter (--tui)", "shb-plugin-tui" },
}, shipped_scripts[] = {
	{ "lua", "Lua script engine (-s)", "shb-plugin-lua" },
};

static const struct shipped *shipped(const struct shb_loader_kind *k, const char *name)
{
	if (k == &shb_loader_proto_kind) {
		for (size_t i = 0; i < sizeof shipped_protos / sizeof *shipped_protos;
		     i++)
			if (!strcmp(shipped_protos[i].name, name))
				return &shipped_protos[i];
	} else if (k == &shb_loader_report_kind) {
		for (size_t i = 0; i < sizeof shipped_reports / sizeof *shipped_reports;
		     i++)
			if (!strcmp(shipped_reports[i].name, name))
				return &shipped_reports[i];
	} else if (k == &shb_loader_script_kind) {
		for (size_t i = 0; i < sizeof shipped_scripts / sizeof *shipped_scripts;
		     i++)
			if (!strcmp(shipped_scripts[i].name, name))
				return &shipped_scripts[i];
	}
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NAME of a file PREFIX+NAME+".so", or NULL. */
static char *name_of(const char *file, const char *prefix)
{
	size_t p = strlen(prefix), n = strlen(file);

	if (n <= p + 3 || strncmp(file, prefix, p) || strcmp(file + n - 3, ".so"))
		return NULL;
	return strndup(file + p, n - p - 3);
}

/* Adds name to the set names[*count] (cap *cap), once; takes it. */
static void add_name(char ***names, size_t *count, size_t *cap, char *name)
{
	for (size_t i = 0; i < *count; i++)
		if (!strcmp((*names)[i], name)) {
			free(name);
			return;
		}
	if (*count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		char **grown = ncap <= SIZE_MAX / sizeof *grown ?
			realloc(*names, ncap * sizeof *grown) : NULL;
		if (!grown) {
			free(name); /* out of memory only shortens the list */
			return;
		}
		*names = grown;
		*cap = ncap;
	}
	(*names)[(*count)++] = name;
}

/* The names the files of the search path offer for kind k, sorted, the
 * first FOUND_MAX of them listed, so that a typo is answered with what
 * there is. By file name only: nothing is opened (--list-plugins opens
 * them). */
static void append_found(const struct shb_loader *l,
			 const struct shb_loader_kind *k, char *err,
			 size_t errlen, size_t *pos)
{
	char **found = NULL;
	size_t count = 0, cap = 0;

	for (size_t i = 0; i < l->dir_count; i++) {
		char **names;
		size_t n;

		if (shb_loader_so_names(l->dirs[i], &names, &n))
			continue;
		for (size_t j = 0; j < n; j++) {
			char *name = name_of(names[j], k->prefix);
			if (name)
				add_name(&found, &count, &cap, name);
			free(names[j]);
		}
		free(names);
	}
	if (count) {
		qsort(found, count, sizeof found[0], by_name);
		shb_loader_append(err, errlen, pos, " (found: ");
		for (size_t i = 0; i < count && i < FOUND_MAX; i++) {
			if (i)
				shb_loader_append(err, errlen, pos, ", ");
			shb_loader_append(err, errlen, pos, found[i]);
		}
		if (count > FOUND_MAX) {
			char tail[48];
			shb_loader_fmt(tail, sizeof tail, " and %zu more",
				       count - FOUND_MAX);
			shb_loader_append(err, errlen, pos, tail);
		}
		shb_loader_append(err, errlen, pos, ")");
	}
	for (size_t i = 0; i < count; i++)
		free(found[i]);
	free(found);
}

void shb_loader_unknown(const struct shb_loader *l,
			const struct shb_loader_kind *k, const char *name,
			const char *file, const char *crash, char *err,
			size_t errlen)
{
	const struct shipped *s = shipped(k, name);
	size_t pos = 0;

	/* The package first: a long search path may be cut, it may not. */
	if (s)
		shb_loader_fmt(err, errlen,
		    "the %s plugin is not installed (Debian package %s): "
		    "no %s in ", s->title, s->package, file);
	else
		shb_loader_fmt(err, errlen, "unknown %s \"%s\"", k->noun, name);
	pos = err && errlen ? strlen(err) : 0;
	if (!s) {
		append_found(l, k, err, errlen, &pos);
		shb_loader_append(err, errlen, &pos, ": no ");
		shb_loader_append(err, errlen, &pos, file);
		shb_loader_append(err, errlen, &pos, " in ");
	}
	if (l->dir_count == 0)
		shb_loader_append(err, errlen, &pos, "(empty search path)");
	for (size_t i = 0; i < l->dir_count; i++) {
		if (i)
			shb_loader_append(err, errlen, &pos, ", ");
		shb_loader_append(err, errlen, &pos, l->dirs[i]);
	}
	if (crash[0]) {
		shb_loader_append(err, errlen, &pos, "; skipped ");
		shb_loader_append(err, errlen, &pos, crash);
	}
}
