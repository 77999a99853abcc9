/* QPACK with a zero-capacity table: RFC 9204 Appendix B examples where
 * they apply, hand-built encodings of every representation, and the line
 * encoders. Every section is decoded split at every offset and one octet
 * at a time. */
#include "http3_tests.h"

#include <string.h>

#include "common/buf.h"
#include "h3_defs.h"
#include "http_huffman.h"
#include "qpack_dec.h"
#include "qpack_enc.h"
#include "qpack_static.h"

static struct shb_h3t_buf sec;
static struct shb_qpack_dec last; /* the bytewise decode of expect() */

#define REQUEST_PSEUDO "request or unknown pseudo-header field in a response"
#define PSEUDO_LATE "pseudo-header field after a regular field"
#define UPPERCASE "uppercase letter in a field name"
#define BAD_PADDING "Huffman string with bad padding"
#define EOS_INSIDE "EOS symbol inside a Huffman string"
#define SIZE_CAP "decoded field section above 262144 octets (cap 262144)"

/* Decodes s[n] split in two at `cut`; returns the final rc. */
static int decode_cut(const uint8_t *s, size_t n, size_t cut,
		      struct shb_qpack_dec *d)
{
	int rc;

	shb_qpack_dec_begin(d, n);
	rc = shb_qpack_dec_feed(d, s, cut);
	if (rc == SHB_QPACK_DEC_MORE && cut < n)
		rc = shb_qpack_dec_feed(d, s + cut, n - cut);
	return rc;
}

static int decode_bytewise(const uint8_t *s, size_t n,
			   struct shb_qpack_dec *d)
{
	int rc = SHB_QPACK_DEC_MORE;

	shb_qpack_dec_begin(d, n);
	if (n == 0)
		return shb_qpack_dec_feed(d, s, 0);
	for (size_t i = 0; i < n && rc == SHB_QPACK_DEC_MORE; i++)
		rc = shb_qpack_dec_feed(d, s + i, 1);
	return rc;
}

/* The section in `sec` must give want_rc (and, when DONE, the status and
 * line count) however it is split. */
static void expect(int want_rc, unsigned want_status, uint32_t want_lines)
{
	struct shb_qpack_dec d;
	const char *detail = NULL;

	for (size_t cut = 0; cut <= sec.n; cut++) {
		int rc = decode_cut(sec.b, sec.n, cut, &d);

		CU_ASSERT_EQUAL(rc, want_rc);
		if (rc == SHB_QPACK_DEC_DONE) {
			CU_ASSERT_EQUAL(d.status, want_status);
			CU_ASSERT_EQUAL(d.lines, want_lines);
		} else if (rc < 0) {
			CU_ASSERT_PTR_NOT_NULL(d.detail);
			if (detail)
				CU_ASSERT_STRING_EQUAL(d.detail, detail);
			detail = d.detail;
		}
	}
	CU_ASSERT_EQUAL(decode_bytewise(sec.b, sec.n, &d), want_rc);
	if (want_rc == SHB_QPACK_DEC_DONE) {
		CU_ASSERT_EQUAL(d.status, want_status);
		CU_ASSERT_EQUAL(d.lines, want_lines);
	} else if (detail) {
		CU_ASSERT_STRING_EQUAL(d.detail, detail);
	}
	last = d;
}

/* The section must fail with rc and exactly `why`, however split. */
static void expect_fail(int rc, const char *why)
{
	struct shb_qpack_dec d;

	for (size_t cut = 0; cut <= sec.n; cut++) {
		CU_ASSERT_EQUAL(decode_cut(sec.b, sec.n, cut, &d), rc);
		CU_ASSERT(d.detail && strcmp(d.detail, why) == 0);
	}
	CU_ASSERT_EQUAL(decode_bytewise(sec.b, sec.n, &d), rc);
	CU_ASSERT(d.detail && strcmp(d.detail, why) == 0);
	last = d;
}

/* Malformed: decoded to its end (all `lines`), then H3_MESSAGE_ERROR. */
static void expect_malformed(const char *why, uint32_t lines)
{
	expect_fail(SHB_QPACK_DEC_E_MESSAGE, why);
	CU_ASSERT_EQUAL(last.lines, lines);
}

static void section(const char *hex)
{
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, hex);
}

/* ---- RFC 9204 Appendix B ------------------------------------------------- */

static void test_appendix_b1(void)
{
	/* B.1: a literal with a static name reference, no dynamic table. */
	section("0000 510b 2f69 6e64 6578 2e68 746d 6c");
	/* It is a request's :path: read as a response, malformed. */
	expect_malformed(REQUEST_PSEUDO, 1);
}

static void test_appendix_b_dynamic(void)
{
	/* B.2 stream 4: Required Insert Count 2 (encoded 3), post-base
	 * indexed lines. */
	section("0381 10 11");
	expect(SHB_QPACK_DEC_E_CONN, 0, 0);
	/* B.4 stream 8: Required Insert Count 4 (encoded 5), a dynamic
	 * indexed line, a static one, another dynamic one. */
	section("0500 80 c1 81");
	expect(SHB_QPACK_DEC_E_CONN, 0, 0);
	/* B.4's lines after a valid prefix: the first, dynamic, fails. */
	section("0000 80 c1 81");
	expect(SHB_QPACK_DEC_E_CONN, 0, 0);
}

/* ---- hand-built representations ------------------------------------------ */

static void test_static_status_entries(void)
{
	for (uint64_t i = 0; i < SHB_QPACK_STATIC_COUNT; i++) {
		const struct shb_qpack_static_entry *e =
			shb_qpack_static_get(i);

		shb_h3t_clear(&sec);
		shb_h3t_hex(&sec, "0000");
		shb_h3t_prefint(&sec, 6, 0xc0, i);
		if (shb_qpack_static_is_status(i))
			expect(SHB_QPACK_DEC_DONE,
			       (unsigned)(e->value[0] - '0') * 100 +
				       (unsigned)(e->value[1] - '0') * 10 +
				       (unsigned)(e->value[2] - '0'),
			       1);
		else if (e->name[0] == ':') /* request pseudo-headers */
			expect_malformed(REQUEST_PSEUDO, 1);
		else
			expect(SHB_QPACK_DEC_DONE, 0, 1);
	}
	section("0000 d9");
	expect(SHB_QPACK_DEC_DONE, 200, 1);
	section("0000 d8");
	expect(SHB_QPACK_DEC_DONE, 103, 1);
	section("0000 ff00");
	expect(SHB_QPACK_DEC_DONE, 100, 1);
	section("0000 ff08");
	expect(SHB_QPACK_DEC_DONE, 500, 1);
}

static void test_name_ref_status(void)
{
	/* Name of entry 25 (":status" "200") with the value "404". */
	section("0000 5f0a 03 343034");
	expect(SHB_QPACK_DEC_DONE, 404, 1);
	/* Name of entry 63 with a Huffman-coded "200". */
	section("0000 5f30 82 1001");
	expect(SHB_QPACK_DEC_DONE, 200, 1);
	/* A non-status name reference is skipped whatever its value. */
	section("0000 d9 5f1d 03 343034");
	expect(SHB_QPACK_DEC_DONE, 200, 2);
	/* N=1 ("never index") changes nothing. */
	section("0000 7f0a 03 323034");
	expect(SHB_QPACK_DEC_DONE, 204, 1);
}

static void test_literal_name_status(void)
{
	uint8_t huff[16];
	size_t hn = shb_huff_encode((const uint8_t *)":status", 7, huff,
				    sizeof(huff));

	/* Plain ":status", plain value. */
	section("0000 2700 3a737461747573 03 333032");
	expect(SHB_QPACK_DEC_DONE, 302, 1);
	/* Huffman-coded name, plain value. */
	CU_ASSERT_EQUAL_FATAL(hn, 5);
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000");
	shb_h3t_prefint(&sec, 3, 0x28, hn);
	shb_h3t_bytes(&sec, huff, hn);
	shb_h3t_hex(&sec, "03 343138");
	expect(SHB_QPACK_DEC_DONE, 418, 1);
	/* Huffman-coded name and value. */
	sec.n -= 4;
	shb_h3t_hex(&sec, "82 1001");
	expect(SHB_QPACK_DEC_DONE, 200, 1);
	/* Names that only look like ":status" are unknown pseudo-headers. */
	section("0000 26 3a7374617475 03 333032"); /* ":statu" */
	expect_malformed(REQUEST_PSEUDO, 1);
	section("0000 2701 3a7374617475737a 03 333032"); /* ":statusz" */
	expect_malformed(REQUEST_PSEUDO, 1);
	section("0000 2700 3a535441545553 03 333032"); /* ":STATUS" */
	expect_malformed(UPPERCASE, 1);
}

static void test_realistic_response(void)
{
	uint8_t huff[64];
	size_t hn;

	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9");       /* :status 200 */
	shb_h3t_hex(&sec, "f4");            /* content-type text/html */
	shb_h3t_hex(&sec, "5f 4d");         /* server (92), Huffman value */
	hn = shb_huff_encode((const uint8_t *)"nginx/1.25.4", 12, huff,
			     sizeof(huff));
	shb_h3t_prefint(&sec, 7, 0x80, hn);
	shb_h3t_bytes(&sec, huff, hn);
	shb_h3t_hex(&sec, "25 782d666f6f 03 626172"); /* x-foo: bar */
	hn = shb_huff_encode((const uint8_t *)"x-abcde", 7, huff,
			     sizeof(huff));
	shb_h3t_prefint(&sec, 3, 0x28, hn); /* Huffman-coded name */
	shb_h3t_bytes(&sec, huff, hn);
	shb_h3t_hex(&sec, "00");                     /* empty value */
	shb_h3t_hex(&sec, "56 00");                  /* date, empty */
	expect(SHB_QPACK_DEC_DONE, 200, 6);
}

static void test_rejected_representations(void)
{
	static const char *const conn[] = {
		"0000 80",             /* indexed, dynamic (T=0) */
		"0000 bf 05",          /* indexed, dynamic, long index */
		"0000 40 00",          /* name reference, dynamic */
		"0000 10",             /* indexed, post-base */
		"0000 1f 10",          /* indexed, post-base, long index */
		"0000 00 00",          /* name reference, post-base */
		"0000 08 00",          /* name reference, post-base, N=1 */
		"0000 ff 24",          /* static index 99 */
		"0000 5f 54 00",       /* static name reference 99 */
		"0000 ff ffffffffffffffffff01", /* index above 2^62 */
		"00 ff80",             /* sign 1, long Delta Base */
		"0080 d9",             /* sign 1 */
		"0100 d9",             /* Required Insert Count 1 */
		"ff00 00 d9",          /* Required Insert Count 255 */
		"0000 270a 616263",    /* name longer than the section */
		"0000 51 7f",          /* value length needs more octets */
		"0000 51 0a 2f",       /* value longer than the section */
		"0000 5f",             /* section ends inside an index */
		"0000 51",             /* section ends before the value */
		"0000 21 61",          /* section ends before the value */
		"",                    /* no prefix at all */
		"00",                  /* half a prefix */
		"00 7f",               /* Delta Base needs more octets */
	};

	for (size_t i = 0; i < sizeof(conn) / sizeof(conn[0]); i++) {
		section(conn[i]);
		expect(SHB_QPACK_DEC_E_CONN, 0, 0);
	}
	/* A non-zero Delta Base with sign 0 is legal (Base is unused). */
	section("0005 d9");
	expect(SHB_QPACK_DEC_DONE, 200, 1);
}

static void test_malformed_status(void)
{
	static const char *const bad[] = {
		"0000 d9 d9",                  /* two :status */
		"0000 d9 5f0a 03 343034",      /* two :status */
		"0000 5f0a 02 3230",           /* two digits */
		"0000 5f0a 04 31303030",       /* four digits */
		"0000 5f0a 03 303939",         /* leading zero */
		"0000 5f0a 03 616263",         /* not digits */
		"0000 5f0a 00",                /* empty */
		"0000 5f0a 09 32303020204f4b2020", /* "200  OK  " */
		"0000 5f0a 84 10010101",       /* Huffman "2000..." */
		"0000 2700 3a737461747573 03 323030 d9", /* two :status */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		section(bad[i]);
		expect(SHB_QPACK_DEC_E_MESSAGE, 0, 0);
	}
}

/* Long names and values are skipped without being kept. */
static void test_long_strings(void)
{
	static char big[3000];
	static uint8_t huff[1000];
	size_t hn;

	memset(big, 'v', sizeof(big));
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000");
	shb_h3t_prefint(&sec, 3, 0x20, 2000);
	shb_h3t_bytes(&sec, big, 2000);
	shb_h3t_prefint(&sec, 7, 0x00, sizeof(big));
	shb_h3t_bytes(&sec, big, sizeof(big));
	shb_h3t_hex(&sec, "52"); /* age name reference, long Huffman value */
	hn = shb_huff_encode((const uint8_t *)big, 1000, huff, sizeof(huff));
	shb_h3t_prefint(&sec, 7, 0x80, hn);
	shb_h3t_bytes(&sec, huff, hn);
	expect(SHB_QPACK_DEC_DONE, 0, 2);
	CU_ASSERT_EQUAL(last.size, 2000 + sizeof(big) + 3 + 1000 + 2 * 32);
}

/* ---- Huffman strings, pseudo-headers, names, size ------------------------ */

/* Appends a literal-name line, name and value each plain or Huffman. */
static void literal(const char *name, int hname, const char *value,
		    int hvalue)
{
	uint8_t h[256];
	size_t n;

	if (hname) {
		n = shb_huff_encode((const uint8_t *)name, strlen(name), h,
				    sizeof(h));
		shb_h3t_prefint(&sec, 3, 0x28, n);
		shb_h3t_bytes(&sec, h, n);
	} else {
		shb_h3t_prefint(&sec, 3, 0x20, strlen(name));
		shb_h3t_str(&sec, name);
	}
	if (hvalue) {
		n = shb_huff_encode((const uint8_t *)value, strlen(value), h,
				    sizeof(h));
		shb_h3t_prefint(&sec, 7, 0x80, n);
		shb_h3t_bytes(&sec, h, n);
	} else {
		shb_h3t_prefint(&sec, 7, 0x00, strlen(value));
		shb_h3t_str(&sec, value);
	}
}

/* RFC 7541 Section 5.2 for every string, not only :status: EOS inside a
 * string, padding over 7 bits or not all ones. */
static void test_huffman_checked(void)
{
	/* 'a' is 00011 (5 bits): "1f" is 'a' + 3 one bits of padding. */
	static const char *const bad_padding[] = {
		"0000 d9 52 81 18",       /* value: padding 000 */
		"0000 d9 52 82 1fff",     /* value: 11 bits of padding */
		"0000 d9 52 81 00",       /* value: '0' + padding 000 */
		"0000 5f0a 82 1000",      /* :status value, padding 0000 */
		"0000 d9 29 18 00",       /* name: padding 000 */
		"0000 d9 2a 1fff 00",     /* name: 11 bits of padding */
	};
	static const char *const eos[] = {
		"0000 d9 52 84 ffffffff",  /* value: EOS (30 ones) */
		"0000 d9 52 85 1fffffffff", /* value: 'a' then EOS */
		"0000 d9 2c ffffffff 00",   /* name: EOS */
	};

	for (size_t i = 0; i < sizeof(bad_padding) / sizeof(bad_padding[0]);
	     i++) {
		section(bad_padding[i]);
		expect_fail(SHB_QPACK_DEC_E_CONN, BAD_PADDING);
	}
	for (size_t i = 0; i < sizeof(eos) / sizeof(eos[0]); i++) {
		section(eos[i]);
		expect_fail(SHB_QPACK_DEC_E_CONN, EOS_INSIDE);
	}
	/* The same strings well padded pass. */
	section("0000 d9 52 81 1f 29 1f 00");
	expect(SHB_QPACK_DEC_DONE, 200, 3);
	CU_ASSERT_EQUAL(last.size, 10 + 3 + 1 + 1 + 0 + 3 * 32);
	/* A malformed section is still decoded: a QPACK error after the
	 * problem wins (it is a connection error). */
	section("0000 d9 d9 52 81 18");
	expect_fail(SHB_QPACK_DEC_E_CONN, BAD_PADDING);
}

static void test_pseudo_headers(void)
{
	static const char *const request_pseudo[] = {
		"0000 c0 d9",              /* :authority (static 0) */
		"0000 d9 c1",              /* :path / */
		"0000 d9 d1",              /* :method GET */
		"0000 d9 d7",              /* :scheme https */
		"0000 d9 50 01 61",        /* :authority a, name reference */
		"0000 d9 5f00 03 474554",  /* :method GET, name reference */
		"0000 d9 24 3a666f6f 00",  /* :foo (unknown) */
		"0000 d9 21 3a 00",        /* ":" alone */
	};

	for (size_t i = 0;
	     i < sizeof(request_pseudo) / sizeof(request_pseudo[0]); i++) {
		section(request_pseudo[i]);
		expect_malformed(REQUEST_PSEUDO, 2);
	}
	/* Huffman-coded ":path" and ":protocol" names. */
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9");
	literal(":path", 1, "/", 0);
	literal(":protocol", 1, "websocket", 1);
	expect_malformed(REQUEST_PSEUDO, 3);
	/* :status after a regular field, indexed or literal. */
	section("0000 f4 d9");
	expect_malformed(PSEUDO_LATE, 2);
	CU_ASSERT_EQUAL(last.status, 200);
	section("0000 25 782d666f6f 03 626172 5f0a 03 343034");
	expect_malformed(PSEUDO_LATE, 2);
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 56 00"); /* date */
	literal(":status", 1, "204", 1);
	expect_malformed(PSEUDO_LATE, 2);
	/* The first reason is the one reported. */
	section("0000 f4 c1 d9 d9");
	expect_malformed(PSEUDO_LATE, 4);
	section("0000 d9 d9 c1");
	expect_malformed("more than one :status", 3);
	/* Only :status, once and first, is a well-formed response. */
	section("0000 d9 f4 56 00");
	expect(SHB_QPACK_DEC_DONE, 200, 3);
	CU_ASSERT_EQUAL(last.pseudo, 1);
	section("0000 f4 56 00");
	expect(SHB_QPACK_DEC_DONE, 0, 2);
	CU_ASSERT_EQUAL(last.pseudo, 0);
}

/* Field names are lower case (RFC 9114 Section 4.2); values may not be. */
static void test_uppercase_names(void)
{
	static const char *const names[] = {"X-Foo", "x-foO", "Server", "A",
					    "content-Length"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (int h = 0; h < 2; h++) {
			shb_h3t_clear(&sec);
			shb_h3t_hex(&sec, "0000 d9");
			literal(names[i], h, "v", h);
			expect_malformed(UPPERCASE, 2);
		}
	}
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9");
	literal("x-foo", 0, "BAR Baz", 0);
	literal("x-bar", 1, "QUUX", 1);
	shb_h3t_hex(&sec, "5f4d 03 4e4758"); /* server: NGX */
	expect(SHB_QPACK_DEC_DONE, 200, 4);
	/* Digits and symbols in names are not letters. */
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9");
	literal("x-0-_~[]@", 1, "v", 0);
	literal("x-0-_~[]@", 0, "v", 0);
	expect(SHB_QPACK_DEC_DONE, 200, 3);
}

/* Decoded size: name + value + 32 per line, at most 262144 octets. */
static void test_size_cap(void)
{
	static uint8_t value[SHB_QPACK_DEC_MAX_SECTION];
	/* :status 200 (42) then "age" + a plain value of vlen octets. */
	size_t vlen = SHB_QPACK_DEC_MAX_SECTION - 42 - 35;
	struct shb_qpack_dec d;

	memset(value, 'v', sizeof(value));
	for (int over = 0; over < 2; over++) {
		int want = over ? SHB_QPACK_DEC_E_SIZE : SHB_QPACK_DEC_DONE;

		shb_h3t_clear(&sec);
		shb_h3t_hex(&sec, "0000 d9 52");
		shb_h3t_prefint(&sec, 7, 0x00, vlen + (size_t)over);
		shb_h3t_bytes(&sec, value, vlen + (size_t)over);
		/* Every split would be quadratic here: a stride, the ends. */
		for (size_t cut = 0; cut <= sec.n; cut += 4099) {
			CU_ASSERT_EQUAL(decode_cut(sec.b, sec.n, cut, &d), want);
		}
		CU_ASSERT_EQUAL(decode_cut(sec.b, sec.n, sec.n - 1, &d), want);
		CU_ASSERT_EQUAL(decode_bytewise(sec.b, sec.n, &d), want);
		CU_ASSERT_EQUAL(d.lines, 2);
		CU_ASSERT_EQUAL(d.size, SHB_QPACK_DEC_MAX_SECTION + (size_t)over);
		if (over) {
			CU_ASSERT_STRING_EQUAL(d.detail, SIZE_CAP);
		} else {
			CU_ASSERT_EQUAL(d.status, 200);
		}
	}
	/* A bomb: one-octet static lines ("age: 0", 36 octets each) stop
	 * at the line that crosses the cap, not at the section's end. */
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9");
	for (int i = 0; i < 10000; i++)
		shb_h3t_hex(&sec, "c2");
	for (size_t cut = 0; cut <= sec.n; cut += 7)
		CU_ASSERT_EQUAL(decode_cut(sec.b, sec.n, cut, &d),
				SHB_QPACK_DEC_E_SIZE);
	CU_ASSERT_EQUAL(decode_bytewise(sec.b, sec.n, &d), SHB_QPACK_DEC_E_SIZE);
	CU_ASSERT_STRING_EQUAL(d.detail, SIZE_CAP);
	CU_ASSERT_EQUAL(d.lines, 1 + (SHB_QPACK_DEC_MAX_SECTION - 42) / 36 + 1);
	/* Huffman strings count decoded octets: 'a' is 5 bits. */
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 52");
	{
		static uint8_t h[SHB_QPACK_DEC_MAX_SECTION];
		size_t hn;

		memset(value, 'a', sizeof(value));
		hn = shb_huff_encode(value, SHB_QPACK_DEC_MAX_SECTION - 35 + 1,
				     h, sizeof(h));
		CU_ASSERT_FATAL(hn > 0 && hn < SHB_QPACK_DEC_MAX_SECTION);
		shb_h3t_prefint(&sec, 7, 0x80, hn);
		shb_h3t_bytes(&sec, h, hn);
	}
	CU_ASSERT_EQUAL(decode_bytewise(sec.b, sec.n, &d), SHB_QPACK_DEC_E_SIZE);
	CU_ASSERT_EQUAL(decode_cut(sec.b, sec.n, sec.n / 2, &d),
			SHB_QPACK_DEC_E_SIZE);
	CU_ASSERT_STRING_EQUAL(d.detail, SIZE_CAP);
}

/* ---- encoders ------------------------------------------------------------ */

static int same(const struct shb_buf *b, const char *hex)
{
	uint8_t want[512];
	size_t n = shb_h3t_unhex(want, sizeof(want), hex);

	return !b->err && b->len == n && memcmp(b->p, want, n) == 0;
}

static void test_encoders(void)
{
	struct shb_buf b = SHB_BUF_INIT(16, 4096);
	static char v200[200];

	shb_qpack_put_prefix(&b);
	CU_ASSERT(same(&b, "0000"));
	b.len = 0;
	shb_qpack_put_indexed(&b, 17);
	shb_qpack_put_indexed(&b, 62);
	shb_qpack_put_indexed(&b, 63);
	shb_qpack_put_indexed(&b, 98);
	CU_ASSERT(same(&b, "d1 fe ff00 ff23"));
	b.len = 0;
	shb_qpack_put_name_ref(&b, 0, "a", 1);
	shb_qpack_put_name_ref(&b, 15, "PATCH", 5);
	CU_ASSERT(same(&b, "50 01 61  5f00 05 5041544348"));
	b.len = 0;
	shb_qpack_put_literal(&b, "X-Foo", 5, "bar", 3);
	shb_qpack_put_literal(&b, "abcdefg", 7, "", 0);
	shb_qpack_put_literal(&b, "ABCDEFGHIJ", 10, "x", 1);
	CU_ASSERT(same(&b, "25 782d666f6f 03 626172"
			   "2700 61626364656667 00"
			   "2703 6162636465666768696a 01 78"));
	b.len = 0;
	memset(v200, 'z', sizeof(v200));
	shb_qpack_put_name_ref(&b, 1, v200, 127);
	CU_ASSERT_EQUAL(b.len, 3 + 127);
	CU_ASSERT(b.p[0] == 0x51 && b.p[1] == 0x7f && b.p[2] == 0x00);
	b.len = 0;
	shb_qpack_put_name_ref(&b, 1, v200, 200);
	CU_ASSERT(b.p[0] == 0x51 && b.p[1] == 0x7f && b.p[2] == 0x49);
	CU_ASSERT_EQUAL(b.len, 3 + 200);
	b.len = 0;
	shb_qpack_put_static_name(&b, 15, "GET", 3);
	shb_qpack_put_static_name(&b, 15, "PATCH", 5);
	shb_qpack_put_static_name(&b, 4, "0", 1);
	shb_qpack_put_static_name(&b, 4, "10", 2);
	shb_qpack_put_static_name(&b, 24, "200", 3); /* exact: entry 25 */
	CU_ASSERT(same(&b, "d1 5f00055041544348 c4 54023130 d9"));
	shb_buf_free(&b);
	CU_ASSERT_PTR_NULL(b.p);
}

/* What the encoders write, the decoder reads back. */
static void test_round_trip(void)
{
	struct shb_buf b = SHB_BUF_INIT(16, 4096);

	shb_qpack_put_prefix(&b);
	shb_qpack_put_static_name(&b, 15, "GET", 3);
	shb_qpack_put_static_name(&b, 0, "example.com", 11);
	shb_qpack_put_literal(&b, "User-Agent", 10, "shb", 3);
	shb_qpack_put_static_name(&b, 24, "206", 3);
	CU_ASSERT_FATAL(!b.err);
	shb_h3t_clear(&sec);
	shb_h3t_bytes(&sec, b.p, b.len);
	/* A request read as a response: decoded to the end, malformed. */
	expect_malformed(REQUEST_PSEUDO, 4);
	CU_ASSERT_EQUAL(last.status, 206);
	b.len = 0;
	shb_qpack_put_prefix(&b);
	shb_qpack_put_static_name(&b, 24, "206", 3);
	shb_qpack_put_literal(&b, "user-agent", 10, "shb", 3);
	shb_qpack_put_static_name(&b, 4, "10", 2);
	CU_ASSERT_FATAL(!b.err);
	shb_h3t_clear(&sec);
	shb_h3t_bytes(&sec, b.p, b.len);
	expect(SHB_QPACK_DEC_DONE, 206, 3);
	CU_ASSERT_EQUAL(last.size, 10 + 10 + 3 + 14 + 2 + 3 * 32);
	shb_buf_free(&b);
}

CU_TestInfo shb_h3t_qpack_tests[] = {
	{"Appendix B.1 (static only)", test_appendix_b1},
	{"Appendix B dynamic sections rejected", test_appendix_b_dynamic},
	{"every static entry indexed", test_static_status_entries},
	{"name reference to :status", test_name_ref_status},
	{"literal name :status", test_literal_name_status},
	{"realistic response section", test_realistic_response},
	{"dynamic and post-base rejected", test_rejected_representations},
	{"malformed :status", test_malformed_status},
	{"long strings skipped", test_long_strings},
	{"every Huffman string checked", test_huffman_checked},
	{"request, unknown and late pseudo-headers", test_pseudo_headers},
	{"uppercase field names", test_uppercase_names},
	{"decoded size capped at 256 KiB", test_size_cap},
	{"line encoders", test_encoders},
	{"encode then decode", test_round_trip},
	CU_TEST_INFO_NULL,
};
