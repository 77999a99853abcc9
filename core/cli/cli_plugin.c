/* Plugin options: --proto (which protocol plugin), --proto-opt and
 * --report-opt (their KEY[=VALUE] options, checked once the plugin is
 * loaded) and --plugin-dir (where plugins are looked for). */
#include "cli/cli.h"
#include "cli/cli_plugin.h"
#include "cli/plugin_opts.h"

#include <stdlib.h>

int shb_cli_plugin_dir_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;

	if (!*v)
		return fail(c, "%s: empty directory name", name);
	char **d = realloc(cfg->plugin_dirs,
			   (cfg->plugin_dir_count + 1) * sizeof(*d));
	if (!d)
		return fail(c, "out of memory");
	cfg->plugin_dirs = d;
	d[cfg->plugin_dir_count] = dup_or_fail(c, v);
	if (!d[cfg->plugin_dir_count])
		return -1;
	cfg->plugin_dir_count++;
	return 0;
}

int shb_cli_proto_opt(struct cli *c, const char *name, const char *v)
{
	if (!*v)
		return fail(c, "%s: empty protocol name", name);
	c->cfg->proto_given = 1;
	return set_string(c, &c->cfg->proto, v);
}

/* --proto-opt and --report-opt: repeatable, kept in order. The keys are
 * checked against the plugin once it is loaded. */
int shb_cli_plugin_opt(struct cli *c, const char *name, const char *v,
		       int reporter)
{
	struct shb_config *cfg = c->cfg;
	struct shb_plugin_opt o;
	struct shb_plugin_opt **list = reporter ? &cfg->report_opts
						: &cfg->proto_opts;
	size_t *count = reporter ? &cfg->report_opt_count
				 : &cfg->proto_opt_count;

	if (shb_plugin_opt_parse(name, v, reporter, &o, c->err, c->errlen) < 0)
		return -1;
	struct shb_plugin_opt *a = realloc(*list, (*count + 1) * sizeof(*a));
	if (!a) {
		shb_plugin_opt_free(&o);
		return fail(c, "out of memory");
	}
	*list = a;
	a[(*count)++] = o;
	return 0;
}
