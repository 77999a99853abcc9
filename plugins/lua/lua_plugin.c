/* The Lua script engine plugin: wrk's scripting API (shb/script.h) on
 * LuaJIT. create and the thread_* calls build the states (set-up, [main]);
 * request, delay and response run a thread's state on its worker; done
 * runs in the set-up state at the end. */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include <shb/shb.h>

#include "lua_prelude.h"
#include "lua_stats.h"
#include "lua_thread.h"

/* The response body a script's response() is given at most. */
#define SHB_LUA_BODY_MAX ((size_t)4 << 20)

static const struct shb_host *g_host;

/* ---- configuration copy ---------------------------------------------------- */

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void cfg_free(struct shb_script_config *c)
{
	for (size_t i = 0; i < c->arg_count; i++)
		free((char *)c->args[i]);
	free((void *)c->args);
	for (size_t i = 0; i < c->header_count; i++) {
		free((char *)c->headers[i].key);
		free((char *)c->headers[i].value);
	}
	free((void *)c->headers);
	free((void *)c->file);
	free((void *)c->scheme);
	free((void *)c->host);
	free((void *)c->method);
	free((void *)c->path);
	free((void *)c->body);
	memset(c, 0, sizeof(*c));
}

/* A deep copy of what the core lent (it is borrowed for create only). */
static int cfg_copy(struct shb_script_config *d, const struct shb_script_config *s)
{
	const char **args = calloc(s->arg_count + 1, sizeof(*args));
	struct shb_kv *h = calloc(s->header_count + 1, sizeof(*h));
	memset(d, 0, sizeof(*d));
	d->struct_size = sizeof(*d);
	d->threads = s->threads;
	d->port = s->port;
	d->port_given = s->port_given;
	d->args = args;
	d->headers = h;
	if (!args || !h)
		return -1;
	for (; d->arg_count < s->arg_count; d->arg_count++)
		if (!(args[d->arg_count] = strdup(s->args[d->arg_count])))
			return -1;
	for (; d->header_count < s->header_count; d->header_count++) {
		h[d->header_count].key = dup0(s->headers[d->header_count].key);
		h[d->header_count].value = dup0(s->headers[d->header_count].value);
		if (!h[d->header_count].key || !h[d->header_count].value) {
			d->header_count++;
			return -1;
		}
	}
	d->file = dup0(s->file);
	d->scheme = dup0(s->scheme);
	d->host = dup0(s->host);
	d->method = dup0(s->method);
	d->path = dup0(s->path);
	if (s->body) {
		uint8_t *b = malloc(s->body_len + 1);
		if (!b)
			return -1;
		memcpy(b, s->body, s->body_len);
		d->body = b;
		d->body_len = s->body_len;
	}
	return d->file && d->scheme && d->host && d->method && d->path ? 0 : -1;
}

/* ---- states ----------------------------------------------------------------- */

/* A state of this script: the wrk table, the thread type, the script's
 * top level run. *init_ref receives wrk's init step. */
static int open_state(struct shb_lua_state *st, const struct shb_script_config *cfg,
		      int *init_ref, char *err, size_t errlen)
{
	if (shb_lua_state_open(st, err, errlen) < 0)
		return -1;
	shb_lua_thread_open(st->L);
	*init_ref = shb_lua_prelude(st, cfg, err, errlen);
	if (*init_ref == LUA_NOREF)
		return -1;
	return shb_lua_run_file(st, cfg->file, err, errlen);
}

static int lua_create(const struct shb_host *host,
		      const struct shb_script_config *cfg, void **out,
		      char *err, size_t errlen)
{
	struct shb_lua_script *sc = calloc(1, sizeof(*sc));
	int init_ref;

	*out = NULL;
	if (!sc || cfg_copy(&sc->cfg, cfg) < 0) {
		if (sc)
			cfg_free(&sc->cfg);
		free(sc);
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	sc->host = host;
	sc->f_setup = LUA_NOREF;
	sc->threads = calloc(cfg->threads ? cfg->threads : 1, sizeof(*sc->threads));
	if (!sc->threads ||
	    open_state(&sc->main, &sc->cfg, &init_ref, err, errlen) < 0) {
		if (!sc->threads)
			snprintf(err, errlen, "out of memory");
		shb_lua_state_close(&sc->main);
		cfg_free(&sc->cfg);
		free(sc->threads);
		free(sc);
		return SHB_E_INVAL;
	}
	sc->f_setup = shb_lua_global_fn(sc->main.L, "setup");
	*out = sc;
	return SHB_OK;
}

static void lua_thread_destroy(void *p)
{
	struct shb_lua_thread *t = p;
	if (!t)
		return;
	shb_lua_state_close(&t->st);
	free(t->move);
	free(t);
}

/* The script's setup(thread), in the set-up state. */
static int run_setup(struct shb_lua_script *sc, struct shb_lua_thread *t,
		     char *err, size_t errlen)
{
	if (sc->f_setup == LUA_NOREF)
		return 0;
	lua_rawgeti(sc->main.L, LUA_REGISTRYINDEX, sc->f_setup);
	shb_lua_push_thread(sc->main.L, t);
	return shb_lua_call(&sc->main, 1, 0, SHB_LUA_SETUP_BUDGET_NS, err, errlen);
}

static int lua_thread_create(void *script, uint32_t index,
			     const struct sockaddr *addr, uint32_t addr_len,
			     void **out, char *err, size_t errlen)
{
	struct shb_lua_script *sc = script;
	struct shb_lua_thread *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t || index >= sc->cfg.threads) {
		free(t);
		snprintf(err, errlen, t ? "thread %u of %u" : "out of memory",
			 (unsigned)index, (unsigned)sc->cfg.threads);
		return SHB_E_INVAL;
	}
	t->sc = sc;
	t->index = index;
	t->last_ref = t->f_request = t->f_response = t->f_delay = LUA_NOREF;
	if (addr_len <= sizeof(t->addr)) {
		memcpy(&t->addr, addr, addr_len);
		t->addr_len = addr_len;
	}
	if (open_state(&t->st, &sc->cfg, &t->f_init, err, errlen) < 0) {
		lua_thread_destroy(t);
		return SHB_E_INVAL;
	}
	/* wrk.thread: the thread itself, in its own state. */
	lua_getglobal(t->st.L, "wrk");
	shb_lua_push_thread(t->st.L, t);
	lua_setfield(t->st.L, -2, "thread");
	lua_pop(t->st.L, 1);
	sc->threads[index] = t;
	if (run_setup(sc, t, err, errlen) < 0)
		return SHB_E_INVAL; /* destroyed with the script */
	*out = t;
	return SHB_OK;
}

static uint32_t lua_thread_addr(void *thread, struct sockaddr *addr, uint32_t cap)
{
	struct shb_lua_thread *t = thread;
	if (!t->addr_set || t->addr_len > cap)
		return 0;
	memcpy(addr, &t->addr, t->addr_len);
	return t->addr_len;
}

/* Whether response(status, headers, body) takes a third parameter (or
 * any number): one with fewer never reads the body, which then is not
 * kept for it. LuaJIT's debug.getinfo tells the parameters ('u'). */
static int response_reads_body(struct shb_lua_thread *t)
{
	lua_State *L = t->st.L;
	int reads = 1;
	lua_getglobal(L, "debug");
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return 1;
	}
	lua_getfield(L, -1, "getinfo");
	lua_rawgeti(L, LUA_REGISTRYINDEX, t->f_response);
	lua_pushliteral(L, "u");
	if (lua_pcall(L, 2, 1, 0) == 0 && lua_istable(L, -1)) {
		lua_getfield(L, -1, "nparams");
		lua_getfield(L, -2, "isvararg");
		reads = lua_toboolean(L, -1) || lua_tonumber(L, -2) >= 3;
		lua_pop(L, 2);
	}
	lua_pop(L, 2);
	return reads;
}

/* The hooks init left: the globals are read after init(), as wrk does. */
static void read_hooks(struct shb_lua_thread *t)
{
	lua_State *L = t->st.L;
	t->f_request = shb_lua_global_fn(L, "request");
	t->f_response = shb_lua_global_fn(L, "response");
	t->f_delay = shb_lua_global_fn(L, "delay");
	t->hooks = (t->f_request != LUA_NOREF ? SHB_SCRIPT_HOOK_REQUEST : 0) |
		   (t->f_delay != LUA_NOREF ? SHB_SCRIPT_HOOK_DELAY : 0);
	if (t->f_response != LUA_NOREF)
		t->hooks |= SHB_SCRIPT_HOOK_RESPONSE |
			    (response_reads_body(t) ? SHB_SCRIPT_HOOK_BODY : 0);
}

/* Keeps the string at the top of the stack as the thread's last request
 * (popped), so that its bytes stay valid until the next call. */
static void hold_request(struct shb_lua_thread *t)
{
	lua_State *L = t->st.L;
	if (t->last_ref != LUA_NOREF)
		luaL_unref(L, LUA_REGISTRYINDEX, t->last_ref);
	t->req = lua_tolstring(L, -1, &t->req_len);
	t->last_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

/* request(), or wrk.request() for a script without one: a string, else
 * an error naming where the function is defined. */
static int call_request(struct shb_lua_thread *t, int ref, uint64_t budget,
			char *err, size_t errlen)
{
	lua_State *L = t->st.L;
	char where[256];
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	shb_lua_fn_where(L, where, sizeof(where));
	if (shb_lua_call(&t->st, 0, 1, budget, err, errlen) < 0)
		return SHB_E_INVAL;
	if (lua_type(L, -1) != LUA_TSTRING) {
		snprintf(err, errlen, "%s: request() returned a %s, not a string",
			 where, luaL_typename(L, -1));
		lua_pop(L, 1);
		return SHB_E_INVAL;
	}
	hold_request(t);
	return SHB_OK;
}

static int lua_thread_init(void *thread, char *err, size_t errlen)
{
	struct shb_lua_thread *t = thread;
	struct shb_lua_script *sc = t->sc;
	lua_State *L = t->st.L;

	lua_rawgeti(L, LUA_REGISTRYINDEX, t->f_init);
	lua_createtable(L, (int)sc->cfg.arg_count, 0);
	for (size_t i = 0; i < sc->cfg.arg_count; i++) {
		lua_pushstring(L, sc->cfg.args[i]);
		lua_rawseti(L, -2, (int)i + 1);
	}
	if (shb_lua_call(&t->st, 1, 0, SHB_LUA_SETUP_BUDGET_NS, err, errlen) < 0)
		return SHB_E_INVAL;
	read_hooks(t);
	t->running = 1;
	/* The thread's request as wrk.request() makes it: the one a script
	 * without request() sends every time, checked before any traffic. */
	lua_getglobal(L, "wrk");
	lua_getfield(L, -1, "request");
	int ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pop(L, 1);
	int rc = t->hooks & SHB_SCRIPT_HOOK_REQUEST ? SHB_OK :
		 call_request(t, ref, SHB_LUA_SETUP_BUDGET_NS, err, errlen);
	luaL_unref(L, LUA_REGISTRYINDEX, ref);
	return rc;
}

static uint32_t lua_thread_hooks(void *thread)
{
	return ((struct shb_lua_thread *)thread)->hooks;
}

static int stop_or(struct shb_lua_thread *t, int rc)
{
	return rc == SHB_OK && t->stopped ? SHB_SCRIPT_STOP : rc;
}

static int lua_request(void *thread, struct shb_vec *out, char *err, size_t errlen)
{
	struct shb_lua_thread *t = thread;
	int rc = SHB_OK;
	if (t->f_request != LUA_NOREF)
		rc = call_request(t, t->f_request, SHB_LUA_CALL_BUDGET_NS, err, errlen);
	out->base = (void *)t->req;
	out->len = rc == SHB_OK ? t->req_len : 0;
	return stop_or(t, rc);
}

static int lua_delay(void *thread, uint64_t *ms, char *err, size_t errlen)
{
	struct shb_lua_thread *t = thread;
	lua_State *L = t->st.L;
	*ms = 0;
	if (t->f_delay == LUA_NOREF)
		return stop_or(t, SHB_OK);
	lua_rawgeti(L, LUA_REGISTRYINDEX, t->f_delay);
	if (shb_lua_call(&t->st, 0, 1, SHB_LUA_CALL_BUDGET_NS, err, errlen) < 0)
		return SHB_E_INVAL;
	lua_Number d = lua_tonumber(L, -1);
	lua_pop(L, 1);
	/* wrk takes whole milliseconds; a day at most keeps the sum sane. */
	*ms = d > 0 ? (d < 86400000.0 ? (uint64_t)d : 86400000u) : 0;
	return stop_or(t, SHB_OK);
}

/* Headers are looked up by name whatever its case ("X-Token" finds
 * HTTP/2's "x-token"), so that a script written for HTTP/1.1 reads them
 * on every protocol; pairs() shows them as received. */
static const char headers_meta[] =
	"return { __index = function(t, k)\n"
	"  if type(k) ~= 'string' then return nil end\n"
	"  local l = k:lower()\n"
	"  for name, v in next, t do\n"
	"    if name:lower() == l then return v end\n"
	"  end\n"
	"end }\n";

static void push_headers(lua_State *L, const struct shb_response *resp)
{
	lua_createtable(L, 0, (int)resp->header_count);
	for (size_t i = 0; i < resp->header_count; i++) {
		lua_pushstring(L, resp->headers[i].key);
		lua_pushstring(L, resp->headers[i].value);
		lua_rawset(L, -3);
	}
	lua_getfield(L, LUA_REGISTRYINDEX, "shb.headers_meta");
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		if (luaL_dostring(L, headers_meta) != 0 || !lua_istable(L, -1)) {
			lua_pop(L, 1);
			return;
		}
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, "shb.headers_meta");
	}
	lua_setmetatable(L, -2);
}

/* Runs response(status, headers, body) inside the call's protection:
 * building the arguments may run out of memory, which is then an error
 * of the call like any other. */
struct resp_job {
	const struct shb_response *resp;
	int ref;
	int body;
};

static int response_trampoline(lua_State *L)
{
	struct resp_job *j = lua_touserdata(L, 1);
	lua_rawgeti(L, LUA_REGISTRYINDEX, j->ref);
	lua_pushnumber(L, j->resp->status);
	push_headers(L, j->resp);
	if (j->body && j->resp->body)
		lua_pushlstring(L, (const char *)j->resp->body, j->resp->body_len);
	else
		lua_pushliteral(L, "");
	lua_call(L, 3, 0);
	return 0;
}

static int lua_response(void *thread, const struct shb_response *resp,
			char *err, size_t errlen)
{
	struct shb_lua_thread *t = thread;
	lua_State *L = t->st.L;
	struct resp_job j = {resp, t->f_response,
			     (t->hooks & SHB_SCRIPT_HOOK_BODY) != 0};
	if (t->f_response == LUA_NOREF)
		return stop_or(t, SHB_OK);
	lua_pushcfunction(L, response_trampoline);
	lua_pushlightuserdata(L, &j);
	if (shb_lua_call(&t->st, 1, 0, SHB_LUA_CALL_BUDGET_NS, err, errlen) < 0)
		return SHB_E_INVAL;
	return stop_or(t, SHB_OK);
}

static int lua_done(void *script, const struct shb_script_summary *sum,
		    char *err, size_t errlen)
{
	struct shb_lua_script *sc = script;
	lua_State *L = sc->main.L;
	int ref = shb_lua_global_fn(L, "done");
	if (ref == LUA_NOREF)
		return SHB_OK;
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	luaL_unref(L, LUA_REGISTRYINDEX, ref);
	shb_lua_push_done_args(L, g_host, sum);
	int rc = shb_lua_call(&sc->main, 3, 0, SHB_LUA_SETUP_BUDGET_NS, err, errlen);
	shb_lua_stats_expire();
	return rc < 0 ? SHB_E_INVAL : SHB_OK;
}

static void lua_destroy(void *script)
{
	struct shb_lua_script *sc = script;
	if (!sc)
		return;
	/* Threads the core did not get back (a failed setup()) go here. */
	for (uint32_t i = 0; i < sc->cfg.threads; i++)
		if (sc->threads[i] && sc->threads[i]->sc == sc)
			lua_thread_destroy(sc->threads[i]);
	shb_lua_state_close(&sc->main);
	cfg_free(&sc->cfg);
	free(sc->threads);
	free(sc);
}

/* The core destroys threads before the script: forget them there. */
static void thread_destroy(void *thread)
{
	struct shb_lua_thread *t = thread;
	if (t && t->sc)
		t->sc->threads[t->index] = NULL;
	lua_thread_destroy(t);
}

/* ---- descriptor and entry ---------------------------------------------------- */

static const struct shb_script_vtable lua_vt = {
	.struct_size = sizeof(struct shb_script_vtable),
	.create = lua_create,
	.thread_create = lua_thread_create,
	.thread_addr = lua_thread_addr,
	.thread_init = lua_thread_init,
	.thread_hooks = lua_thread_hooks,
	.request = lua_request,
	.delay = lua_delay,
	.response = lua_response,
	.done = lua_done,
	.thread_destroy = thread_destroy,
	.destroy = lua_destroy,
};

static const char *const lua_exts[] = {"lua", NULL};

static const struct shb_script_desc lua_desc = {
	.struct_size = sizeof(struct shb_script_desc),
	.name = "lua",
	.summary = "wrk-compatible Lua scripts (-s FILE.lua) on LuaJIT",
	.extensions = lua_exts,
	.vt = &lua_vt,
};

static const struct shb_script_desc *lua_get(uint32_t index)
{
	return index == 0 ? &lua_desc : NULL;
}

static const struct shb_script_factory lua_factory = {
	sizeof(struct shb_script_factory), 1, lua_get,
};

static const void *lua_get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_SCRIPT) == 0 ? &lua_factory : NULL;
}

static int lua_init(const struct shb_host *host)
{
	g_host = host;
	return SHB_OK;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = 4,
	.id = "org.shb.script.lua",
	.version = SHB_VERSION_STRING,
	.license = "MIT",
	.init = lua_init,
	.get_factory = lua_get_factory,
};
