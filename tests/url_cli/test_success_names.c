/* ABI 1.4 on the command line: --success's outcome names (parsed, then
 * resolved against a protocol's outcome spaces, every refusal's exact
 * line), membership, the default statuses beside names, and the request
 * model's refusals of HTTP options (proto_request.h) with their exact
 * lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "cli/success.h"
#include "cli/typed.h"
#include "loader/proto_request.h"

#define RED (SHB_APPSPACE_PRIVATE + 7u)
#define RESP (SHB_APPSPACE_PRIVATE + 8u)

static const struct shb_outcome_code red_codes[] = {
	{0, "ok", 1, 0}, {1, "nil", 1, 0}, {2, "error", 0, 0}, {0, NULL, 0, 0},
};
static const struct shb_outcome_code resp_codes[] = {
	{5, "ok", 1, 0}, {6, "moved", 0, 0}, {0, NULL, 0, 0},
};
static const struct shb_outcome_space two[] = {
	{RED, 0, "redis", red_codes}, {RESP, 0, "resp", resp_codes},
	{0, 0, NULL, NULL},
};

/* Parses then resolves `list` for protocol "p" (http or not). */
static int both(const char *list, struct shb_success *s, int http, char *err,
		size_t errlen)
{
	if (shb_success_parse(list, s, err, errlen) < 0)
		return -1;
	return shb_success_resolve(s, two, http, "p", err, errlen);
}

static void test_names(void)
{
	struct shb_success s;
	char err[512] = "";

	CU_ASSERT_EQUAL_FATAL(both("nil,redis.error,resp.ok", &s, 0, err,
				   sizeof(err)), 0);
	CU_ASSERT_TRUE(s.given);
	CU_ASSERT_FALSE(s.statuses);
	CU_ASSERT_EQUAL(s.names, 3);
	CU_ASSERT_STRING_EQUAL(shb_success_text(&s), "nil,redis.error,resp.ok");
	CU_ASSERT_EQUAL_FATAL(s.outcome_count, 3);
	CU_ASSERT_TRUE(shb_success_named(&s, RED, 1));
	CU_ASSERT_TRUE(shb_success_named(&s, RED, 2));
	CU_ASSERT_TRUE(shb_success_named(&s, RESP, 5));
	CU_ASSERT_FALSE(shb_success_named(&s, RED, 0));
	CU_ASSERT_FALSE(shb_success_named(&s, RESP, 6));
	CU_ASSERT_FALSE(shb_success_named(&s, RESP, 1));
	/* names only: a status is judged by the default set */
	CU_ASSERT_TRUE(shb_success_ok(&s, 200));
	CU_ASSERT_TRUE(shb_success_ok(&s, 304));
	CU_ASSERT_FALSE(shb_success_ok(&s, 404));

	/* a name twice is kept once; statuses beside names (HTTP only) */
	CU_ASSERT_EQUAL_FATAL(both("nil,2xx,redis.nil", &s, 1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.outcome_count, 1);
	CU_ASSERT_TRUE(s.statuses);
	CU_ASSERT_TRUE(shb_success_ok(&s, 204));
	CU_ASSERT_FALSE(shb_success_ok(&s, 304));

	/* statuses alone for an HTTP protocol: nothing to resolve */
	CU_ASSERT_EQUAL(both("2xx", &s, 1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.outcome_count, 0);
	/* an outcome as messages name it */
	char t[16];
	shb_success_outcome_text(two, RESP, 6, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, "resp.moved");
	shb_success_outcome_text(two, RESP, 9, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, "65544:9");
	shb_success_outcome_text(NULL, RED, 1, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, "65543:1");
	shb_success_outcome_text(two, RED, 2, t, 8);
	CU_ASSERT_STRING_EQUAL(t, "redis.e");
	/* any: every status, and replies with an outcome by app_ok */
	CU_ASSERT_EQUAL(both("any", &s, 0, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.outcome_count, 0);
	CU_ASSERT_STRING_EQUAL(shb_success_text(&s), "any");
}

static void test_name_errors(void)
{
	struct shb_success s;
	char err[512] = "";

	CU_ASSERT_EQUAL(both("ok", &s, 0, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--success: \"ok\" names an outcome in more "
			       "than one space of protocol \"p\": write SPACE.ok "
			       "(redis.ok, ...)");
	CU_ASSERT_EQUAL(both("nil,nope", &s, 0, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--success: \"nope\" is not an outcome of "
			       "protocol \"p\" (its outcomes: redis.ok, nil, "
			       "error, resp.ok, moved)");
	CU_ASSERT_EQUAL(both("resp.nil", &s, 0, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--success: \"resp.nil\" is not an outcome of "
			       "protocol \"p\" (its outcomes: redis.ok, nil, "
			       "error, resp.ok, moved)");
	CU_ASSERT_EQUAL(both("nil,404", &s, 0, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--success: \"404\" is an HTTP status; "
			       "protocol \"p\" takes no HTTP request (its "
			       "outcomes: redis.ok, nil, error, resp.ok, moved)");
	/* a protocol without outcome names */
	CU_ASSERT_EQUAL_FATAL(shb_success_parse("2xx,ok", &s, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_success_resolve(&s, NULL, 1, "h1", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--success: \"ok\" is not a status (304, "
			       "200-299, 2xx), and protocol \"h1\" names no "
			       "outcomes");
	/* bounds: 32 names, 255 bytes */
	char list[400] = "a";
	for (int i = 1; i < 33; i++)
		strcat(list, ",a");
	CU_ASSERT_EQUAL(shb_success_parse(list, &s, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "more than 32 outcome names in"));
	memset(list, 'a', 300);
	list[300] = '\0';
	list[40] = ',';
	list[100] = ',';
	list[160] = ',';
	list[220] = ',';
	list[280] = ',';
	CU_ASSERT_EQUAL(shb_success_parse(list, &s, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "a list of outcome names is at most "
				      "255 bytes"));
}

static struct shb_proto_desc none_desc(void)
{
	struct shb_proto_desc d;
	memset(&d, 0, sizeof(d));
	d.struct_size = sizeof(d);
	d.name = "line14";
	d.request_model = SHB_REQMODEL_NONE;
	d.outcome_spaces = two;
	return d;
}

static void test_request_model(void)
{
	struct shb_proto_desc d = none_desc();
	struct shb_config cfg;
	struct shb_url url;
	struct shb_proto_request r;
	char err[512] = "";
	memset(&cfg, 0, sizeof(cfg));
	memset(&url, 0, sizeof(url));
	url.path = (char *)"/\\{{seq}}"; /* an escaped brace: no template */
	CU_ASSERT_EQUAL(shb_proto_request_settle(&cfg, &url, &d, &r, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(r.request_model, SHB_REQMODEL_NONE);
	CU_ASSERT_PTR_EQUAL(r.outcome_spaces, two);
	CU_ASSERT_EQUAL(r.outcome_space_count, 2);
	CU_ASSERT_STRING_EQUAL(shb_run_method(&r, &cfg), "");
	/* No --success: the protocol's own successes, not 1xx-3xx; "ok" is
	 * in both spaces, so qualified; "nil" is not. */
	CU_ASSERT_STRING_EQUAL(shb_success_text(&r.success),
			       "redis.ok,nil,resp.ok");
	CU_ASSERT_EQUAL(r.success.outcome_count, 0);

	CU_ASSERT_EQUAL(shb_typed_note(&cfg.typed, "--header", "A: b"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&cfg.typed, "-d", "x"), 0);
	CU_ASSERT_EQUAL(shb_proto_request_settle(&cfg, &url, &d, &r, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--header is an HTTP option; protocol "
			       "\"line14\" takes no HTTP request (its requests "
			       "come from --proto-opt)");
	shb_typed_free(&cfg.typed);
	url.path = (char *)"/a{{rand:5}}";
	CU_ASSERT_EQUAL(shb_proto_request_settle(&cfg, &url, &d, &r, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "template in the URL \"/a{{rand:5}}\": "
			       "templates make HTTP requests vary; protocol "
			       "\"line14\" takes no HTTP request (its requests "
			       "come from --proto-opt)");
	/* the same command line for an HTTP protocol (1.3: no model) */
	d.struct_size = (uint32_t)offsetof(struct shb_proto_desc, request_model);
	CU_ASSERT_EQUAL(shb_typed_note(&cfg.typed, "-m", "PUT"), 0);
	cfg.method = (char *)"PUT";
	CU_ASSERT_EQUAL(shb_proto_request_settle(&cfg, &url, &d, &r, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(r.request_model, SHB_REQMODEL_HTTP);
	CU_ASSERT_PTR_NULL(r.outcome_spaces);
	CU_ASSERT_EQUAL(r.outcome_space_count, 0);
	CU_ASSERT_STRING_EQUAL(shb_run_method(&r, &cfg), "PUT");
	CU_ASSERT_STRING_EQUAL(shb_success_text(&r.success), "1xx-3xx");
	shb_typed_free(&cfg.typed);
}

static void test_typed(void)
{
	struct shb_typed t;
	memset(&t, 0, sizeof(t));
	CU_ASSERT_EQUAL(shb_typed_note(&t, "--connect-to", "a:1:b:2"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&t, "--priority", "u=1"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&t, "-X", "PUT"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&t, "--resolve", "h:1:127.0.0.1"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&t, "--connect-to", "::c:3"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&t, "--source", "127.0.0.2"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&t, "-c", "5"), 0);
	CU_ASSERT_STRING_EQUAL(t.http_opt, "--priority"); /* the first */
	CU_ASSERT_EQUAL_FATAL(t.connect_to_count, 2);
	CU_ASSERT_STRING_EQUAL(t.connect_to[0], "a:1:b:2");
	CU_ASSERT_STRING_EQUAL(t.connect_to[1], "::c:3");
	CU_ASSERT_EQUAL_FATAL(t.resolve_count, 1);
	CU_ASSERT_STRING_EQUAL(t.resolve[0], "h:1:127.0.0.1");
	CU_ASSERT_STRING_EQUAL(t.source, "127.0.0.2");
	char *k = strdup("http://127.0.0.1:3128");
	CU_ASSERT_EQUAL(shb_typed_keep(&t, k), 0);
	CU_ASSERT_EQUAL(t.kept_count, 1);
	shb_typed_free(&t);
	CU_ASSERT_EQUAL(t.connect_to_count, 0);
	CU_ASSERT_PTR_NULL(t.source);
}

static CU_TestInfo names_tests[] = {
	{"--success outcome names", test_names},
	{"--success name errors", test_name_errors},
	{"request model NONE refusals", test_request_model},
	{"options as typed", test_typed},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"success names", NULL, NULL, NULL, NULL, names_tests},
	CU_SUITE_INFO_NULL,
};
