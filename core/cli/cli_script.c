/* -s FILE [-- ARGS] (cli_script.h). The script itself is read by its
 * engine when the run is set up; here only what the command line can
 * tell. */
#include "cli/cli_script.h"
#include "common/quote.h"

int shb_cli_script_args(struct cli *c, int argc, char **argv)
{
	struct shb_config *cfg = c->cfg;

	if (argc <= 0)
		return 0;
	cfg->script_args = calloc((size_t)argc, sizeof(*cfg->script_args));
	if (!cfg->script_args)
		return fail(c, "out of memory");
	for (int i = 0; i < argc; i++) {
		cfg->script_args[i] = strdup(argv[i]);
		if (!cfg->script_args[i])
			return fail(c, "out of memory");
		cfg->script_arg_count++;
	}
	return 0;
}

const char *shb_script_lang(const char *file)
{
	const char *dot = strrchr(file, '.');
	const char *slash = strrchr(file, '/');

	if (!dot || (slash && dot < slash) || !dot[1])
		return NULL;
	return dot + 1;
}

int shb_cli_check_script(struct cli *c)
{
	const struct shb_config *cfg = c->cfg;

	if (!cfg->script)
		return 0;
	if (!cfg->script[0])
		return fail(c, "-s: expected a script file, got \"\"");
	/* The extension names the language (its engine): checked here, so
	 * that "-json" (-j -s on) is answered before any plugin loads. */
	if (!shb_script_lang(cfg->script))
		return fail(c, "-s %s: the file name has no extension naming "
			       "the script's language (FILE.lua)",
			    shb_quote(cfg->script).s);
	/* A script makes every request itself, for one target, as wrk's do. */
	if (cfg->target_count > 1 || cfg->mix || cfg->urls_file)
		return fail(c, "-s: a script runs against one URL (not with "
			       "several targets, --mix or --urls)");
	if (cfg->follow_redirects)
		return fail(c, "-s and -L: a script's requests are its own "
			       "(its response() sees each answer); give one of them");
	if (cfg->body_lines)
		return fail(c, "-s and --body-lines: the script makes the "
			       "requests; give one of them");
	if (strstr(c->url, "{{"))
		return fail(c, "-s and a template in the URL %s: the script "
			       "makes the requests; give one of them",
			    shb_quote(c->url).s);
	return 0;
}
