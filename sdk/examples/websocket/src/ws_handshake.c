/* The opening handshake (RFC 6455 4.1 and 4.2.2): the client's upgrade
 * request and the checks of the server's 101 answer. */
#include <stdio.h>
#include <string.h>

#include "ws.h"

int ws_handshake_request(struct ws_buf *out, const char *path,
			 const char *authority, const char *headers,
			 const uint8_t key16[16],
			 char accept[WS_ACCEPT_B64_LEN])
{
	char key[WS_KEY_B64_LEN];
	static const char *const fixed[] = {
		"Upgrade: websocket\r\n",
		"Connection: Upgrade\r\n",
		"Sec-WebSocket-Version: 13\r\n",
	};
	int rc = 0;

	ws_base64(key16, 16, key);
	ws_accept_for_key(key, accept);
	rc |= ws_buf_append(out, "GET ", 4);
	rc |= ws_buf_append(out, path, strlen(path));
	rc |= ws_buf_append(out, " HTTP/1.1\r\nHost: ", 17);
	rc |= ws_buf_append(out, authority, strlen(authority));
	rc |= ws_buf_append(out, "\r\n", 2);
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		rc |= ws_buf_append(out, fixed[i], strlen(fixed[i]));
	rc |= ws_buf_append(out, "Sec-WebSocket-Key: ", 19);
	rc |= ws_buf_append(out, key, strlen(key));
	rc |= ws_buf_append(out, "\r\n", 2);
	rc |= ws_buf_append(out, headers, strlen(headers));
	rc |= ws_buf_append(out, "\r\n", 2);
	return rc ? -1 : 0;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Case-insensitive equality of p[n] and the NUL-terminated `s`. */
static int eq_nocase(const char *p, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		if (lower((unsigned char)p[i]) != lower((unsigned char)s[i]))
			return 0;
	return i == n && !s[i];
}

/* True when the comma-separated list v[n] has the token `tok`. */
static int has_token(const char *v, size_t n, const char *tok)
{
	size_t i = 0;

	while (i < n) {
		size_t s, e;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e > s && eq_nocase(v + s, e - s, tok))
			return 1;
	}
	return 0;
}

int ws_handshake_check(const char *head, size_t len, const char *accept,
		       char *err, size_t errlen)
{
	const char *p = head, *end = head + len, *eol;
	int upgrade = 0, connection = 0, accepted = 0;

	eol = memchr(p, '\n', len);
	if (!eol || eol - p < 13 || memcmp(p, "HTTP/1.1 ", 9) != 0) {
		snprintf(err, errlen, "ws: the answer to the upgrade is not HTTP/1.1");
		return -1;
	}
	if (memcmp(p + 9, "101", 3) != 0 || (p[12] != ' ' && p[12] != '\r')) {
		snprintf(err, errlen,
			 "ws: the server answered the upgrade with %.3s, not 101",
			 p + 9);
		return -1;
	}
	for (p = eol + 1; p < end; p = eol + 1) {
		const char *colon, *v, *ve;

		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			break;
		ve = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (ve == p)
			break; /* the blank line */
		colon = memchr(p, ':', (size_t)(ve - p));
		if (!colon) {
			snprintf(err, errlen, "ws: a header line without ':' in the 101 answer");
			return -1;
		}
		for (v = colon + 1; v < ve && (*v == ' ' || *v == '\t'); v++)
			;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (eq_nocase(p, (size_t)(colon - p), "upgrade"))
			upgrade = eq_nocase(v, (size_t)(ve - v), "websocket");
		else if (eq_nocase(p, (size_t)(colon - p), "connection"))
			connection = has_token(v, (size_t)(ve - v), "upgrade");
		else if (eq_nocase(p, (size_t)(colon - p), "sec-websocket-accept"))
			accepted = (size_t)(ve - v) == strlen(accept) &&
				   memcmp(v, accept, strlen(accept)) == 0;
		else if (eq_nocase(p, (size_t)(colon - p), "sec-websocket-extensions")) {
			snprintf(err, errlen, "ws: the server chose an extension the client did not offer");
			return -1;
		}
	}
	if (!upgrade || !connection) {
		snprintf(err, errlen, "ws: the 101 answer lacks %s",
			 upgrade ? "Connection: Upgrade" : "Upgrade: websocket");
		return -1;
	}
	if (!accepted) {
		snprintf(err, errlen, "ws: Sec-WebSocket-Accept is missing or wrong");
		return -1;
	}
	return 0;
}
