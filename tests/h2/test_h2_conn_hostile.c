/* The connection against a server's HPACK dynamic table and hostile peers
 * (test_h2_conn.c has the set-up): malformed responses, bad Huffman
 * strings and integers, interim floods, header block caps, stream rules,
 * control frame floods and backpressure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"
#include "http_huffman.h"
#include "http_prefint.h"

/* ---- the server's HPACK dynamic table ------------------------------------ */

/* A server that indexes its responses (as h2o does): each block refers
 * to entries earlier blocks added, including blocks of a stream we
 * cancelled, trailers, a 1xx head and a block split over CONTINUATION. */
static void indexing_conversation(struct shb_h2_bytes *b)
{
	uint8_t blk[16];
	size_t n = 0;

	/* 1: :status 200 and x: y, both indexed -> [x:y, 200] */
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x48\x03" "200" "\x40\x01x\x01y", 10);
	/* 3 (cancelled): :status with a Huffman "404", indexed
	 * -> [404, x:y, 200] */
	blk[n++] = 0x48;
	n += shb_huff_encode((const uint8_t *)"404", 3, blk + n + 1, 8);
	blk[1] = (uint8_t)(0x80 | (n - 1));
	n++;
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 3,
			 blk, n);
	/* 5: 62 is 404 */
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 5,
			 "\xbe", 1);
	/* 7: 64 is 200; a body; trailers that index a: b
	 * -> [a:b, 404, x:y, 200] */
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 7,
			 "\xc0", 1);
	shb_h2_srv_data(b, 7, 0, "ok");
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 7,
			 "\x40\x01" "a" "\x01" "b", 5);
	/* 9: the name of 65 (:status, 200) with 201, over HEADERS +
	 * CONTINUATION */
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_STREAM, 9,
			 "\x0f", 1);
	shb_h2_srv_frame(b, SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 9,
			 "\x32\x03" "201", 5);
	/* 11: an indexed 103 -> [103, a:b, 404, x:y, 200], then 64 is 404 */
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 11,
			 "\x48\x03" "103", 5);
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 11,
			 "\xc0", 1);
	/* 13: a size update to 0 empties the table */
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 13,
			 "\x20\x88", 2);
}

static void run_indexing(const struct shb_h2_bytes *in, size_t cut,
			 int bytewise)
{
	static const uint32_t want_status[7] = {200, 0, 404, 200, 201, 404, 200};
	struct shb_h2_fx f;
	uint64_t cookies[7];

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	for (int i = 0; i < 7; i++)
		cookies[i] = shb_h2_fx_issue(&f);
	shb_h2_fx_cancel(&f, cookies[1]);
	if (bytewise) {
		for (size_t i = 0; i < in->len; i++)
			CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p + i, 1), 1);
	} else {
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p, cut), (shb_ssize)cut);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p + cut, in->len - cut),
				(shb_ssize)(in->len - cut));
	}
	CU_ASSERT_PTR_NULL(shb_h2_fx_error_detail(&f));
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 6);
	for (int i = 0; i < 7; i++) {
		const struct shb_kit_done *d = shb_h2_fx_done(cookies[i]);

		if (i == 1) {
			CU_ASSERT_PTR_NULL(d);
			continue;
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
		CU_ASSERT_EQUAL(d->res.status, want_status[i]);
	}
	CU_ASSERT_EQUAL(shb_h2_fx_done(cookies[3])->res.rx_body_bytes, 2);
	CU_ASSERT_EQUAL(f.c->dtable.count, 0);
	CU_ASSERT_EQUAL(f.c->dtable.max, 0);
	shb_h2_fx_close(&f);
}

static void test_server_indexes(void)
{
	struct shb_h2_bytes in = {0};

	indexing_conversation(&in);
	for (size_t cut = 0; cut <= in.len; cut++)
		run_indexing(&in, cut, 0);
	run_indexing(&in, 0, 1);
	shb_h2_bytes_free(&in);
}

/* The table is the connection's: an entry added on one stream is gone
 * for the next block after a size update, and a reference to it is a
 * connection error (COMPRESSION_ERROR) that names the stream. */
static void test_index_beyond_table_is_fatal(void)
{
	struct shb_h2_bytes b = {0};

	/* 200, a: b indexed and referenced (62) */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x48\x03" "200" "\x40\x01" "a" "\x01" "b" "\xbe", 11);
	/* trailers: the same reference after a size update to 0 */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x20\xbe", 2);
	shb_h2_fx_conn_error(&b, 0, SHB_H2_COMPRESSION_ERROR,
			  "h2: stream 1: HPACK index beyond the dynamic table");
	shb_h2_bytes_free(&b);
}

/* ---- hostile peers: malformed responses, caps, floods ----------------- */

/* Responses RFC 9113 Section 8.3 calls malformed reset their stream and
 * count as protocol errors; broken Huffman strings anywhere in a block
 * are a connection error (COMPRESSION_ERROR). */
static void test_malformed_pseudo_headers(void)
{
	static const struct {
		const char *blk;
		size_t len;
		const char *detail;
	} v[] = {
		{"\x88\x82", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x84", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x81", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x87", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x00\x09:protocol\x03" "foo", 16,
		 "request or unknown pseudo-header field in a response"},
		{"\x88\x00\x04:foo\x01x", 9,
		 "request or unknown pseudo-header field in a response"},
		{"\x0f\x0d\x01" "0\x88", 5, "pseudo-header field after a regular field"},
		{"\x88\x88", 2, "more than one :status"},
		{"\x88\x08\x03" "200", 6, "more than one :status"},
		{"\x88\x00\x03X-a\x01v", 8, "uppercase letter in a field name"},
	};
	struct shb_h2_bytes b = {0};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		b.len = 0;
		shb_h2_srv_frame(&b, SHB_H2_HEADERS,
				 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
				 1, v[i].blk, v[i].len);
		shb_h2_fx_stream_error(&b, v[i].detail);
	}
	/* trailers: no pseudo-headers at all, names lower case */
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_frame(&b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x84", 1);
	shb_h2_fx_stream_error(&b, "pseudo-header field in trailers");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_frame(&b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x00\x01Q\x01v", 5);
	shb_h2_fx_stream_error(&b, "uppercase letter in a field name");
	shb_h2_bytes_free(&b);
}

static void test_huffman_errors_are_fatal(void)
{
	/* EOS inside a value that is not indexed; a name with a zero in
	 * its padding; 11 bits of padding in a never-indexed value */
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x0f\x0d\x84\xff\xff\xff\xff", 8,
			 SHB_H2_COMPRESSION_ERROR,
			 "h2: stream 1: HPACK Huffman string with an EOS or bad padding");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x00\x81\x18\x01\x62", 6, SHB_H2_COMPRESSION_ERROR,
			 "HPACK Huffman string with an EOS or bad padding");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x1f\x0d\x82\x1f\xff", 6, SHB_H2_COMPRESSION_ERROR,
			 "HPACK Huffman string with an EOS or bad padding");
	/* a prefixed integer past 2^62 */
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x00\x7f\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",
			 13, SHB_H2_COMPRESSION_ERROR, "HPACK integer out of range");
}

/* At most 16 interim heads per stream: the 17th resets it. */
static void test_interim_flood(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	uint64_t c;

	for (int i = 0; i < 17; i++)
		shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 100);
	shb_h2_fx_stream_error(&b, "more than 16 interim (1xx) responses (cap 16)");
	/* 16, then the final head: fine */
	b.len = 0;
	for (int i = 0; i < 16; i++)
		shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 103);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
			  204);
	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	c = shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_done(c));
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.status, 204);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* Header blocks: 64 frames and 256 KiB at most, the decoded list 256 KiB
 * at most (an HPACK bomb of references to one big entry); SETTINGS with
 * at most 32 entries. All ENHANCE_YOUR_CALM, naming the cap. */
static void test_block_caps(void)
{
	struct shb_h2_bytes b = {0};
	static uint8_t chunk[16384];
	static char value[3968];
	uint8_t blk[8192];
	size_t n = 0;

	/* endless empty CONTINUATION: 63 are fine, the 64th... is the
	 * 65th frame of the block */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	for (int i = 0; i < 64; i++)
		shb_h2_srv_frame(&b, SHB_H2_CONTINUATION, 0, 1, NULL, 0);
	shb_h2_fx_conn_error(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			  "h2: stream 1: header block in more than 64 frames (cap 64)");
	/* 17 full frames of one endless value */
	b.len = 0;
	memset(chunk, 'v', sizeof(chunk));
	chunk[0] = 0x88;
	chunk[1] = 0x00;
	chunk[2] = 0x01;
	chunk[3] = 'x';
	chunk[4] = 0x7f; /* value length 127 + 2^21 */
	chunk[5] = 0x80;
	chunk[6] = 0x80;
	chunk[7] = 0x80;
	chunk[8] = 0x01;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, chunk, sizeof(chunk));
	memset(chunk, 'v', 9);
	for (int i = 0; i < 16; i++)
		shb_h2_srv_frame(&b, SHB_H2_CONTINUATION, 0, 1, chunk,
				 sizeof(chunk));
	shb_h2_fx_conn_error_step(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			       "h2: stream 1: header block of more than 262144 octets (cap 262144)",
			       4099);
	/* the bomb: a 4000-octet entry, then 66 one-octet references */
	b.len = 0;
	memset(value, 'v', sizeof(value) - 1);
	blk[n++] = 0x88;
	blk[n++] = 0x40;
	blk[n++] = 0x01;
	blk[n++] = 'x';
	n += shb_prefint_encode(blk + n, 8, 7, 0x00, sizeof(value) - 1);
	memcpy(blk + n, value, sizeof(value) - 1);
	n += sizeof(value) - 1;
	for (int i = 0; i < 66; i++)
		blk[n++] = 0xbe;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, blk, n);
	shb_h2_fx_conn_error_step(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			       "h2: stream 1: response header list above 262144 octets (cap 262144)",
			       97);
	/* 33 SETTINGS entries */
	b.len = 0;
	memset(blk, 0, 33 * 6);
	shb_h2_srv_frame(&b, SHB_H2_SETTINGS, 0, 0, blk, 33 * 6);
	shb_h2_fx_conn_error(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			  "h2: SETTINGS with 33 entries (cap 32)");
	shb_h2_bytes_free(&b);
}

/* More frames on stream 0 and idle streams that must not be there. */
static void test_stream_rules(void)
{
	shb_h2_fx_conn_error_frame(SHB_H2_PRIORITY, 0, 0, "\0\0\0\x01\x10", 5,
			 SHB_H2_PROTOCOL_ERROR, "PRIORITY on stream 0");
	shb_h2_fx_conn_error_frame(SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 0, "\x88",
			 1, SHB_H2_PROTOCOL_ERROR, "CONTINUATION without HEADERS");
	shb_h2_fx_conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 7, "\0\0\0\x01", 4,
			 SHB_H2_PROTOCOL_ERROR,
			 "WINDOW_UPDATE on stream 7, which we never opened");
	shb_h2_fx_conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 2, "\0\0\0\x01", 4,
			 SHB_H2_PROTOCOL_ERROR,
			 "WINDOW_UPDATE on stream 2, which we never opened");
	shb_h2_fx_conn_error_frame(SHB_H2_RST_STREAM, 0, 4, "\0\0\0\x08", 4,
			 SHB_H2_PROTOCOL_ERROR,
			 "RST_STREAM on stream 4, which we never opened");
	shb_h2_fx_conn_error_frame(SHB_H2_PUSH_PROMISE, SHB_H2_FLAG_END_HEADERS, 0,
			 "\0\0\0\x02\x88", 5, SHB_H2_PROTOCOL_ERROR,
			 "PUSH_PROMISE, but push is disabled");
}

/* Feeds `count` copies of frame[len] in chunks of 100 frames, flushing
 * after each chunk (a peer that reads): the frames up to the cap pass,
 * the one after it fails the connection with ENHANCE_YOUR_CALM. When
 * `step_ns` is non-zero the clock moves that much per chunk instead, and
 * every frame passes. `after_hello` runs once the server's SETTINGS are
 * in (an open stream, a finished one). */
static void flood_case(const uint8_t *frame, size_t len, uint32_t count,
		       uint64_t step_ns, const char *text,
		       void (*after_hello)(struct shb_h2_fx *f))
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	static struct shb_h2_fx_frame fr[128];
	uint32_t fed = 0;
	shb_ssize r = 0;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	if (after_hello)
		after_hello(&f);
	for (int i = 0; i < 100; i++)
		shb_h2_bytes_add(&b, frame, len);
	while (fed < count) {
		uint32_t k = count - fed < 100 ? count - fed : 100;

		r = shb_h2_fx_recv(&f, b.p, k * len);
		if (r < 0)
			break;
		CU_ASSERT_EQUAL_FATAL(r, (shb_ssize)(k * len));
		fed += k;
		shb_h2_fx_flush(&f, 0);
		f.sent.len = 0;
		f.now += step_ns;
	}
	if (!text) {
		CU_ASSERT_EQUAL(r, (shb_ssize)((count % 100 ? count % 100 : 100) * len));
		CU_ASSERT_NOT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	} else {
		CU_ASSERT_EQUAL(r, SHB_E_PROTO);
		CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
		if (!strstr(shb_h2_fx_error_detail(&f), text))
			fprintf(stderr, "\n  detail: %s\n", shb_h2_fx_error_detail(&f));
		CU_ASSERT_PTR_NOT_NULL(strstr(shb_h2_fx_error_detail(&f), text));
		shb_h2_fx_flush(&f, 0);
		{
			size_t n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 128);

			CU_ASSERT_FATAL(n >= 1);
			CU_ASSERT_EQUAL(fr[n - 1].h.type, SHB_H2_GOAWAY);
			CU_ASSERT_EQUAL(fr[n - 1].payload[7],
					SHB_H2_ENHANCE_YOUR_CALM);
		}
	}
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void open_stream_1(struct shb_h2_fx *f)
{
	struct shb_h2_bytes b = {0};

	shb_h2_fx_issue(f);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_fx_flush(f, 0);
	f->sent.len = 0;
	shb_h2_bytes_free(&b);
}

static void finished_stream_1(struct shb_h2_fx *f)
{
	struct shb_h2_bytes b = {0};

	shb_h2_fx_issue(f);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
			  200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 1);
	shb_h2_bytes_free(&b);
}

/* Rate limits per second, as nghttp2 has them: PING, SETTINGS,
 * RST_STREAM (here on a stream already done), empty DATA, and
 * WINDOW_UPDATE on a connection where we send no DATA. At the cap all
 * pass; one more fails; spread over seconds, any number passes. */
static void test_floods(void)
{
	static const uint8_t ping[] = {0, 0, 8, 6, 0, 0, 0, 0, 0,
				       1, 2, 3, 4, 5, 6, 7, 8};
	static const uint8_t settings[] = {0, 0, 0, 4, 0, 0, 0, 0, 0};
	static const uint8_t rst[] = {0, 0, 4, 3, 0, 0, 0, 0, 1, 0, 0, 0, 8};
	static const uint8_t empty_data[] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t wu[] = {0, 0, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	const uint64_t sec = SHB_H2_FLOOD_INTERVAL;

	CU_ASSERT_EQUAL(shb_h2_flood_caps[SHB_H2_FLOOD_PING], 10000);
	flood_case(ping, sizeof(ping), 10000, 0, NULL, NULL);
	flood_case(ping, sizeof(ping), 10001, 0,
		   "h2: peer flood: more than 10000 PING frames in a second (cap 10000)",
		   NULL);
	flood_case(ping, sizeof(ping), 30000, sec / 20, NULL, NULL);
	/* the hello's SETTINGS counts too */
	flood_case(settings, sizeof(settings), 999, 0, NULL, NULL);
	flood_case(settings, sizeof(settings), 1000, 0,
		   "more than 1000 SETTINGS frames in a second (cap 1000)", NULL);
	flood_case(settings, sizeof(settings), 3000, sec / 5, NULL, NULL);
	flood_case(rst, sizeof(rst), 10000, 0, NULL, finished_stream_1);
	flood_case(rst, sizeof(rst), 10001, 0,
		   "more than 10000 RST_STREAM frames in a second (cap 10000)",
		   finished_stream_1);
	flood_case(empty_data, sizeof(empty_data), 1000, 0, NULL, open_stream_1);
	flood_case(empty_data, sizeof(empty_data), 1001, 0,
		   "more than 1000 empty DATA frames in a second (cap 1000)",
		   open_stream_1);
	flood_case(empty_data, sizeof(empty_data), 5000, sec / 5, NULL,
		   open_stream_1);
	flood_case(wu, sizeof(wu), 1000, 0, NULL, NULL);
	flood_case(wu, sizeof(wu), 1001, 0,
		   "more than 1000 WINDOW_UPDATE (with no DATA of ours to update) frames in a second (cap 1000)",
		   NULL);
}

/* A peer that floods PINGs and never reads: recv takes frames until 256
 * ACKs wait, then takes nothing more (WANT_WRITE) until a send drains
 * them; every PING is still answered, in order. */
static void test_ping_backpressure(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx_frame *fr = calloc(1000, sizeof(*fr));
	size_t off = 0, acks = 0, rounds = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	for (uint32_t i = 0; i < 1000; i++) {
		uint8_t p[8] = {0, 0, 0, 0, (uint8_t)(i >> 24),
				(uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i};

		shb_h2_srv_frame(&b, SHB_H2_PING, 0, 0, p, 8);
	}
	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	while (off < b.len) {
		shb_ssize r = shb_h2_fx_recv(&f, b.p + off, b.len - off);
		size_t want = b.len - off < SHB_H2_CTRL_SOFT * 17u
				      ? b.len - off
				      : SHB_H2_CTRL_SOFT * 17u;

		CU_ASSERT_EQUAL_FATAL(r, (shb_ssize)want);
		off += (size_t)r;
		if (off < b.len) {
			CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_WANT_WRITE);
			/* offered again before a send: nothing taken */
			CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p + off, b.len - off), 0);
			CU_ASSERT_EQUAL(f.c->ctrl_fill + f.c->ctrl_busy,
					SHB_H2_CTRL_SOFT);
		}
		shb_h2_fx_flush(&f, 0);
		rounds++;
	}
	CU_ASSERT_EQUAL(rounds, 4);
	acks = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 1000);
	CU_ASSERT_EQUAL_FATAL(acks, 1000);
	for (size_t i = 0; i < acks; i++) {
		CU_ASSERT_EQUAL(fr[i].h.type, SHB_H2_PING);
		CU_ASSERT_EQUAL(fr[i].h.flags, SHB_H2_FLAG_ACK);
		CU_ASSERT_EQUAL(fr[i].payload[6], (uint8_t)(i >> 8));
		CU_ASSERT_EQUAL(fr[i].payload[7], (uint8_t)i);
	}
	/* a partly sent buffer still counts what it holds */
	CU_ASSERT_EQUAL(f.c->ctrl_fill + f.c->ctrl_busy, 0);
	free(fr);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* The hard cap: 1000 control frames wait at most. 1000 cancels while the
 * transport takes nothing queue 1000 RST_STREAM; the next one fails the
 * connection. */
static void test_control_hard_cap(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	static const struct shb_h2_setting_kv kv[] = {
		{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 5000}};
	uint64_t first;

	shb_h2_fx_open(&f, 0, 1024, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, kv, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	first = f.next_cookie;
	for (int i = 0; i < 1001; i++)
		shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	/* the SETTINGS ACK went out; now nothing more is sent */
	for (uint64_t c = first; c < first + SHB_H2_CTRL_HARD; c++)
		shb_h2_fx_cancel(&f, c);
	CU_ASSERT_EQUAL(shb_h2_ctrl_pending(f.c), SHB_H2_CTRL_HARD);
	CU_ASSERT_NOT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	shb_h2_fx_cancel(&f, first + SHB_H2_CTRL_HARD);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: peer flood: more than 1000 control frames queued (cap 1000)");
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

CU_TestInfo shb_h2_conn_hostile_tests[] = {
	{"a server that indexes its responses", test_server_indexes},
	{"reference beyond the dynamic table", test_index_beyond_table_is_fatal},
	{"malformed responses: pseudo-headers, :status, uppercase",
	 test_malformed_pseudo_headers},
	{"bad Huffman strings and integers are connection errors",
	 test_huffman_errors_are_fatal},
	{"interim (1xx) flood", test_interim_flood},
	{"header block, list and SETTINGS caps", test_block_caps},
	{"frames on stream 0 and idle streams", test_stream_rules},
	{"PING, SETTINGS, RST_STREAM, empty DATA, WINDOW_UPDATE floods",
	 test_floods},
	{"PING flood without reading: backpressure", test_ping_backpressure},
	{"control frame hard cap", test_control_hard_cap},
	CU_TEST_INFO_NULL,
};
