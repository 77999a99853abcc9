/* The WebSocket plugin's own tests: SHA-1, base64 and the RFC 6455
 * accept vector; the frame encoder against RFC 6455 5.7; the decoder fed
 * every stream split at every offset (and every pair of offsets), and
 * each way a server frame can be malformed. These are plain C on the
 * plugin's own functions. Then connections through the SDK's test kit
 * (pkg-config shb-plugin-kit-1): its fake host, clock, connection driver
 * and split driver run the plugin as the core would: upgrade, pipelined
 * echoes, ping, fragments, close codes, oversized messages, random input,
 * and no host rule broken on any connection.
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/kit.h>

#include "../src/ws.h"

extern const struct shb_plugin_entry shb_plugin_entry_v1;

static int passed, failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                                       \
			failed++;                                              \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/* ---- SHA-1, base64, accept ----------------------------------------------- */

static void test_sha1(void)
{
	static const struct {
		const char *in, *out;
	} v[] = {
		/* FIPS 180-2 appendix A and the empty string */
		{"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
	};
	uint8_t d[WS_SHA1_LEN];
	char h[2 * WS_SHA1_LEN + 1];
	char *million = malloc(1000000);

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		ws_sha1(v[i].in, strlen(v[i].in), d);
		hex(d, sizeof d, h);
		CHECK(strcmp(h, v[i].out) == 0);
	}
	/* FIPS 180-2 A.3: a million 'a' (many blocks, padding in its own). */
	if (million) {
		memset(million, 'a', 1000000);
		ws_sha1(million, 1000000, d);
		hex(d, sizeof d, h);
		CHECK(strcmp(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f") == 0);
		free(million);
	}
}

static void test_base64(void)
{
	/* RFC 4648 section 10 */
	static const char *const v[][2] = {
		{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
		{"foo", "Zm9v"},  {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
		{"foobar", "Zm9vYmFy"},
	};
	char out[16];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		size_t n = ws_base64((const uint8_t *)v[i][0], strlen(v[i][0]), out);

		CHECK(n == strlen(v[i][1]));
		CHECK(strcmp(out, v[i][1]) == 0);
	}
}

static void test_accept_vector(void)
{
	char accept[WS_ACCEPT_B64_LEN];

	/* RFC 6455 1.3 */
	ws_accept_for_key("dGhlIHNhbXBsZSBub25jZQ==", accept);
	CHECK(strcmp(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") == 0);
}

/* ---- handshake ------------------------------------------------------------ */

/* "the sample nonce" is the 16 bytes behind RFC 6455's example key. */
static const uint8_t sample_nonce[16] = "the sample nonce";

static void test_handshake_request(void)
{
	struct ws_buf b = {0};
	char accept[WS_ACCEPT_B64_LEN];
	static const char want[] =
		"GET /chat?x=1 HTTP/1.1\r\n"
		"Host: server.example.com:8080\r\n"
		"Upgrade: websocket\r\n"
		"Connection: Upgrade\r\n"
		"Sec-WebSocket-Version: 13\r\n"
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
		"Origin: http://example.com\r\n"
		"\r\n";

	CHECK(ws_handshake_request(&b, "/chat?x=1", "server.example.com:8080",
				   "Origin: http://example.com\r\n", sample_nonce,
				   accept) == 0);
	CHECK(b.len == sizeof want - 1 && memcmp(b.p, want, b.len) == 0);
	CHECK(strcmp(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") == 0);
	ws_buf_free(&b);
}

static int check_head(const char *head, char *err)
{
	return ws_handshake_check(head, strlen(head),
				  "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", err, 160);
}

static void test_handshake_check(void)
{
	char err[160];

	CHECK(check_head("HTTP/1.1 101 Switching Protocols\r\n"
			 "Upgrade: websocket\r\nConnection: Upgrade\r\n"
			 "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
			 err) == 0);
	/* Names and the Upgrade value in any case, Connection a list. */
	CHECK(check_head("HTTP/1.1 101 Switching Protocols\r\n"
			 "UPGRADE: WebSocket\r\nconnection: keep-alive, upgrade\r\n"
			 "sec-websocket-accept:  s3pPLMBiTxaQ9kYGzzhZRbK+xOo= \r\n\r\n",
			 err) == 0);
	CHECK(check_head("HTTP/1.1 403 Forbidden\r\n\r\n", err) == -1);
	CHECK(strcmp(err, "ws: the server answered the upgrade with 403, not 101") == 0);
	CHECK(check_head("HTTP/1.1 101 Switching Protocols\r\n"
			 "Upgrade: websocket\r\nConnection: Upgrade\r\n"
			 "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo\r\n\r\n",
			 err) == -1);
	CHECK(strcmp(err, "ws: Sec-WebSocket-Accept is missing or wrong") == 0);
	CHECK(check_head("HTTP/1.1 101 Switching Protocols\r\n"
			 "Connection: Upgrade\r\n"
			 "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
			 err) == -1);
	CHECK(strcmp(err, "ws: the 101 answer lacks Upgrade: websocket") == 0);
	CHECK(check_head("HTTP/1.1 101 Switching Protocols\r\n"
			 "Upgrade: websocket\r\nConnection: Upgrade\r\n"
			 "Sec-WebSocket-Extensions: permessage-deflate\r\n"
			 "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
			 err) == -1);
	CHECK(strcmp(err, "ws: the server chose an extension the client did not offer") == 0);
	CHECK(check_head("HTTP/1.0 101 Switching Protocols\r\n\r\n", err) == -1);
}

/* ---- frames --------------------------------------------------------------- */

static void test_encoder(void)
{
	/* RFC 6455 5.7: a single-frame masked text message "Hello". */
	static const uint8_t want[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f,
				       0x9f, 0x4d, 0x51, 0x58};
	static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
	uint8_t f[WS_HEADER_MAX + 5];
	size_t n = ws_frame_header(f, WS_OP_TEXT, 1, 5, key);

	memcpy(f + n, "Hello", 5);
	ws_mask(f + n, 5, key, 0);
	CHECK(n == 6 && memcmp(f, want, sizeof want) == 0);
	/* Masking twice, and from an offset, gives the payload back. */
	ws_mask(f + n, 2, key, 0);
	ws_mask(f + n + 2, 3, key, 2);
	CHECK(memcmp(f + n, "Hello", 5) == 0);
	/* 16- and 64-bit lengths. */
	n = ws_frame_header(f, WS_OP_BINARY, 0, 126, key);
	CHECK(n == 8 && f[0] == 0x02 && f[1] == 0xfe && f[2] == 0 && f[3] == 126);
	n = ws_frame_header(f, WS_OP_BINARY, 1, 65536, key);
	CHECK(n == 14 && f[0] == 0x82 && f[1] == 0xff && f[7] == 1 && f[8] == 0 &&
	      f[9] == 0 && memcmp(f + 10, key, 4) == 0);
}

/* What the decoder reported, as text: "<op fin len:" payload ">" per frame. */
struct record {
	char buf[8192];
	size_t len;
};

static int rec_begin(void *ctx, uint32_t op, uint32_t fin, uint64_t len,
		     uint32_t header_len)
{
	struct record *r = ctx;

	r->len += (size_t)snprintf(r->buf + r->len, sizeof r->buf - r->len,
				   "<%u %u %llu %u:", (unsigned)op, (unsigned)fin,
				   (unsigned long long)len, (unsigned)header_len);
	return 0;
}

static int rec_data(void *ctx, const uint8_t *p, size_t n)
{
	struct record *r = ctx;

	if (n > sizeof r->buf - r->len - 1)
		return -9999;
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	return 0;
}

static int rec_end(void *ctx)
{
	struct record *r = ctx;

	if (r->len < sizeof r->buf - 1)
		r->buf[r->len++] = '>';
	return 0;
}

static const struct ws_dec_cb rec_cb = {rec_begin, rec_data, rec_end};

/* A server's stream: a text frame, a fragmented message with a ping in
 * between, an empty binary frame, 300 bytes (16-bit length), a close. */
static size_t server_stream(uint8_t *s)
{
	size_t n = 0;

	memcpy(s + n, "\x81\x05hello", 7), n += 7;
	memcpy(s + n, "\x01\x03Hel", 5), n += 5;
	memcpy(s + n, "\x89\x01p", 3), n += 3;
	memcpy(s + n, "\x80\x02lo", 4), n += 4;
	memcpy(s + n, "\x82\x00", 2), n += 2;
	memcpy(s + n, "\x82\x7e\x01\x2c", 4), n += 4;
	for (int i = 0; i < 300; i++)
		s[n++] = (uint8_t)('a' + i % 26);
	memcpy(s + n, "\x88\x05\x03\xe8" "bye", 7), n += 7;
	return n;
}

static void test_decoder_every_split(void)
{
	uint8_t s[512];
	size_t n = server_stream(s);
	static struct record whole, part;
	struct ws_dec d;
	char want[600];
	size_t w = 0;
	int bad = 0;

	memset(&d, 0, sizeof d);
	whole.len = 0;
	CHECK(ws_dec_feed(&d, s, n, &rec_cb, &whole) == 0);
	w += (size_t)sprintf(want + w, "<1 1 5 2:hello><1 0 3 2:Hel><9 1 1 2:p>"
				       "<0 1 2 2:lo><2 1 0 2:><2 1 300 4:");
	for (int i = 0; i < 300; i++)
		want[w++] = (char)('a' + i % 26);
	w += (size_t)sprintf(want + w, "><8 1 5 2:\x03\xe8" "bye>");
	CHECK(whole.len == w && memcmp(whole.buf, want, w) == 0);
	/* Every split into two and into three pieces gives the same. */
	for (size_t i = 0; i <= n; i++) {
		for (size_t j = i; j <= n; j++) {
			memset(&d, 0, sizeof d);
			part.len = 0;
			if (ws_dec_feed(&d, s, i, &rec_cb, &part) ||
			    ws_dec_feed(&d, s + i, j - i, &rec_cb, &part) ||
			    ws_dec_feed(&d, s + j, n - j, &rec_cb, &part) ||
			    part.len != whole.len ||
			    memcmp(part.buf, whole.buf, whole.len) != 0)
				bad++;
		}
	}
	CHECK(bad == 0);
}

/* Counts what the decoder reports, for a frame too long to record. */
struct count {
	uint64_t begins, ends, bytes, len;
	uint32_t header_len;
};

static int cnt_begin(void *ctx, uint32_t op, uint32_t fin, uint64_t len,
		     uint32_t header_len)
{
	struct count *c = ctx;

	c->begins++;
	c->len = len;
	c->header_len = header_len;
	return op == WS_OP_BINARY && fin ? 0 : -9998;
}

static int cnt_data(void *ctx, const uint8_t *p, size_t n)
{
	struct count *c = ctx;

	for (size_t i = 0; i < n; i++)
		if (p[i] != 'z')
			return -9997;
	c->bytes += n;
	return 0;
}

static int cnt_end(void *ctx)
{
	((struct count *)ctx)->ends++;
	return 0;
}

/* A 64-bit length (70000 bytes), split at every offset of its header and
 * the first payload bytes. */
static void test_decoder_long_frame(void)
{
	static const struct ws_dec_cb cb = {cnt_begin, cnt_data, cnt_end};
	static uint8_t s[10 + 70000];
	int bad = 0;

	memcpy(s, "\x82\x7f\x00\x00\x00\x00\x00\x01\x11\x70", 10);
	memset(s + 10, 'z', 70000);
	for (size_t i = 0; i <= 12; i++) {
		struct ws_dec d;
		struct count c = {0};

		memset(&d, 0, sizeof d);
		if (ws_dec_feed(&d, s, i, &cb, &c))
			bad++;
		if (c.begins != (i >= 10) || c.bytes != (i > 10 ? i - 10 : 0) ||
		    c.ends != 0)
			bad++;
		if (ws_dec_feed(&d, s + i, sizeof s - i, &cb, &c))
			bad++;
		if (c.begins != 1 || c.ends != 1 || c.bytes != 70000 ||
		    c.len != 70000 || c.header_len != 10 || d.in_payload)
			bad++;
	}
	CHECK(bad == 0);
}

static int feed_bytes(const char *bytes, size_t n)
{
	struct ws_dec d;
	static struct record r;

	memset(&d, 0, sizeof d);
	r.len = 0;
	return ws_dec_feed(&d, (const uint8_t *)bytes, n, &rec_cb, &r);
}

static void test_decoder_errors(void)
{
	CHECK(feed_bytes("\xc1\x00", 2) == WS_DEC_RSV);
	CHECK(feed_bytes("\x83\x00", 2) == WS_DEC_OPCODE);
	CHECK(feed_bytes("\x8b\x00", 2) == WS_DEC_OPCODE);
	CHECK(feed_bytes("\x81\x81\x00\x00\x00\x00x", 7) == WS_DEC_MASKED);
	CHECK(feed_bytes("\x09\x00", 2) == WS_DEC_CONTROL);
	CHECK(feed_bytes("\x89\x7e\x00\x7e", 4) == WS_DEC_CONTROL);
	CHECK(feed_bytes("\x82\x7e\x00\x05", 4) == WS_DEC_LENGTH);
	CHECK(feed_bytes("\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00", 10) ==
	      WS_DEC_LENGTH);
	CHECK(feed_bytes("\x82\x7f\x00\x00\x00\x00\x00\x00\xff\xff", 10) ==
	      WS_DEC_LENGTH);
	/* A callback's code comes back as is (the record holds 8 KiB). */
	{
		static char big[4 + 9000] = "\x82\x7e\x27\x10";

		CHECK(feed_bytes(big, sizeof big) == -9999);
	}
}

/* ---- a connection through the test kit ------------------------------------ */

/* The SDK's fake host (shb/kit.h) records every req_done and conn_event
 * and checks the host's rules as the plugin runs: a result only from
 * inside a call on its own connection, exactly once per issued cookie,
 * never after conn_fini... Each connection below ends by asserting that
 * it saw no violation. Static: the plugin keeps the host from init() on. */
static struct shb_kit_host kh;
static struct shb_kit_plugin plugin;
static const struct shb_proto_desc *ws_desc;

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
static int kit_start(void)
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

/* How many host rules the plugin broke since the last call (each printed),
 * then clean records for the next connection. */
static size_t violations(void)
{
	size_t n = shb_kit_host_dump_violations(&kh, "kit: ");

	shb_kit_host_reset(&kh);
	return n;
}

static size_t handshakes(void)
{
	size_t n = 0;

	for (size_t i = 0; i < kh.event_count; i++)
		n += kh.events[i].ev.kind == SHB_CEV_HANDSHAKE_DONE;
	return n;
}

/* ws://127.0.0.1:8080/echo: one option (or none), up to `parallel`
 * messages in flight, `body` (NULL: none) as the message. */
static int module_open(struct shb_kit_module *m, const char *opt_key,
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

struct rig {
	struct shb_kit_module m;
	struct shb_kit_conn c;
	uint8_t out[4096]; /* what drain() sent */
	size_t out_len;
};

/* Sends what the connection has into r->out, each vec in two pieces (a
 * short write first), through the kit's pull_send and sent. */
static void drain(struct rig *r)
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
static int rig_connect(struct rig *r, const char *opt_key,
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
static size_t rig_close(struct rig *r)
{
	shb_kit_conn_fini(&r->c);
	shb_kit_module_destroy(&r->m);
	return violations();
}

static const char upgrade_answer[] =
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	"Connection: Upgrade\r\n"
	"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";

/* A connection past the upgrade, with r->out empty. */
static int rig_open(struct rig *r, const char *opt_key, const char *opt_value,
		    uint32_t parallel, const char *body)
{
	if (rig_connect(r, opt_key, opt_value, parallel, body))
		return -1;
	CHECK(r->c.capacity == 0);
	drain(r);
	r->out_len = 0;
	/* The 101 in one read, all of it consumed. */
	if (shb_kit_conn_recv(&r->c, upgrade_answer, sizeof upgrade_answer - 1) !=
	    (shb_ssize)(sizeof upgrade_answer - 1)) {
		rig_close(r);
		return -1;
	}
	return 0;
}

/* Unmasks the client frame at out[at]; returns its total length. */
static size_t client_frame(const uint8_t *out, size_t at, uint32_t *op,
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
static int create_with(struct shb_kit_module *m, const char *key,
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

static void test_conn_handshake(void)
{
	struct rig r;
	static const char want[] =
		"GET /echo HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
		"Upgrade: websocket\r\nConnection: Upgrade\r\n"
		"Sec-WebSocket-Version: 13\r\n"
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
	const struct shb_proto_desc *d = ws_desc;
	struct shb_kit_module m;

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(strcmp(d->name, "ws") == 0);
	CHECK(d->vt->next_deadline == NULL && d->vt->on_timer == NULL);
	CHECK(d->scheme_defs && strcmp(d->scheme_defs[1].name, "wss") == 0 &&
	      d->scheme_defs[1].default_port == 443 &&
	      d->scheme_defs[1].flags == SHB_SCHEME_TLS &&
	      d->scheme_defs[0].default_port == 80 && d->scheme_defs[2].name == NULL);
	CHECK(shb_plugin_entry_v1.abi_minor == 2);

	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(r.c.state == SHB_CS_WANT_WRITE);
	drain(&r);
	CHECK(r.out_len == sizeof want - 1 && memcmp(r.out, want, r.out_len) == 0);
	/* A wrong accept ends the connection before any request. */
	{
		static const char bad[] =
			"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
			"Connection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n";
		size_t i;

		/* Fed a byte at a time: the end of the head is found across reads. */
		for (i = 0; i < sizeof bad - 2; i++)
			CHECK(shb_kit_conn_recv(&r.c, bad + i, 1) == 1);
		CHECK(shb_kit_conn_recv(&r.c, bad + i, 1) == SHB_E_PROTO);
		CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
			     "ws: Sec-WebSocket-Accept is missing or wrong") == 0);
		CHECK(handshakes() == 0);
	}
	CHECK(rig_close(&r) == 0);

	/* Options: unknown keys and bad sizes are one line each. */
	CHECK(create_with(&m, "frame", "1") == SHB_E_INVAL);
	CHECK(strcmp(m.err, "unknown option 'frame' (known: max-message)") == 0);
	CHECK(create_with(&m, "max-message", "0") == SHB_E_INVAL);
	CHECK(strcmp(m.err, "max-message must be 1 to 1073741824 bytes, not '0'") == 0);
	CHECK(create_with(&m, "max-message", "64") == SHB_OK);
	CHECK(((struct ws_module *)m.module)->max_message == 64);
	shb_kit_module_destroy(&m);
	/* A message longer than the bound is refused before any run. */
	CHECK(create_with(&m, "max-message", "4") == SHB_OK);
	{
		struct shb_request req = {.struct_size = sizeof(req),
					  .flags = SHB_REQUEST_HAS_BODY,
					  .method = "GET",
					  .path = "/",
					  .body = (const uint8_t *)"hello",
					  .body_len = 5};
		char err[160];
		void *pr = NULL;

		/* The vtable member itself: what it leaves in *prepared. */
		CHECK(m.vt->prepare_request(m.module, &req, &pr, err, sizeof err) == SHB_E_INVAL);
		CHECK(strcmp(err, "the message (5 bytes) is longer than max-message (4)") == 0);
		CHECK(pr == NULL);
	}
	shb_kit_module_destroy(&m);
	CHECK(violations() == 0);
}

/* Three echoes, a ping among them and the second answer fragmented. */
static const uint8_t pipelined[] = "\x81\x05/echo"            /* 1st answer */
				   "\x89\x02hi"               /* ping */
				   "\x01\x02/e\x80\x03" "cho" /* 2nd, fragmented */
				   "\x81\x05/echo";           /* 3rd answer */

/* The three pipelined echoes answered in two reads, cut at every offset
 * of the stream: the requests on the wire, the results with the clock's
 * time of each read, and the pong. */
static void test_conn_pipelined_every_split(void)
{
	const size_t n = sizeof pipelined - 1;
	int bad = 0;

	for (size_t cut = 0; cut <= n; cut++) {
		struct rig r;
		uint32_t op;
		char payload[64];
		size_t at = 0;

		if (rig_open(&r, NULL, NULL, 3, NULL)) {
			bad++;
			continue;
		}
		if (handshakes() != 1 || r.c.capacity != 3)
			bad++;
		for (uint64_t k = 1; k <= 3; k++)
			if (shb_kit_conn_issue(&r.c, NULL, k * 10) != SHB_OK)
				bad++;
		if (r.c.capacity != 0 ||
		    shb_kit_conn_issue(&r.c, NULL, 99) != SHB_E_BUSY)
			bad++;
		drain(&r);
		/* Three masked text frames "/echo" (the path: no body). */
		for (int k = 0; k < 3; k++) {
			at += client_frame(r.out, at, &op, payload);
			if (op != WS_OP_TEXT || strcmp(payload, "/echo") != 0 ||
			    r.out[at - 5 - 4] != 1)
				bad++;
		}
		if (at != r.out_len)
			bad++;
		r.out_len = 0;
		shb_kit_clock_set(&kh.clock, 3);
		if (shb_kit_conn_recv(&r.c, pipelined, cut) != (shb_ssize)cut)
			bad++;
		shb_kit_clock_set(&kh.clock, 4);
		if (shb_kit_conn_recv(&r.c, pipelined + cut, n - cut) !=
		    (shb_ssize)(n - cut))
			bad++;
		if (kh.done_count != 3)
			bad++;
		for (size_t k = 0; k < 3 && k < kh.done_count; k++) {
			const struct shb_req_result *res = &kh.done[k].res;

			if (kh.done[k].cookie != (k + 1) * 10 ||
			    res->outcome != SHB_REQ_OK || res->status != 0 ||
			    res->app_space != SHB_APPSPACE_WEBSOCKET ||
			    res->app_code != 1000 || res->app_ok != 1 ||
			    res->rx_body_bytes != 5 ||
			    res->rx_header_bytes != (k == 1 ? 4u : 2u) ||
			    kh.done[k].has_detail)
				bad++;
		}
		/* The first answer began (its 2-byte header complete) in the
		 * first read when that read had the header. */
		if (kh.done_count && kh.done[0].res.ts_first_byte != (cut >= 2 ? 3u : 4u))
			bad++;
		/* The metrics (ABI 1.4): three messages out, three whole
		 * ones back (the fragmented one once, the ping not at all),
		 * each timed from its issue at 1 to the read that ended it
		 * (3, or 4 when the cut left its end for the second read). */
		static const size_t ends[3] = {7, 20, 27};
		uint64_t sum = 0;
		for (int k = 0; k < 3; k++)
			sum += (cut >= ends[k] ? 3u : 4u) - 1u;
		const struct shb_kit_metric *lat = shb_kit_metric(&kh, "ws_msg_latency");
		if (shb_kit_metric_count(&kh, "ws_msgs_sent") != 3 ||
		    shb_kit_metric_count(&kh, "ws_msgs_received") != 3 ||
		    !lat || lat->count != 3 || lat->sum != sum ||
		    lat->min != (cut >= 7 ? 2u : 3u) || lat->max != (cut >= 27 ? 2u : 3u))
			bad++;
		/* The ping was answered: a masked pong "hi". */
		drain(&r);
		at = client_frame(r.out, 0, &op, payload);
		if (op != WS_OP_PONG || strcmp(payload, "hi") != 0 || at != r.out_len)
			bad++;
		if (r.c.capacity != 3 || r.c.state != 0)
			bad++;
		if (rig_close(&r))
			bad++;
	}
	CHECK(bad == 0);
}

/* The kit's split driver's set-up: the upgrade and its 101, then
 * *(uint64_t *)user requests (cookies 10, 20, ...) on the wire. */
static int upgraded_with_requests(struct shb_kit_conn *c, void *user)
{
	uint64_t requests = *(const uint64_t *)user;

	shb_kit_conn_flush(c, 0);
	if (shb_kit_conn_feed(c, upgrade_answer, sizeof upgrade_answer - 1) != SHB_OK ||
	    c->capacity != 3)
		return 1;
	for (uint64_t k = 1; k <= requests; k++)
		if (shb_kit_conn_issue(c, NULL, k * 10) != SHB_OK)
			return 1;
	shb_kit_conn_flush(c, 0);
	return 0;
}

/* The server's bytes through the split driver: whole, in two at every
 * offset and one byte at a time, always the same results. */
static void test_conn_split_driver(void)
{
	static const uint8_t close1011[] = "\x81\x05/echo" "\x88\x06\x03\xf3" "oops";
	const size_t n = sizeof pipelined - 1;
	struct shb_kit_module m;
	struct shb_kit_split s = {0};
	uint64_t requests = 3;

	if (module_open(&m, NULL, NULL, 3, NULL)) {
		CHECK(!"module_open");
		return;
	}
	s.m = &m;
	s.setup = upgraded_with_requests;
	s.user = &requests;
	CHECK(shb_kit_split_check(&s, pipelined, n) == 0);
	if (s.mismatch[0])
		fprintf(stderr, "split: %s\n", s.mismatch);
	CHECK(s.feeds == n + 1); /* whole, n - 1 cuts, 1-byte pieces */
	CHECK(s.ref.rc == SHB_OK && s.ref.closed == 0 && s.ref.outstanding == 0);
	CHECK(s.ref.result_count == 3);
	for (size_t k = 0; k < 3 && k < s.ref.result_count; k++) {
		const struct shb_kit_done *d = &s.ref.results[k];

		CHECK(d->cookie == (k + 1) * 10 && d->res.outcome == SHB_REQ_OK &&
		      d->res.app_space == SHB_APPSPACE_WEBSOCKET &&
		      d->res.app_code == 1000 && d->res.app_ok == 1 &&
		      d->res.rx_body_bytes == 5 &&
		      d->res.rx_header_bytes == (k == 1 ? 4u : 2u) && !d->has_detail);
	}
	shb_kit_split_fini(&s);

	/* One echo, then a close 1011: the other two end with its code. */
	CHECK(shb_kit_split_check(&s, close1011, sizeof close1011 - 1) == 0);
	if (s.mismatch[0])
		fprintf(stderr, "split: %s\n", s.mismatch);
	CHECK(s.feeds == sizeof close1011);
	CHECK(s.ref.rc == SHB_OK && s.ref.outstanding == 0);
	CHECK(s.ref.result_count == 3);
	if (s.ref.result_count == 3) {
		CHECK(s.ref.results[0].res.app_code == 1000 && !s.ref.results[0].has_detail);
		for (size_t k = 1; k < 3; k++) {
			const struct shb_kit_done *d = &s.ref.results[k];

			CHECK(d->cookie == (k + 1) * 10 && d->res.outcome == SHB_REQ_OK &&
			      d->res.app_code == 1011 && d->res.app_ok == 0);
			CHECK(strcmp(d->detail, "ws: closed by the server with 1011 (oops)") == 0);
		}
	}
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);
	CHECK(violations() == 0);
}

/* The run ends during the upgrade. Once the upgrade is out, the server may
 * accept it: no close frame may go before its 101 (RFC 6455 4.1), so the
 * connection says DRAINING alone until the 101 comes, then sends close
 * 1000 and ends. An upgrade never handed out is dropped, never sent. */
static void test_conn_shutdown_in_upgrade(void)
{
	struct rig r;
	struct shb_vec v[4];
	uint32_t op;
	char payload[128];

	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	drain(&r);
	r.out_len = 0;
	shb_kit_conn_shutdown(&r.c, SHB_SHUT_GRACEFUL);
	CHECK(r.c.state == SHB_CS_DRAINING && r.c.capacity == 0);
	CHECK(shb_kit_conn_pull_send(&r.c, v, 4) == 0);
	CHECK(shb_kit_conn_recv(&r.c, upgrade_answer, sizeof upgrade_answer - 1) ==
	      (shb_ssize)(sizeof upgrade_answer - 1));
	CHECK(handshakes() == 1);
	CHECK(r.c.state == (SHB_CS_WANT_WRITE | SHB_CS_DRAINING) && r.c.capacity == 0);
	drain(&r);
	CHECK(r.out_len == 8 && client_frame(r.out, 0, &op, payload) == 8);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[0] == 0x03 &&
	      (uint8_t)payload[1] == 0xe8);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(kh.done_count == 0);
	CHECK(rig_close(&r) == 0);

	/* The upgrade still queued: nothing goes out, the connection ends. */
	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(r.c.state == SHB_CS_WANT_WRITE);
	shb_kit_conn_shutdown(&r.c, SHB_SHUT_GRACEFUL);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(shb_kit_conn_pull_send(&r.c, v, 4) == 0);
	CHECK(rig_close(&r) == 0);

	/* An abort in the upgrade ends it at once, whatever was sent. */
	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	drain(&r);
	shb_kit_conn_shutdown(&r.c, SHB_SHUT_ABORT);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(rig_close(&r) == 0);
}

/* A message with a body is sent as binary; a close 1011 ends what is in
 * flight as an application error, 1001 as refused (never answered: shb
 * resends it). */
static void test_conn_close_codes(void)
{
	struct rig r;
	uint32_t op;
	char payload[64];
	static const uint8_t close1011[] = "\x88\x06\x03\xf3" "oops";
	/* A close 1001, then a frame that must be ignored. */
	static const uint8_t close1001[] = "\x88\x02\x03\xe9" "\x81\x01x";

	if (rig_open(&r, NULL, NULL, 2, "hello body")) {
		CHECK(!"rig_open");
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 1) == SHB_OK);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 2) == SHB_OK);
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_BINARY && strcmp(payload, "hello body") == 0);
	r.out_len = 0;
	CHECK(shb_kit_conn_recv(&r.c, close1011, sizeof close1011 - 1) ==
	      (shb_ssize)(sizeof close1011 - 1));
	CHECK(kh.done_count == 2);
	if (kh.done_count == 2) {
		const struct shb_req_result *res = &kh.done[0].res;

		CHECK(res->outcome == SHB_REQ_OK && res->status == 0 &&
		      res->app_space == SHB_APPSPACE_WEBSOCKET &&
		      res->app_code == 1011 && res->app_ok == 0);
		CHECK(strcmp(kh.done[0].detail, "ws: closed by the server with 1011 (oops)") == 0);
		CHECK(kh.done[1].cookie == 2 && kh.done[1].res.app_code == 1011);
	}
	/* Our close answers with the same code, then the connection ends. */
	CHECK(r.c.state == (SHB_CS_WANT_WRITE | SHB_CS_DRAINING));
	CHECK(r.c.capacity == 0);
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[0] == 0x03 &&
	      (uint8_t)payload[1] == 0xf3);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(shb_kit_conn_recv_eof(&r.c) == SHB_OK);
	CHECK(rig_close(&r) == 0);

	if (rig_open(&r, NULL, NULL, 1, NULL)) {
		CHECK(!"rig_open");
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 7) == SHB_OK);
	CHECK(shb_kit_conn_recv(&r.c, close1001, sizeof close1001 - 1) ==
	      (shb_ssize)(sizeof close1001 - 1));
	CHECK(kh.done_count == 1 &&
	      kh.done[0].res.outcome == SHB_REQ_REFUSED &&
	      kh.done[0].res.app_space == SHB_APPSPACE_NONE);
	CHECK(kh.done_count == 1 &&
	      strcmp(kh.done[0].detail, "ws: closed by the server with 1001") == 0);
	CHECK(shb_kit_conn_error_detail(&r.c) == NULL);
	CHECK(rig_close(&r) == 0);
}

/* max-message bounds a message across its fragments: exceeding it is a
 * protocol error, answered with close 1009. */
static void test_conn_oversized(void)
{
	struct rig r;
	uint32_t op;
	char payload[64];
	static const uint8_t frags[] = "\x01\x04" "abcd" "\x80\x04" "efgh";
	static const uint8_t big[] = "\x82\x7e\x01\x00";

	CHECK(rig_open(&r, "max-message", "6", 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 3) == SHB_OK);
	drain(&r);
	r.out_len = 0;
	CHECK(shb_kit_conn_recv(&r.c, frags, sizeof frags - 1) == SHB_E_PROTO);
	CHECK(kh.done_count == 1 && kh.done[0].cookie == 3 &&
	      kh.done[0].res.outcome == SHB_REQ_PROTO_ERROR);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: a message longer than max-message (6 bytes)") == 0);
	CHECK(r.c.state == (SHB_CS_WANT_WRITE | SHB_CS_DRAINING | SHB_CS_CLOSED));
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[0] == 0x03 &&
	      (uint8_t)payload[1] == 0xf1); /* 1009 */
	CHECK(rig_close(&r) == 0);

	/* One frame over the bound is refused at its header, before any
	 * payload; a malformed frame is a 1002. */
	CHECK(rig_open(&r, "max-message", "255", 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 4) == SHB_OK);
	CHECK(shb_kit_conn_recv(&r.c, big, sizeof big - 1) == SHB_E_PROTO);
	CHECK(kh.done_count == 1 && kh.done[0].res.outcome == SHB_REQ_PROTO_ERROR);
	CHECK(rig_close(&r) == 0);
	CHECK(rig_open(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 5) == SHB_OK);
	drain(&r);
	r.out_len = 0;
	CHECK(shb_kit_conn_recv(&r.c, "\x81\x85", 2) == SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: a masked frame from the server") == 0);
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[1] == 0xea); /* 1002 */
	CHECK(rig_close(&r) == 0);
	/* An answer nobody asked for, and an end in mid-request. */
	CHECK(rig_open(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(shb_kit_conn_recv(&r.c, "\x81\x00", 2) == SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: a message with no request in flight") == 0);
	CHECK(rig_close(&r) == 0);
	CHECK(rig_open(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 6) == SHB_OK);
	CHECK(shb_kit_conn_recv_eof(&r.c) == SHB_E_CLOSED);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: the server closed the connection with requests in flight (1)") == 0);
	CHECK(rig_close(&r) == 0);
}

/* Random bytes after the upgrade, in random pieces: whatever they say,
 * each request in flight is reported at most once and in order, a refused
 * stream is refused with CLOSED set, and the kit sees no host rule broken.
 * (Run it under ASan too: the kit hands recv a private copy.) */
static void test_conn_random_input(void)
{
	uint32_t x = 12345;
	int bad = 0;

	for (int round = 0; round < 2000; round++) {
		struct rig r;
		uint8_t in[256];
		size_t n = 0;
		int refused = 0;

		if (rig_open(&r, "max-message", "300", 4, NULL)) {
			bad++;
			continue;
		}
		for (uint64_t k = 1; k <= 4; k++)
			shb_kit_conn_issue(&r.c, NULL, k);
		/* Some rounds start with a valid answer, to get deeper. */
		if (round % 2)
			memcpy(in, "\x81\x01x", 3), n = 3;
		for (; n < sizeof in; n++) {
			x = x * 1103515245 + 12345;
			in[n] = (uint8_t)(x >> 16);
		}
		for (size_t at = 0; at < sizeof in && !refused;) {
			size_t k;
			shb_ssize rc;

			x = x * 1103515245 + 12345;
			k = 1 + (x >> 16) % 40;
			if (k > sizeof in - at)
				k = sizeof in - at;
			rc = shb_kit_conn_recv(&r.c, in + at, k);
			if (rc < 0) {
				refused = 1;
				if (!(r.c.state & SHB_CS_CLOSED))
					bad++;
			} else if (rc != (shb_ssize)k) {
				bad++;
			}
			at += k;
		}
		if (kh.done_count > 4)
			bad++;
		for (size_t i = 0; i < kh.done_count && i < 4; i++)
			if (kh.done[i].cookie != (uint64_t)i + 1)
				bad++;
		drain(&r);
		if (rig_close(&r))
			bad++;
	}
	CHECK(bad == 0);
}

int main(void)
{
	test_sha1();
	test_base64();
	test_accept_vector();
	test_handshake_request();
	test_handshake_check();
	test_encoder();
	test_decoder_every_split();
	test_decoder_long_frame();
	test_decoder_errors();
	if (kit_start() == 0) {
		test_conn_handshake();
		test_conn_pipelined_every_split();
		test_conn_split_driver();
		test_conn_close_codes();
		test_conn_shutdown_in_upgrade();
		test_conn_oversized();
		test_conn_random_input();
		shb_kit_plugin_close(&plugin);
	} else {
		failed++;
	}
	shb_kit_host_fini(&kh);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
