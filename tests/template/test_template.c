/* Request templates (core/cli/template.c): every parse error message, exact
 * expansions, the scratch bound, line files and body lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "cli/template.h"

static char dir[256];
static char path_buf[320];

/* A file in the test's directory with exactly `len` bytes of `data`. */
static const char *file_with(const char *name, const char *data, size_t len)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", dir, name);
	FILE *f = fopen(path_buf, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
	fclose(f);
	return path_buf;
}

static int suite_init(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/shb-template-XXXXXX",
		 base && *base ? base : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int suite_clean(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct hdrs {
	const char *names[4];
	const char *values[4];
	size_t n;
};

static struct shb_tmpl *compile(const char *path, const struct hdrs *h,
				const char *body, const char *lines, char *err,
				size_t errlen)
{
	struct shb_tmpl_src src = {
		.path = path,
		.header_names = h ? h->names : NULL,
		.header_values = h ? h->values : NULL,
		.header_count = h ? h->n : 0,
		.body = (const uint8_t *)body,
		.body_len = body ? strlen(body) : 0,
		.body_lines = lines,
	};
	return shb_tmpl_compile(&src, err, errlen);
}

/* The path compiles to an error with exactly `want`. */
static void path_error(const char *path, const char *want)
{
	char err[512] = "x";
	struct shb_tmpl *t = compile(path, NULL, NULL, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NULL(t);
	shb_tmpl_free(t);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\n got: %s\nwant: %s\n", err, want);
}

static void test_plain(void)
{
	char err[256] = "x";
	struct hdrs h = {{"Accept"}, {"*/*"}, 1};
	CU_ASSERT_PTR_NULL(compile("/a/{b}/}}{", &h, "x={}", NULL, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "");
}

static void test_errors(void)
{
	path_error("/x/{{sek}}",
		   "template in the URL: unknown placeholder \"{{sek}}\" at "
		   "offset 3 (known: seq, worker, conn, rand:N, uuid, "
		   "line:FILE; \\{{ for a literal {{)");
	path_error("/x/{{}}",
		   "template in the URL: unknown placeholder \"{{}}\" at "
		   "offset 3 (known: seq, worker, conn, rand:N, uuid, "
		   "line:FILE; \\{{ for a literal {{)");
	path_error("/{{ seq}}",
		   "template in the URL: unknown placeholder \"{{ seq}}\" at "
		   "offset 1 (known: seq, worker, conn, rand:N, uuid, "
		   "line:FILE; \\{{ for a literal {{)");
	path_error("/x/{{seq",
		   "template in the URL: unterminated \"{{\" at offset 3 (no "
		   "\"}}\" after it; \\{{ for a literal {{)");
	path_error("/{{seq}}/{{uuid",
		   "template in the URL: unterminated \"{{\" at offset 9 (no "
		   "\"}}\" after it; \\{{ for a literal {{)");
	static const char *const bad_n[] = {
		"rand:0", "rand:", "rand:x", "rand:-1", "rand:1e3", "rand: 5",
		"rand:9223372036854775809", "rand:99999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad_n) / sizeof(bad_n[0]); i++) {
		char path[64], want[200];
		snprintf(path, sizeof(path), "/r/{{%s}}", bad_n[i]);
		snprintf(want, sizeof(want), "template in the URL: bad N in "
			 "\"{{%s}}\" at offset 3 (a whole number from 1 to "
			 "2^63)", bad_n[i]);
		path_error(path, want);
	}
	path_error("/{{line:}}",
		   "template in the URL: \"{{line:}}\" at offset 1 needs a "
		   "file name");
}

static void test_header_and_body_errors(void)
{
	char err[512];
	struct hdrs h = {{"Accept", "X-Id"}, {"*/*", "id-{{nope}}"}, 2};
	CU_ASSERT_PTR_NULL(compile("/", &h, NULL, NULL, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "template in header \"X-Id\": unknown "
			       "placeholder \"{{nope}}\" at offset 3 (known: seq, "
			       "worker, conn, rand:N, uuid, line:FILE; \\{{ for "
			       "a literal {{)");
	CU_ASSERT_PTR_NULL(compile("/", NULL, "a={{seq}}&b={{worker", NULL, err,
				   sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "template in the body: unterminated \"{{\" "
			       "at offset 12 (no \"}}\" after it; \\{{ for a "
			       "literal {{)");
	const char *f = file_with("one", "x\n", 2);
	char lines[320];
	snprintf(lines, sizeof(lines), "%s", f);
	CU_ASSERT_PTR_NULL(compile("/", NULL, "a", lines, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "--body-lines and -d/--data-binary: give "
			       "one of them");
}

/* Every way a line file is refused, with the file's name in the line. */
static void test_file_errors(void)
{
	char path[400], want[600], err[600];

	snprintf(path, sizeof(path), "/{{line:%s/missing}}", dir);
	snprintf(want, sizeof(want), "template in the URL: cannot open "
		 "\"%s/missing\": No such file or directory", dir);
	path_error(path, want);

	file_with("empty", "", 0);
	snprintf(path, sizeof(path), "/{{line:%s/empty}}", dir);
	snprintf(want, sizeof(want), "template in the URL: \"%s/empty\" is "
		 "empty", dir);
	path_error(path, want);

	file_with("crlf", "a\r\nb\r\n", 6);
	snprintf(path, sizeof(path), "/{{line:%s/crlf}}", dir);
	snprintf(want, sizeof(want), "template in the URL: \"%s/crlf\" line 1 "
		 "has a CR byte (convert CRLF line ends to LF)", dir);
	path_error(path, want);

	file_with("nul", "a\nb\nc\0d\n", 8);
	snprintf(path, sizeof(path), "/{{line:%s/nul}}", dir);
	snprintf(want, sizeof(want), "template in the URL: \"%s/nul\" line 3 "
		 "has a NUL byte", dir);
	path_error(path, want);

	file_with("space", "ok\nfine\nnot ok\n", 15);
	snprintf(path, sizeof(path), "/{{line:%s/space}}", dir);
	snprintf(want, sizeof(want), "template in the URL: \"%s/space\" line 3 "
		 "has a space, control or non-ASCII byte, which a URL cannot "
		 "carry (percent-encode it)", dir);
	path_error(path, want);

	/* The same file is fine in a header value and in the body ... */
	char hv[400];
	snprintf(hv, sizeof(hv), "{{line:%s/space}}", dir);
	struct hdrs h = {{"X-Line"}, {hv}, 1};
	struct shb_tmpl *t = compile("/", &h, NULL, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(t);
	shb_tmpl_free(t);
	/* ... but a control byte is not, in a header value. */
	file_with("ctl", "a\nb\x01" "c\n", 6);
	snprintf(hv, sizeof(hv), "{{line:%s/ctl}}", dir);
	h.values[0] = hv;
	CU_ASSERT_PTR_NULL(compile("/", &h, NULL, NULL, err, sizeof(err)));
	snprintf(want, sizeof(want), "template in header \"X-Line\": \"%s/ctl\" "
		 "line 2 has a control byte, which a header value cannot carry",
		 dir);
	CU_ASSERT_STRING_EQUAL(err, want);

	/* --body-lines names itself. */
	snprintf(path, sizeof(path), "%s/empty", dir);
	CU_ASSERT_PTR_NULL(compile("/", NULL, NULL, path, err, sizeof(err)));
	snprintf(want, sizeof(want), "--body-lines: \"%s/empty\" is empty", dir);
	CU_ASSERT_STRING_EQUAL(err, want);
}

/* One byte over the cap is refused, before the split (a sparse file). */
static void test_file_too_big(void)
{
	char path[400], want[600], f[320];
	snprintf(f, sizeof(f), "%s/big", dir);
	FILE *fp = fopen(f, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(ftruncate(fileno(fp), (off_t)(64 << 20) + 1), 0);
	fclose(fp);
	snprintf(path, sizeof(path), "/{{line:%s}}", f);
	snprintf(want, sizeof(want), "template in the URL: \"%s\" is larger "
		 "than 64 MiB", f);
	path_error(path, want);
	unlink(f);
}

/* The URL path and the header values together are bounded. */
static void test_head_bound(void)
{
	size_t n = 40000;
	char *data = malloc(n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	memset(data, 'a', n);
	data[n] = '\n';
	const char *f = file_with("long", data, n + 1);
	char p[400], want[200], err[512];
	snprintf(p, sizeof(p), "/{{line:%s}}", f);
	struct hdrs h = {{"X-Long"}, {p + 1}, 1};
	CU_ASSERT_PTR_NULL(compile(p, &h, NULL, NULL, err, sizeof(err)));
	snprintf(want, sizeof(want), "templates: the URL path and header values "
		 "may expand to %zu bytes, more than 64 KiB", 1 + 2 * n);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* Alone, one of them fits. */
	struct shb_tmpl *t = compile(p, NULL, NULL, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(t);
	CU_ASSERT_EQUAL(shb_tmpl_scratch_size(t), 1 + n);
	shb_tmpl_free(t);
	free(data);
}

/* ---- expansion ---------------------------------------------------------------- */

struct expanded {
	struct shb_tmpl *t;
	uint8_t *scratch;
	struct shb_var_header hv[4];
	struct shb_request_var var;
	struct shb_tmpl_rng rng;
};

static void setup(struct expanded *e, struct shb_tmpl *t)
{
	uint8_t seed[32];
	for (int i = 0; i < 32; i++)
		seed[i] = (uint8_t)(i * 37 + 1);
	memset(e, 0, sizeof(*e));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	e->t = t;
	e->scratch = malloc(shb_tmpl_scratch_size(t) + 1);
	CU_ASSERT_FATAL(shb_tmpl_var_headers(t) <= 4);
	shb_tmpl_rng_seed(&e->rng, seed);
}

static void expand(struct expanded *e, uint64_t seq, uint32_t worker,
		   uint32_t conn)
{
	struct shb_tmpl_ctx ctx = {seq, worker, conn, &e->rng};
	shb_tmpl_expand(e->t, &ctx, e->scratch, e->hv, &e->var);
}

static void done(struct expanded *e)
{
	free(e->scratch);
	shb_tmpl_free(e->t);
}

static int span_is(const char *p, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(p, want, n) == 0;
}

static void test_expand_numbers(void)
{
	char err[256];
	struct expanded e;
	setup(&e, compile("/a/{{seq}}/{{worker}}-{{conn}}?q=\\{{seq}}&z=}}",
			  NULL, NULL, NULL, err, sizeof(err)));
	CU_ASSERT_EQUAL(shb_tmpl_scratch_size(e.t),
			strlen("/a/") + 20 + 1 + 10 + 1 + 10 +
				strlen("?q={{seq}}&z=}}"));
	expand(&e, 42, 3, 7);
	CU_ASSERT_EQUAL(e.var.struct_size, sizeof(e.var));
	CU_ASSERT_EQUAL(e.var.flags, SHB_VAR_PATH);
	CU_ASSERT(span_is(e.var.path, e.var.path_len, "/a/42/3-7?q={{seq}}&z=}}"));
	CU_ASSERT_EQUAL(e.var.header_count, 0);
	CU_ASSERT_PTR_NULL(e.var.body);
	expand(&e, UINT64_MAX, 4294967295u, 0);
	CU_ASSERT(span_is(e.var.path, e.var.path_len,
			  "/a/18446744073709551615/4294967295-0?q={{seq}}&z=}}"));
	done(&e);
}

static void test_expand_escape_only(void)
{
	char err[256];
	struct expanded e;
	/* An escape alone makes the string vary: it must be unescaped. */
	setup(&e, compile("/\\{{x}}\\", NULL, NULL, NULL, err, sizeof(err)));
	expand(&e, 0, 0, 0);
	CU_ASSERT(span_is(e.var.path, e.var.path_len, "/{{x}}\\"));
	done(&e);
}

static void test_expand_rand(void)
{
	char err[256];
	struct expanded e;
	unsigned count[10] = {0};
	setup(&e, compile("/{{rand:10}}/{{rand:1}}/{{rand:1000}}", NULL, NULL,
			  NULL, err, sizeof(err)));
	CU_ASSERT_EQUAL(shb_tmpl_scratch_size(e.t), 1 + 1 + 1 + 1 + 1 + 3);
	for (int i = 0; i < 10000; i++) {
		expand(&e, (uint64_t)i, 0, 0);
		const char *p = e.var.path;
		CU_ASSERT_FATAL(e.var.path_len >= 6 && p[0] == '/' && p[2] == '/' &&
				p[3] == '0' && p[4] == '/');
		count[p[1] - '0']++;
		size_t k = e.var.path_len - 5;
		CU_ASSERT(k >= 1 && k <= 3);
		CU_ASSERT(k == 1 || p[5] != '0'); /* no leading zeros */
	}
	for (int d = 0; d < 10; d++)
		CU_ASSERT(count[d] > 850 && count[d] < 1150);
	done(&e);
}

static void test_expand_uuid(void)
{
	char err[256], first[37];
	struct expanded e;
	struct hdrs h = {{"X-Request-Id"}, {"{{uuid}}"}, 1};
	setup(&e, compile("/", &h, NULL, NULL, err, sizeof(err)));
	for (int i = 0; i < 200; i++) {
		expand(&e, (uint64_t)i, 0, 0);
		CU_ASSERT_EQUAL_FATAL(e.var.header_count, 1);
		const char *u = e.hv[0].value;
		CU_ASSERT_EQUAL_FATAL(e.hv[0].value_len, 36);
		for (int k = 0; k < 36; k++) {
			int dash = k == 8 || k == 13 || k == 18 || k == 23;
			CU_ASSERT(dash ? u[k] == '-'
				       : strchr("0123456789abcdef", u[k]) != NULL);
		}
		CU_ASSERT_EQUAL(u[14], '4');
		CU_ASSERT(strchr("89ab", u[19]) != NULL);
		if (i == 0) {
			memcpy(first, u, 36);
		} else {
			CU_ASSERT(memcmp(first, u, 36) != 0);
		}
	}
	done(&e);
}

static void test_expand_lines(void)
{
	char err[256], p[400];
	struct expanded e;
	const char *f = file_with("paths", "a\nbb\n\nccc", 9);
	snprintf(p, sizeof(p), "/{{line:%s}}", f);
	setup(&e, compile(p, NULL, NULL, NULL, err, sizeof(err)));
	CU_ASSERT_EQUAL(shb_tmpl_scratch_size(e.t), 1 + 3);
	static const char *const want[] = {"/a", "/bb", "/", "/ccc", "/a", "/bb"};
	for (uint64_t s = 0; s < 6; s++) {
		expand(&e, s, 0, 0);
		CU_ASSERT(span_is(e.var.path, e.var.path_len, want[s]));
	}
	done(&e);
}

static void test_expand_headers_body(void)
{
	char err[256];
	struct expanded e;
	struct hdrs h = {{"X-A", "X-B", "X-C"}, {"plain", "{{seq}}", "w{{worker}}c{{conn}}"}, 3};
	setup(&e, compile("/same", &h, "id={{seq}}&x=\\{{y}}", NULL, err,
			  sizeof(err)));
	CU_ASSERT_TRUE(shb_tmpl_has_body(e.t));
	CU_ASSERT_EQUAL(shb_tmpl_var_headers(e.t), 2);
	expand(&e, 5, 1, 9);
	CU_ASSERT_EQUAL(e.var.flags, SHB_VAR_HEADERS | SHB_VAR_BODY);
	CU_ASSERT_PTR_NULL(e.var.path);
	CU_ASSERT_EQUAL(e.var.header_count, 2);
	CU_ASSERT_PTR_EQUAL(e.var.headers, e.hv);
	CU_ASSERT_EQUAL(e.hv[0].index, 1);
	CU_ASSERT(span_is(e.hv[0].value, e.hv[0].value_len, "5"));
	CU_ASSERT_EQUAL(e.hv[1].index, 2);
	CU_ASSERT(span_is(e.hv[1].value, e.hv[1].value_len, "w1c9"));
	CU_ASSERT(span_is((const char *)e.var.body, e.var.body_len, "id=5&x={{y}}"));
	done(&e);
}

static void test_body_lines(void)
{
	char err[256], f[320];
	struct expanded e;
	snprintf(f, sizeof(f), "%s", file_with("bodies", "{\"a\":1}\n\nb=2\n", 13));
	/* Body lines are bodies as they are: no placeholders in them. */
	setup(&e, compile("/", NULL, NULL, f, err, sizeof(err)));
	CU_ASSERT_EQUAL(shb_tmpl_scratch_size(e.t), 0);
	static const char *const want[] = {"{\"a\":1}", "", "b=2", "{\"a\":1}"};
	for (uint64_t s = 0; s < 4; s++) {
		expand(&e, s, 0, 0);
		CU_ASSERT_EQUAL(e.var.flags, SHB_VAR_BODY);
		CU_ASSERT_PTR_NOT_NULL(e.var.body);
		CU_ASSERT(span_is((const char *)e.var.body, e.var.body_len, want[s]));
	}
	done(&e);
}

/* Three files (the table of files grows while they load): each keeps
 * its lines, and a file named twice is read once and gives one line per
 * request. */
static void test_several_files(void)
{
	char err[512], a[320], b[320], c[320], p[700], hv[400];
	struct expanded e;
	snprintf(a, sizeof(a), "%s", file_with("fa", "a0\na1\n", 6));
	snprintf(b, sizeof(b), "%s", file_with("fb", "b0\nb1\nb2\n", 9));
	snprintf(c, sizeof(c), "%s", file_with("fc", "c0\nc1\nc2\nc3\n", 12));
	snprintf(p, sizeof(p), "/{{line:%s}}/{{line:%s}}", a, a);
	snprintf(hv, sizeof(hv), "{{line:%s}}", b);
	struct hdrs h = {{"X-B"}, {hv}, 1};
	setup(&e, compile(p, &h, NULL, c, err, sizeof(err)));
	for (uint64_t s = 0; s < 12; s++) {
		char want[32];
		expand(&e, s, 0, 0);
		snprintf(want, sizeof(want), "/a%u/a%u", (unsigned)(s % 2),
			 (unsigned)(s % 2));
		CU_ASSERT(span_is(e.var.path, e.var.path_len, want));
		snprintf(want, sizeof(want), "b%u", (unsigned)(s % 3));
		CU_ASSERT(span_is(e.hv[0].value, e.hv[0].value_len, want));
		snprintf(want, sizeof(want), "c%u", (unsigned)(s % 4));
		CU_ASSERT(span_is((const char *)e.var.body, e.var.body_len, want));
	}
	done(&e);
}

static CU_TestInfo template_tests[] = {
	{"several line files", test_several_files},
	{"plain strings do not vary", test_plain},
	{"URL parse errors", test_errors},
	{"header and body errors", test_header_and_body_errors},
	{"line file errors", test_file_errors},
	{"line file too big", test_file_too_big},
	{"head expansion bound", test_head_bound},
	{"seq, worker, conn, escapes", test_expand_numbers},
	{"an escape alone", test_expand_escape_only},
	{"rand:N range and spread", test_expand_rand},
	{"uuid v4 format", test_expand_uuid},
	{"line:FILE cycles", test_expand_lines},
	{"headers and body", test_expand_headers_body},
	{"--body-lines", test_body_lines},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"template", suite_init, suite_clean, NULL, NULL, template_tests},
	CU_SUITE_INFO_NULL,
};
