/* The WebSocket plugin's own tests: SHA-1, base64 and the RFC 6455
 * accept vector, the upgrade request and the checks of its answer (here);
 * the frame codec (test_ws_frames.c); connections through the SDK's test
 * kit (test_ws_conn.c, on ws_rig.c's fake host, clock and drivers).
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/ws.h"
#include "test_ws.h"
#include "test_ws_conn.h"
#include "test_ws_frames.h"
#include "ws_rig.h"

int passed, failed;

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
const uint8_t sample_nonce[16] = "the sample nonce";

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

int main(void)
{
	test_sha1();
	test_base64();
	test_accept_vector();
	test_handshake_request();
	test_handshake_check();
	test_ws_frames();
	if (kit_start() == 0)
		test_ws_conn();
	else
		failed++;
	kit_stop();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
