/* The `thread` value and moving values between states (lua_thread.h).
 *
 * A value crosses states flattened into the thread's C buffer: read
 * from one state (where an error is that state's, raised in it), then
 * rebuilt in the other inside lua_cpcall, so that running out of memory
 * there is an error of the call, never a panic. */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lua_net.h"
#include "lua_thread.h"

#define THREAD_MT "shb.thread"

enum { V_NIL, V_FALSE, V_TRUE, V_NUM, V_STR, V_TABLE, V_END };

struct thread_ud {
	struct shb_lua_thread *t;
};

static struct shb_lua_thread *check_thread(lua_State *L)
{
	struct thread_ud *u = luaL_checkudata(L, 1, THREAD_MT);
	return u->t;
}

static void put(lua_State *L, struct shb_lua_thread *t, const void *p, size_t n)
{
	if (n == 0)
		return; /* nothing to copy (and no buffer yet, maybe) */
	if (n > SHB_LUA_MOVE_MAX - t->move_len)
		luaL_error(L, "a value moved between threads is over %d MiB",
			   (int)(SHB_LUA_MOVE_MAX >> 20));
	if (t->move_len + n > t->move_cap) {
		size_t cap = t->move_cap ? t->move_cap : 256;
		while (cap < t->move_len + n)
			cap *= 2;
		unsigned char *m = realloc(t->move, cap);
		if (!m) {
			luaL_error(L, "out of memory moving a value between threads");
			return; /* not reached: luaL_error does not return */
		}
		t->move = m;
		t->move_cap = cap;
	}
	memcpy(t->move + t->move_len, p, n);
	t->move_len += n;
}

static void flatten(lua_State *L, struct shb_lua_thread *t, int idx, int depth)
{
	unsigned char tag;
	idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
	switch (lua_type(L, idx)) {
	case LUA_TNIL: tag = V_NIL; put(L, t, &tag, 1); return;
	case LUA_TBOOLEAN:
		tag = lua_toboolean(L, idx) ? V_TRUE : V_FALSE;
		put(L, t, &tag, 1);
		return;
	case LUA_TNUMBER: {
		lua_Number x = lua_tonumber(L, idx);
		tag = V_NUM;
		put(L, t, &tag, 1);
		put(L, t, &x, sizeof(x));
		return;
	}
	case LUA_TSTRING: {
		size_t n;
		const char *s = lua_tolstring(L, idx, &n);
		tag = V_STR;
		put(L, t, &tag, 1);
		put(L, t, &n, sizeof(n));
		put(L, t, s, n);
		return;
	}
	case LUA_TTABLE:
		if (depth >= SHB_LUA_MOVE_DEPTH)
			luaL_error(L, "tables nested over %d deep (a cycle?) cannot "
				   "move between threads", SHB_LUA_MOVE_DEPTH);
		tag = V_TABLE;
		put(L, t, &tag, 1);
		lua_pushnil(L);
		while (lua_next(L, idx)) {
			flatten(L, t, -2, depth + 1);
			flatten(L, t, -1, depth + 1);
			lua_pop(L, 1);
		}
		tag = V_END;
		put(L, t, &tag, 1);
		return;
	default:
		luaL_error(L, "a %s cannot move between threads (only nil, "
			   "booleans, numbers, strings and tables of them)",
			   luaL_typename(L, idx));
	}
}

/* Rebuilds one value from m[*at] (which this module wrote) onto L. */
static void rebuild(lua_State *L, const unsigned char *m, size_t *at)
{
	unsigned char tag = m[(*at)++];
	switch (tag) {
	case V_NIL: lua_pushnil(L); return;
	case V_FALSE: lua_pushboolean(L, 0); return;
	case V_TRUE: lua_pushboolean(L, 1); return;
	case V_NUM: {
		lua_Number x;
		memcpy(&x, m + *at, sizeof(x));
		*at += sizeof(x);
		lua_pushnumber(L, x);
		return;
	}
	case V_STR: {
		size_t n;
		memcpy(&n, m + *at, sizeof(n));
		*at += sizeof(n);
		lua_pushlstring(L, (const char *)m + *at, n);
		*at += n;
		return;
	}
	default: /* V_TABLE */
		lua_newtable(L);
		while (m[*at] != V_END) {
			rebuild(L, m, at);
			rebuild(L, m, at);
			if (lua_isnil(L, -2))
				lua_pop(L, 2); /* a nil key cannot be: dropped */
			else
				lua_rawset(L, -3);
		}
		(*at)++;
	}
}

/* lua_cpcall bodies: the name and the thread come through `job`. */
struct job {
	struct shb_lua_thread *t;
	const char *name;
};

static int set_in_thread(lua_State *L)
{
	struct job *j = lua_touserdata(L, 1);
	size_t at = 0;
	rebuild(L, j->t->move, &at);
	lua_setglobal(L, j->name);
	return 0;
}

static int get_in_thread(lua_State *L)
{
	struct job *j = lua_touserdata(L, 1);
	j->t->move_len = 0;
	lua_getglobal(L, j->name);
	flatten(L, j->t, -1, 0);
	return 0;
}

/* thread:get(name): a copy of the thread's global `name`. */
static int thread_get(lua_State *L)
{
	struct shb_lua_thread *t = check_thread(L);
	struct job j = {t, luaL_checkstring(L, 2)};
	if (lua_cpcall(t->st.L, get_in_thread, &j) != 0) {
		const char *e = lua_tostring(t->st.L, -1);
		lua_pushstring(L, e ? e : "thread:get failed");
		lua_pop(t->st.L, 1);
		return lua_error(L);
	}
	size_t at = 0;
	rebuild(L, t->move, &at);
	return 1;
}

/* thread:set(name, value): the thread's global `name` becomes a copy. */
static int thread_set(lua_State *L)
{
	struct shb_lua_thread *t = check_thread(L);
	struct job j = {t, luaL_checkstring(L, 2)};
	lua_settop(L, 3);
	t->move_len = 0;
	flatten(L, t, 3, 0);
	if (lua_cpcall(t->st.L, set_in_thread, &j) != 0) {
		lua_pop(t->st.L, 1);
		return luaL_error(L, "thread:set(\"%s\"): out of memory in the "
				  "thread's state", j.name);
	}
	return 0;
}

static int thread_stop(lua_State *L)
{
	struct shb_lua_thread *t = check_thread(L);
	t->stopped = 1;
	return 0;
}

static int thread_index(lua_State *L)
{
	struct shb_lua_thread *t = check_thread(L);
	const char *k = luaL_checkstring(L, 2);
	if (!strcmp(k, "addr")) {
		shb_lua_push_addr(L, (struct sockaddr *)&t->addr, t->addr_len);
		return 1;
	}
	luaL_getmetatable(L, THREAD_MT);
	lua_getfield(L, -1, k); /* the methods */
	return 1;
}

static int thread_newindex(lua_State *L)
{
	struct shb_lua_thread *t = check_thread(L);
	const char *k = luaL_checkstring(L, 2);
	uint32_t len = 0;
	const struct sockaddr *sa;
	if (strcmp(k, "addr"))
		return luaL_error(L, "thread.%s cannot be set (only thread.addr)", k);
	if (t->running)
		return luaL_error(L, "thread.addr can be set only in setup()");
	sa = shb_lua_to_addr(L, 3, &len);
	if (!sa)
		return luaL_error(L, "thread.addr takes an address from "
				  "wrk.lookup");
	memcpy(&t->addr, sa, len);
	t->addr_len = len;
	t->addr_set = 1;
	return 0;
}

void shb_lua_thread_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
		{"get", thread_get}, {"set", thread_set}, {"stop", thread_stop},
		{NULL, NULL},
	};
	if (luaL_newmetatable(L, THREAD_MT)) {
		luaL_setfuncs(L, methods, 0);
		lua_pushcfunction(L, thread_index);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, thread_newindex);
		lua_setfield(L, -2, "__newindex");
	}
	lua_pop(L, 1);
}

void shb_lua_push_thread(lua_State *L, struct shb_lua_thread *t)
{
	struct thread_ud *u = lua_newuserdata(L, sizeof(*u));
	u->t = t;
	luaL_getmetatable(L, THREAD_MT);
	lua_setmetatable(L, -2);
}
