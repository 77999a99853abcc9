/* The error of a lookup that found nothing (see loader.h): a plugin shb
 * ships in a package of its own is "not installed" with the package that
 * has it, anything else is "unknown" with the names the search path
 * offers (by file name); both list the search path. Main
 * thread only, like the loader. */
#ifndef SHB_CORE_LOADER_UNKNOWN_H
#define SHB_CORE_LOADER_UNKNOWN_H

#include <stddef.h>

#include "loader/loader_int.h"

/* Writes the line into err[errlen]: `file` is the file name the name maps
 * to (shb-proto-NAME.so), `crash` the scan's first file that crashed or
 * hung when probed ("PATH: REASON") or "". */
void shb_loader_unknown(const struct shb_loader *l,
			const struct shb_loader_kind *k, const char *name,
			const char *file, const char *crash, char *err,
			size_t errlen);

#endif
