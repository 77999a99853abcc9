/* The URL's scheme and the TLS options, once the protocol is known
 * (cli_scheme.c). */
#ifndef SHB_CORE_CLI_SCHEME_H
#define SHB_CORE_CLI_SCHEME_H

#include <stddef.h>

#include "cli/config.h"

/* Settles `url` (parsed from url_text, one of cfg's targets) against
 * `schemes` (NULL: http and https, as for a protocol without scheme_defs)
 * of protocol `proto` (NULL: none chosen yet): TLS, default port,
 * authority, and cfg's TLS options and --sni only over TLS. Returns 0, or
 * -1 with one line in err. */
int shb_cli_set_scheme(const struct shb_config *cfg, struct shb_url *url,
		       const char *url_text, const struct shb_scheme *schemes,
		       const char *proto, char *err, size_t errlen);

#endif
