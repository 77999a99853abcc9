/* Addresses for scripts (lua_net.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "lua_net.h"

#define ADDR_MT "shb.addr"

struct addr_ud {
	struct sockaddr_storage ss;
	uint32_t len;
};

void shb_lua_push_addr(lua_State *L, const struct sockaddr *sa, uint32_t len)
{
	struct addr_ud *a = lua_newuserdata(L, sizeof(*a));
	memset(a, 0, sizeof(*a));
	if (len > sizeof(a->ss))
		len = sizeof(a->ss);
	memcpy(&a->ss, sa, len);
	a->len = len;
	luaL_getmetatable(L, ADDR_MT);
	lua_setmetatable(L, -2);
}

const struct sockaddr *shb_lua_to_addr(lua_State *L, int idx, uint32_t *len)
{
	struct addr_ud *a = luaL_testudata(L, idx, ADDR_MT);
	if (!a)
		return NULL;
	*len = a->len;
	return (const struct sockaddr *)&a->ss;
}

static int addr_tostring(lua_State *L)
{
	struct addr_ud *a = luaL_checkudata(L, 1, ADDR_MT);
	char host[INET6_ADDRSTRLEN] = "?", serv[16] = "?";
	getnameinfo((struct sockaddr *)&a->ss, a->len, host, sizeof(host), serv,
		    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV);
	if (a->ss.ss_family == AF_INET6)
		lua_pushfstring(L, "[%s]:%s", host, serv);
	else
		lua_pushfstring(L, "%s:%s", host, serv);
	return 1;
}

/* wrk.lookup(host, service): every address getaddrinfo gives for TCP. A
 * name that does not resolve is an error of the script's set-up. */
static int net_lookup(lua_State *L)
{
	const char *host = luaL_checkstring(L, 1);
	const char *serv = luaL_optstring(L, 2, "http");
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, serv, &hints, &res);
	if (rc != 0)
		return luaL_error(L, "wrk.lookup(\"%s\", \"%s\"): %s", host, serv,
				  gai_strerror(rc));
	lua_newtable(L);
	int i = 1;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		shb_lua_push_addr(L, ai->ai_addr, (uint32_t)ai->ai_addrlen);
		lua_rawseti(L, -2, i++);
	}
	freeaddrinfo(res);
	return 1;
}

/* wrk.connect(addr): whether a TCP connection to it opens within
 * SHB_LUA_CONNECT_TIMEOUT_MS (it is closed at once). */
static int net_connect(lua_State *L)
{
	uint32_t len = 0;
	const struct sockaddr *sa = shb_lua_to_addr(L, 1, &len);
	if (!sa)
		return luaL_argerror(L, 1, "an address from wrk.lookup expected");
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int ok = 0;
	if (fd >= 0) {
		if (connect(fd, sa, len) == 0) {
			ok = 1;
		} else if (errno == EINPROGRESS) {
			struct pollfd p = {fd, POLLOUT, 0};
			int e = 0;
			socklen_t el = sizeof(e);
			ok = poll(&p, 1, SHB_LUA_CONNECT_TIMEOUT_MS) == 1 &&
			     getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0;
		}
		close(fd);
	}
	lua_pushboolean(L, ok);
	return 1;
}

void shb_lua_net_open(lua_State *L)
{
	if (luaL_newmetatable(L, ADDR_MT)) {
		lua_pushcfunction(L, addr_tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_pop(L, 1);
	lua_pushcfunction(L, net_lookup);
	lua_setfield(L, -2, "lookup");
	lua_pushcfunction(L, net_connect);
	lua_setfield(L, -2, "connect");
}
