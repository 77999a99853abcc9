/* Statistics objects for done() (lua_stats.h). */
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>

#include "lua_stats.h"

#define STATS_MT "shb.stats"

/* The histograms of the done() call running, [main] only: objects from an
 * earlier call see generation differ and refuse. */
static const struct shb_host *g_host;
static uint32_t g_generation;

struct stats_ud {
	const struct shb_hist *h;
	double div;
	uint32_t generation;
};

static struct stats_ud *check_stats(lua_State *L)
{
	struct stats_ud *s = luaL_checkudata(L, 1, STATS_MT);
	if (s->generation != g_generation || !g_host)
		luaL_error(L, "statistics are readable only during done()");
	return s;
}

static int stats_percentile(lua_State *L)
{
	struct stats_ud *s = check_stats(L);
	double p = luaL_checknumber(L, 2);
	if (!(p >= 0 && p <= 100))
		return luaL_argerror(L, 2, "a percentile from 0 to 100");
	uint32_t ppm = (uint32_t)(p * 10000.0 + 0.5);
	lua_pushnumber(L, (double)g_host->hist->value_at_ppm(s->h, ppm) / s->div);
	return 1;
}

/* The i-th (from 1) non-empty bucket: its value (the bucket's highest
 * equivalent value) and count. */
struct nth {
	uint64_t want, seen, value, count;
};

static int nth_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	struct nth *n = user;
	(void)lo;
	if (++n->seen < n->want)
		return 0;
	n->value = hi;
	n->count = count;
	return 1;
}

static int stats_call(lua_State *L)
{
	struct stats_ud *s = check_stats(L);
	lua_Number i = luaL_checknumber(L, 2);
	struct nth n = {i >= 1 ? (uint64_t)i : 0, 0, 0, 0};
	if (n.want)
		g_host->hist->foreach_bucket(s->h, nth_bucket, &n);
	if (!n.count) {
		lua_pushnil(L);
		lua_pushnil(L);
		return 2;
	}
	lua_pushnumber(L, (double)n.value / s->div);
	lua_pushnumber(L, (double)n.count);
	return 2;
}

static int count_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	(void)lo;
	(void)hi;
	(void)count;
	(*(uint64_t *)user)++;
	return 0;
}

static int stats_len(lua_State *L)
{
	struct stats_ud *s = check_stats(L);
	uint64_t n = 0;
	g_host->hist->foreach_bucket(s->h, count_bucket, &n);
	lua_pushnumber(L, (double)n);
	return 1;
}

static int stats_index(lua_State *L)
{
	struct stats_ud *s = check_stats(L);
	const struct shb_hist_ops *o = g_host->hist;
	const char *k = luaL_checkstring(L, 2);
	if (!strcmp(k, "min"))
		lua_pushnumber(L, (double)o->min(s->h) / s->div);
	else if (!strcmp(k, "max"))
		lua_pushnumber(L, (double)o->max(s->h) / s->div);
	else if (!strcmp(k, "mean"))
		lua_pushnumber(L, (double)o->mean(s->h) / s->div);
	else if (!strcmp(k, "stdev"))
		lua_pushnumber(L, (double)o->stddev(s->h) / s->div);
	else if (!strcmp(k, "percentile"))
		lua_pushcfunction(L, stats_percentile);
	else
		lua_pushnil(L);
	return 1;
}

static void push_stats(lua_State *L, const struct shb_hist *h, double div)
{
	struct stats_ud *s = lua_newuserdata(L, sizeof(*s));
	s->h = h;
	s->div = div;
	s->generation = g_generation;
	if (luaL_newmetatable(L, STATS_MT)) {
		lua_pushcfunction(L, stats_index);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, stats_call);
		lua_setfield(L, -2, "__call");
		lua_pushcfunction(L, stats_len);
		lua_setfield(L, -2, "__len");
	}
	lua_setmetatable(L, -2);
}

static void set_num(lua_State *L, const char *k, uint64_t v)
{
	lua_pushnumber(L, (double)v);
	lua_setfield(L, -2, k);
}

void shb_lua_push_done_args(lua_State *L, const struct shb_host *host,
			    const struct shb_script_summary *sum)
{
	g_host = host;
	g_generation++;
	lua_createtable(L, 0, 4);
	set_num(L, "duration", sum->duration_us);
	set_num(L, "requests", sum->requests);
	set_num(L, "bytes", sum->bytes);
	lua_createtable(L, 0, 5);
	set_num(L, "connect", sum->errors_connect);
	set_num(L, "read", sum->errors_read);
	set_num(L, "write", sum->errors_write);
	set_num(L, "status", sum->errors_status);
	set_num(L, "timeout", sum->errors_timeout);
	lua_setfield(L, -2, "errors");
	push_stats(L, sum->latency, 1000.0);
	push_stats(L, sum->rates, 1.0);
}

void shb_lua_stats_expire(void)
{
	g_host = NULL;
	g_generation++;
}
