/* SHA-1 (FIPS 180-4) and base64 (RFC 4648) for the opening handshake.
 * SHA-1 is used here only because RFC 6455 fixes it for the accept value;
 * it protects nothing. */
#include <string.h>

#include "ws_hash.h"

static uint32_t rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(uint32_t h[5], const uint8_t *p)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void ws_sha1(const void *data, size_t len, uint8_t out[WS_SHA1_LEN])
{
	uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
			 0xc3d2e1f0};
	const uint8_t *p = data;
	uint8_t last[128] = {0};
	uint64_t bits = (uint64_t)len * 8;
	size_t rest, tail;

	for (; len >= 64; len -= 64, p += 64)
		sha1_block(h, p);
	/* The rest, 0x80, zeros, and the length in bits: one or two blocks. */
	rest = len;
	memcpy(last, p, rest);
	last[rest] = 0x80;
	tail = rest < 56 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		last[tail - 1 - i] = (uint8_t)(bits >> (8 * i));
	sha1_block(h, last);
	if (tail == 128)
		sha1_block(h, last + 64);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(h[i] >> 8);
		out[4 * i + 3] = (uint8_t)h[i];
	}
}

size_t ws_base64(const uint8_t *in, size_t len, char *out)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[n++] = abc[v >> 18 & 63];
		out[n++] = abc[v >> 12 & 63];
		out[n++] = i + 1 < len ? abc[v >> 6 & 63] : '=';
		out[n++] = i + 2 < len ? abc[v & 63] : '=';
	}
	out[n] = '\0';
	return n;
}

void ws_accept_for_key(const char *key, char out[WS_ACCEPT_B64_LEN])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	char buf[24 + sizeof guid];
	uint8_t digest[WS_SHA1_LEN];
	size_t klen = 0;

	while (klen < 24 && key[klen])
		klen++;

	memcpy(buf, key, klen);
	memcpy(buf + klen, guid, sizeof guid - 1);
	ws_sha1(buf, klen + sizeof guid - 1, digest);
	ws_base64(digest, sizeof digest, out);
}
