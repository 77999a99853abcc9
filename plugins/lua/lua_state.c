/* A bounded LuaJIT state (lua_state.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>
#include <luajit.h>

#include "lua_state.h"

uint64_t shb_lua_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* lua_Alloc: counts what the state holds and refuses past the cap (the
 * state then raises "not enough memory", which the call reports). */
static void *state_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct shb_lua_state *s = ud;
	if (nsize == 0) {
		free(ptr);
		s->mem -= ptr ? osize : 0;
		return NULL;
	}
	size_t held = s->mem - (ptr ? osize : 0);
	if (nsize > SHB_LUA_MEM_MAX || held > SHB_LUA_MEM_MAX - nsize) {
		s->over_mem = 1;
		return NULL;
	}
	void *p = realloc(ptr, nsize);
	if (p)
		s->mem = held + nsize;
	return p;
}

/* The count hook: a call past its deadline fails where it stands. */
static void budget_hook(lua_State *L, lua_Debug *ar)
{
	void *ud = NULL;
	(void)ar;
	lua_getallocf(L, &ud);
	struct shb_lua_state *s = ud;
	if (s->deadline_ns && shb_lua_now_ns() > s->deadline_ns)
		luaL_error(L, "ran over its time budget of %d ms (an endless "
			   "loop?)", (int)(s->budget_ns / 1000000));
}

int shb_lua_state_open(struct shb_lua_state *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->L = lua_newstate(state_alloc, s);
	if (!s->L) {
		snprintf(err, errlen, "cannot create a Lua state (out of memory)");
		return -1;
	}
	luaL_openlibs(s->L);
	luaJIT_setmode(s->L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
	lua_sethook(s->L, budget_hook, LUA_MASKCOUNT, SHB_LUA_HOOK_EVERY);
	return 0;
}

void shb_lua_state_close(struct shb_lua_state *s)
{
	if (s->L)
		lua_close(s->L);
	s->L = NULL;
}

/* The error at the top of the stack as one line (popped). */
static void error_line(struct shb_lua_state *s, int rc, char *err, size_t errlen)
{
	const char *msg = lua_tostring(s->L, -1);
	if (rc == LUA_ERRMEM || s->over_mem)
		snprintf(err, errlen, "script memory over %zu MiB",
			 SHB_LUA_MEM_MAX >> 20);
	else if (msg)
		snprintf(err, errlen, "%s", msg);
	else
		snprintf(err, errlen, "error object is a %s value",
			 luaL_typename(s->L, -1));
	for (char *p = err; errlen && *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	lua_pop(s->L, 1);
}

int shb_lua_call(struct shb_lua_state *s, int nargs, int nres,
		 uint64_t budget_ns, char *err, size_t errlen)
{
	s->budget_ns = budget_ns;
	s->deadline_ns = shb_lua_now_ns() + budget_ns;
	s->over_mem = 0;
	int rc = lua_pcall(s->L, nargs, nres, 0);
	s->deadline_ns = 0;
	if (rc == 0)
		return 0;
	error_line(s, rc, err, errlen);
	return -1;
}

int shb_lua_run_file(struct shb_lua_state *s, const char *file, char *err,
		     size_t errlen)
{
	s->over_mem = 0;
	int rc = luaL_loadfile(s->L, file);
	if (rc != 0) {
		error_line(s, rc, err, errlen);
		return -1;
	}
	return shb_lua_call(s, 0, 0, SHB_LUA_SETUP_BUDGET_NS, err, errlen);
}

int shb_lua_global_fn(lua_State *L, const char *name)
{
	lua_getglobal(L, name);
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		return LUA_NOREF;
	}
	return luaL_ref(L, LUA_REGISTRYINDEX);
}

const char *shb_lua_fn_where(lua_State *L, char *buf, size_t n)
{
	lua_Debug ar;
	lua_pushvalue(L, -1);
	if (!lua_getinfo(L, ">S", &ar)) {
		snprintf(buf, n, "?");
		return buf;
	}
	snprintf(buf, n, "%s:%d", ar.short_src, ar.linedefined);
	return buf;
}
