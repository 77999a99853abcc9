/* The frame codec, plain C on the plugin's own functions
 * (test_ws_frames.h). */
#include <stdio.h>
#include <string.h>

#include "../src/ws.h"
#include "test_ws.h"
#include "test_ws_frames.h"

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

void test_ws_frames(void)
{
	test_encoder();
	test_decoder_every_split();
	test_decoder_long_frame();
	test_decoder_errors();
}
