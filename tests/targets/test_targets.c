/* Several targets in one run (core/cli/targets.c): the --urls line syntax and
 * every error message, the file reader's errors with file:line, --mix
 * weights, and the smooth weighted round-robin's exact counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "cli/targets.h"

static int parse(const char *line, struct shb_target_arg *t, char *err,
		 size_t errlen)
{
	return shb_urls_parse_line(line, strlen(line), t, err, errlen);
}

static void free_arg(struct shb_target_arg *t)
{
	free(t->label);
	free(t->url_text);
	free(t->method);
	free(t->body_file);
	free(t->body);
}

static void test_line_good(void)
{
	struct shb_target_arg t;
	char err[256] = "";

	CU_ASSERT_EQUAL(parse("", &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(parse(" \t ", &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(parse("# a comment http://x/ 5", &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(parse("   # indented comment", &t, err, sizeof(err)), 0);

	CU_ASSERT_EQUAL_FATAL(parse("http://a/x?q=1", &t, err, sizeof(err)), 1);
	CU_ASSERT_PTR_NULL(t.label);
	CU_ASSERT_STRING_EQUAL(t.url_text, "http://a/x?q=1");
	CU_ASSERT_EQUAL(t.weight, 1);
	CU_ASSERT_PTR_NULL(t.method);
	CU_ASSERT_PTR_NULL(t.body_file);
	free_arg(&t);

	CU_ASSERT_EQUAL_FATAL(parse("  api=http://a:81/v1\t 7  POST body.json\r",
				    &t, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(t.label, "api");
	CU_ASSERT_STRING_EQUAL(t.url_text, "http://a:81/v1");
	CU_ASSERT_EQUAL(t.weight, 7);
	CU_ASSERT_STRING_EQUAL(t.method, "POST");
	CU_ASSERT_STRING_EQUAL(t.body_file, "body.json");
	free_arg(&t);

	/* The second field is the method when it is not all digits. */
	CU_ASSERT_EQUAL_FATAL(parse("http://a/ DELETE", &t, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(t.weight, 1);
	CU_ASSERT_STRING_EQUAL(t.method, "DELETE");
	free_arg(&t);
	CU_ASSERT_EQUAL_FATAL(parse("http://a/ PUT b.bin", &t, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(t.method, "PUT");
	CU_ASSERT_STRING_EQUAL(t.body_file, "b.bin");
	free_arg(&t);
	CU_ASSERT_EQUAL_FATAL(parse("http://a/ 1000000", &t, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(t.weight, 1000000);
	free_arg(&t);
	CU_ASSERT_STRING_EQUAL(err, "");
}

static void expect_line_error(const char *line, const char *want)
{
	struct shb_target_arg t;
	char err[256] = "";
	CU_ASSERT_EQUAL(parse(line, &t, err, sizeof(err)), -1);
	if (strcmp(err, want) != 0)
		printf("\n  line: %s\n  want: %s\n  got:  %s\n", line, want, err);
	CU_ASSERT_STRING_EQUAL(err, want);
}

static void test_line_errors(void)
{
	expect_line_error("http://a/\x01", "control character 0x01 at column 10");
	expect_line_error("http://a/ 1 GET f extra",
			  "too many fields (at most [LABEL=]URL WEIGHT METHOD BODY-FILE)");
	expect_line_error("http://a/ GET f extra",
			  "\"extra\" after the body file: a URL or file name "
			  "cannot hold blanks");
	expect_line_error("http://a/ 0", "weight 0: must be 1..1000000");
	expect_line_error("http://a/ 1000001", "weight 1000001: must be 1..1000000");
	expect_line_error("http://a/ 99999999", "weight 99999999: must be 1..1000000");
	expect_line_error("http://a/ GE(T", "method \"GE(T\": letters, digits "
			  "and !#$%&'*+-.^_`|~ only");
	expect_line_error("=http://a/", "\"=http://a/\": the label before '=' is "
			  "empty (give label=URL, or the URL alone)");
	expect_line_error("a/b=x", "invalid URL \"a/b=x\": missing scheme "
			  "(expected http:// or https://)");
	expect_line_error("l=", "\"l=\": no URL after the label");
	expect_line_error("a:b=http://x/ 2", "invalid URL \"a:b=http://x/\": "
			  "missing scheme (expected http:// or https://)");
	expect_line_error("bad label=http://x/", "invalid URL \"bad\": missing "
			  "scheme (expected http:// or https://)");
	/* a line longer than the file reader lets through: its first field
	 * once overran an 8193-byte copy on the stack */
	static char long_line[SHB_URLS_LINE_MAX + 2];
	memcpy(long_line, "http://a/", 9);
	memset(long_line + 9, 'x', sizeof(long_line) - 10);
	expect_line_error(long_line, "line longer than 8192 bytes");
	long_line[SHB_URLS_LINE_MAX] = '\0'; /* 8192: the longest taken */
	struct shb_target_arg t;
	char err[256] = "";
	CU_ASSERT_EQUAL(parse(long_line, &t, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(strlen(t.url_text), SHB_URLS_LINE_MAX);
	free_arg(&t);
}

/* ---- files ------------------------------------------------------------------- */

static char dir[64];

static int suite_init(void)
{
	strcpy(dir, "/tmp/shb-targets-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int suite_clean(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *write_file(const char *name, const char *text, size_t len)
{
	static char path[2][128];
	static int k;
	char *p = path[k++ % 2];
	snprintf(p, 128, "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
	fclose(f);
	return p;
}

static void load_cfg(struct shb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
}

static void test_file_good(void)
{
	struct shb_config cfg;
	char err[512] = "", text[256];
	const char *body = write_file("b.json", "{\"a\":1}", 7);
	int n = snprintf(text, sizeof(text),
			 "# three targets\n\nhttp://a/1 1\nb=http://b/2 2 POST %s\n"
			 "  http://a/3\t7\n# end", body);
	const char *path = write_file("good.txt", text, (size_t)n);

	load_cfg(&cfg);
	CU_ASSERT_EQUAL_FATAL(shb_urls_load(&cfg, path, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL_FATAL(cfg.target_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.targets[0].url_text, "http://a/1");
	CU_ASSERT_EQUAL(cfg.targets[0].line, 3);
	CU_ASSERT_STRING_EQUAL(cfg.targets[1].label, "b");
	CU_ASSERT_EQUAL(cfg.targets[1].weight, 2);
	CU_ASSERT_EQUAL(cfg.targets[1].line, 4);
	CU_ASSERT_EQUAL_FATAL(cfg.targets[1].body_len, 7);
	CU_ASSERT_EQUAL(memcmp(cfg.targets[1].body, "{\"a\":1}", 7), 0);
	CU_ASSERT_EQUAL(cfg.targets[2].weight, 7);
	CU_ASSERT_EQUAL(cfg.targets[2].line, 5);
	shb_config_free(&cfg);
}

static void expect_file_error(const char *name, const char *text, size_t len,
			      const char *want_fmt)
{
	struct shb_config cfg;
	char err[512] = "", want[512];
	const char *path = write_file(name, text, len);
	/* Every caller's format is a literal naming the path once or twice. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(want, sizeof(want), want_fmt, path, path);
#pragma GCC diagnostic pop
	load_cfg(&cfg);
	CU_ASSERT_EQUAL(shb_urls_load(&cfg, path, err, sizeof(err)), -1);
	if (strcmp(err, want) != 0)
		printf("\n  want: %s\n  got:  %s\n", want, err);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_config_free(&cfg);
}

static void test_file_errors(void)
{
	struct shb_config cfg;
	char err[512] = "", want[512];

	expect_file_error("l3.txt", "http://a/\n# c\nhttp://b/ x=y z w q\n", 34,
			  "%s:3: too many fields (at most [LABEL=]URL WEIGHT "
			  "METHOD BODY-FILE)");
	expect_file_error("w.txt", "http://a/ 0\n", 12,
			  "%s:1: weight 0: must be 1..1000000");
	expect_file_error("nul.txt", "http://a/\nhttp://b/\0\n", 21,
			  "%s:2: NUL byte in the line");
	expect_file_error("empty.txt", "# nothing\n\n   \n", 15,
			  "--urls %s: no target in the file (only blank or "
			  "comment lines)");
	expect_file_error("nobody.txt", "http://a/ POST /nonexistent/b\n", 30,
			  "%s:1: body file /nonexistent/b: No such file or directory");

	char *big = malloc(SHB_URLS_LINE_MAX + 16);
	memset(big, 'a', SHB_URLS_LINE_MAX + 1);
	memcpy(big, "http://a/", 9);
	big[SHB_URLS_LINE_MAX + 1] = '\n';
	expect_file_error("long.txt", big, SHB_URLS_LINE_MAX + 2,
			  "%s:1: line longer than 8192 bytes");
	free(big);

	char many[SHB_TARGETS_MAX * 16 + 32];
	size_t n = 0;
	for (int i = 0; i <= SHB_TARGETS_MAX; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "http://a/%d\n", i);
	expect_file_error("many.txt", many, n, "%s:65: more than 64 targets");

	size_t huge = SHB_URLS_FILE_MAX + 1;
	char *h = malloc(huge);
	memset(h, '\n', huge);
	expect_file_error("huge.txt", h, huge,
			  "--urls %s: cannot read: larger than the limit of 1 MiB");
	free(h);

	load_cfg(&cfg);
	snprintf(want, sizeof(want), "--urls %s/none.txt: cannot read: No such "
		 "file or directory", dir);
	char path[128];
	snprintf(path, sizeof(path), "%s/none.txt", dir);
	CU_ASSERT_EQUAL(shb_urls_load(&cfg, path, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	snprintf(want, sizeof(want), "--urls %s: cannot read: is a directory", dir);
	CU_ASSERT_EQUAL(shb_urls_load(&cfg, dir, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_config_free(&cfg);
}

/* ---- the command line ------------------------------------------------------------ */

static int cli(struct shb_config *cfg, char *err, size_t errlen,
	       const char *const *args)
{
	char *argv[16];
	int argc = 0;
	argv[argc++] = (char *)"shb";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	return shb_cli_parse(argc, argv, cfg, err, errlen);
}

#define CLI(cfg, err, ...) cli((cfg), (err), sizeof(err), \
			       (const char *const[]){__VA_ARGS__, NULL})

static void test_cli_mix(void)
{
	struct shb_config cfg;
	char err[512] = "";

	CU_ASSERT_EQUAL_FATAL(CLI(&cfg, err, "--mix", "a=http://a/x@3",
				  "http://b/@y@2", "http://c/q@x"), 0);
	CU_ASSERT_EQUAL(cfg.mix, 1);
	CU_ASSERT_EQUAL_FATAL(cfg.target_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.targets[0].url_text, "http://a/x");
	CU_ASSERT_EQUAL(cfg.targets[0].weight, 3);
	CU_ASSERT_STRING_EQUAL(cfg.targets[1].url_text, "http://b/@y");
	CU_ASSERT_EQUAL(cfg.targets[1].weight, 2);
	CU_ASSERT_STRING_EQUAL(cfg.targets[2].url_text, "http://c/q@x");
	CU_ASSERT_EQUAL(cfg.targets[2].weight, 1);
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "http://a/x");
	shb_config_free(&cfg);

	/* Without --mix, '@' is part of the URL (a comparison). */
	CU_ASSERT_EQUAL_FATAL(CLI(&cfg, err, "http://a/x@3", "http://b/"), 0);
	CU_ASSERT_EQUAL(cfg.mix, 0);
	CU_ASSERT_STRING_EQUAL(cfg.targets[0].url_text, "http://a/x@3");
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL(CLI(&cfg, err, "--mix", "http://a/@0"), -1);
	CU_ASSERT_STRING_EQUAL(err, "\"http://a/@0\": the weight after '@' must "
			       "be 1..1000000");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL(CLI(&cfg, err, "http://a/@12345678", "--mix"), -1);
	CU_ASSERT_STRING_EQUAL(err, "\"http://a/@12345678\": the weight after '@' "
			       "must be 1..1000000");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL(CLI(&cfg, err, "--mix", "http://a/@600000",
			    "http://b/@400001"), -1);
	CU_ASSERT_STRING_EQUAL(err, "--mix: the weights add up to 1000001, at "
			       "most 1000000");
	shb_config_free(&cfg);

	const char *path = write_file("cli.txt", "http://a/ 2\nhttp://b/ 3\n", 24);
	CU_ASSERT_EQUAL_FATAL(CLI(&cfg, err, "--urls", path), 0);
	CU_ASSERT_EQUAL(cfg.mix, 1);
	CU_ASSERT_EQUAL(cfg.target_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "http://a/");
	shb_config_free(&cfg);
	char want[512];
	snprintf(want, sizeof(want), "--urls %s gives the targets: no URL on the "
		 "command line as well (\"http://c/\")", path);
	CU_ASSERT_EQUAL(CLI(&cfg, err, "--urls", path, "http://c/"), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_config_free(&cfg);
}

/* ---- the picker ------------------------------------------------------------------ */

/* The first `count` picks of the unbounded sequence after `off`, counted
 * by walking them. */
static void walk(const uint32_t *w, uint32_t n, uint64_t off, uint64_t count,
		 uint64_t *out)
{
	int64_t cur[SHB_TARGETS_MAX] = {0};
	struct shb_swrr s = {n, w, cur, NULL};
	memset(out, 0, n * sizeof(*out));
	for (uint64_t k = 0; k < off; k++)
		shb_swrr_next(&s);
	for (uint64_t k = 0; k < count; k++)
		out[shb_swrr_next(&s)]++;
}

static void test_swrr_sequence(void)
{
	static const uint32_t w[3] = {1, 2, 7};
	int64_t cur[3] = {0};
	struct shb_swrr s = {3, w, cur, NULL};
	/* nginx's smooth sequence for 1:2:7: the heavy one spread out. */
	static const int want[10] = {2, 1, 2, 2, 0, 2, 2, 1, 2, 2};
	for (int k = 0; k < 20; k++)
		CU_ASSERT_EQUAL(shb_swrr_next(&s), want[k % 10]);
}

static void test_swrr_counts_exact(void)
{
	static const uint32_t ws[][4] = {{1, 2, 7, 0}, {1, 1, 0, 0}, {3, 5, 0, 0},
					 {1000, 1, 1, 998}, {1, 0, 0, 0}};
	static const uint32_t ns[] = {3, 2, 2, 4, 1};
	uint64_t got[4], brute[4];

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (uint64_t off = 0; off < 25; off += 6)
			for (uint64_t n = 0; n < 2100; n += 37) {
				shb_swrr_counts(ws[i], ns[i], off, n, got);
				walk(ws[i], ns[i], off, n, brute);
				uint64_t sum = 0;
				for (uint32_t t = 0; t < ns[i]; t++) {
					CU_ASSERT_EQUAL(got[t], brute[t]);
					sum += got[t];
				}
				CU_ASSERT_EQUAL(sum, n);
			}
	/* -n 1000 over 1:2:7 is 100, 200 and 700 exactly. */
	shb_swrr_counts(ws[0], 3, 0, 1000, got);
	CU_ASSERT_EQUAL(got[0], 100);
	CU_ASSERT_EQUAL(got[1], 200);
	CU_ASSERT_EQUAL(got[2], 700);
	/* -n 1003: the 3 extra follow the sequence (2, 1, 2). */
	shb_swrr_counts(ws[0], 3, 0, 1003, got);
	CU_ASSERT_EQUAL(got[0], 100);
	CU_ASSERT_EQUAL(got[1], 201);
	CU_ASSERT_EQUAL(got[2], 702);
	/* A large count costs no more than two periods. */
	shb_swrr_counts(ws[0], 3, 7, 10000000000007ull, got);
	walk(ws[0], 3, 7, 7, brute);
	CU_ASSERT_EQUAL(got[0] + got[1] + got[2], 10000000000007ull);
	for (int t = 0; t < 3; t++)
		CU_ASSERT_EQUAL(got[t], 1000000000000ull * ws[0][t] + brute[t]);
}

/* Shards take consecutive parts of the sequence: together they count
 * exactly what one process does. */
static void test_swrr_shards(void)
{
	static const uint32_t w[3] = {1, 2, 7};
	for (uint64_t n = 1; n < 300; n += 13)
		for (uint32_t shards = 1; shards <= 7; shards++) {
			uint64_t one[3], sum[3] = {0}, off = 0;
			shb_swrr_counts(w, 3, 0, n, one);
			for (uint32_t i = 0; i < shards; i++) {
				uint64_t part = n / shards + (i < n % shards), c[3];
				shb_swrr_counts(w, 3, off, part, c);
				for (int t = 0; t < 3; t++)
					sum[t] += c[t];
				off += part;
			}
			for (int t = 0; t < 3; t++)
				CU_ASSERT_EQUAL(sum[t], one[t]);
		}
}

static void test_swrr_bounded(void)
{
	static const uint32_t w[3] = {1, 2, 7};
	int64_t cur[3] = {0};
	uint64_t left[3] = {5, 0, 3}, got[3] = {0};
	struct shb_swrr s = {3, w, cur, left};
	for (int k = 0; k < 8; k++) {
		int t = shb_swrr_next(&s);
		CU_ASSERT_FATAL(t >= 0 && t < 3);
		got[t]++;
	}
	CU_ASSERT_EQUAL(shb_swrr_next(&s), -1);
	CU_ASSERT_EQUAL(got[0], 5);
	CU_ASSERT_EQUAL(got[1], 0);
	CU_ASSERT_EQUAL(got[2], 3);
	/* Given back, it is picked again. */
	left[1] = 1;
	CU_ASSERT_EQUAL(shb_swrr_next(&s), 1);
	CU_ASSERT_EQUAL(shb_swrr_next(&s), -1);
}

static void test_splits(void)
{
	for (uint64_t total = 0; total < 50; total++)
		for (uint32_t k = 1; k <= 6; k++)
			for (uint32_t j = 0; j < 4; j++) {
				uint64_t sum = 0;
				for (uint32_t i = 0; i < 8; i++) {
					uint64_t s = shb_split_share(total, k, i, j);
					if (i >= k)
						CU_ASSERT_EQUAL(s, 0);
					CU_ASSERT(s == total / k || s == total / k + 1 || i >= k);
					sum += s;
				}
				CU_ASSERT_EQUAL(sum, total);
			}
	uint32_t out[3];
	static const uint64_t w[3] = {1, 2, 7};
	shb_split_weighted(10, w, 3, out);
	CU_ASSERT(out[0] == 1 && out[1] == 2 && out[2] == 7);
	shb_split_weighted(3, w, 3, out);
	CU_ASSERT(out[0] == 1 && out[1] == 1 && out[2] == 1);
	shb_split_weighted(50, w, 3, out);
	CU_ASSERT_EQUAL(out[0] + out[1] + out[2], 50);
	CU_ASSERT(out[0] == 5 && out[1] == 10 && out[2] == 35);
	static const uint64_t e[2] = {1, 1};
	shb_split_weighted(5, e, 2, out);
	CU_ASSERT(out[0] == 3 && out[1] == 2);
}

static CU_TestInfo line_tests[] = {
	{"good lines", test_line_good},
	{"every line error", test_line_errors},
	CU_TEST_INFO_NULL,
};

static CU_TestInfo file_tests[] = {
	{"a good file", test_file_good},
	{"every file error, with file:line", test_file_errors},
	{"--mix and --urls on the command line", test_cli_mix},
	CU_TEST_INFO_NULL,
};

static CU_TestInfo swrr_tests[] = {
	{"the smooth sequence", test_swrr_sequence},
	{"counts equal the walked sequence", test_swrr_counts_exact},
	{"shards add up to one process", test_swrr_shards},
	{"bounded picks are exact", test_swrr_bounded},
	{"splits over workers and origins", test_splits},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"urls line", NULL, NULL, NULL, NULL, line_tests},
	{"urls file", suite_init, suite_clean, NULL, NULL, file_tests},
	{"weighted picker", NULL, NULL, NULL, NULL, swrr_tests},
	CU_SUITE_INFO_NULL,
};
