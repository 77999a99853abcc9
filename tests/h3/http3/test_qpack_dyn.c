/* QPACK with a dynamic table: the RFC 9204 Appendix B examples as bytes
 * (encoder stream, field sections and our decoder stream's answers), each
 * instruction and section split at every offset, eviction, the Required
 * Insert Count's wrap, blocked sections, and every error. */
#include "http3_tests.h"

#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "h3_defs.h"
#include "h3_response.h"
#include "qpack_dec.h"
#include "qpack_encstream.h"
#include "qpack_fields.h"
#include "qpack_table.h"

/* RFC 9204 Appendix B, the decoder's SETTINGS_QPACK_MAX_TABLE_CAPACITY. */
#define B_LIMIT 220

/* B.1 stream 0: RIC 0, Base 0, :path=/index.html by static name. */
static const char b1_sec[] = "0000 510b2f696e6465782e68746d6c";
/* B.2's encoder stream: Set Dynamic Table Capacity 220, then
 * :authority=www.example.com and :path=/sample/path by static name. */
static const char b2_enc[] = "3fbd01 c00f7777772e6578616d706c652e636f6d "
			     "c10c2f73616d706c652f70617468";
/* B.2 stream 4: RIC 2, Base 0, two post-base indexed lines. */
static const char b2_sec[] = "0381 10 11";
/* B.3: custom-key=custom-value, literal name. */
static const char b3_enc[] = "4a637573746f6d2d6b6579 0c637573746f6d2d76616c7565";
/* B.4: Duplicate relative 2 (:authority), then stream 8: RIC 4, Base 4,
 * dynamic 3, static 1 (:path=/), dynamic 2. */
static const char b4_enc[] = "02";
static const char b4_sec[] = "0500 80 c1 81";
/* B.5: custom-key=custom-value2 by dynamic name (relative 1), evicting
 * entry 0. */
static const char b5_enc[] = "810d637573746f6d2d76616c756532";

static uint8_t in[4096];

/* Feeds hex to t through a fresh reader, split at `cut`; returns the
 * inserts, or -1 (detail in *why). */
static long enc_cut(struct shb_qpack_table *t, const char *hex, size_t cut,
		    const char **why)
{
	struct shb_qpack_encrd r;
	size_t n = shb_h3t_unhex(in, sizeof(in), hex);
	long a, b = 0;

	shb_qpack_encrd_init(&r, t->limit);
	if (cut > n)
		cut = n;
	a = shb_qpack_encrd_feed(&r, t, in, cut);
	if (a >= 0)
		b = shb_qpack_encrd_feed(&r, t, in + cut, n - cut);
	*why = r.detail;
	shb_qpack_encrd_fini(&r);
	return a < 0 || b < 0 ? -1 : a + b;
}

/* The Appendix B table after the encoder stream `upto` (2..5), built
 * with every instruction stream split at `cut`. */
static void b_table(struct shb_qpack_table *t, int upto, size_t cut)
{
	static const char *const enc[] = {b2_enc, b3_enc, b4_enc, b5_enc};
	static const long inserts[] = {2, 1, 1, 1};
	const char *why = NULL;

	shb_qpack_table_init(t, B_LIMIT);
	for (int i = 0; i <= upto - 2; i++)
		CU_ASSERT_EQUAL(enc_cut(t, enc[i], cut, &why), inserts[i]);
	CU_ASSERT_PTR_NULL(why);
}

static int entry_is(const struct shb_qpack_table *t, uint64_t abs,
		    const char *name, const char *value)
{
	const struct shb_qpack_entry *e = shb_qpack_table_get(t, abs);

	return e && e->name_len == strlen(name) &&
	       e->value_len == strlen(value) &&
	       memcmp(shb_qpack_entry_name(t, e), name, e->name_len) == 0 &&
	       memcmp(shb_qpack_entry_value(t, e), value, e->value_len) == 0;
}

/* The table after each example, whatever the split: entries, sizes
 * (57 + 49, + 54, + 57, + 55 - 57) and what was evicted. */
static void test_appendix_b_tables(void)
{
	struct shb_qpack_table t;

	for (size_t cut = 0; cut <= 40; cut++) {
		b_table(&t, 2, cut);
		CU_ASSERT_EQUAL(t.inserted, 2);
		CU_ASSERT_EQUAL(t.size, 106);
		CU_ASSERT_EQUAL(t.capacity, 220);
		CU_ASSERT(entry_is(&t, 0, ":authority", "www.example.com"));
		CU_ASSERT(entry_is(&t, 1, ":path", "/sample/path"));
		shb_qpack_table_fini(&t);
		b_table(&t, 3, cut);
		CU_ASSERT_EQUAL(t.size, 160);
		CU_ASSERT(entry_is(&t, 2, "custom-key", "custom-value"));
		shb_qpack_table_fini(&t);
		b_table(&t, 4, cut);
		CU_ASSERT_EQUAL(t.size, 217);
		CU_ASSERT(entry_is(&t, 3, ":authority", "www.example.com"));
		shb_qpack_table_fini(&t);
		b_table(&t, 5, cut);
		CU_ASSERT_EQUAL(t.inserted, 5);
		CU_ASSERT_EQUAL(t.count, 4);
		CU_ASSERT_EQUAL(t.size, 215);
		CU_ASSERT_PTR_NULL(shb_qpack_table_get(&t, 0));
		CU_ASSERT(entry_is(&t, 1, ":path", "/sample/path"));
		CU_ASSERT(entry_is(&t, 4, "custom-key", "custom-value2"));
		shb_qpack_table_fini(&t);
	}
}

/* Decodes hex over t split at cut: the rc; d keeps the state. */
static int sec_cut(const struct shb_qpack_table *t, const char *hex,
		   size_t cut, struct shb_qpack_dec *d)
{
	size_t n = shb_h3t_unhex(in, sizeof(in), hex);
	int rc;

	if (cut > n)
		cut = n;
	shb_qpack_dec_begin_table(d, n, t);
	rc = shb_qpack_dec_feed(d, in, cut);
	if (rc == SHB_QPACK_DEC_MORE && cut < n)
		rc = shb_qpack_dec_feed(d, in + cut, n - cut);
	return rc;
}

/* The sections of B.1, B.2 and B.4, decoded by the response scanner (request
 * pseudo-headers make them malformed responses, decoded to their end)
 * and by the field decoder, whose strings are exact. */
static void test_appendix_b_sections(void)
{
	static const char want1[] = ":path\0/index.html";
	static const char want2[] = ":authority\0www.example.com\0:path\0"
				    "/sample/path";
	static const char want4[] = ":authority\0www.example.com\0:path\0/\0"
				    "custom-key\0custom-value";
	struct shb_qpack_table t;
	struct shb_qpack_dec d;
	struct shb_buf strs = SHB_BUF_INIT(64, 4096), kvs = SHB_BUF_INIT(64, 4096);
	size_t n;

	/* B.1: a static name reference, the same with a table. */
	shb_qpack_table_init(&t, B_LIMIT);
	for (size_t cut = 0; cut <= 15; cut++) {
		CU_ASSERT_EQUAL(sec_cut(&t, b1_sec, cut, &d), SHB_QPACK_DEC_E_MESSAGE);
		CU_ASSERT_EQUAL(d.lines, 1);
		CU_ASSERT_EQUAL(d.ric, 0);
	}
	n = shb_h3t_unhex(in, sizeof(in), b1_sec);
	CU_ASSERT_EQUAL(shb_qpack_fields(in, n, &t, &strs, &kvs), 0);
	CU_ASSERT_EQUAL(strs.len, sizeof(want1));
	CU_ASSERT(memcmp(strs.p, want1, sizeof(want1)) == 0);
	shb_qpack_table_fini(&t);

	b_table(&t, 2, 0);
	for (size_t cut = 0; cut <= 4; cut++) {
		CU_ASSERT_EQUAL(sec_cut(&t, b2_sec, cut, &d), SHB_QPACK_DEC_E_MESSAGE);
		CU_ASSERT_EQUAL(d.lines, 2);
		CU_ASSERT_EQUAL(d.ric, 2);
		CU_ASSERT_EQUAL(d.size, 57 + 49);
	}
	n = shb_h3t_unhex(in, sizeof(in), b2_sec);
	CU_ASSERT_EQUAL(shb_qpack_fields(in, n, &t, &strs, &kvs), 0);
	CU_ASSERT_EQUAL(strs.len, sizeof(want2));
	CU_ASSERT(memcmp(strs.p, want2, sizeof(want2)) == 0);
	shb_qpack_table_fini(&t);

	b_table(&t, 4, 0);
	for (size_t cut = 0; cut <= 5; cut++) {
		CU_ASSERT_EQUAL(sec_cut(&t, b4_sec, cut, &d), SHB_QPACK_DEC_E_MESSAGE);
		CU_ASSERT_EQUAL(d.lines, 3);
		CU_ASSERT_EQUAL(d.ric, 4);
	}
	n = shb_h3t_unhex(in, sizeof(in), b4_sec);
	CU_ASSERT_EQUAL(shb_qpack_fields(in, n, &t, &strs, &kvs), 1);
	CU_ASSERT_EQUAL(strs.len, sizeof(want4));
	CU_ASSERT(memcmp(strs.p, want4, sizeof(want4)) == 0);
	/* Without the table the same bytes are refused. */
	CU_ASSERT_EQUAL(shb_qpack_fields(in, n, NULL, &strs, &kvs), -1);
	shb_qpack_table_fini(&t);
	shb_buf_free(&strs);
	shb_buf_free(&kvs);
}

static int same(const uint8_t *got, size_t n, const char *hex)
{
	uint8_t want[32];
	size_t m = shb_h3t_unhex(want, sizeof(want), hex);

	return n == m && memcmp(got, want, n) == 0;
}

/* Our decoder stream's answers in the examples: Section Acknowledgment
 * of stream 4 (B.2), Insert Count Increment 1 (B.3, B.5), Stream
 * Cancellation of stream 8 (B.4); and the Required Insert Counts as
 * encoded there. */
static void test_appendix_b_decoder_stream(void)
{
	uint8_t b[SHB_QPACK_DECINSN_MAX];

	CU_ASSERT(same(b, shb_qpack_section_ack(b, sizeof(b), 4), "84"));
	CU_ASSERT(same(b, shb_qpack_insert_count_inc(b, sizeof(b), 1), "01"));
	CU_ASSERT(same(b, shb_qpack_stream_cancel(b, sizeof(b), 8), "48"));
	CU_ASSERT(same(b, shb_qpack_section_ack(b, sizeof(b), 200), "ff49"));
	CU_ASSERT_EQUAL(shb_qpack_insert_count_inc(b, sizeof(b), 0), 0);
	CU_ASSERT_EQUAL(shb_qpack_section_ack(b, 0, 4), 0);
	CU_ASSERT_EQUAL(shb_qpack_ric_encode(2, B_LIMIT), 3);
	CU_ASSERT_EQUAL(shb_qpack_ric_encode(4, B_LIMIT), 5);
	CU_ASSERT_EQUAL(shb_qpack_ric_encode(0, B_LIMIT), 0);
}

/* Section 4.5.1.1 across many wraps: a table of limit 64 (2 entries,
 * full range 4) that saw `inserted` inserts decodes the encoding of every
 * count it may be asked for (up to 2 ahead: MaxEntries), and refuses
 * encodings above the full range and those that decode to 0. */
static void test_ric_wrap(void)
{
	struct shb_qpack_table t;
	uint64_t ric;

	shb_qpack_table_init(&t, 64);
	for (uint64_t ins = 0; ins < 40; ins++) {
		t.inserted = ins;
		for (uint64_t want = ins > 1 ? ins - 1 : 1; want <= ins + 2; want++) {
			uint64_t enc = shb_qpack_ric_encode(want, 64);

			CU_ASSERT_EQUAL(shb_qpack_ric_decode(&t, enc, &ric), 0);
			CU_ASSERT_EQUAL(ric, want);
		}
		CU_ASSERT_EQUAL(shb_qpack_ric_decode(&t, 5, &ric), -1);
		CU_ASSERT_EQUAL(shb_qpack_ric_decode(&t, 0, &ric), 0);
		CU_ASSERT_EQUAL(ric, 0);
	}
	/* 0 inserts, MaxEntries 2: encoding 4 means 3 (> MaxValue 2 and <=
	 * FullRange): invalid; encoding 1 decodes to 4 - 4 = 0: invalid. */
	t.inserted = 0;
	CU_ASSERT_EQUAL(shb_qpack_ric_decode(&t, 4, &ric), -1);
	t.inserted = 2;
	CU_ASSERT_EQUAL(shb_qpack_ric_decode(&t, 1, &ric), 0);
	CU_ASSERT_EQUAL(ric, 4);
	/* No table: only 0. */
	shb_qpack_table_init(&t, 0);
	CU_ASSERT_EQUAL(shb_qpack_ric_decode(&t, 1, &ric), -1);
	CU_ASSERT_EQUAL(shb_qpack_ric_decode(&t, 2, &ric), -1);
}

/* Eviction keeps the table within its capacity through thousands of
 * inserts of varied sizes (the octet buffer compacts and never exceeds
 * twice the limit), and a lowered capacity evicts at once. */
static void test_eviction(void)
{
	struct shb_qpack_table t;
	struct shb_qpack_dec d;
	uint8_t name[8] = "n0000000", value[300];
	const char *why = NULL;

	memset(value, 'v', sizeof(value));
	shb_qpack_table_init(&t, 4096);
	CU_ASSERT_EQUAL(shb_qpack_table_set_capacity(&t, 4096), 0);
	for (uint32_t i = 0; i < 5000; i++) {
		size_t vlen = (i * 37) % sizeof(value);

		name[7] = (uint8_t)('0' + i % 10);
		CU_ASSERT_EQUAL_FATAL(shb_qpack_table_insert(&t, name, 8, value,
							     vlen), 0);
		CU_ASSERT(t.size <= 4096);
		CU_ASSERT(t.oct_cap <= 2 * 4096);
		const struct shb_qpack_entry *e = shb_qpack_table_get(&t, i);
		CU_ASSERT_FATAL(e != NULL);
		CU_ASSERT_EQUAL(e->value_len, vlen);
		CU_ASSERT_EQUAL(shb_qpack_entry_name(&t, e)[7], name[7]);
	}
	/* The oldest entry still held has its octets intact. */
	const struct shb_qpack_entry *old = shb_qpack_table_get(&t, t.inserted - t.count);
	CU_ASSERT(old && shb_qpack_entry_value(&t, old)[0] == 'v');
	CU_ASSERT_EQUAL(shb_qpack_table_set_capacity(&t, 100), 0);
	CU_ASSERT(t.size <= 100);
	CU_ASSERT_EQUAL(shb_qpack_table_set_capacity(&t, 0), 0);
	CU_ASSERT_EQUAL(t.count, 0);
	CU_ASSERT_EQUAL(t.size, 0);
	CU_ASSERT_EQUAL(shb_qpack_table_set_capacity(&t, 4097),
			SHB_QPACK_TABLE_E_CAPACITY);
	shb_qpack_table_fini(&t);

	/* An entry exactly the capacity fits, alone; Duplicate of an entry
	 * that its own insert evicts still copies the right octets. */
	shb_qpack_table_init(&t, 64);
	CU_ASSERT_EQUAL(shb_qpack_table_set_capacity(&t, 64), 0);
	memset(value, 'a', 31);
	CU_ASSERT_EQUAL(shb_qpack_table_insert(&t, value, 1, value, 31), 0);
	CU_ASSERT_EQUAL(t.size, 64);
	CU_ASSERT_EQUAL(enc_cut(&t, "00", 0, &why), 1);
	CU_ASSERT_EQUAL(t.count, 1);
	CU_ASSERT_EQUAL(t.inserted, 2);
	CU_ASSERT_EQUAL(t.size, 64);
	CU_ASSERT(entry_is(&t, 1, "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	CU_ASSERT_EQUAL(shb_qpack_table_insert(&t, value, 1, value, 32),
			SHB_QPACK_TABLE_E_TOO_BIG);
	shb_qpack_table_fini(&t);

	/* An entry of no octets at all (empty literal name and value) into
	 * a fresh table: 32 octets, readable like any other. */
	shb_qpack_table_init(&t, 64);
	CU_ASSERT_EQUAL(enc_cut(&t, "3f21 4000 4000", 3, &why), 2);
	CU_ASSERT_EQUAL(t.size, 64);
	/* Readers take pointers into the octets, so there are some. */
	CU_ASSERT_PTR_NOT_NULL(t.octets);
	CU_ASSERT(entry_is(&t, 0, "", "") && entry_is(&t, 1, "", ""));
	CU_ASSERT_EQUAL(sec_cut(&t, "0300 80 81", 4, &d), SHB_QPACK_DEC_DONE);
	CU_ASSERT_EQUAL(d.lines, 2);
	CU_ASSERT_EQUAL(d.size, 64);
	shb_qpack_table_fini(&t);
}

/* Every encoder stream error, with the reason, whatever the split. */
static void test_encoder_errors(void)
{
	static const struct {
		const char *hex;
		const char *why;
	} bad[] = {
		{"3fbe01", "dynamic table capacity above the one we announced"},
		{"3fbd01 ff6400", "static table index out of range"},
		{"3fbd01 8000", "reference to a dynamic entry not in the table"},
		{"3fbd01 00", "Duplicate of a dynamic entry not in the table"},
		{"3fbd01 4161 7f5e", "encoder stream string longer than our "
				     "dynamic table limit"},
		{"3fbd01 5f80ff00", "encoder stream string longer than our "
				    "dynamic table limit"},
		{"3fbd01 c0 ffffffffffffffffffff01", "QPACK integer too large"},
		{"3fbd01 61 ff 00", "bad Huffman string on the encoder stream"},
		{"2f 4161 0161", "entry larger than the dynamic table capacity"},
		{"4161 0161", "insertion into a zero-capacity dynamic table"},
		{"3fbd01 20 00", "insertion into a zero-capacity dynamic table"},
		{NULL, "entry larger than the dynamic table capacity"},
	};
	static char big[1024];
	struct shb_qpack_table t;
	const char *why;

	/* custom-key and a value of 179 octets: 10 + 179 + 32 = 221. */
	snprintf(big, sizeof(big), "3fbd01 4a637573746f6d2d6b6579 7f34");
	for (int k = 0; k < 179; k++)
		strcat(big, "61");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *hex = bad[i].hex ? bad[i].hex : big;
		size_t n = shb_h3t_unhex(in, sizeof(in), hex);

		for (size_t cut = 0; cut <= n; cut++) {
			shb_qpack_table_init(&t, B_LIMIT);
			why = NULL;
			CU_ASSERT_EQUAL(enc_cut(&t, hex, cut, &why), -1);
			CU_ASSERT_PTR_NOT_NULL_FATAL(why);
			CU_ASSERT_STRING_EQUAL(why, bad[i].why);
			shb_qpack_table_fini(&t);
		}
	}
}

/* Every field section error over the B.2 table (entries 0 and 1). */
static void test_section_errors(void)
{
	static const struct {
		const char *hex;
		const char *why;
	} bad[] = {
		{"0d00", "invalid Required Insert Count"},    /* above 2 * 6 */
		{"0300 82", "dynamic reference below entry 0"}, /* Base 2 */
		{"0300 4200", "dynamic reference below entry 0"},
		{"0200 10", "dynamic reference at or above the Required Insert "
			    "Count"},                /* RIC 1, post-base entry 1 */
		{"0201 80", "dynamic reference at or above the Required Insert "
			    "Count"},                          /* Base 2 */
		{"0281", "negative Base"},                     /* RIC 1, -2 */
		{"0381 12", "dynamic reference at or above the Required Insert "
			    "Count"},                          /* post-base 2 */
		{"0381 00", "field section ends inside a field line"},
	};
	struct shb_qpack_table t;
	struct shb_qpack_dec d;

	b_table(&t, 2, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = shb_h3t_unhex(in, sizeof(in), bad[i].hex);
		struct shb_buf s = SHB_BUF_INIT(64, 4096), k = SHB_BUF_INIT(64, 4096);

		for (size_t cut = 0; cut <= n; cut++) {
			CU_ASSERT_EQUAL(sec_cut(&t, bad[i].hex, cut, &d),
					SHB_QPACK_DEC_E_CONN);
			CU_ASSERT_STRING_EQUAL(d.detail, bad[i].why);
		}
		n = shb_h3t_unhex(in, sizeof(in), bad[i].hex);
		CU_ASSERT_EQUAL(shb_qpack_fields(in, n, &t, &s, &k), -1);
		shb_buf_free(&s);
		shb_buf_free(&k);
	}
	/* An evicted entry (B.5 dropped entry 0), by post-base index. */
	shb_qpack_table_fini(&t);
	b_table(&t, 5, 0);
	CU_ASSERT_EQUAL(sec_cut(&t, "0684 10", 9, &d), SHB_QPACK_DEC_E_CONN);
	CU_ASSERT_STRING_EQUAL(d.detail, "dynamic reference to an evicted entry");
	CU_ASSERT_EQUAL(sec_cut(&t, "0684 11", 9, &d), SHB_QPACK_DEC_E_MESSAGE);
	shb_qpack_table_fini(&t);
}

/* A section whose inserts have not arrived blocks after its first
 * integer, at any split, and finishes once they did; a status from a
 * dynamic entry (indexed, post-base, by name) is the response's. */
static void test_blocked_section(void)
{
	/* :status 200 (literal name), then :status 404 by name reference */
	static const char enc[] = "3fbd01 473a737461747573 03323030 8003343034";
	static const char sec[] = "0300 81"; /* RIC 2, Base 2: entry 0 */
	struct shb_qpack_table t;
	struct shb_qpack_dec d;
	const char *why = NULL;
	uint8_t sb[8]; /* in[] is enc_cut's */
	size_t n = shb_h3t_unhex(sb, sizeof(sb), sec);

	for (size_t cut = 0; cut <= n; cut++) {
		int rc;

		shb_qpack_table_init(&t, B_LIMIT);
		shb_qpack_dec_begin_table(&d, n, &t);
		rc = shb_qpack_dec_feed(&d, sb, cut);
		if (cut == 0) {
			CU_ASSERT_EQUAL(rc, SHB_QPACK_DEC_MORE);
			rc = shb_qpack_dec_feed(&d, sb, n);
		}
		CU_ASSERT_EQUAL(rc, SHB_QPACK_DEC_BLOCKED);
		CU_ASSERT_EQUAL(d.used, 1);
		CU_ASSERT_EQUAL(d.ric, 2);
		/* Resumed too early: still blocked. */
		CU_ASSERT_EQUAL(shb_qpack_dec_resume(&d), SHB_QPACK_DEC_BLOCKED);
		CU_ASSERT_EQUAL(d.used, 0);
		CU_ASSERT_EQUAL(enc_cut(&t, enc, cut, &why), 2);
		CU_ASSERT_EQUAL(shb_qpack_dec_resume(&d), SHB_QPACK_DEC_MORE);
		CU_ASSERT_EQUAL(shb_qpack_dec_feed(&d, sb + 1, n - 1),
				SHB_QPACK_DEC_DONE);
		CU_ASSERT_EQUAL(d.status, 200);
		shb_qpack_table_fini(&t);
	}
	/* A section whose octets all came before it blocked: resuming ends
	 * it (here a prefix cut short). */
	shb_qpack_table_init(&t, B_LIMIT);
	shb_qpack_dec_begin_table(&d, 1, &t);
	CU_ASSERT_EQUAL(shb_qpack_dec_feed(&d, sb, 1), SHB_QPACK_DEC_BLOCKED);
	CU_ASSERT_EQUAL(enc_cut(&t, enc, 0, &why), 2);
	CU_ASSERT_EQUAL(shb_qpack_dec_resume(&d), SHB_QPACK_DEC_E_CONN);
	CU_ASSERT_STRING_EQUAL(d.detail, "field section prefix truncated");
	shb_qpack_table_fini(&t);
	shb_qpack_table_init(&t, B_LIMIT);
	CU_ASSERT_EQUAL(enc_cut(&t, enc, 0, &why), 2);
	for (size_t cut = 0; cut <= 8; cut++) {
		CU_ASSERT_EQUAL(sec_cut(&t, "0300 80", cut, &d), SHB_QPACK_DEC_DONE);
		CU_ASSERT_EQUAL(d.status, 404);
		CU_ASSERT_EQUAL(sec_cut(&t, "0381 11", cut, &d), SHB_QPACK_DEC_DONE);
		CU_ASSERT_EQUAL(d.status, 404);
		CU_ASSERT_EQUAL(sec_cut(&t, "0381 0003313033", cut, &d),
				SHB_QPACK_DEC_DONE);
		CU_ASSERT_EQUAL(d.status, 103);
		CU_ASSERT_EQUAL(d.size, 7 + 3 + 32);
	}
	shb_qpack_table_fini(&t);
}

CU_TestInfo shb_h3t_qpack_dyn_tests[] = {
	{"Appendix B tables, split anywhere", test_appendix_b_tables},
	{"Appendix B field sections", test_appendix_b_sections},
	{"Appendix B decoder stream", test_appendix_b_decoder_stream},
	{"Required Insert Count wraps", test_ric_wrap},
	{"eviction", test_eviction},
	{"encoder stream errors", test_encoder_errors},
	{"field section errors", test_section_errors},
	{"blocked section", test_blocked_section},
	CU_TEST_INFO_NULL,
};
