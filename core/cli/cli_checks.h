/* Checks across options after the scan (cli_checks.c). Each returns 0, or
 * -1 with one line in c->err. */
#ifndef SHB_CORE_CLI_CHECKS_H
#define SHB_CORE_CLI_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

/* --source's family against -4/-6, --unix-socket and the URL's host;
 * sets cfg->family. Needs cfg->url parsed. */
int shb_cli_check_source(struct cli *c);
/* --unix-socket against --proxy, --connect-to, --resolve, -4, -6;
 * --priority against -H 'Priority: ...'. */
int shb_cli_check_route_opts(struct cli *c);
/* --urls FILE read into the targets, or --mix's URL@WEIGHT split; the
 * weights' sum checked. Sets c->url with --urls. */
int shb_cli_finish_targets(struct cli *c);
/* Every target's URL but the first (which is parsed into cfg->url). */
int shb_cli_check_targets(struct cli *c);
/* -H Content-Length agrees with the body; no -H Transfer-Encoding. */
int shb_cli_check_framing(struct cli *c);

#endif
