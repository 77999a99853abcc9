/* wrk.lookup and wrk.connect, and the address values they trade in (a
 * userdata whose tostring is "ADDR:PORT", "[ADDR]:PORT" for IPv6): what
 * thread.addr holds. They run during set-up only (setup() and init()), on
 * the main thread, as in wrk. */
#ifndef SHB_LUA_NET_H
#define SHB_LUA_NET_H

#include <stdint.h>
#include <sys/socket.h>

#include <lua.h>

/* How long wrk.connect waits for a connection. */
#define SHB_LUA_CONNECT_TIMEOUT_MS 1000

/* Sets wrk.lookup and wrk.connect in the table at the top of the stack,
 * and registers the address type in the state. */
void shb_lua_net_open(lua_State *L);
/* Pushes an address value for sa[len]. */
void shb_lua_push_addr(lua_State *L, const struct sockaddr *sa, uint32_t len);
/* The address value at index idx, or NULL when it is not one; *len set. */
const struct sockaddr *shb_lua_to_addr(lua_State *L, int idx, uint32_t *len);

#endif
