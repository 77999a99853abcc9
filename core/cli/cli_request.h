/* Request options: the method, the headers, the body (cli_request.c). */
#ifndef SHB_CORE_CLI_REQUEST_H
#define SHB_CORE_CLI_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

/* -d (strip 1: CR and LF of @FILE are dropped) and --data-binary (strip
 * 0): a literal or @FILE or @- for stdin, joined to earlier parts with
 * '&'. Returns 0, or -1 with one line in c->err (so do all below). */
int shb_cli_data_opt(struct cli *c, const char *name, const char *v,
		     int strip);
/* -m/-X: an RFC 9110 token. */
int shb_cli_method_opt(struct cli *c, const char *name, const char *v);
/* -H "Name: Value"; a Host header goes to cfg->host_header. */
int shb_cli_header_opt(struct cli *c, const char *name, const char *v);
/* Appends the header nm[0..nlen): val[0..vlen) as given. */
int shb_cli_add_header(struct cli *c, const char *nm, size_t nlen,
		       const char *val, size_t vlen);
/* --priority: checked (priority.h), kept and added as a header. */
int shb_cli_priority_opt(struct cli *c, const char *name, const char *v);

#endif
