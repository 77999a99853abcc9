/* --percentiles: the list of percentiles the reporters print. */
#ifndef SHB_CORE_PERCENTILES_H
#define SHB_CORE_PERCENTILES_H

#include <stddef.h>
#include <stdint.h>

/* As many as the reporters show (report_common's SHB_RPT_PCT_MAX). */
#define SHB_PCT_MAX 64

/* "50,90,99,99.9": each 0 < P <= 100 with at most four decimals (ppm are
 * whole), strictly ascending, 1 to SHB_PCT_MAX of them. Fills ppm[] and
 * *count and returns 0, or returns -1 with one line in err naming the bad
 * item (no option name, no newline). [main] */
int shb_percentiles_parse(const char *list, uint32_t ppm[SHB_PCT_MAX],
			  size_t *count, char *err, size_t errlen);

#endif
