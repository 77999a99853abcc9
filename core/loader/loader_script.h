/* Script engines (since 1.4, shb/script.h): the loader kind that finds and
 * checks them, shb_loader_script_kind, declared with the other kinds in
 * loader_int.h; the rest of the core calls shb_loader_script (loader.h).
 * Main thread only, like the loader. */
#ifndef SHB_CORE_LOADER_SCRIPT_H
#define SHB_CORE_LOADER_SCRIPT_H

#include "loader/loader_int.h"

#endif
