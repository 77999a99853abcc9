/* The kit's connection tests (test_ws_conn.c), run by test_ws.c once
 * ws_rig.h's kit_start succeeded. */
#ifndef TEST_WS_CONN_H
#define TEST_WS_CONN_H

/* Upgrade, pipelined echoes, ping, fragments, close codes, oversized
 * messages, random input: each connection checked for host rules. */
void test_ws_conn(void);

#endif
