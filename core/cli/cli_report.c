/* Report options: --report (reporters and their files), --tui (the
 * full-screen reporter, put first) and --slo (the gates a run must
 * pass). --percentiles and --success are one call each (cli.c). */
#include "common/quote.h"
#include "cli/cli.h"
#include "cli/cli_report.h"

#include <stdlib.h>
#include <string.h>

int shb_cli_add_report(struct cli *c, const char *nm, size_t nlen,
		       const char *path, size_t plen)
{
	struct shb_config *cfg = c->cfg;
	struct shb_report_spec *r = realloc(cfg->reports,
					    (cfg->report_count + 1) *
						    sizeof(*r));
	if (!r)
		return fail(c, "out of memory");
	cfg->reports = r;
	r += cfg->report_count;
	r->name = strndup(nm, nlen);
	r->path = path ? strndup(path, plen) : NULL;
	if (!r->name || (path && !r->path)) {
		free(r->name);
		free(r->path);
		return fail(c, "out of memory");
	}
	cfg->report_count++;
	return 0;
}

/* "name[:FILE],name[:FILE],..."; repeated --report options add up. */
int shb_cli_report_opt(struct cli *c, const char *name, const char *v)
{
	const char *p = v;

	for (;;) {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);
		size_t nlen = colon ? (size_t)(colon - p) : n;
		if (nlen == 0)
			return fail(c, "%s: empty reporter name in \"%s\"",
				    name, shb_quote(v).s);
		if (colon && colon + 1 == p + n)
			return fail(c, "%s: empty file name after \"%s:\" "
				       "in \"%s\"",
				    name, shb_quote_n(p, nlen).s, shb_quote(v).s);
		if (shb_cli_add_report(c, p, nlen, colon ? colon + 1 : NULL,
				       colon ? n - nlen - 1 : 0) < 0)
			return -1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* --tui adds the reporter "tui" (plugins/reporters/tui). The screen is
 * the terminal on stdout: the reporter goes first, so that its end()
 * leaves the full screen before any other reporter prints its report
 * there, and the progress line is off, as it would draw over the screen. */
int shb_cli_tui_report(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	size_t at = cfg->report_count;
	for (size_t i = 0; i < cfg->report_count; i++) {
		if (strcmp(cfg->reports[i].name, "tui") != 0)
			continue;
		if (cfg->reports[i].path)
			return fail(c, "--report tui:%s: the tui reporter draws "
				       "on the terminal, never to a file; give "
				       "it no FILE", shb_quote(cfg->reports[i].path).s);
		if (at == cfg->report_count)
			at = i;
	}
	if (at == cfg->report_count) {
		if (!cfg->tui)
			return 0;
		if (shb_cli_add_report(c, "tui", 3, NULL, 0) < 0)
			return -1;
	}
	struct shb_report_spec t = cfg->reports[at];
	memmove(cfg->reports + 1, cfg->reports, at * sizeof(t));
	cfg->reports[0] = t;
	cfg->tui = 1;
	cfg->quiet = 1;
	return 0;
}

/* Repeatable; every gate must hold. */
int shb_cli_slo_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_slo slo;
	char err[256];

	if (shb_slo_parse(v, &slo, err, sizeof(err)) < 0)
		return fail(c, "%s %s", name, err);
	struct shb_slo *s = realloc(cfg->slos, (cfg->slo_count + 1) * sizeof(*s));
	if (!s)
		return fail(c, "out of memory");
	cfg->slos = s;
	s[cfg->slo_count++] = slo;
	return 0;
}
