/* The Lua script engine's script and threads: one set-up state (top
 * level, setup(), done()) and one state per worker, as wrk has, and the
 * `thread` value scripts see (thread.addr, thread:get, thread:set,
 * thread:stop). Values move between states only through get and set, as
 * copies of nil, booleans, numbers, strings and tables of them. */
#ifndef SHB_LUA_THREAD_H
#define SHB_LUA_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <lua.h>

#include <shb/shb.h>

#include "lua_state.h"

/* A value moved by get/set: nested tables at most this deep, and at
 * most this many bytes once flattened. */
#define SHB_LUA_MOVE_DEPTH 32
#define SHB_LUA_MOVE_MAX ((size_t)16 << 20)

struct shb_lua_thread;

struct shb_lua_script {
	const struct shb_host *host;
	struct shb_lua_state main; /* setup() and done() */
	struct shb_script_config cfg; /* deep copy: each thread state needs it */
	char *file;
	struct shb_lua_thread **threads;
	uint32_t nthreads;
	int f_setup; /* setup() in main (a registry reference), or LUA_NOREF */
};

struct shb_lua_thread {
	struct shb_lua_script *sc;
	struct shb_lua_state st;
	uint32_t index;
	struct sockaddr_storage addr; /* thread.addr */
	uint32_t addr_len;
	int addr_set;   /* the script assigned thread.addr */
	int stopped;    /* thread:stop() */
	int running;    /* set-up is over: stop() allowed */
	uint32_t hooks; /* enum shb_script_hooks */
	int f_init, f_request, f_response, f_delay; /* registry refs */
	int last_ref;   /* the string request() returned last */
	const char *req; /* its bytes, held by last_ref */
	size_t req_len;
	/* get/set's flattened value, reused */
	unsigned char *move;
	size_t move_len, move_cap;
};

/* Pushes the `thread` value of t onto L (any of the engine's states). */
void shb_lua_push_thread(lua_State *L, struct shb_lua_thread *t);
/* Registers the thread type in L. */
void shb_lua_thread_open(lua_State *L);

#endif
