/* Script engines (since 1.4, shb/script.h): their loader kind and the
 * engine a script file asks for. Main thread only, like the loader. */
#ifndef SHB_CORE_LOADER_SCRIPT_H
#define SHB_CORE_LOADER_SCRIPT_H

#include "loader/loader.h"

/* The engine name a script file asks for: its extension without the dot
 * ("lua" for "auth.lua"), or NULL when it has none. Borrowed from file. */
const char *shb_script_engine_for(const char *file);

#endif
