/* Plugin options: --proto-opt KEY[=VALUE] for the protocol and
 * --report-opt NAME.KEY[=VALUE] for reporter NAME, checked against the
 * option_defs a descriptor declares (ABI 1.2) and handed over as the ABI
 * says: shb_run_config.options for module_create, a comma-joined string
 * for a reporter's create(). Everything here runs on [main]. */
#ifndef SHB_CORE_PLUGIN_OPTS_H
#define SHB_CORE_PLUGIN_OPTS_H

#include <stddef.h>

#include <shb/proto.h>
#include <shb/report.h>

#include "cli/config.h"

/* How far an option_defs array is read at most (the loader refuses a
 * longer one). */
#define SHB_MAX_OPTION_DEFS 256

/* Parses the value of --proto-opt (reporter 0: KEY[=VALUE]) or
 * --report-opt (reporter 1: NAME.KEY[=VALUE]) into *out, which owns
 * copies. `optname` is the option as typed, for the message. Returns 0, or
 * -1 with one line in err (out then holds nothing). */
int shb_plugin_opt_parse(const char *optname, const char *v, int reporter,
			 struct shb_plugin_opt *out, char *err, size_t errlen);
void shb_plugin_opt_free(struct shb_plugin_opt *o);

/* Checks n items against `defs` (NULL: every key passes, the plugin
 * validates alone): each key must be declared, a flag (value_name NULL)
 * given as KEY alone and any other key as KEY=VALUE. `optname` is
 * "--proto-opt" or "--report-opt", `noun` "protocol" or "reporter", and
 * `name` the plugin's name. Returns 0, or -1 with one line in err that
 * names the plugin and its known keys. */
int shb_plugin_opts_check(const char *optname, const char *noun,
			  const char *name, const struct shb_option_def *defs,
			  const struct shb_plugin_opt *o, size_t n, char *err,
			  size_t errlen);

/* The descriptor's option_defs, or NULL when it has none (or predates
 * 1.2). */
const struct shb_option_def *shb_proto_option_defs(
	const struct shb_proto_desc *d);
const struct shb_option_def *shb_report_option_defs(
	const struct shb_report_desc *d);

/* Checks cfg's --proto-opt items against protocol d and sets *kv to a
 * malloc'd array of cfg->proto_opt_count pairs (NULL when there are none)
 * borrowing cfg's strings: what shb_run_config.options points at. A flag
 * has the value "". Returns 0, or -1 with one line in err. */
int shb_proto_opts(const struct shb_config *cfg,
		   const struct shb_proto_desc *d, struct shb_kv **kv,
		   char *err, size_t errlen);

/* The option string for the reporter given as `spec` (its name in
 * --report) with descriptor d: the --report-opt items whose NAME is
 * `spec` or d->name, checked against d's option_defs and joined in order
 * as "key" or "key=value" with ','. *out is malloc'd, or NULL when there
 * are none. used[] (cfg->report_opt_count entries) marks the items taken.
 * Returns 0, or -1 with one line in err. */
int shb_report_opts(const struct shb_config *cfg, const char *spec,
		    const struct shb_report_desc *d, char **out,
		    unsigned char *used, char *err, size_t errlen);

/* After every reporter took its items: one no reporter took names a
 * reporter that is not in the run. Returns 0, or -1 with one line. */
int shb_report_opts_unused(const struct shb_config *cfg,
			   const unsigned char *used, char *err,
			   size_t errlen);

#endif
