/* The `wrk` table of wrk's scripting API in a fresh state: scheme, host,
 * port, method, path, headers and body from the command line, the
 * functions format, lookup and connect, and the engine's own init step
 * (the Host header's default, the script's init(args), then wrk.request
 * answering the request wrk.format() makes). */
#ifndef SHB_LUA_PRELUDE_H
#define SHB_LUA_PRELUDE_H

#include <stddef.h>

#include <lua.h>

#include <shb/shb.h>

#include "lua_state.h"

/* Sets the global `wrk` in s from cfg. Returns a registry reference to
 * the init step (call it with the args table), or LUA_NOREF with err
 * set. */
int shb_lua_prelude(struct shb_lua_state *s, const struct shb_script_config *cfg,
		    char *err, size_t errlen);

#endif
