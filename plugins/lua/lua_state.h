/* One LuaJIT state of the Lua script engine with its bounds: the memory it
 * may hold (its allocator counts and refuses past the cap) and the time a
 * call into it may take (a count hook checks the deadline). The JIT
 * compiler is off, since compiled loops never run the hook: with it on a
 * script looping forever would hang its worker for good (a script may
 * turn it on itself with jit.on(), and then that is its choice). */
#ifndef SHB_LUA_STATE_H
#define SHB_LUA_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include <shb/shb.h>

/* Memory one state may hold: a script may pre-build many requests in
 * init(), as wrk's documentation advises, but never take the machine. */
#define SHB_LUA_MEM_MAX ((size_t)256 << 20)
/* How long one call may run: set-up calls (the script's top level,
 * setup(), init(), done()), and calls during the load (request(),
 * response(), delay()). Past it the call fails with an error. */
#define SHB_LUA_SETUP_BUDGET_NS 10000000000ull
#define SHB_LUA_CALL_BUDGET_NS 1000000000ull
/* Instructions between two looks at the clock. */
#define SHB_LUA_HOOK_EVERY 10000

struct shb_lua_state {
	lua_State *L;
	size_t mem;            /* bytes held */
	uint64_t deadline_ns;  /* CLOCK_MONOTONIC; 0: none */
	uint64_t budget_ns;    /* the budget the deadline came from */
	int over_mem;          /* the allocator refused: the call's error says so */
};

/* Opens a state with the standard libraries, the JIT off, the budgets
 * armed. Returns 0, or -1 with err set. */
int shb_lua_state_open(struct shb_lua_state *s, char *err, size_t errlen);
void shb_lua_state_close(struct shb_lua_state *s);

/* lua_pcall of the function below `nargs` arguments on the stack, within
 * `budget_ns`. Returns 0 (nres results pushed), or -1 with one line in
 * err (the error message, which names file:line for errors in the script)
 * and nothing pushed. */
int shb_lua_call(struct shb_lua_state *s, int nargs, int nres,
		 uint64_t budget_ns, char *err, size_t errlen);

/* Loads FILE as a chunk and runs it (the script's top level). */
int shb_lua_run_file(struct shb_lua_state *s, const char *file, char *err,
		     size_t errlen);

/* The global `name` if it is a function: a registry reference to it,
 * else LUA_NOREF. */
int shb_lua_global_fn(lua_State *L, const char *name);

/* "FILE:LINE" where the function at the top of the stack is defined, into
 * buf (the function stays). */
const char *shb_lua_fn_where(lua_State *L, char *buf, size_t n);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t shb_lua_now_ns(void);

#endif
