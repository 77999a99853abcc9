/* See ws_rig.h. */
#include <stdio.h>
#include <string.h>

#include "../src/ws.h"
#include "test_ws.h"
#include "ws_rig.h"

/* The SDK's fake host (shb/kit.h) records every req_done and conn_event
 * and checks the host's rules as the plugin runs: a result only from
 * inside a call on its own connection, exactly once per issued cookie,
 * never after conn_fini... Each connection ends by asserting that it saw
 * no violation. Global, not on a stack: the plugin keeps the host from init() on. */
struct shb_kit_host kh;
static struct shb_kit_plugin plugin;
const struct shb_proto_desc *ws_desc;

/* The 16-byte key is the sample nonce, so the accept is RFC 6455's;
 * masking keys (drawn 256 bytes at a time) are 0x01 0x02 0x03 0x04. */
static int fixed_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	if (len == 16) {
		memcpy(p, sample_nonce, 16);
		return SHB_OK;
	}
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(1 + i % 4);
	return SHB_OK;
}

/* The plugin linked into this test, initialised once as the core does. */
int kit_start(void)
{
	char err[256] = "";

	if (shb_kit_host_init(&kh, SHB_ABI_MINOR) ||
	    shb_kit_plugin_use(&plugin, &shb_plugin_entry_v1, err, sizeof err) ||
	    shb_kit_plugin_init(&plugin, &kh) != SHB_OK) {
		fprintf(stderr, "test_ws: the kit cannot run the plugin: %s\n", err);
		return -1;
	}
	kh.random = fixed_random;
	ws_desc = shb_kit_plugin_proto(&plugin, "ws");
	return ws_desc ? 0 : -1;
}

void kit_stop(void)
{
	if (ws_desc)
		shb_kit_plugin_close(&plugin);
	ws_desc = NULL;
	shb_kit_host_fini(&kh);
}

/* How many host rules the plugin broke since the last call (each printed),
 * then clean records for the next connection. */
size_t violations(void)
{
	size_t n = shb_kit_host_dump_violations(&kh, "kit: ");

	shb_kit_host_reset(&kh);
	return n;
}

size_t handshakes(void)
{
	size_t n = 0;

	for (size_t i = 0; i < kh.event_count; i++)
		n += kh.events[i].ev.kind == SHB_CEV_HANDSHAKE_DONE;
	return n;
}

/* ws://127.0.0.1:8080/echo: one option (or none), up to `parallel`
 * messages in flight, `body` (NULL: none) as the message. */
int module_open(struct shb_kit_module *m, const char *opt_key,
		       const char *opt_value, uint32_t parallel, const char *body)
{
	struct shb_kv opt = {opt_key, opt_value};
	struct shb_run_config cfg;
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = body ? SHB_REQUEST_HAS_BODY : 0,
		.method = "GET",
		.scheme = "ws",
		.authority = "127.0.0.1:8080",
		.path = "/echo",
		.body = (const uint8_t *)body,
		.body_len = body ? strlen(body) : 0,
	};

	shb_kit_run_config_default(&cfg, ws_desc);
	cfg.parallel = parallel;
	cfg.port = 8080;
	cfg.host = "127.0.0.1";
	cfg.authority = "127.0.0.1:8080";
	cfg.options = opt_key ? &opt : NULL;
	cfg.option_count = opt_key ? 1 : 0;
	if (shb_kit_module_create(m, &kh, ws_desc, &cfg) != SHB_OK)
		return -1;
	if (shb_kit_module_prepare(m, &req) != SHB_OK ||
	    shb_kit_module_worker_init(m) != SHB_OK) {
		shb_kit_module_destroy(m);
		return -1;
	}
	return 0;
}

/* Sends what the connection has into r->out, each vec in two pieces (a
 * short write first), through the kit's pull_send and sent. */
void drain(struct rig *r)
{
	struct shb_vec v[4];
	shb_ssize n;

	while ((n = shb_kit_conn_pull_send(&r->c, v, 4)) > 0) {
		size_t half = v[0].len / 2;

		CHECK(n == 1 && v[0].len <= sizeof r->out - r->out_len);
		if (v[0].len <= sizeof r->out - r->out_len) {
			memcpy(r->out + r->out_len, v[0].base, v[0].len);
			r->out_len += v[0].len;
		}
		shb_kit_conn_sent(&r->c, half);
		if (half < v[0].len) {
			CHECK(shb_kit_conn_pull_send(&r->c, v, 4) == 1);
			shb_kit_conn_sent(&r->c, v[0].len);
		}
	}
}

/* A connection at the clock's 1, transport ready: the upgrade is queued. */
int rig_connect(struct rig *r, const char *opt_key,
		       const char *opt_value, uint32_t parallel, const char *body)
{
	memset(r, 0, sizeof *r);
	shb_kit_clock_set(&kh.clock, 1);
	if (module_open(&r->m, opt_key, opt_value, parallel, body))
		return -1;
	if (shb_kit_conn_init(&r->c, &r->m) != SHB_OK ||
	    shb_kit_conn_ready(&r->c, NULL) != SHB_OK) {
		shb_kit_conn_fini(&r->c);
		shb_kit_module_destroy(&r->m);
		return -1;
	}
	return 0;
}

/* The connection's end; the count of host rules broken on it. */
size_t rig_close(struct rig *r)
{
	shb_kit_conn_fini(&r->c);
	shb_kit_module_destroy(&r->m);
	return violations();
}

const char upgrade_answer[] =
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	"Connection: Upgrade\r\n"
	"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
const size_t upgrade_answer_len = sizeof upgrade_answer - 1;

/* A connection past the upgrade, with r->out empty. */
int rig_open(struct rig *r, const char *opt_key, const char *opt_value,
		    uint32_t parallel, const char *body)
{
	if (rig_connect(r, opt_key, opt_value, parallel, body))
		return -1;
	CHECK(r->c.capacity == 0);
	drain(r);
	r->out_len = 0;
	/* The 101 in one read, all of it consumed. */
	if (shb_kit_conn_recv(&r->c, upgrade_answer, upgrade_answer_len) !=
	    (shb_ssize)upgrade_answer_len) {
		rig_close(r);
		return -1;
	}
	return 0;
}

/* Unmasks the client frame at out[at]; returns its total length. */
size_t client_frame(const uint8_t *out, size_t at, uint32_t *op,
			   char *payload)
{
	const uint8_t *f = out + at;
	size_t len = f[1] & 0x7f, h = 2;

	if (len == 126) {
		len = (size_t)f[2] << 8 | f[3];
		h = 4;
	}
	*op = f[0] & 0x0f;
	for (size_t i = 0; i < len; i++)
		payload[i] = (char)(f[h + 4 + i] ^ f[h + i % 4]);
	payload[len] = '\0';
	return h + 4 + len;
}

/* A module for ws://a/ with one option. */
int create_with(struct shb_kit_module *m, const char *key,
		       const char *value)
{
	struct shb_kv o = {key, value};
	struct shb_run_config cfg;

	shb_kit_run_config_default(&cfg, ws_desc);
	cfg.authority = "a";
	cfg.options = &o;
	cfg.option_count = 1;
	return shb_kit_module_create(m, &kh, ws_desc, &cfg);
}
