/* Report options: --report, --tui, --slo (cli_report.c). */
#ifndef SHB_CORE_CLI_REPORT_H
#define SHB_CORE_CLI_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

/* Appends the reporter nm[0..nlen), writing to path[0..plen) or, with
 * path NULL, to stdout. Returns 0, or -1 with one line in c->err (so do
 * all below). */
int shb_cli_add_report(struct cli *c, const char *nm, size_t nlen,
		       const char *path, size_t plen);
/* --report NAME[:FILE],...: repeated options add up. */
int shb_cli_report_opt(struct cli *c, const char *name, const char *v);
/* After the scan: --tui or --report tui puts the reporter "tui" first
 * and sets tui and quiet. */
int shb_cli_tui_report(struct cli *c);
/* --slo: repeatable, every gate must hold. */
int shb_cli_slo_opt(struct cli *c, const char *name, const char *v);

#endif
