/* The prom reporter's options (--report-opt prom.KEY=VALUE): url, run and
 * timeout, checked before any traffic (a bad one is one line, exit 2). */
#ifndef SHB_PROM_OPTS_H
#define SHB_PROM_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "prom_push.h"

#define SHB_PROM_URL_DEFAULT "http://127.0.0.1:9090/api/v1/write"
#define SHB_PROM_ID_MAX 64
#define SHB_PROM_TIMEOUT_DEFAULT_NS 2000000000ull
#define SHB_PROM_TIMEOUT_MAX_NS 600000000000ull /* 10 min */

struct shb_prom_opts {
	struct shb_prom_target target; /* resolved */
	char run_id[SHB_PROM_ID_MAX + 1]; /* "" when not given */
	uint64_t timeout_ns;
};

/* options: "KEY=VALUE" items joined with ','; NULL for none. 0, or -1
 * with one line in err. */
int shb_prom_opts_parse(const char *options, struct shb_prom_opts *o,
			char *err, size_t errlen);

/* "2s", "500ms", "1.5s" or plain seconds ("2") to ns, 1 ms to 10 min.
 * 0, or -1. */
int shb_prom_duration(const char *s, size_t n, uint64_t *ns);

#endif
