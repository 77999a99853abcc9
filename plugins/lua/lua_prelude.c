/* The `wrk` table (lua_prelude.h). The part written in Lua is small and
 * runs once per state; everything per request stays in C or in the
 * script. */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lua_net.h"
#include "lua_prelude.h"

/* Runs with the `wrk` table as its argument; returns the init step.
 * wrk.format merges its arguments with the table's defaults, sets Host
 * when the headers lack it and Content-Length from the body (as wrk's
 * does, in the headers table it was given), and joins the request with
 * CR LF. */
static const char prelude[] =
	"local wrk = ...\n"
	"function wrk.format(method, path, headers, body)\n"
	"  method = method or wrk.method\n"
	"  path = path or wrk.path\n"
	"  headers = headers or wrk.headers\n"
	"  body = body or wrk.body\n"
	"  if headers.Host == nil then headers.Host = wrk.headers.Host end\n"
	"  headers['Content-Length'] = body and #body or nil\n"
	"  local out = { method .. ' ' .. path .. ' HTTP/1.1' }\n"
	"  for name, value in pairs(headers) do\n"
	"    out[#out + 1] = name .. ': ' .. tostring(value)\n"
	"  end\n"
	"  out[#out + 1] = ''\n"
	"  out[#out + 1] = body or ''\n"
	"  return table.concat(out, '\\r\\n')\n"
	"end\n"
	"return function(args)\n"
	"  if wrk.headers.Host == nil then\n"
	"    local h = wrk.host\n"
	"    if h:find(':', 1, true) then h = '[' .. h .. ']' end\n"
	"    if wrk.port then h = h .. ':' .. wrk.port end\n"
	"    wrk.headers.Host = h\n"
	"  end\n"
	"  if type(init) == 'function' then init(args) end\n"
	"  local req = wrk.format()\n"
	"  wrk.request = function() return req end\n"
	"end\n";

static void set_str(lua_State *L, const char *k, const char *v)
{
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

static void fill_table(lua_State *L, const struct shb_script_config *cfg)
{
	char port[16];

	lua_createtable(L, 0, 12);
	set_str(L, "scheme", cfg->scheme);
	set_str(L, "host", cfg->host);
	if (cfg->port_given) {
		snprintf(port, sizeof(port), "%u", (unsigned)cfg->port);
		set_str(L, "port", port);
	}
	set_str(L, "method", cfg->method);
	set_str(L, "path", cfg->path);
	lua_createtable(L, 0, (int)cfg->header_count + 2);
	for (size_t i = 0; i < cfg->header_count; i++) {
		lua_pushstring(L, cfg->headers[i].value);
		lua_setfield(L, -2, cfg->headers[i].key);
	}
	lua_setfield(L, -2, "headers");
	if (cfg->body) {
		lua_pushlstring(L, (const char *)cfg->body, cfg->body_len);
		lua_setfield(L, -2, "body");
	}
	shb_lua_net_open(L); /* lookup and connect */
}

int shb_lua_prelude(struct shb_lua_state *s, const struct shb_script_config *cfg,
		    char *err, size_t errlen)
{
	lua_State *L = s->L;

	fill_table(L, cfg);
	lua_pushvalue(L, -1);
	lua_setglobal(L, "wrk");
	if (luaL_loadbuffer(L, prelude, sizeof(prelude) - 1, "=shb-wrk") != 0) {
		snprintf(err, errlen, "internal error: %s", lua_tostring(L, -1));
		lua_pop(L, 2);
		return LUA_NOREF;
	}
	lua_insert(L, -2); /* the chunk, then wrk as its argument */
	if (shb_lua_call(s, 1, 1, SHB_LUA_SETUP_BUDGET_NS, err, errlen) < 0)
		return LUA_NOREF;
	return luaL_ref(L, LUA_REGISTRYINDEX);
}
