/* The response header block scanner's dynamic table (test_h2_hscan.c
 * has the rest): RFC 7541 Appendix C sequences, :status entries, size
 * updates, oversized entries, a ring that wraps, references beyond it,
 * and random blocks against the full test decoder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_hpack.h"
#include "h2_hscan.h"
#include "h2_hscan_fx.h"
#include "h2_tests.h"
#include "http_huffman.h"
#include "http_prefint.h"
#include "http_status.h"

/* ---- the dynamic table ---------------------------------------------------- */

static int status_of(const char *name, const char *value)
{
	if (strcmp(name, ":status") != 0)
		return 0;
	return shb_http_status_digits((const uint8_t *)value, strlen(value));
}

/* RFC 7541 Appendix C: every case in file order, one table per context
 * (sized as the RFC says: 256 for C.5 and C.6), the status of each block
 * and the table after it entry by entry as the RFC lists it. */
static void test_appendix_c_sequences(void)
{
	static struct shb_h2_vec_appendix_c a;
	struct shb_h2_dtable t;
	const char *context = "";
	int st, responses = 0;

	shb_h2_vec_appendix_c(&a);
	for (size_t i = 0; i < a.ncases; i++) {
		const struct shb_h2_vec_case *c = &a.cases[i];
		unsigned sizes[SHB_H2_VEC_MAX_FIELDS];
		unsigned names[SHB_H2_VEC_MAX_FIELDS];
		int statuses[SHB_H2_VEC_MAX_FIELDS];
		int want = 0;

		if (strcmp(c->context, context) != 0) {
			shb_h2_dtable_init(&t, c->max_table);
			context = c->context;
		}
		for (size_t k = 0; k < c->nfields; k++)
			if (status_of(c->fields[k].name, c->fields[k].value))
				want = status_of(c->fields[k].name,
						 c->fields[k].value);
		CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, c->block, c->block_len, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, want);
		for (size_t k = 0; k < c->ndyn; k++) {
			sizes[k] = c->dyn_size[k];
			names[k] = (unsigned)strlen(c->dyn[k].name);
			statuses[k] = status_of(c->dyn[k].name, c->dyn[k].value);
		}
		hs_table_is(&t, c->ndyn, sizes, names, statuses);
		CU_ASSERT_EQUAL(t.size, c->table_size);
		if (want)
			responses++;
	}
	/* C.5 and C.6: 302, 307, 200 each. */
	CU_ASSERT_EQUAL(responses, 6);
}

/* The RFC's response sequence (C.6) spot-checked by number: 302, 307
 * (its block takes three fields from the dynamic table), 200, with the
 * sizes the RFC lists; then references into what is left. */
static void test_c6_by_hand(void)
{
	static struct shb_h2_vec_appendix_c a;
	struct shb_h2_dtable t;
	const int want[3] = {302, 307, 200};
	const unsigned counts[3] = {4, 4, 3}, sizes[3] = {222, 222, 215};
	int st;

	shb_h2_vec_appendix_c(&a);
	shb_h2_dtable_init(&t, 256);
	for (size_t i = 0, k = 0; i < a.ncases; i++) {
		if (strcmp(a.cases[i].context, "C.6") != 0)
			continue;
		CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, a.cases[i].block,
						a.cases[i].block_len, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, want[k]);
		CU_ASSERT_EQUAL(t.count, counts[k]);
		CU_ASSERT_EQUAL(t.size, sizes[k]);
		k++;
	}
	/* After C.6.3 the oldest entry is date (65 octets), index 64;
	 * index 65 is gone. */
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 3)->size, 65);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 3)->name_len, 4);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "c1", &st), SHB_H2_HSCAN_E_INDEX);
}

/* A :status kept in the dynamic table: referenced whole (indexed field)
 * and by name (with another value, with and without indexing). */
static void test_status_in_table(void)
{
	struct shb_h2_dtable t;
	struct hs_blk b;
	int st;

	shb_h2_dtable_init(&t, 4096);
	/* :status 418 with incremental indexing (name from static 8), and
	 * an ordinary field after it. */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "4803343138" "4001780179", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	hs_table_is(&t, 2, (const unsigned[]){34, 42}, (const unsigned[]){1, 7},
		 (const int[]){0, 418});
	/* Later blocks: 63 is the :status entry, 62 the other. */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "bf", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 0); /* trailers-like: no :status */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "bebf", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	/* twice: malformed */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "bf88", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1);
	/* its name with another value, without indexing (name 63) */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "0f3003353033", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 503);
	/* never indexed, Huffman value */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "1f30826402", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 302); /* "302" is 64 02 */
	CU_ASSERT_EQUAL(t.count, 2);
	/* with incremental indexing by its name and a Huffman value: the
	 * new entry is :status 307 of 42 octets */
	b.n = 0;
	hs_put_indexed_literal(&b, 63, NULL, "307", 1);
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 307);
	hs_table_is(&t, 3, (const unsigned[]){42, 34, 42},
		 (const unsigned[]){7, 1, 7}, (const int[]){307, 0, 418});
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 307);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 418);
	/* a literal name ":status" (Huffman) with a malformed value: the
	 * entry says so, and a reference to it is malformed too */
	b.n = 0;
	hs_put_indexed_literal(&b, 0, ":status", "20", 1);
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->status, -1);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->size, 41);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1);
	/* but its name is still :status */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "0f2f03323035", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 205);
	/* a literal named ":statu" is not :status, in the table either */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "40063a7374617475033130308d", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 404);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->status, 0);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->name_len, 6);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 0);
}

/* Dynamic table size updates: to 0 (empties the table; inserts after it
 * in the same block are larger than the table), back up, lowering evicts
 * the oldest, several in a row, and only up to our limit. */
static void test_size_updates(void)
{
	struct shb_h2_dtable t;
	int st;

	shb_h2_dtable_init(&t, 4096);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "4803323030" "4001610162" "4001630164",
				   &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 200);
	hs_table_is(&t, 3, (const unsigned[]){34, 34, 42}, NULL, NULL);
	/* lower to 76: the oldest (the :status entry) goes */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "3f2d" "88", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(t.max, 76);
	hs_table_is(&t, 2, (const unsigned[]){34, 34}, NULL, NULL);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_E_INDEX);
	/* to 0, then an insert: nothing fits */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "20" "4803323030", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 200);
	CU_ASSERT_EQUAL(t.max, 0);
	hs_table_is(&t, 0, NULL, NULL, NULL);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_E_INDEX);
	/* the maximum stays 0 over blocks until the next update */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "4001610162", &st), SHB_H2_HSCAN_OK);
	hs_table_is(&t, 0, NULL, NULL, NULL);
	/* 0 then 4096 in one block: inserts fit again */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "20" "3fe11f" "4803323034" "be", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, -1); /* 204 twice */
	CU_ASSERT_EQUAL(t.max, 4096);
	hs_table_is(&t, 1, (const unsigned[]){42}, NULL, (const int[]){204});
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(st, 204);
	/* exactly one entry's size keeps it; one less evicts it */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "3f0b", &st), SHB_H2_HSCAN_OK);
	hs_table_is(&t, 1, (const unsigned[]){42}, NULL, NULL);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "3f0a", &st), SHB_H2_HSCAN_OK);
	hs_table_is(&t, 0, NULL, NULL, NULL);
	/* above our 4096: an error */
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "3fe21f", &st),
			SHB_H2_HSCAN_E_SIZE_UPDATE);
	/* a table limited to 256 (like the RFC's examples) refuses 257 */
	shb_h2_dtable_init(&t, 256);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "3fe101", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(t.max, 256);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "3fe201", &st),
			SHB_H2_HSCAN_E_SIZE_UPDATE);
	/* our table never exceeds what the ring holds */
	shb_h2_dtable_init(&t, 100000);
	CU_ASSERT_EQUAL(t.limit, SHB_H2_DTABLE_MAX);
}

/* An entry larger than the table empties it and is not added (RFC 7541
 * Section 4.4); one exactly the table's size fits alone. Plain and
 * Huffman-coded, names and values. */
static void test_oversized_entry(void)
{
	static char big[4200];
	struct shb_h2_dtable t;
	struct hs_blk b;
	int st;

	memset(big, 'a', sizeof(big) - 1);
	for (int huff = 0; huff <= 1; huff++) {
		shb_h2_dtable_init(&t, 256);
		CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "4803323030" "4001610162", &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(t.count, 2);
		/* name 1 + value 223 + 32 = 256: fits, evicting both */
		big[223] = '\0';
		b.n = 0;
		hs_put_indexed_literal(&b, 0, "x", big, huff);
		hs_put_int(&b, 7, 0x80, 8);
		CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, 200);
		hs_table_is(&t, 1, (const unsigned[]){256}, (const unsigned[]){1},
			 (const int[]){0});
		/* 257 with a static name (location, 8): empties it */
		big[223] = 'a';
		big[217] = '\0';
		b.n = 0;
		hs_put_indexed_literal(&b, 46, NULL, big, huff);
		CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		hs_table_is(&t, 0, NULL, NULL, NULL);
		big[217] = 'a';
		/* refill, then a huge literal name (4199 octets: counting
		 * stops early, the result is the same) */
		CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "4001610162", &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(t.count, 1);
		b.n = 0;
		hs_put_indexed_literal(&b, 0, big, "v", huff);
		hs_put_int(&b, 7, 0x80, 13);
		CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, 404);
		hs_table_is(&t, 0, NULL, NULL, NULL);
		CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_E_INDEX);
		/* the next insert works as usual */
		CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "4803323030" "be", &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, -1);
		hs_table_is(&t, 1, (const unsigned[]){42}, NULL,
			 (const int[]){200});
	}
	/* In a 4096 table: name 1 + value 4063 + 32 fits, one more does
	 * not. */
	shb_h2_dtable_init(&t, 4096);
	big[4063] = '\0';
	b.n = 0;
	hs_put_indexed_literal(&b, 0, "x", big, 1);
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	hs_table_is(&t, 1, (const unsigned[]){4096}, (const unsigned[]){1}, NULL);
	big[4063] = 'a';
	big[4064] = '\0';
	b.n = 0;
	hs_put_indexed_literal(&b, 0, "x", big, 1);
	CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st), SHB_H2_HSCAN_OK);
	hs_table_is(&t, 0, NULL, NULL, NULL);
	big[4064] = 'a';
}

/* The ring: 128 entries of 32 octets fill a 4096 table; 300 inserts over
 * many blocks wrap it, and every index resolves to what a plain list
 * says. */
static void test_ring_wraps(void)
{
	struct shb_h2_dtable t;
	int model[400]; /* statuses, newest last */
	unsigned msize[400];
	size_t mn = 0;
	unsigned total = 0;
	int st;

	shb_h2_dtable_init(&t, 4096);
	for (int i = 0; i < 300; i++) {
		struct hs_blk b;
		char digits[4];
		unsigned size = 32;
		int code = 0;

		b.n = 0;
		if (i % 7 == 3) {
			code = 100 + i;
			snprintf(digits, sizeof(digits), "%d", code);
			hs_put_indexed_literal(&b, 8, NULL, digits, i % 2);
			size = 42;
		} else {
			hs_put_indexed_literal(&b, 0, "", "", 0);
		}
		CU_ASSERT_EQUAL_FATAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
				      SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, code);
		model[mn] = code;
		msize[mn++] = size;
		total += size;
		/* evict from the front of the model */
		{
			size_t drop = 0;

			while (total > 4096)
				total -= msize[drop++];
			memmove(model, model + drop, (mn - drop) * sizeof(int));
			memmove(msize, msize + drop, (mn - drop) * sizeof(unsigned));
			mn -= drop;
		}
		CU_ASSERT_EQUAL_FATAL(t.count, mn);
		CU_ASSERT_EQUAL(t.size, total);
	}
	CU_ASSERT(mn > 100 && mn <= 128);
	for (size_t i = 1; i <= mn; i++) {
		struct hs_blk b;

		b.n = 0;
		hs_put_int(&b, 7, 0x80, SHB_HPACK_STATIC_COUNT + i);
		CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(st, model[mn - i] ? model[mn - i] : 0);
	}
	{
		struct hs_blk b;

		b.n = 0;
		hs_put_int(&b, 7, 0x80, SHB_HPACK_STATIC_COUNT + mn + 1);
		CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
				SHB_H2_HSCAN_E_INDEX);
	}
	/* 129 minimal entries in one block: still 128 */
	{
		static struct hs_blk b;

		b.n = 0;
		for (int i = 0; i < 129; i++)
			hs_put_indexed_literal(&b, 0, "", "", 0);
		CU_ASSERT_EQUAL(hs_scan_pieces(&t, &t, b.p, b.n, NULL, 0, &st),
				SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(t.count, 128);
		CU_ASSERT_EQUAL(t.size, 4096);
	}
}

/* References beyond the table, indexed and by name, right after the last
 * valid index. */
static void test_reference_beyond(void)
{
	struct shb_h2_dtable t;
	int st;

	shb_h2_dtable_init(&t, 4096);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "be", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "4001610162" "4001630164", &st),
			SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "bf", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "c0", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "0f300178", &st), SHB_H2_HSCAN_OK);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "0f310178", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "7f020178", &st), SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_EQUAL(hs_scan_hex_t(&t, "ffffffff0f", &st),
			SHB_H2_HSCAN_E_INDEX);
	CU_ASSERT_STRING_EQUAL(shb_h2_hscan_strerror(SHB_H2_HSCAN_E_INDEX),
			       "HPACK index beyond the dynamic table");
}

/* ---- random blocks against the full test decoder --------------------------- */

static uint32_t rng_state = 12345;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) % n;
}

static void rnd_text(char *s, size_t len)
{
	static const char alphabet[] = "abcxyz-0123456789:/ ;=ABC";

	for (size_t i = 0; i < len; i++)
		s[i] = alphabet[rnd(sizeof(alphabet) - 1)];
	s[len] = '\0';
}

/* One random representation appended to b. */
static void rnd_field(struct hs_blk *b, size_t dyn_count)
{
	char name[80], value[80];
	uint32_t kind = rnd(10);
	int huff = (int)rnd(2);
	uint64_t name_index = 0;

	if (kind < 2) { /* indexed */
		if (dyn_count && rnd(2))
			hs_put_int(b, 7, 0x80, SHB_HPACK_STATIC_COUNT + 1 +
						    rnd((uint32_t)dyn_count));
		else
			hs_put_int(b, 7, 0x80, 1 + rnd(SHB_HPACK_STATIC_COUNT));
		return;
	}
	switch (rnd(4)) {
	case 0: name_index = 8 + rnd(7); break; /* :status */
	case 1: name_index = 1 + rnd(SHB_HPACK_STATIC_COUNT); break;
	case 2:
		if (dyn_count)
			name_index = SHB_HPACK_STATIC_COUNT + 1 +
				     rnd((uint32_t)dyn_count);
		break;
	default: break;
	}
	if (rnd(3) == 0)
		snprintf(value, sizeof(value), "%u", 100 + rnd(900));
	else
		rnd_text(value, rnd(rnd(8) ? 20 : 78));
	hs_put_int(b, kind < 7 ? 6 : 4, kind < 7 ? 0x40 : (kind == 9 ? 0x10 : 0),
		name_index);
	if (!name_index) {
		if (rnd(4) == 0)
			snprintf(name, sizeof(name), ":status");
		else
			rnd_text(name, rnd(rnd(8) ? 12 : 60));
		hs_put_str(b, name, strlen(name), huff);
	}
	hs_put_str(b, value, strlen(value), (int)rnd(2));
}

/* What the scanner should report for the decoder's fields. */
static int want_status(const struct shb_h2_tdec_field *f, long n)
{
	int found = 0, code = 0;

	for (long i = 0; i < n; i++) {
		if (strcmp(f[i].name, ":status") != 0)
			continue;
		if (found++)
			return -1;
		code = shb_http_status_digits((const uint8_t *)f[i].value,
					      f[i].value_len);
	}
	return code;
}

/* Random blocks, decoded by the test decoder (names and values kept) and
 * scanned: the same :status, and the same table entry by entry. The
 * table is 2048 octets so that the decoder's 64 entries suffice. */
static void test_random_against_decoder(void)
{
	static struct shb_h2_vec_static statics[62];
	static struct shb_h2_tdec d;
	static struct shb_h2_tdec_field f[40];
	struct shb_h2_dtable t;
	int st;

	shb_h2_vec_static_table(statics);
	for (int conn = 0; conn < 12; conn++) {
		shb_h2_tdec_init(&d, 2048, statics);
		shb_h2_dtable_init(&t, 2048);
		for (int blkno = 0; blkno < 40; blkno++) {
			static struct hs_blk b;
			static struct shb_h2_tdec probe;
			uint32_t nf = 1 + rnd(12);
			long n;

			b.n = 0;
			if (rnd(6) == 0)
				hs_put_int(&b, 5, 0x20,
					rnd(3) ? rnd(2049) : rnd(120));
			if (rnd(10) == 0)
				hs_put_int(&b, 5, 0x20, 2048);
			/* References must stay within the table as the block
			 * so far leaves it. */
			for (uint32_t i = 0; i < nf; i++) {
				probe = d;
				CU_ASSERT_FATAL(shb_h2_tdec_decode(&probe, b.p, b.n,
								   f, 40) >= 0);
				rnd_field(&b, probe.n);
			}
			n = shb_h2_tdec_decode(&d, b.p, b.n, f, 40);
			CU_ASSERT_FATAL(n >= 0);
			if (blkno % 8 == 0) {
				CU_ASSERT_EQUAL(hs_scan_all_ways_t(&t, b.p, b.n, &st),
						SHB_H2_HSCAN_OK);
			} else {
				CU_ASSERT_EQUAL(hs_scan_pieces(&t, &t, b.p, b.n,
							    NULL, 0, &st),
						SHB_H2_HSCAN_OK);
			}
			CU_ASSERT_EQUAL(st, want_status(f, n));
			CU_ASSERT_EQUAL_FATAL(t.count, d.n);
			CU_ASSERT_EQUAL(t.size, d.size);
			CU_ASSERT_EQUAL(t.max, d.max);
			for (size_t i = 0; i < d.n; i++) {
				const struct shb_h2_dtable_entry *e =
					shb_h2_dtable_get(&t, i + 1);
				const struct shb_h2_tdec_entry *de = &d.entries[i];

				CU_ASSERT_EQUAL(e->name_len, strlen(de->name));
				CU_ASSERT_EQUAL(e->size, strlen(de->name) +
								 strlen(de->value) + 32);
				CU_ASSERT_EQUAL(e->status,
						strcmp(de->name, ":status")
							? 0
							: shb_http_status_digits(
								  (const uint8_t *)de->value,
								  strlen(de->value)));
			}
		}
	}
}

/* A 48 KB block of many fields, status last, scanned in pieces the size
 * of CONTINUATION frames and split at many offsets. */
static void test_large_block(void)
{
	size_t cap = 49152 + 64, n = 0, fields = 1;
	uint8_t *blk = malloc(cap);
	struct shb_h2_hscan s;
	struct shb_h2_dtable t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(blk);
	while (n + 49 < 49152) {
		/* x-hNNN: 40 octets of value, literal without indexing */
		blk[n++] = 0x00;
		blk[n++] = 6;
		memcpy(blk + n, "x-hdrs", 6);
		n += 6;
		blk[n++] = 40;
		memset(blk + n, 'v', 40);
		n += 40;
		fields++;
	}
	blk[n++] = 0x8d; /* 404 */
	for (size_t piece = 1; piece <= 16384; piece = piece * 2 + 1) {
		int rc = SHB_H2_HSCAN_OK;

		shb_h2_dtable_init(&t, 4096);
		shb_h2_hscan_begin(&s, &t);
		for (size_t off = 0; off < n && rc == SHB_H2_HSCAN_OK; off += piece)
			rc = shb_h2_hscan_feed(&s, blk + off,
					       n - off < piece ? n - off : piece);
		CU_ASSERT_EQUAL(rc, SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(shb_h2_hscan_end(&s), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL(shb_h2_hscan_status(&s), 404);
		CU_ASSERT_EQUAL(s.field_count, fields);
		CU_ASSERT_EQUAL(t.count, 0);
	}
	free(blk);
}

CU_TestInfo shb_h2_hscan_table_tests[] = {
	{"RFC 7541 Appendix C sequences and table states",
	 test_appendix_c_sequences},
	{"RFC 7541 C.6 by hand", test_c6_by_hand},
	{":status in the dynamic table", test_status_in_table},
	{"dynamic table size updates", test_size_updates},
	{"oversized entries empty the table", test_oversized_entry},
	{"ring of 128 entries wraps", test_ring_wraps},
	{"references beyond the table", test_reference_beyond},
	{"random blocks against the full decoder",
	 test_random_against_decoder},
	{"48 KB block", test_large_block},
	CU_TEST_INFO_NULL,
};
