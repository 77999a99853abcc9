/* The decoded fields a scanner collects for an observer of the
 * org.shb.h2.proto/1 extension (h2_fields.h): RFC 7541 Appendix C at
 * every octet boundary, the table's octet ring wrapping, and an HPACK
 * bomb stopping at the list cap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"
#include "h2_hpack.h"
#include "http_huffman.h"

/* ---- collected fields against RFC 7541 Appendix C ------------------------- */

/* One decoding context: a table keeping its octets, and the fields. */
struct collect_ctx {
	struct shb_h2_dtable t;
	uint8_t ring[SHB_H2_DTABLE_MAX];
	struct shb_h2_fields f;
};

static void ctx_init(struct collect_ctx *x, unsigned max)
{
	shb_h2_fields_free(&x->f);
	shb_h2_dtable_init(&x->t, max);
	shb_h2_dtable_keep_octets(&x->t, x->ring);
}

/* Decodes p[n] fed in pieces of `step` octets (0: whole). */
static int collect(struct collect_ctx *x, const uint8_t *p, size_t n,
		   size_t step)
{
	struct shb_h2_hscan s;
	int rc = SHB_H2_HSCAN_OK;

	shb_h2_hscan_begin(&s, &x->t);
	shb_h2_hscan_collect(&s, &x->f);
	for (size_t off = 0; off < n && rc == SHB_H2_HSCAN_OK;) {
		size_t k = step && n - off > step ? step : n - off;

		rc = shb_h2_hscan_feed(&s, p + off, k);
		off += k;
	}
	return rc == SHB_H2_HSCAN_OK ? shb_h2_hscan_end(&s) : rc;
}

static void fields_are(const struct shb_h2_fields *f,
		       const struct shb_h2_vec_case *c)
{
	const uint8_t *name, *value;
	size_t off = 0, nlen, vlen, k = 0;

	CU_ASSERT_EQUAL(f->count, c->nfields);
	while (shb_h2_fields_next(f, &off, &name, &nlen, &value, &vlen)) {
		CU_ASSERT_FATAL(k < c->nfields);
		CU_ASSERT_EQUAL(nlen, strlen(c->fields[k].name));
		CU_ASSERT_EQUAL(vlen, strlen(c->fields[k].value));
		CU_ASSERT(nlen == strlen(c->fields[k].name) &&
			  memcmp(name, c->fields[k].name, nlen) == 0);
		CU_ASSERT(vlen == strlen(c->fields[k].value) &&
			  memcmp(value, c->fields[k].value, vlen) == 0);
		k++;
	}
	CU_ASSERT_EQUAL(k, c->nfields);
	CU_ASSERT_EQUAL(off, f->b.len);
}

/* Every case in file order, in three contexts fed whole, octet by octet
 * and in 3-octet pieces: the fields exactly as the RFC lists them,
 * indexed ones read back from the table's octets. */
static void test_collect_appendix_c(void)
{
	static struct shb_h2_vec_appendix_c a;
	static struct collect_ctx x[3];
	static const size_t steps[3] = {0, 1, 3};
	const char *context = "";

	shb_h2_vec_appendix_c(&a);
	CU_ASSERT_FATAL(a.ncases >= 6);
	for (size_t i = 0; i < a.ncases; i++) {
		const struct shb_h2_vec_case *c = &a.cases[i];

		if (strcmp(c->context, context) != 0) {
			for (int k = 0; k < 3; k++)
				ctx_init(&x[k], c->max_table);
			context = c->context;
		}
		for (int k = 0; k < 3; k++) {
			CU_ASSERT_EQUAL(collect(&x[k], c->block, c->block_len,
						steps[k]),
					SHB_H2_HSCAN_OK);
			fields_are(&x[k].f, c);
		}
	}
	/* The last context (C.6) ends with entries in its table. */
	CU_ASSERT(x[0].t.count > 0);
	for (int k = 0; k < 3; k++)
		shb_h2_fields_free(&x[k].f);
}

/* 500 entries of 40 to 110 octets through a table of 4096: the octet
 * ring wraps many times, and entries written across its end read back
 * whole. */
static void test_collect_ring_wraps(void)
{
	static struct collect_ctx x;
	char name[16], value[64];
	const uint8_t *n, *v;
	size_t off, nlen, vlen;

	ctx_init(&x, 4096);
	for (int i = 0; i < 500; i++) {
		uint8_t blk[128];
		size_t len = 0;

		snprintf(name, sizeof(name), "x-n%d", i);
		snprintf(value, sizeof(value), "value-%d-%.*s", i, i % 40,
			 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
		/* literal with incremental indexing, new name, plain */
		blk[len++] = 0x40;
		blk[len++] = (uint8_t)strlen(name);
		memcpy(blk + len, name, strlen(name));
		len += strlen(name);
		blk[len++] = (uint8_t)strlen(value);
		memcpy(blk + len, value, strlen(value));
		len += strlen(value);
		/* then the entry just added: dynamic index 62 */
		blk[len++] = 0x80 | 62;
		CU_ASSERT_EQUAL_FATAL(collect(&x, blk, len, 0), SHB_H2_HSCAN_OK);
		CU_ASSERT_EQUAL_FATAL(x.f.count, 2);
		off = 0;
		shb_h2_fields_next(&x.f, &off, &n, &nlen, &v, &vlen);
		CU_ASSERT_TRUE(shb_h2_fields_next(&x.f, &off, &n, &nlen, &v,
						  &vlen));
		CU_ASSERT(nlen == strlen(name) && memcmp(n, name, nlen) == 0);
		CU_ASSERT(vlen == strlen(value) && memcmp(v, value, vlen) == 0);
	}
	CU_ASSERT(x.t.count > 1);
	shb_h2_fields_free(&x.f);
}

/* An HPACK bomb collected for an observer: one 4000-octet value indexed,
 * then referenced 1000 times (4 MB decoded from 4 KB). The header-list cap
 * ends the block, and the collected octets stay within twice the cap
 * (the buffer doubles), not the 4 MB the block asks for. */
static void test_collect_bomb_capped(void)
{
	static struct collect_ctx x;
	static uint8_t blk[8192];
	size_t len = 0;

	ctx_init(&x, 4096);
	/* literal with incremental indexing, new name "x", plain value of
	 * 4000 octets: 0x7f then 4000 - 127 = 3873 as a prefixed integer */
	blk[len++] = 0x40;
	blk[len++] = 1;
	blk[len++] = 'x';
	blk[len++] = 0x7f;
	blk[len++] = 0x80 | (3873 & 0x7f);
	blk[len++] = 3873 >> 7;
	memset(blk + len, 'v', 4000);
	len += 4000;
	for (int i = 0; i < 1000; i++)
		blk[len++] = 0x80 | 62;
	CU_ASSERT_EQUAL(collect(&x, blk, len, 0), SHB_H2_HSCAN_E_LIST_SIZE);
	CU_ASSERT_TRUE(x.f.count < 70);
	CU_ASSERT_TRUE(x.f.b.cap <= 2 * SHB_H2_HSCAN_MAX_LIST);
	shb_h2_fields_free(&x.f);
}

CU_TestInfo shb_h2_fields_tests[] = {
	{"collected fields: RFC 7541 Appendix C, whole and in pieces",
	 test_collect_appendix_c},
	{"collected fields: the octet ring wraps", test_collect_ring_wraps},
	{"collected fields: an HPACK bomb stops at the list cap", test_collect_bomb_capped},
	CU_TEST_INFO_NULL,
};
