/* The error of a lookup that found nothing (see loader_unknown.h). */
#include <string.h>

#include "loader/loader_unknown.h"

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
	}
	return NULL;
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
		shb_loader_fmt(err, errlen, "unknown %s \"%s\": no %s in ", k->noun, name,
		    file);
	pos = err && errlen ? strlen(err) : 0;
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
