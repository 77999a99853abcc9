/* TLS and connection options (cli_conn.c). Each returns 0, or -1 with one
 * line in c->err. */
#ifndef SHB_CORE_CLI_CONN_H
#define SHB_CORE_CLI_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

/* --cacert FILE: readable now; sets verify. */
int shb_cli_cacert_opt(struct cli *c, const char *name, const char *v);
/* --tls-version 1.2 or 1.3. */
int shb_cli_tls_version_opt(struct cli *c, const char *name, const char *v);
/* --ciphers: not empty (GnuTLS checks the rest at start). */
int shb_cli_ciphers_opt(struct cli *c, const char *name, const char *v);
/* --sni: a DNS name, never an address. */
int shb_cli_sni_opt(struct cli *c, const char *name, const char *v);
/* --connect-to and --resolve: repeatable, kept in order (route.h). */
int shb_cli_connect_to_opt(struct cli *c, const char *name, const char *v);
int shb_cli_resolve_opt(struct cli *c, const char *name, const char *v);
/* --unix-socket PATH: fits sun_path. */
int shb_cli_unix_socket_opt(struct cli *c, const char *name, const char *v);
/* --source: once, each address this machine's (source.h). */
int shb_cli_source_opt(struct cli *c, const char *name, const char *v);
/* -4 (AF_INET) or -6 (AF_INET6), not both. */
int shb_cli_family_opt(struct cli *c, int family);

#endif
