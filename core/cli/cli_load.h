/* Open-loop options: -R and --stages (cli_load.c). */
#ifndef SHB_CORE_CLI_LOAD_H
#define SHB_CORE_CLI_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

/* -R N or -R A:B, kept in c until shb_cli_finish_open_loop. Returns 0,
 * or -1 with one line in c->err (so do all below). */
int shb_cli_rate_opt(struct cli *c, const char *name, const char *v);
/* --stages D:R,D:R,...: into cfg->stages. */
int shb_cli_stages_opt(struct cli *c, const char *name, const char *v);
/* After the scan: -R and --stages against -n and -z, and the schedule
 * they make (cfg->rate_milli, or cfg->stages and duration_ns). */
int shb_cli_finish_open_loop(struct cli *c);

#endif
