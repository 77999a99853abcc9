/* Where a reporter keeps what it writes per --interval until end().
 *
 * The json reporter prints each interval's latency histogram (several KB
 * of base64 at thousands of requests per interval) in end(), after the
 * run. Kept in memory, those texts made shb's resident memory grow by
 * their size every interval, the whole run long. They go instead, as each
 * interval closes, to an unlinked temporary file in $TMPDIR (else /tmp),
 * and are read back once by end(): what stays in memory per interval is
 * its struct shb_rpt_ival. The file holds no more than the report will.
 *
 * When no temporary file can be made or written, the text stays in
 * memory (ival->hdr), as before: the report is the same either way.
 * [main] thread only, like the reporter calls. */
#ifndef SHB_REPORT_SPOOL_H
#define SHB_REPORT_SPOOL_H

#include <stddef.h>
#include "report_common.h"

/* Keeps `text` (NUL-terminated) for `v`: in the spool (v->hdr_off,
 * v->hdr_len) or else as a copy in v->hdr. SHB_OK, or SHB_E_NOMEM when
 * neither works. */
int shb_rpt_spool_keep(struct shb_rpt *rep, struct shb_rpt_ival *v,
		       const char *text);

/* The text kept for `v`: v->hdr itself, or read back from the spool
 * into a malloc'd string that *owned also receives (the caller frees
 * *owned; NULL when nothing was allocated). NULL when `v` has none or
 * the spool cannot be read (then *owned is NULL too). */
const char *shb_rpt_spool_text(const struct shb_rpt *rep,
			       const struct shb_rpt_ival *v, char **owned);

/* Forgets every text kept (a new run of a comparison), and closes the
 * file (destroy). */
void shb_rpt_spool_reset(struct shb_rpt *rep);
void shb_rpt_spool_close(struct shb_rpt *rep);

#endif
