/* Plugin options: --proto, --proto-opt, --report-opt, --plugin-dir
 * (cli_plugin.c). Each returns 0, or -1 with one line in c->err. */
#ifndef SHB_CORE_CLI_PLUGIN_H
#define SHB_CORE_CLI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

/* --plugin-dir DIR: repeatable, searched in order. */
int shb_cli_plugin_dir_opt(struct cli *c, const char *name, const char *v);
/* --proto NAME|PATH. */
int shb_cli_proto_opt(struct cli *c, const char *name, const char *v);
/* --proto-opt (reporter 0) and --report-opt (reporter 1). */
int shb_cli_plugin_opt(struct cli *c, const char *name, const char *v,
		       int reporter);

#endif
