/* Redirects' Location resolution (cli/url_ref.h): the examples of RFC
 * 3986 section 5.4 (copied here, normal and abnormal), the splitting of
 * the result into a request's parts, and the bounds. */
#include <stdio.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/url_ref.h"

/* RFC 3986 section 5.4: "Within a representation with a well defined
 * base URI of http://a/b/c/d;p?q a relative reference is transformed to
 * its target URI as follows." */
static const char base[] = "http://a/b/c/d;p?q";

static const char *const normal[][2] = {
	{"g:h", "g:h"},
	{"g", "http://a/b/c/g"},
	{"./g", "http://a/b/c/g"},
	{"g/", "http://a/b/c/g/"},
	{"/g", "http://a/g"},
	{"//g", "http://g"},
	{"?y", "http://a/b/c/d;p?y"},
	{"g?y", "http://a/b/c/g?y"},
	{"#s", "http://a/b/c/d;p?q#s"},
	{"g#s", "http://a/b/c/g#s"},
	{"g?y#s", "http://a/b/c/g?y#s"},
	{";x", "http://a/b/c/;x"},
	{"g;x", "http://a/b/c/g;x"},
	{"g;x?y#s", "http://a/b/c/g;x?y#s"},
	{"", "http://a/b/c/d;p?q"},
	{".", "http://a/b/c/"},
	{"./", "http://a/b/c/"},
	{"..", "http://a/b/"},
	{"../", "http://a/b/"},
	{"../g", "http://a/b/g"},
	{"../..", "http://a/"},
	{"../../", "http://a/"},
	{"../../g", "http://a/g"},
};

/* Section 5.4.2, abnormal examples (strict parser: "http:g" is absolute). */
static const char *const abnormal[][2] = {
	{"../../../g", "http://a/g"},
	{"../../../../g", "http://a/g"},
	{"/./g", "http://a/g"},
	{"/../g", "http://a/g"},
	{"g.", "http://a/b/c/g."},
	{".g", "http://a/b/c/.g"},
	{"g..", "http://a/b/c/g.."},
	{"..g", "http://a/b/c/..g"},
	{"./../g", "http://a/b/g"},
	{"./g/.", "http://a/b/c/g/"},
	{"g/./h", "http://a/b/c/g/h"},
	{"g/../h", "http://a/b/c/h"},
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
	{"g;x=1/../y", "http://a/b/c/y"},
	{"g?y/./x", "http://a/b/c/g?y/./x"},
	{"g?y/../x", "http://a/b/c/g?y/../x"},
	{"g#s/./x", "http://a/b/c/g#s/./x"},
	{"g#s/../x", "http://a/b/c/g#s/../x"},
	{"http:g", "http:g"},
};

static void check_table(const char *const (*t)[2], size_t n)
{
	char out[256];
	for (size_t i = 0; i < n; i++) {
		long len = shb_url_ref_resolve(base, t[i][0], strlen(t[i][0]),
					       out, sizeof(out));
		CU_ASSERT_EQUAL(len, (long)strlen(t[i][1]));
		CU_ASSERT_STRING_EQUAL(out, t[i][1]);
		if (len < 0 || strcmp(out, t[i][1]) != 0)
			fprintf(stderr, "\n  \"%s\": got %s, want %s\n", t[i][0],
				len < 0 ? "-1" : out, t[i][1]);
	}
}

static void test_normal(void)
{
	check_table(normal, sizeof(normal) / sizeof(normal[0]));
}

static void test_abnormal(void)
{
	check_table(abnormal, sizeof(abnormal) / sizeof(abnormal[0]));
}

/* What redirects meet: a base without a path, whitespace around the
 * Location, bad bytes, no room. */
static void test_edges(void)
{
	char out[64];
	CU_ASSERT_EQUAL(shb_url_ref_resolve("http://h:8080", "x", 1, out,
					    sizeof(out)), 15);
	CU_ASSERT_STRING_EQUAL(out, "http://h:8080/x");
	CU_ASSERT_EQUAL(shb_url_ref_resolve("http://h/a/b", " /c ", 4, out,
					    sizeof(out)), 10);
	CU_ASSERT_STRING_EQUAL(out, "http://h/c");
	CU_ASSERT_EQUAL(shb_url_ref_resolve("http://h/", "/a b", 4, out,
					    sizeof(out)), -1);
	CU_ASSERT_EQUAL(shb_url_ref_resolve("http://h/", "/a\r", 3, out,
					    sizeof(out)), -1);
	CU_ASSERT_EQUAL(shb_url_ref_resolve("/no/scheme", "x", 1, out,
					    sizeof(out)), -1);
	/* The base is checked like the Location. */
	CU_ASSERT_EQUAL(shb_url_ref_resolve("http://h/\x12", "x", 1, out,
					    sizeof(out)), -1);
	/* 10 bytes and the NUL need 11. */
	CU_ASSERT_EQUAL(shb_url_ref_resolve("http://h/", "/c", 2, out, 10), -1);
	CU_ASSERT_EQUAL(shb_url_ref_resolve("http://h/", "/c", 2, out, 11), 10);
}

static void test_split(void)
{
	struct shb_url_parts p;
	CU_ASSERT_EQUAL_FATAL(shb_url_ref_split("https://u:pw@H.example:8443/a/b?x=1#frag", &p), 0);
	CU_ASSERT_EQUAL(p.scheme_len, 5);
	CU_ASSERT_NSTRING_EQUAL(p.scheme, "https", 5);
	CU_ASSERT_EQUAL(p.authority_len, 14);
	CU_ASSERT_NSTRING_EQUAL(p.authority, "H.example:8443", 14);
	CU_ASSERT_EQUAL(p.path_len, 8);
	CU_ASSERT_NSTRING_EQUAL(p.path, "/a/b?x=1", 8);
	CU_ASSERT_EQUAL_FATAL(shb_url_ref_split("http://h", &p), 0);
	CU_ASSERT_EQUAL(p.path_len, 0);
	CU_ASSERT_EQUAL(shb_url_ref_split("http:g", &p), -1);
	CU_ASSERT_EQUAL(shb_url_ref_split("//h/x", &p), -1);

	const char *h;
	size_t hl;
	unsigned port;
	CU_ASSERT_EQUAL(shb_url_ref_host_port("[::1]:8443", 10, &h, &hl, &port), 0);
	CU_ASSERT_EQUAL(hl, 3);
	CU_ASSERT_NSTRING_EQUAL(h, "::1", 3);
	CU_ASSERT_EQUAL(port, 8443);
	CU_ASSERT_EQUAL(shb_url_ref_host_port("h", 1, &h, &hl, &port), 0);
	CU_ASSERT_EQUAL(port, 0);
	CU_ASSERT_EQUAL(shb_url_ref_host_port("h:", 2, &h, &hl, &port), 0);
	CU_ASSERT_EQUAL(port, 0);
	CU_ASSERT_EQUAL(shb_url_ref_host_port("h:99999", 7, &h, &hl, &port), -1);
	CU_ASSERT_EQUAL(shb_url_ref_host_port("h:8x", 4, &h, &hl, &port), -1);
}

static CU_TestInfo url_ref_tests[] = {
	{"RFC 3986 5.4.1 normal examples", test_normal},
	{"RFC 3986 5.4.2 abnormal examples", test_abnormal},
	{"edges", test_edges},
	{"split and host:port", test_split},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"url_ref", NULL, NULL, NULL, NULL, url_ref_tests},
	CU_SUITE_INFO_NULL,
};
