/* JA3 and JA4 of a ClientHello (core/engine/tls_fp.c): the published fingerprints
 * of captured ClientHellos (tests/vectors/tls-client-hellos.txt, the first
 * being the example of FoxIO's JA4 technical details), the JA4 rules for
 * ALPN, empty lists and missing signature algorithms, and the parser's
 * bounds: every truncation is refused without reading past the end (each
 * input sits in a buffer of its exact size, for ASan), every split of the
 * message over two records gives the same message back, and the first
 * ClientHello of a run is the one kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "engine/tls_fp.h"

struct vec {
	char name[64], kind[8], want[64];
	uint8_t *rec;
	size_t len;
};

static struct vec vecs[8];
static size_t nvec;

static int unhex(const char *h, uint8_t **out, size_t *len)
{
	size_t n = strlen(h);
	if (n % 2)
		return -1;
	*out = malloc(n / 2);
	for (size_t i = 0; *out && i < n / 2; i++) {
		unsigned v;
		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			return -1;
		(*out)[i] = (uint8_t)v;
	}
	*len = n / 2;
	return *out ? 0 : -1;
}

static int suite_init(void)
{
	const char *path = getenv("SHB_TLS_VECTORS");
	static char line[16384], hexs[16384];
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f) {
		fprintf(stderr, "SHB_TLS_VECTORS: cannot open %s\n",
			path ? path : "(unset)");
		return -1;
	}
	while (fgets(line, sizeof(line), f) && nvec < 8) {
		struct vec *v = &vecs[nvec];
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %7s %63s %16383s", v->name, v->kind,
			   v->want, hexs) != 4 ||
		    unhex(hexs, &v->rec, &v->len) < 0) {
			fclose(f);
			return -1;
		}
		nvec++;
	}
	fclose(f);
	return nvec == 5 ? 0 : -1;
}

static int suite_clean(void)
{
	for (size_t i = 0; i < nvec; i++)
		free(vecs[i].rec);
	return 0;
}

/* The ClientHello message of vector v, in a buffer of its own size. */
static uint8_t *message(const struct vec *v, size_t *len)
{
	uint8_t buf[SHB_HELLO_MAX];
	*len = shb_hello_from_records(v->rec, v->len, buf, sizeof(buf));
	CU_ASSERT_FATAL(*len == v->len - 5); /* one record each */
	uint8_t *m = malloc(*len);
	CU_ASSERT_FATAL(m != NULL);
	memcpy(m, buf, *len);
	return m;
}

static void test_published(void)
{
	for (size_t i = 0; i < nvec; i++) {
		struct shb_client_hello ch;
		char got[SHB_JA4_LEN];
		size_t len;
		uint8_t *m = message(&vecs[i], &len);
		CU_ASSERT_EQUAL_FATAL(shb_client_hello_parse(m, len, &ch), 0);
		int r = strcmp(vecs[i].kind, "ja3") == 0 ? shb_ja3(&ch, got) :
			shb_ja4(&ch, 0, got);
		CU_ASSERT_EQUAL(r, 0);
		if (strcmp(got, vecs[i].want) != 0)
			fprintf(stderr, "\n%s: %s, want %s\n", vecs[i].name, got,
				vecs[i].want);
		CU_ASSERT_STRING_EQUAL(got, vecs[i].want);
		free(m);
	}
}

/* FoxIO's example: 15 ciphers and 16 extensions once GREASE is gone, SNI
 * present, "h2" first; QUIC changes the prefix only. */
static void test_example_fields(void)
{
	struct shb_client_hello ch;
	char ja4[SHB_JA4_LEN];
	size_t len;
	uint8_t *m = message(&vecs[0], &len);
	CU_ASSERT_EQUAL_FATAL(shb_client_hello_parse(m, len, &ch), 0);
	CU_ASSERT_EQUAL(ch.n_ciphers, 15);
	CU_ASSERT_EQUAL(ch.n_exts, 16);
	CU_ASSERT_EQUAL(ch.n_sigalgs, 8);
	CU_ASSERT_EQUAL(ch.version, 0x0304);
	CU_ASSERT_EQUAL(ch.legacy_version, 0x0303);
	CU_ASSERT(ch.has_sni);
	CU_ASSERT_EQUAL(shb_ja4(&ch, 1, ja4), 0);
	CU_ASSERT_STRING_EQUAL(ja4, "q13d1516h2_8daaf6152771_e5627efa2ab1");
	free(m);
}

/* The spec's other cases, on a hand-filled ClientHello. */
static void test_ja4_rules(void)
{
	static const uint16_t exts[] = {0x001b, 0x0000, 0x0033, 0x0010, 0x4469,
		0x0017, 0x002d, 0x000d, 0x0005, 0x0023, 0x0012, 0x002b, 0xff01,
		0x000b, 0x000a, 0x0015};
	struct shb_client_hello ch;
	char ja4[SHB_JA4_LEN];

	memset(&ch, 0, sizeof(ch));
	ch.version = 0x0303;
	memcpy(ch.exts, exts, sizeof(exts));
	ch.n_exts = 16;
	/* no signature algorithms: no '_' before the hash (6d807ffa2a79);
	 * no ciphers: twelve zeros; no ALPN: "00" */
	CU_ASSERT_EQUAL(shb_ja4(&ch, 0, ja4), 0);
	CU_ASSERT_STRING_EQUAL(ja4, "t12i001600_000000000000_6d807ffa2a79");
	/* only SNI and ALPN: nothing left to hash */
	ch.n_exts = 0;
	ch.exts[ch.n_exts++] = 0x0000;
	ch.exts[ch.n_exts++] = 0x0010;
	ch.has_sni = 1;
	ch.version = 0x9999;
	CU_ASSERT_EQUAL(shb_ja4(&ch, 0, ja4), 0);
	CU_ASSERT_STRING_EQUAL(ja4, "t00d000200_000000000000_000000000000");

	static const struct { const char *alpn; const char *want; } a[] = {
		{"h2", "h2"}, {"http/1.1", "h1"}, {"h3", "h3"}, {"x", "xx"},
		{"\xab", "ab"}, {"\xab\xcd", "ad"}, {"0\xab", "3b"},
		{"01\xab\xcd", "3d"}, {"0\xab\xcd" "1", "01"},
	};
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		ch.alpn = (const uint8_t *)a[i].alpn;
		ch.alpn_len = strlen(a[i].alpn);
		CU_ASSERT_EQUAL(shb_ja4(&ch, 0, ja4), 0);
		CU_ASSERT_NSTRING_EQUAL(ja4 + 8, a[i].want, 2);
	}
}

/* Cut anywhere, a ClientHello is refused, and never read beyond its end. */
static void test_truncated(void)
{
	for (size_t i = 0; i < nvec; i++) {
		size_t len;
		uint8_t *m = message(&vecs[i], &len);
		for (size_t k = 0; k < len; k++) {
			struct shb_client_hello ch;
			uint8_t *cut = malloc(k ? k : 1);
			memcpy(cut, m, k);
			CU_ASSERT_EQUAL(shb_client_hello_parse(cut, k, &ch), -1);
			free(cut);
		}
		/* and records cut anywhere hold no ClientHello */
		for (size_t k = 0; k < vecs[i].len; k++) {
			uint8_t out[SHB_HELLO_MAX];
			uint8_t *cut = malloc(k ? k : 1);
			memcpy(cut, vecs[i].rec, k);
			CU_ASSERT_EQUAL(shb_hello_from_records(cut, k, out, sizeof(out)), 0);
			free(cut);
		}
		free(m);
	}
}

/* A corrupted length anywhere is refused or parsed within bounds (ASan
 * says which reads happened). */
static void test_corrupt(void)
{
	size_t len;
	uint8_t *m = message(&vecs[0], &len);
	int refused = 0;
	for (size_t k = 0; k < len; k++) {
		struct shb_client_hello ch;
		uint8_t *c = malloc(len);
		memcpy(c, m, len);
		c[k] ^= 0xff;
		if (shb_client_hello_parse(c, len, &ch) < 0)
			refused++;
		free(c);
	}
	/* every length byte flipped breaks the framing */
	CU_ASSERT(refused > 20);
	free(m);
}

/* The message split over two handshake records at every offset. */
static void test_record_split(void)
{
	size_t len;
	uint8_t *m = message(&vecs[0], &len);
	for (size_t k = 1; k < len; k++) {
		size_t n = len + 10;
		uint8_t *r = malloc(n), out[SHB_HELLO_MAX];
		r[0] = 22, r[1] = 3, r[2] = 1, r[3] = (uint8_t)(k >> 8), r[4] = (uint8_t)k;
		memcpy(r + 5, m, k);
		uint8_t *r2 = r + 5 + k;
		r2[0] = 22, r2[1] = 3, r2[2] = 3;
		r2[3] = (uint8_t)((len - k) >> 8), r2[4] = (uint8_t)(len - k);
		memcpy(r2 + 5, m + k, len - k);
		CU_ASSERT_EQUAL(shb_hello_from_records(r, n, out, sizeof(out)), len);
		CU_ASSERT(memcmp(out, m, len) == 0);
		/* an alert record instead is no ClientHello */
		r[0] = 21;
		CU_ASSERT_EQUAL(shb_hello_from_records(r, n, out, sizeof(out)), 0);
		/* and a cap too small for the message is refused */
		r[0] = 22;
		CU_ASSERT_EQUAL(shb_hello_from_records(r, n, out, len - 1), 0);
		free(r);
	}
	free(m);
}

static void test_keep_first(void)
{
	static struct shb_hello h;
	const char *ja3, *ja4;
	size_t l0, l1;
	uint8_t *m0 = message(&vecs[0], &l0), *m1 = message(&vecs[1], &l1);

	memset(&h, 0, sizeof(h));
	shb_hello_fingerprints(&h, &ja3, &ja4);
	CU_ASSERT_PTR_NULL(ja3);
	CU_ASSERT_PTR_NULL(ja4);
	shb_hello_keep(&h, m0, l0, 0);
	shb_hello_keep(&h, m1, l1, 0);
	shb_hello_fingerprints(&h, &ja3, &ja4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ja4);
	CU_ASSERT_STRING_EQUAL(ja4, "t13d1516h2_8daaf6152771_e5627efa2ab1");
	CU_ASSERT_STRING_EQUAL(ja3, "83d028d5b4366d9ac26e9ea6424d793e");

	/* one that does not parse gives no fingerprint */
	memset(&h, 0, sizeof(h));
	shb_hello_keep(&h, m0, l0 - 1, 1);
	shb_hello_fingerprints(&h, &ja3, &ja4);
	CU_ASSERT_PTR_NULL(ja3);
	CU_ASSERT_PTR_NULL(ja4);
	free(m0);
	free(m1);
}

static CU_TestInfo fp_tests[] = {
	{"published JA3 and JA4 of captured ClientHellos", test_published},
	{"FoxIO's example field by field, q for QUIC", test_example_fields},
	{"JA4 rules: empty lists, no sigalgs, ALPN chars", test_ja4_rules},
	{"every truncation refused", test_truncated},
	{"corrupted bytes stay in bounds", test_corrupt},
	{"every split over two records", test_record_split},
	{"the first ClientHello is kept", test_keep_first},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"core_tls_fp", suite_init, suite_clean, NULL, NULL, fp_tests},
	CU_SUITE_INFO_NULL,
};
