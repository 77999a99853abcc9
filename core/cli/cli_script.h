/* -s FILE [-- ARGS]: a script run by a script engine plugin (shb/script.h).
 * Internal to core/cli, like cli.h. */
#ifndef SHB_CORE_CLI_SCRIPT_H
#define SHB_CORE_CLI_SCRIPT_H

#include "cli/cli.h"

/* The arguments after "--" once -s was given: they go to the script's
 * init(), not to shb (argv[0..argc-1], copied). */
int shb_cli_script_args(struct cli *c, int argc, char **argv);
/* After the scan: -s with options it cannot go with (one line, -1). */
int shb_cli_check_script(struct cli *c);

#endif
