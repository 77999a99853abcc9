/* --connect-to and --resolve: parsing (every error message), matching
 * with curl's meanings, and the address list a run connects to. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <CUnit/CUnit.h>

#include "cli/route.h"
#include "test_util.h"

static void addr_is(const struct shb_addr *a, const char *want)
{
	char got[64];
	shb_addr_text(a, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, want);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "\n  got %s, want %s\n", got, want);
}

static void test_connect_to_parse(void)
{
	struct shb_connect_to ct;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(shb_connect_to_parse("--connect-to",
		"api.example:443:127.0.0.1:8443", &ct, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(ct.host, "api.example");
	CU_ASSERT_EQUAL(ct.port, 443);
	CU_ASSERT_STRING_EQUAL(ct.to_host, "127.0.0.1");
	CU_ASSERT_EQUAL(ct.to_port, 8443);
	shb_connect_to_free(&ct);

	/* Empty parts: any host and port; the URL's host and port. */
	CU_ASSERT_EQUAL_FATAL(shb_connect_to_parse("--connect-to", ":::",
		&ct, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(ct.host, "");
	CU_ASSERT_EQUAL(ct.port, 0);
	CU_ASSERT_STRING_EQUAL(ct.to_host, "");
	CU_ASSERT_EQUAL(ct.to_port, 0);
	shb_connect_to_free(&ct);

	/* IPv6 literals in brackets on either side. */
	CU_ASSERT_EQUAL_FATAL(shb_connect_to_parse("--connect-to",
		"[2001:db8::1]:80:[::1]:", &ct, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(ct.host, "2001:db8::1");
	CU_ASSERT_EQUAL(ct.port, 80);
	CU_ASSERT_STRING_EQUAL(ct.to_host, "::1");
	CU_ASSERT_EQUAL(ct.to_port, 0);
	shb_connect_to_free(&ct);
}

static void expect_ct_error(const char *arg, const char *want)
{
	struct shb_connect_to ct;
	char err[256] = "";

	CU_ASSERT_EQUAL(shb_connect_to_parse("--connect-to", arg, &ct, err,
					     sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n  got: %s\n want: %s\n", err, want);
	CU_ASSERT_PTR_NULL(ct.host);
	CU_ASSERT_PTR_NULL(ct.to_host);
}

static void test_connect_to_errors(void)
{
	const char *syntax = "expected HOST:PORT:CONNECT-HOST:CONNECT-PORT "
			     "(empty parts: any host or port, or the URL's)";
	char want[256];

	snprintf(want, sizeof(want), "--connect-to \"a:1:b\": %s", syntax);
	expect_ct_error("a:1:b", want);
	snprintf(want, sizeof(want), "--connect-to \"a\": %s", syntax);
	expect_ct_error("a", want);
	snprintf(want, sizeof(want), "--connect-to \"\": %s", syntax);
	expect_ct_error("", want);
	snprintf(want, sizeof(want), "--connect-to \"a:1:b:2:3\": %s", syntax);
	expect_ct_error("a:1:b:2:3", want);
	expect_ct_error("a:0:b:2", "--connect-to \"a:0:b:2\": port \"0\" is "
				   "not a number from 1 to 65535");
	expect_ct_error("a:1:b:65536", "--connect-to \"a:1:b:65536\": port "
				       "\"65536\" is not a number from 1 to 65535");
	expect_ct_error("a:x1:b:2", "--connect-to \"a:x1:b:2\": port \"x1\" is "
				    "not a number from 1 to 65535");
	/* Control bytes in the part quoted again are escaped too, so the
	 * message stays one line (found by fuzzing the CLI). */
	expect_ct_error("a:1:b:8\n0", "--connect-to \"a:1:b:8\\x0a0\": port "
				      "\"8\\x0a0\" is not a number from 1 to 65535");
	expect_ct_error("a b:1:b:2", "--connect-to \"a b:1:b:2\": invalid "
				     "byte 0x20 in a host name");
	expect_ct_error("a:1:b/c:2", "--connect-to \"a:1:b/c:2\": invalid "
				     "character '/' in a host name");
	expect_ct_error("[::1:1:b:2", "--connect-to \"[::1:1:b:2\": "
				      "unterminated [IPv6] address");
	expect_ct_error("[::1]x:1:b:2", "--connect-to \"[::1]x:1:b:2\": "
					"unexpected characters after ']'");
	expect_ct_error("[]:1:b:2", "--connect-to \"[]:1:b:2\": invalid IPv6 "
				    "address \"\"");
	expect_ct_error("a:1:[zz]:2", "--connect-to \"a:1:[zz]:2\": invalid "
				      "IPv6 address \"zz\"");
	expect_ct_error("*:1:b:2", "--connect-to \"*:1:b:2\": a host cannot "
				   "hold '*' (leave it empty for any)");
	expect_ct_error("a\x01:1:b:2", "--connect-to \"a\\x01:1:b:2\": "
				       "invalid byte 0x01 in a host name");
	expect_ct_error("a\":1:b:2", "--connect-to \"a\\x22:1:b:2\": "
				      "invalid character '\"' in a host name");
}

static void test_resolve_parse(void)
{
	struct shb_resolve r;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(shb_resolve_parse("--resolve",
		"api.example:443:[::1],127.0.0.1,::2", &r, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(r.host, "api.example");
	CU_ASSERT_EQUAL(r.port, 443);
	CU_ASSERT_EQUAL_FATAL(r.count, 3);
	addr_is(&r.addrs[0], "[::1]:0");
	addr_is(&r.addrs[1], "127.0.0.1:0");
	addr_is(&r.addrs[2], "[::2]:0");
	CU_ASSERT_EQUAL(r.addrs[0].len, sizeof(struct sockaddr_in6));
	CU_ASSERT_EQUAL(r.addrs[1].len, sizeof(struct sockaddr_in));
	shb_resolve_free(&r);

	CU_ASSERT_EQUAL_FATAL(shb_resolve_parse("--resolve", "*:80:10.0.0.1",
		&r, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(r.host, "*");
	CU_ASSERT_EQUAL(r.count, 1);
	shb_resolve_free(&r);
}

static void expect_res_error(const char *arg, const char *want)
{
	struct shb_resolve r;
	char err[256] = "";

	CU_ASSERT_EQUAL(shb_resolve_parse("--resolve", arg, &r, err,
					  sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n  got: %s\n want: %s\n", err, want);
	CU_ASSERT_PTR_NULL(r.addrs);
	CU_ASSERT_EQUAL(r.count, 0);
}

static void test_resolve_errors(void)
{
	char many[512] = "a:1:", want[256];

	expect_res_error("a:1", "--resolve \"a:1\": expected "
				"HOST:PORT:ADDRESS[,ADDRESS]...");
	expect_res_error("a", "--resolve \"a\": expected "
			      "HOST:PORT:ADDRESS[,ADDRESS]...");
	expect_res_error(":1:127.0.0.1", "--resolve \":1:127.0.0.1\": expected "
				"HOST:PORT:ADDRESS[,ADDRESS]... (HOST a name, or * "
				"for any)");
	expect_res_error("a*:1:127.0.0.1", "--resolve \"a*:1:127.0.0.1\": "
				"expected HOST:PORT:ADDRESS[,ADDRESS]... (HOST a "
				"name, or * for any)");
	expect_res_error("a::127.0.0.1", "--resolve \"a::127.0.0.1\": port "
					 "\"\" is not a number from 1 to 65535");
	expect_res_error("a:99999:127.0.0.1", "--resolve \"a:99999:127.0.0.1\": "
				"port \"99999\" is not a number from 1 to 65535");
	expect_res_error("a:1:", "--resolve \"a:1:\": \"\" is not an IPv4 or "
				 "IPv6 address");
	expect_res_error("a:1:example.com", "--resolve \"a:1:example.com\": "
				"\"example.com\" is not an IPv4 or IPv6 address");
	expect_res_error("a:1:1\n2", "--resolve \"a:1:1\\x0a2\": \"1\\x0a2\" "
				      "is not an IPv4 or IPv6 address");
	expect_res_error("a:1:127.0.0.1,", "--resolve \"a:1:127.0.0.1,\": \"\" "
				"is not an IPv4 or IPv6 address");
	expect_res_error("a:1:127.1", "--resolve \"a:1:127.1\": \"127.1\" is "
				      "not an IPv4 or IPv6 address");
	expect_res_error("a:1:[::1", "--resolve \"a:1:[::1\": \"[::1\" is not "
				     "an IPv4 or IPv6 address");
	for (int i = 0; i < SHB_MAX_ADDRS + 1; i++)
		strcat(many, i ? ",127.0.0.1" : "127.0.0.1");
	snprintf(want, sizeof(want), "--resolve \"%.160s...\": more than %d "
		 "addresses", many, SHB_MAX_ADDRS);
	expect_res_error(many, want);
}

static void test_connect_to_match(void)
{
	struct shb_connect_to v[3];
	char err[256];
	const char *h;
	uint16_t p;

	CU_ASSERT_EQUAL_FATAL(shb_connect_to_parse("--connect-to",
		"other:443:x:1", &v[0], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_connect_to_parse("--connect-to",
		"API.example::10.0.0.2:", &v[1], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_connect_to_parse("--connect-to",
		":443::8443", &v[2], err, sizeof(err)), 0);
	/* Host without case, any port; the URL's port kept. */
	CU_ASSERT_PTR_EQUAL(shb_route_connect_to(v, 3, "api.example", 80, &h,
						 &p), &v[1]);
	CU_ASSERT_STRING_EQUAL(h, "10.0.0.2");
	CU_ASSERT_EQUAL(p, 80);
	/* The first match wins: v[1] before v[2]. */
	CU_ASSERT_PTR_EQUAL(shb_route_connect_to(v, 3, "api.example", 443,
						 &h, &p), &v[1]);
	/* Any host on 443: the host kept, the port changed. */
	CU_ASSERT_PTR_EQUAL(shb_route_connect_to(v, 3, "b.example", 443, &h,
						 &p), &v[2]);
	CU_ASSERT_STRING_EQUAL(h, "b.example");
	CU_ASSERT_EQUAL(p, 8443);
	/* No match: unchanged. */
	CU_ASSERT_PTR_NULL(shb_route_connect_to(v, 3, "b.example", 80, &h, &p));
	CU_ASSERT_STRING_EQUAL(h, "b.example");
	CU_ASSERT_EQUAL(p, 80);
	for (int i = 0; i < 3; i++)
		shb_connect_to_free(&v[i]);
}

static void test_resolve_match(void)
{
	struct shb_resolve v[3];
	char err[256];

	CU_ASSERT_EQUAL_FATAL(shb_resolve_parse("--resolve", "*:80:10.0.0.9",
		&v[0], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_resolve_parse("--resolve", "a.example:80:"
		"10.0.0.1", &v[1], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_resolve_parse("--resolve", "A.example:443:"
		"10.0.0.2", &v[2], err, sizeof(err)), 0);
	/* The last match wins, as in curl. */
	CU_ASSERT_PTR_EQUAL(shb_route_resolve(v, 3, "a.example", 80), &v[1]);
	CU_ASSERT_PTR_EQUAL(shb_route_resolve(v, 3, "a.example", 443), &v[2]);
	CU_ASSERT_PTR_EQUAL(shb_route_resolve(v, 3, "b.example", 80), &v[0]);
	CU_ASSERT_PTR_NULL(shb_route_resolve(v, 3, "b.example", 443));
	CU_ASSERT_PTR_NULL(shb_route_resolve(v, 3, "a.example", 8080));
	for (int i = 0; i < 3; i++)
		shb_resolve_free(&v[i]);
}

static void test_route_addrs(void)
{
	struct shb_connect_to ct;
	struct shb_resolve r;
	struct shb_addr out[SHB_MAX_ADDRS];
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(shb_connect_to_parse("--connect-to",
		"api.example:443:backend.test:8443", &ct, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_resolve_parse("--resolve",
		"backend.test:8443:[::1],127.0.0.2", &r, err, sizeof(err)), 0);
	struct shb_route_spec rs = {
		.host = "api.example", .port = 443, .family = AF_UNSPEC,
		.connect_to = &ct, .connect_to_count = 1,
		.resolve = &r, .resolve_count = 1,
	};
	/* --resolve applies to where --connect-to leads, in its order. */
	CU_ASSERT_EQUAL_FATAL(shb_route_addrs(&rs, out, err, sizeof(err)), 2);
	addr_is(&out[0], "[::1]:8443");
	addr_is(&out[1], "127.0.0.2:8443");
	rs.family = AF_INET;
	CU_ASSERT_EQUAL_FATAL(shb_route_addrs(&rs, out, err, sizeof(err)), 1);
	addr_is(&out[0], "127.0.0.2:8443");
	rs.family = AF_INET6;
	CU_ASSERT_EQUAL_FATAL(shb_route_addrs(&rs, out, err, sizeof(err)), 1);
	addr_is(&out[0], "[::1]:8443");

	/* Another port: neither entry applies; an IP literal as is. */
	rs.host = "127.0.0.1";
	rs.port = 80;
	rs.family = AF_UNSPEC;
	CU_ASSERT_EQUAL_FATAL(shb_route_addrs(&rs, out, err, sizeof(err)), 1);
	addr_is(&out[0], "127.0.0.1:80");
	rs.family = AF_INET6;
	CU_ASSERT_EQUAL(shb_route_addrs(&rs, out, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot resolve host \"127.0.0.1\": "
				       "no IPv6 (-6) address"));
	shb_connect_to_free(&ct);
	shb_resolve_free(&r);

	/* A --resolve with no address of the family asked for. */
	rs.host = "backend.test";
	rs.port = 8443;
	rs.connect_to_count = 0;
	CU_ASSERT_EQUAL(shb_resolve_parse("--resolve", "backend.test:8443:"
		"127.0.0.3", &r, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_route_addrs(&rs, out, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--resolve backend.test:8443 gives no IPv6 "
				    "(-6) address");
	shb_resolve_free(&r);
}

static void test_route_lookup(void)
{
	struct shb_addr out[SHB_MAX_ADDRS];
	char err[256] = "";
	struct shb_route_spec rs = {.host = "localhost", .port = 9,
				    .family = AF_INET};

	/* getaddrinfo for names; -4 keeps IPv4 only. */
	int n = shb_route_addrs(&rs, out, err, sizeof(err));
	CU_ASSERT_TRUE_FATAL(n >= 1);
	for (int i = 0; i < n; i++)
		CU_ASSERT_EQUAL(out[i].ss.ss_family, AF_INET);
	addr_is(&out[0], "127.0.0.1:9");
	/* An IPv6 literal as it is. */
	rs.host = "::1";
	rs.port = 443;
	rs.family = AF_UNSPEC;
	CU_ASSERT_EQUAL_FATAL(shb_route_addrs(&rs, out, err, sizeof(err)), 1);
	addr_is(&out[0], "[::1]:443");
	CU_ASSERT_EQUAL(out[0].len, sizeof(struct sockaddr_in6));
	/* .invalid never resolves (RFC 6761). */
	rs.host = "no-such-host.invalid";
	rs.family = AF_UNSPEC;
	CU_ASSERT_EQUAL(shb_route_addrs(&rs, out, err, sizeof(err)), -1);
	static const char want[] = "cannot resolve host "
				   "\"no-such-host.invalid\": ";
	CU_ASSERT_EQUAL(strncmp(err, want, sizeof(want) - 1), 0);
	CU_ASSERT(strlen(err) > sizeof(want) - 1);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
}

CU_TestInfo shb_route_tests[] = {
	{"--connect-to parsing", test_connect_to_parse},
	{"--connect-to errors", test_connect_to_errors},
	{"--resolve parsing", test_resolve_parse},
	{"--resolve errors", test_resolve_errors},
	{"--connect-to matching", test_connect_to_match},
	{"--resolve matching", test_resolve_match},
	{"address list", test_route_addrs},
	{"address lookup", test_route_lookup},
	CU_TEST_INFO_NULL,
};
