/* The WebSocket plugin run through the SDK's test kit (pkg-config
 * shb-plugin-kit-1) as the core would run it: the kit's fake host, which
 * checks the host's rules on every call, its clock, and a connection to
 * ws://127.0.0.1:8080/echo driven up to and past the upgrade. Used by
 * test_ws_conn.c. */
#ifndef WS_RIG_H
#define WS_RIG_H

#include <stddef.h>
#include <stdint.h>

#include <shb/kit.h>

/* The plugin's entry, its sources linked into the test. */
extern const struct shb_plugin_entry shb_plugin_entry_v1;
/* The fake host the plugin was initialised with, and its protocol. */
extern struct shb_kit_host kh;
extern const struct shb_proto_desc *ws_desc;

/* The plugin linked into the test, initialised once as the core does
 * (0, or -1 with a line on stderr); kit_stop closes it and the host. */
int kit_start(void);
void kit_stop(void);
/* How many host rules the plugin broke since the last call (each
 * printed), then clean records for the next connection. */
size_t violations(void);
/* The connection events of kind SHB_CEV_HANDSHAKE_DONE recorded. */
size_t handshakes(void);
/* ws://127.0.0.1:8080/echo: one option (or none), up to `parallel`
 * messages in flight, `body` (NULL: none) as the message. */
int module_open(struct shb_kit_module *m, const char *opt_key,
		const char *opt_value, uint32_t parallel, const char *body);
/* A module for ws://a/ with one option. */
int create_with(struct shb_kit_module *m, const char *key, const char *value);

struct rig {
	struct shb_kit_module m;
	struct shb_kit_conn c;
	uint8_t out[4096]; /* what drain() sent */
	size_t out_len;
};

/* Sends what the connection has into r->out, each vec in two pieces (a
 * short write first), through the kit's pull_send and sent. */
void drain(struct rig *r);
/* A connection at the clock's 1, transport ready: the upgrade is queued. */
int rig_connect(struct rig *r, const char *opt_key, const char *opt_value,
		uint32_t parallel, const char *body);
/* A connection past the upgrade (answered with upgrade_answer in one
 * read), with r->out empty. */
int rig_open(struct rig *r, const char *opt_key, const char *opt_value,
	     uint32_t parallel, const char *body);
/* The connection's end; the count of host rules broken on it. */
size_t rig_close(struct rig *r);

/* The server's 101 to the rig's upgrade, and its length. */
extern const char upgrade_answer[];
extern const size_t upgrade_answer_len;

/* Unmasks the client frame at out[at] into payload (NUL-ended); returns
 * the frame's total length. */
size_t client_frame(const uint8_t *out, size_t at, uint32_t *op, char *payload);

#endif
