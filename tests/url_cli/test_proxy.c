/* Forward proxies and priorities: proxy URL parsing (every error
 * message), --noproxy matching, the proxy picked from the environment
 * with curl's rules, the CONNECT request's bytes, the bounded reading of
 * the proxy's answer, and --priority's syntax. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "cli/priority.h"
#include "engine/proxy.h"

static void test_proxy_parse(void)
{
	struct shb_proxy p;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(shb_proxy_parse("--proxy", "http://127.0.0.1:3128",
					      &p, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p.host, "127.0.0.1");
	CU_ASSERT_EQUAL(p.port, 3128);
	CU_ASSERT_PTR_NULL(p.auth);
	shb_proxy_free(&p);
	/* No scheme, no port: http and curl's 1080; a trailing slash. */
	CU_ASSERT_EQUAL_FATAL(shb_proxy_parse("--proxy", "proxy.example/", &p,
					      err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p.host, "proxy.example");
	CU_ASSERT_EQUAL(p.port, 1080);
	shb_proxy_free(&p);
	/* IPv6 in brackets; credentials percent-decoded, then Basic
	 * (RFC 7617): "Aladdin:open sesame". */
	CU_ASSERT_EQUAL_FATAL(shb_proxy_parse("--proxy",
		"HTTP://Aladdin:open%20sesame@[::1]:8080", &p, err,
		sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p.host, "::1");
	CU_ASSERT_EQUAL(p.port, 8080);
	CU_ASSERT_STRING_EQUAL(p.auth, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
	shb_proxy_free(&p);
	/* A user alone: an empty password; '@' in the password decoded. */
	CU_ASSERT_EQUAL_FATAL(shb_proxy_parse("--proxy", "u@h:1", &p, err,
					      sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p.auth, "Basic dTo=");
	shb_proxy_free(&p);
	CU_ASSERT_EQUAL_FATAL(shb_proxy_parse("--proxy", "a:b%40c@h:1", &p,
					      err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p.auth, "Basic YTpiQGM=");
	shb_proxy_free(&p);
}

static void expect_proxy_error(const char *arg, const char *want)
{
	struct shb_proxy p;
	char err[256] = "";

	CU_ASSERT_EQUAL(shb_proxy_parse("--proxy", arg, &p, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n  %s:\n  got  %s\n  want %s\n", arg, err, want);
	CU_ASSERT_PTR_NULL(p.host);
	CU_ASSERT_PTR_NULL(p.auth);
}

static void test_proxy_errors(void)
{
	expect_proxy_error("https://p:1", "--proxy \"https://p:1\": a proxy "
			   "reached over TLS (https://) is not supported: use http://");
	expect_proxy_error("socks5://p:1", "--proxy \"socks5://p:1\": scheme "
			   "\"socks5\" is not supported (only http:// proxies)");
	expect_proxy_error("http://p:1/x", "--proxy \"http://p:1/x\": a proxy "
			   "URL has no path: give http://HOST:PORT");
	expect_proxy_error("http://:1", "--proxy \"http://:1\": no proxy host");
	expect_proxy_error("http://p:0", "--proxy \"http://p:0\": port \"0\" "
			   "is not a number from 1 to 65535");
	expect_proxy_error("http://p:65536", "--proxy \"http://p:65536\": port "
			   "\"65536\" is not a number from 1 to 65535");
	expect_proxy_error("http://p:", "--proxy \"http://p:\": port \"\" is "
			   "not a number from 1 to 65535");
	expect_proxy_error("http://[::1", "--proxy \"http://[::1\": "
			   "unterminated [IPv6] address");
	expect_proxy_error("http://[::g]:1", "--proxy \"http://[::g]:1\": "
			   "invalid IPv6 address \"::g\"");
	expect_proxy_error("http://[::1]x", "--proxy \"http://[::1]x\": "
			   "unexpected characters after the host");
	expect_proxy_error("http://p q:1", "--proxy \"http://p q:1\": "
			   "invalid character in the proxy host");
	expect_proxy_error("http://u:%4@p:1", "--proxy \"http://u:%4@p:1\": "
			   "bad %-escape in the user name or password");
}

static void test_noproxy(void)
{
	CU_ASSERT_TRUE(shb_noproxy_match("*", "anything.example"));
	CU_ASSERT_TRUE(shb_noproxy_match("example.com", "example.com"));
	CU_ASSERT_TRUE(shb_noproxy_match("example.com", "www.EXAMPLE.com"));
	CU_ASSERT_TRUE(shb_noproxy_match(".example.com", "example.com"));
	CU_ASSERT_TRUE(shb_noproxy_match(" a.test , example.com", "x.example.com"));
	CU_ASSERT_TRUE(shb_noproxy_match("localhost,127.0.0.1", "127.0.0.1"));
	CU_ASSERT_TRUE(shb_noproxy_match("[::1]", "::1"));
	CU_ASSERT_FALSE(shb_noproxy_match("example.com", "badexample.com"));
	CU_ASSERT_FALSE(shb_noproxy_match("www.example.com", "example.com"));
	CU_ASSERT_FALSE(shb_noproxy_match("127.0.0.1", "127.0.0.10"));
	CU_ASSERT_FALSE(shb_noproxy_match("", "example.com"));
	CU_ASSERT_FALSE(shb_noproxy_match(",, ,", "example.com"));
	/* "*" only alone: not a wildcard inside a name. */
	CU_ASSERT_FALSE(shb_noproxy_match("*.example.com", "a.example.com"));
}

static void clear_env(void)
{
	static const char *const v[] = {"http_proxy", "HTTP_PROXY",
		"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
		"no_proxy", "NO_PROXY", NULL};
	for (const char *const *p = v; *p; p++)
		unsetenv(*p);
}

/* pick(given, noproxy, host, tls) -> "host:port via SOURCE", or "direct". */
static const char *pick(const char *given, const char *noproxy,
			const char *host, int tls)
{
	static char out[320];
	struct shb_proxy p;
	char err[256];
	int r = shb_proxy_pick(given, noproxy, host, tls, &p, err, sizeof(err));
	if (r < 0)
		snprintf(out, sizeof(out), "error: %s", err);
	else if (r == 0)
		snprintf(out, sizeof(out), "direct");
	else
		snprintf(out, sizeof(out), "%s:%u via %s", p.host,
			 (unsigned)p.port, p.source);
	if (r > 0)
		shb_proxy_free(&p);
	return out;
}

static void test_proxy_pick(void)
{
	clear_env();
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 1), "direct");
	CU_ASSERT_STRING_EQUAL(pick("p:1", NULL, "h", 0), "p:1 via --proxy");
	setenv("HTTPS_PROXY", "upper:2", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 1), "upper:2 via HTTPS_PROXY");
	setenv("https_proxy", "lower:3", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 1), "lower:3 via https_proxy");
	/* --proxy wins; "" turns every variable off. */
	CU_ASSERT_STRING_EQUAL(pick("p:1", NULL, "h", 1), "p:1 via --proxy");
	CU_ASSERT_STRING_EQUAL(pick("", NULL, "h", 1), "direct");
	/* Plain http: http_proxy only in lower case, as curl. */
	setenv("HTTP_PROXY", "upper:4", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 0), "direct");
	setenv("all_proxy", "all:5", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 0), "all:5 via all_proxy");
	setenv("http_proxy", "lower:6", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 0), "lower:6 via http_proxy");
	/* NO_PROXY, and --noproxy over it (also for --proxy, as in curl). */
	setenv("NO_PROXY", "h, other", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 0), "direct");
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "x.other", 1), "direct");
	CU_ASSERT_STRING_EQUAL(pick(NULL, "", "h", 0), "lower:6 via http_proxy");
	CU_ASSERT_STRING_EQUAL(pick("p:1", "*", "h", 0), "direct");
	setenv("no_proxy", "nothing", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 0), "lower:6 via http_proxy");
	/* A bad variable names itself. */
	setenv("https_proxy", "ftp://x", 1);
	CU_ASSERT_STRING_EQUAL(pick(NULL, NULL, "h", 1), "error: https_proxy "
			       "\"ftp://x\": scheme \"ftp\" is not supported "
			       "(only http:// proxies) (--noproxy '*' connects "
			       "directly)");
	clear_env();
}

static void test_connect_request(void)
{
	struct shb_proxy p;
	char err[128], *req;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(shb_proxy_parse("--proxy", "p:1", &p, err,
					      sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_proxy_connect_request(&p, "example.com", 443,
							&req, &len), 0);
	static const char want[] = "CONNECT example.com:443 HTTP/1.1\r\n"
				   "Host: example.com:443\r\n\r\n";
	CU_ASSERT_EQUAL(len, sizeof(want) - 1);
	CU_ASSERT_STRING_EQUAL(req, want);
	free(req);
	shb_proxy_free(&p);
	CU_ASSERT_EQUAL_FATAL(shb_proxy_parse("--proxy", "u:pw@p:1", &p, err,
					      sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_proxy_connect_request(&p, "::1", 8443,
							&req, &len), 0);
	static const char want6[] = "CONNECT [::1]:8443 HTTP/1.1\r\n"
				    "Host: [::1]:8443\r\n"
				    "Proxy-Authorization: Basic dTpwdw==\r\n\r\n";
	CU_ASSERT_EQUAL(len, sizeof(want6) - 1);
	CU_ASSERT_STRING_EQUAL(req, want6);
	free(req);
	shb_proxy_free(&p);
}

static long head(const char *s, unsigned *status, char *err, size_t errlen)
{
	return shb_proxy_read_head((const uint8_t *)s, strlen(s), status, err,
				   errlen);
}

static void test_read_head(void)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n"
				 "Via: x\r\n\r\nTUNNEL";
	unsigned st = 0;
	char err[256] = "";

	/* Every prefix of the head needs more; the whole one is found at
	 * every split, the tunnel's bytes after it left alone. */
	for (size_t n = 0; n < sizeof(ok) - 1 - 6; n++)
		CU_ASSERT_EQUAL(shb_proxy_read_head((const uint8_t *)ok, n, &st,
						    err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(head(ok, &st, err, sizeof(err)),
			(long)(sizeof(ok) - 1 - 6));
	CU_ASSERT_EQUAL(st, 200);
	/* Bare LF, and an interim 100 skipped. */
	CU_ASSERT_EQUAL(head("HTTP/1.0 204 x\n\n", &st, err, sizeof(err)), 16);
	CU_ASSERT_EQUAL(st, 204);
	CU_ASSERT_EQUAL(head("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 407 Auth\r\n\r\n",
			     &st, err, sizeof(err)), 46);
	CU_ASSERT_EQUAL(st, 407);
	CU_ASSERT_EQUAL(head("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2", &st,
			     err, sizeof(err)), 0);
	/* Not HTTP/1.x, a malformed status line. */
	CU_ASSERT_EQUAL(head("SSH-2.0-OpenSSH\r\n", &st, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "proxy: not an HTTP/1.x answer to CONNECT "
			       "(\"SSH-2.0-OpenSSH\\x0d\\x0a\")");
	CU_ASSERT_EQUAL(head("HTTP/1.1 2000 x\r\n\r\n", &st, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "proxy: malformed status line in the "
			       "answer to CONNECT");
	/* The cap: a head that never ends. */
	size_t n = SHB_PROXY_HEAD_MAX + 10;
	char *big = malloc(n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, 'a', n);
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
	big[n] = '\0';
	CU_ASSERT_EQUAL(shb_proxy_read_head((const uint8_t *)big,
					    SHB_PROXY_HEAD_MAX - 1, &st, err,
					    sizeof(err)), 0);
	CU_ASSERT_EQUAL(head(big, &st, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "proxy: answer to CONNECT longer than 16384 "
			       "bytes without the end of its head");
	free(big);
}

static void prio_ok(const char *s)
{
	char err[256] = "";
	CU_ASSERT_EQUAL(shb_priority_check("--priority", s, err, sizeof(err)), 0);
	if (err[0])
		fprintf(stderr, "\n  %s: %s\n", s, err);
}

static void prio_err(const char *s, const char *want)
{
	char err[256] = "";
	CU_ASSERT_EQUAL(shb_priority_check("--priority", s, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n  %s:\n  got  %s\n  want %s\n", s, err, want);
}

static void test_priority(void)
{
	prio_ok("u=0");
	prio_ok("u=7");
	prio_ok("i");
	prio_ok("u=1, i");
	prio_ok("i,u=3");
	prio_ok(" u=2 ,\ti=?0 ");
	prio_ok("i=?1");
	static const char syn[] = "expected u=N (0..7) and/or i, separated by "
				  "a comma, as in \"u=1, i\"";
	char want[256];
	snprintf(want, sizeof(want), "--priority \"\": %s", syn);
	prio_err("", want);
	prio_err("u=8", "--priority \"u=8\": the urgency u must be 0 to 7");
	prio_err("u=10", "--priority \"u=10\": the urgency u must be 0 to 7");
	prio_err("u=-1", "--priority \"u=-1\": the urgency u must be 0 to 7");
	prio_err("u=", "--priority \"u=\": the urgency u must be 0 to 7");
	prio_err("u=1, u=2", "--priority \"u=1, u=2\": u given twice");
	prio_err("i, i", "--priority \"i, i\": i given twice");
	prio_err("i=1", "--priority \"i=1\": i is a boolean: i, i=?1 or i=?0");
	prio_err("i=?2", "--priority \"i=?2\": i is a boolean: i, i=?1 or i=?0");
	prio_err("u=1,", "--priority \"u=1,\": trailing comma");
	snprintf(want, sizeof(want), "--priority \"urgency=1\": %s", syn);
	prio_err("urgency=1", want);
	snprintf(want, sizeof(want), "--priority \"U=1\": %s", syn);
	prio_err("U=1", want);
	snprintf(want, sizeof(want), "--priority \"u=1;a\": %s", syn);
	prio_err("u=1;a", want);
	snprintf(want, sizeof(want), "--priority \"u=1 i\": %s", syn);
	prio_err("u=1 i", want);
	snprintf(want, sizeof(want), "--priority \"ix\": %s", syn);
	prio_err("ix", want);
}

/* parse(argv...) -> 0 / -1 with err; cfg freed by the caller. The
 * parser gets writable copies. */
static int parse(struct shb_config *cfg, char *err, size_t errlen, int argc,
		 const char *const *args)
{
	char *argv[16];
	int rc;

	CU_ASSERT_FATAL(argc < 16);
	for (int i = 0; i < argc; i++)
		argv[i] = strdup(args[i]);
	argv[argc] = NULL;
	rc = shb_cli_parse(argc, argv, cfg, err, errlen);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

static void test_priority_cli(void)
{
	struct shb_config cfg;
	char err[256] = "";
	const char *ok[] = {"shb", "-H", "X-A: 1", "--priority", "u=1, i",
		      "http://h/", NULL};

	/* The header goes out as typed, after the -H headers before it. */
	CU_ASSERT_EQUAL_FATAL(parse(&cfg, err, sizeof(err), 6, ok), 0);
	CU_ASSERT_STRING_EQUAL(cfg.priority, "u=1, i");
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].name, "Priority");
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].value, "u=1, i");
	shb_config_free(&cfg);

	const char *both[] = {"shb", "--priority", "u=1", "-H", "priority: u=2",
			"http://h/", NULL};
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 6, both), -1);
	CU_ASSERT_STRING_EQUAL(err, "--priority and -H 'Priority: ...' cannot "
			       "be combined: give one");
	shb_config_free(&cfg);

	const char *twice[] = {"shb", "--priority", "u=1", "--priority=i",
			 "http://h/", NULL};
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 5, twice), -1);
	CU_ASSERT_STRING_EQUAL(err, "--priority given twice");
	shb_config_free(&cfg);

	const char *bad[] = {"shb", "--priority=u=9", "http://h/", NULL};
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 3, bad), -1);
	CU_ASSERT_STRING_EQUAL(err, "--priority \"u=9\": the urgency u must "
			       "be 0 to 7");
	shb_config_free(&cfg);

	/* -H Priority alone stays allowed (any value: the user's own). */
	const char *own[] = {"shb", "-H", "Priority: u=1, x=2", "http://h/", NULL};
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 4, own), 0);
	shb_config_free(&cfg);
}

static void test_route_cli(void)
{
	struct shb_config cfg;
	char err[256] = "";
	char path[200];

	const char *ok[] = {"shb", "--unix-socket", "/run/x.sock", "-x",
		      "http://p:1", "--noproxy", "a,b", "http://h/", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&cfg, err, sizeof(err), 8, ok), -1);
	CU_ASSERT_STRING_EQUAL(err, "--unix-socket and --proxy cannot be "
			       "combined");
	shb_config_free(&cfg);
	const char *ok2[] = {"shb", "--unix-socket", "/run/x.sock", "-x", "",
		       "--noproxy", "a,b", "http://h/", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&cfg, err, sizeof(err), 8, ok2), 0);
	CU_ASSERT_STRING_EQUAL(cfg.unix_socket, "/run/x.sock");
	CU_ASSERT_STRING_EQUAL(cfg.proxy, "");
	CU_ASSERT_STRING_EQUAL(cfg.noproxy, "a,b");
	shb_config_free(&cfg);

	const char *fam[] = {"shb", "-4", "--unix-socket", "/x", "http://h/", NULL};
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 5, fam), -1);
	CU_ASSERT_STRING_EQUAL(err, "--unix-socket cannot be combined with "
			       "--connect-to, --resolve, -4 or -6: the socket "
			       "path is where every connection goes");
	shb_config_free(&cfg);

	const char *empty[] = {"shb", "--unix-socket=", "http://h/", NULL};
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 3, empty), -1);
	CU_ASSERT_STRING_EQUAL(err, "--unix-socket: empty path");
	shb_config_free(&cfg);

	memset(path, 'a', 108);
	path[0] = '/';
	path[108] = '\0';
	const char *longp[] = {"shb", "--unix-socket", path, "http://h/", NULL};
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 4, longp), -1);
	CU_ASSERT_STRING_EQUAL(err, "--unix-socket: a socket path is at most "
			       "107 bytes, got 108");
	shb_config_free(&cfg);
	path[107] = '\0';
	CU_ASSERT_EQUAL(parse(&cfg, err, sizeof(err), 4, longp), 0);
	shb_config_free(&cfg);
}

static CU_TestInfo proxy_tests[] = {
	{"--unix-socket, --proxy, --noproxy options", test_route_cli},
	{"proxy URL", test_proxy_parse},
	{"proxy URL errors", test_proxy_errors},
	{"--noproxy matching", test_noproxy},
	{"proxy from the environment", test_proxy_pick},
	{"CONNECT request", test_connect_request},
	{"proxy answer head", test_read_head},
	CU_TEST_INFO_NULL,
};

static CU_TestInfo priority_tests[] = {
	{"--priority syntax", test_priority},
	{"--priority option", test_priority_cli},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"proxy", NULL, NULL, NULL, NULL, proxy_tests},
	{"priority", NULL, NULL, NULL, NULL, priority_tests},
	CU_SUITE_INFO_NULL,
};
