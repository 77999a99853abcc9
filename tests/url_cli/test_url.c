/* URL parsing, name resolution and duration parsing. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "test_util.h"
#include "cli/url.h"

struct good_url {
	const char *in;
	const char *scheme;
	int tls;
	const char *host;
	int is_ip;
	int is_ipv6;
	unsigned port;
	const char *authority;
	const char *path;
};

static const struct good_url good[] = {
	{"http://example.com", "http", 0, "example.com", 0, 0, 80,
	 "example.com", "/"},
	{"https://example.com/", "https", 1, "example.com", 0, 0, 443,
	 "example.com", "/"},
	{"HTTP://Example.COM:80/a/b?x=1#frag", "http", 0, "Example.COM", 0, 0,
	 80, "Example.COM", "/a/b?x=1"},
	{"HtTpS://h:443", "https", 1, "h", 0, 0, 443, "h", "/"},
	{"https://h:80/", "https", 1, "h", 0, 0, 80, "h:80", "/"},
	{"http://h:443/", "http", 0, "h", 0, 0, 443, "h:443", "/"},
	{"http://127.0.0.1:8080/p", "http", 0, "127.0.0.1", 1, 0, 8080,
	 "127.0.0.1:8080", "/p"},
	{"https://10.1.2.3/", "https", 1, "10.1.2.3", 1, 0, 443, "10.1.2.3",
	 "/"},
	{"http://[::1]/", "http", 0, "::1", 1, 1, 80, "[::1]", "/"},
	{"http://[::1]:8443/x", "http", 0, "::1", 1, 1, 8443, "[::1]:8443",
	 "/x"},
	{"https://[2001:db8::1]:443/", "https", 1, "2001:db8::1", 1, 1, 443,
	 "[2001:db8::1]", "/"},
	{"https://[2001:DB8::1]:80", "https", 1, "2001:DB8::1", 1, 1, 80,
	 "[2001:DB8::1]:80", "/"},
	{"http://[::ffff:1.2.3.4]/v", "http", 0, "::ffff:1.2.3.4", 1, 1, 80,
	 "[::ffff:1.2.3.4]", "/v"},
	{"http://[::1]:/", "http", 0, "::1", 1, 1, 80, "[::1]", "/"},
	{"http://h?q=1", "http", 0, "h", 0, 0, 80, "h", "/?q=1"},
	{"http://h:81?q=1#f", "http", 0, "h", 0, 0, 81, "h:81", "/?q=1"},
	{"http://h#frag", "http", 0, "h", 0, 0, 80, "h", "/"},
	{"http://h/#", "http", 0, "h", 0, 0, 80, "h", "/"},
	{"http://h/?a#b?c", "http", 0, "h", 0, 0, 80, "h", "/?a"},
	{"http://h:/", "http", 0, "h", 0, 0, 80, "h", "/"},
	{"http://h:0080/", "http", 0, "h", 0, 0, 80, "h", "/"},
	{"http://h:1/", "http", 0, "h", 0, 0, 1, "h:1", "/"},
	{"http://h:65535", "http", 0, "h", 0, 0, 65535, "h:65535", "/"},
	{"http://my_svc.internal-1/", "http", 0, "my_svc.internal-1", 0, 0, 80,
	 "my_svc.internal-1", "/"},
	{"http://example.com./", "http", 0, "example.com.", 0, 0, 80,
	 "example.com.", "/"},
	{"http://h/a?b=c/d:e@f&g=%20", "http", 0, "h", 0, 0, 80, "h",
	 "/a?b=c/d:e@f&g=%20"},
	{"http://h//double//slash", "http", 0, "h", 0, 0, 80, "h",
	 "//double//slash"},
};

struct bad_url {
	const char *in;
	const char *msg; /* expected after `invalid URL "<in>": ` */
};

static const struct bad_url bad[] = {
	{"", "empty URL"},
	{"ftp://x", "scheme must be http or https"},
	{"httpx://x", "scheme must be http or https"},
	{"ws://h/", "scheme must be http or https"},
	{"example.com", "missing scheme (expected http:// or https://)"},
	{"example.com:80/x", "missing scheme (expected http:// or https://)"},
	{"http:/x", "one slash after \"http:\" (expected \"http://\")"},
	{"https:/h:443/x", "one slash after \"https:\" (expected \"https://\")"},
	{"http//x", "no ':' after \"http\" (expected \"http://\")"},
	{"http:x", "no \"//\" after \"http:\" (expected \"http://\")"},
	{"localhost:8080/", "missing scheme (expected http:// or https://)"},
	{"h:", "missing scheme (expected http:// or https://)"},
	{"/x//y", "missing scheme (expected http:// or https://)"},
	{"HTTPS:x", "no \"//\" after \"HTTPS:\" (expected \"HTTPS://\")"},
	{"a:b=http://x/", "missing scheme (expected http:// or https://)"},
	{"ftp//x", "missing scheme (expected http:// or https://)"},
	{"http://", "empty host"},
	{"http:///p", "empty host"},
	{"http://:80/", "empty host"},
	{"http://?q", "empty host"},
	{"http://user@h/", "user info (user@host) is not supported"},
	{"http://u:p@h:80/", "user info (user@host) is not supported"},
	{"http://h:0/", "port must be a number from 1 to 65535"},
	{"http://h:65536/", "port must be a number from 1 to 65535"},
	{"http://h:99999999999999999999999/",
	 "port must be a number from 1 to 65535"},
	{"http://h:8a/", "port must be a number from 1 to 65535"},
	{"http://h:-1/", "port must be a number from 1 to 65535"},
	{"http://h:+80/", "port must be a number from 1 to 65535"},
	{"http://h:80:81/", "IPv6 addresses must be in brackets, like "
			    "http://[::1]:8080/"},
	{"http://::1/", "IPv6 addresses must be in brackets, like "
			"http://[::1]:8080/"},
	{"http://[::1/", "unterminated [IPv6] literal"},
	{"http://[::1", "unterminated [IPv6] literal"},
	{"http://[::1]x/", "unexpected characters after ']'"},
	{"http://[::1]:0/", "port must be a number from 1 to 65535"},
	{"http://[fe80::1%25eth0]/", "IPv6 zone ids (%...) are not supported"},
	{"http://[zz::1]/", "invalid IPv6 address in brackets"},
	{"http://[]/", "invalid IPv6 address in brackets"},
	{"http://[1.2.3.4]/", "invalid IPv6 address in brackets"},
	{"http://h h/", "space at offset 8"},
	{"http://h/a b", "space at offset 10"},
	{" http://h/", "space at offset 0"},
	{"http://h/\x01", "control character at offset 9"},
	{"http://h/\x7f", "control character at offset 9"},
	{"http://h/\tx", "control character at offset 9"},
	{"http://h/\r\n", "control character at offset 9"},
	{"http://h/#a b", "space at offset 11"},
	{"http://h/\xc3\xa9", "non-ASCII byte at offset 9 (percent-encode it)"},
	{"http://h%41/", "invalid character '%' in host"},
	{"http://a]b/", "invalid character ']' in host"},
	{"http://a!b/", "invalid character '!' in host"},
	{"http://256.1.1.1/", "invalid IPv4 address"},
	{"http://127.1/", "invalid IPv4 address"},
	{"http://1.2.3.4./", "invalid IPv4 address"},
};

static void check_good(const struct good_url *g)
{
	struct shb_url u;
	char err[256] = "";

	int rc = shb_url_parse(g->in, &u, err, sizeof(err));
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "\n%s: %s\n", g->in, err);
		return;
	}
	CU_ASSERT_STRING_EQUAL(u.scheme, g->scheme);
	CU_ASSERT_EQUAL(u.tls, g->tls);
	CU_ASSERT_STRING_EQUAL(u.host, g->host);
	CU_ASSERT_EQUAL(u.host_is_ip, g->is_ip);
	CU_ASSERT_EQUAL(u.host_is_ipv6, g->is_ipv6);
	CU_ASSERT_EQUAL(u.port, g->port);
	CU_ASSERT_STRING_EQUAL(u.authority, g->authority);
	CU_ASSERT_STRING_EQUAL(u.path, g->path);
	shb_url_free(&u);
	CU_ASSERT_PTR_NULL(u.host);
	CU_ASSERT_PTR_NULL(u.authority);
	CU_ASSERT_PTR_NULL(u.path);
}

static void test_good_urls(void)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check_good(&good[i]);
}

/* The URL as the error message quotes it: controls and quotes escaped. */
static void echo(const char *in, char *out, size_t n)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
			o += (size_t)snprintf(out + o, n - o, "\\x%02x", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
}

static void test_bad_urls(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct shb_url u;
		char err[512] = "", esc[128], want[512];

		memset(&u, 0xa5, sizeof(u));
		CU_ASSERT_EQUAL(shb_url_parse(bad[i].in, &u, err, sizeof(err)),
				-1);
		echo(bad[i].in, esc, sizeof(esc));
		snprintf(want, sizeof(want), "invalid URL \"%s\": %s", esc,
			 bad[i].msg);
		CU_ASSERT_STRING_EQUAL(err, want);
		if (strcmp(err, want) != 0)
			fprintf(stderr, "\n got: %s\nwant: %s\n", err, want);
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));
		/* A failed parse leaves nothing to free. */
		CU_ASSERT_PTR_NULL(u.host);
		CU_ASSERT_PTR_NULL(u.authority);
		CU_ASSERT_PTR_NULL(u.path);
		shb_url_free(&u);
	}
}

static void test_error_escaping_and_truncation(void)
{
	struct shb_url u;
	char err[512], small[24];
	char long_url[400];

	CU_ASSERT_EQUAL(shb_url_parse("http://h/\"x\\", &u, err, sizeof(err)),
			0);
	shb_url_free(&u);
	CU_ASSERT_EQUAL(shb_url_parse("ftp://\"q\"", &u, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "invalid URL \"ftp://\\x22q\\x22\": "
				    "scheme must be http or https");

	/* A long URL is cut in the echo so that the reason survives. */
	memcpy(long_url, "ftp://", 6);
	memset(long_url + 6, 'a', sizeof(long_url) - 7);
	long_url[sizeof(long_url) - 1] = '\0';
	CU_ASSERT_EQUAL(shb_url_parse(long_url, &u, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(strlen(err), strlen("invalid URL \"\": scheme must be "
					    "http or https") + 120 + 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "aaa...\": scheme must be"));

	/* A short buffer is filled and terminated, never overrun. */
	memset(small, 'Z', sizeof(small));
	CU_ASSERT_EQUAL(shb_url_parse("ftp://x", &u, small, sizeof(small)), -1);
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(strncmp(small, "invalid URL \"ftp://x\": s",
				sizeof(small) - 1), 0);
	CU_ASSERT_EQUAL(shb_url_parse("ftp://x", &u, NULL, 0), -1);
}

/* Every prefix of every good URL, and every byte flipped to each
 * interesting character: always a clean 0 or -1 with one line. */
static void check_robust(const char *s)
{
	struct shb_url u;
	char err[300] = "";

	int rc = shb_url_parse(s, &u, err, sizeof(err));
	CU_ASSERT(rc == 0 || rc == -1);
	if (rc == 0) {
		CU_ASSERT_EQUAL(u.path[0], '/');
		CU_ASSERT_PTR_NULL(strchr(u.path, '#'));
		CU_ASSERT(u.port != 0);
		CU_ASSERT(u.host[0] != '\0');
		CU_ASSERT_PTR_NULL(strchr(u.authority, '/'));
		shb_url_free(&u);
	} else {
		CU_ASSERT_EQUAL(strncmp(err, "invalid URL \"", 13), 0);
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	}
}

static void test_prefixes_and_mutations(void)
{
	static const char alphabet[] = ":/?#[]@%. 0aZ\x01\xff";
	char buf[128];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		size_t n = strlen(good[i].in);
		for (size_t k = 0; k <= n; k++) {
			memcpy(buf, good[i].in, k);
			buf[k] = '\0';
			check_robust(buf);
		}
		for (size_t k = 0; k < n; k++) {
			for (size_t a = 0; a < sizeof(alphabet) - 1; a++) {
				memcpy(buf, good[i].in, n + 1);
				buf[k] = alphabet[a];
				check_robust(buf);
			}
		}
	}
}

/* A protocol's own schemes (ABI 1.2 scheme_defs). */
static const struct shb_scheme fx_schemes[] = {
	{"fx", 7070, 0},
	{"fxs", 7443, SHB_SCHEME_TLS},
	{"ws", 80, 0},
	{"wss", 443, SHB_SCHEME_TLS},
	{NULL, 0, 0},
};

struct scheme_case {
	const char *in;
	const char *scheme;
	int tls;
	const char *host;
	int is_ip;
	int is_ipv6;
	unsigned port;
	const char *authority;
	const char *path;
};

static const struct scheme_case scheme_good[] = {
	{"fx://h/", "fx", 0, "h", 0, 0, 7070, "h", "/"},
	{"fxs://h", "fxs", 1, "h", 0, 0, 7443, "h", "/"},
	{"FxS://h:7443/a?b", "fxs", 1, "h", 0, 0, 7443, "h", "/a?b"},
	{"fx://h:7443/", "fx", 0, "h", 0, 0, 7443, "h:7443", "/"},
	{"fxs://h:7070/", "fxs", 1, "h", 0, 0, 7070, "h:7070", "/"},
	{"ws://example.com/chat", "ws", 0, "example.com", 0, 0, 80,
	 "example.com", "/chat"},
	{"wss://example.com:443/", "wss", 1, "example.com", 0, 0, 443,
	 "example.com", "/"},
	{"wss://example.com:80/", "wss", 1, "example.com", 0, 0, 80,
	 "example.com:80", "/"},
	{"fx://[::1]:9000/p", "fx", 0, "::1", 1, 1, 9000, "[::1]:9000", "/p"},
	{"fxs://[2001:db8::1]/", "fxs", 1, "2001:db8::1", 1, 1, 7443,
	 "[2001:db8::1]", "/"},
	{"fxs://[2001:db8::1]:7443", "fxs", 1, "2001:db8::1", 1, 1, 7443,
	 "[2001:db8::1]", "/"},
	{"fx://127.0.0.1:/", "fx", 0, "127.0.0.1", 1, 0, 7070, "127.0.0.1", "/"},
};

static void test_declared_schemes(void)
{
	for (size_t i = 0; i < sizeof(scheme_good) / sizeof(scheme_good[0]); i++) {
		const struct scheme_case *g = &scheme_good[i];
		struct shb_url u;
		char err[256] = "";

		CU_ASSERT_EQUAL_FATAL(shb_url_parse_any(g->in, &u, err, sizeof(err)), 0);
		CU_ASSERT_PTR_NULL(u.authority);
		CU_ASSERT_EQUAL(u.tls, 0);
		int rc = shb_url_set_scheme(&u, g->in, fx_schemes, "fx", err,
					    sizeof(err));
		CU_ASSERT_EQUAL(rc, 0);
		if (rc != 0) {
			fprintf(stderr, "\n%s: %s\n", g->in, err);
			shb_url_free(&u);
			continue;
		}
		CU_ASSERT_STRING_EQUAL(u.scheme, g->scheme);
		CU_ASSERT_EQUAL(u.tls, g->tls);
		CU_ASSERT_STRING_EQUAL(u.host, g->host);
		CU_ASSERT_EQUAL(u.host_is_ip, g->is_ip);
		CU_ASSERT_EQUAL(u.host_is_ipv6, g->is_ipv6);
		CU_ASSERT_EQUAL(u.port, g->port);
		CU_ASSERT_STRING_EQUAL(u.authority, g->authority);
		CU_ASSERT_STRING_EQUAL(u.path, g->path);
		/* Settling again (another protocol's table) replaces it all. */
		CU_ASSERT_EQUAL(shb_url_set_scheme(&u, g->in, fx_schemes, "fx",
						   err, sizeof(err)), 0);
		CU_ASSERT_STRING_EQUAL(u.authority, g->authority);
		shb_url_free(&u);
	}
}

static void test_declared_scheme_errors(void)
{
	struct shb_url u;
	char err[256];

	/* Unknown to the protocol: the schemes it serves, by name. */
	CU_ASSERT_EQUAL_FATAL(shb_url_parse_any("gopher://h/", &u, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_url_set_scheme(&u, "gopher://h/", fx_schemes, "fx",
					   err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "invalid URL \"gopher://h/\": scheme must "
				    "be fx, fxs, ws or wss for protocol fx");
	/* u is left as it was: still unsettled. */
	CU_ASSERT_PTR_NULL(u.authority);
	CU_ASSERT_EQUAL(u.port, 0);
	CU_ASSERT_EQUAL(shb_url_set_scheme(&u, "gopher://h/", NULL, "h1", err,
					   sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "invalid URL \"gopher://h/\": scheme must "
				    "be http or https for protocol h1");
	static const struct shb_scheme one[] = {{"fx", 1, 0}, {NULL, 0, 0}};
	CU_ASSERT_EQUAL(shb_url_set_scheme(&u, "gopher://h/", one, "fx", err,
					   sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "invalid URL \"gopher://h/\": scheme must "
				    "be fx for protocol fx");
	shb_url_free(&u);

	/* http(s) of a protocol that declares other schemes only. */
	CU_ASSERT_EQUAL_FATAL(shb_url_parse_any("https://h/", &u, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_url_set_scheme(&u, "https://h/", fx_schemes, "fx",
					   err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "invalid URL \"https://h/\": scheme must "
				    "be fx, fxs, ws or wss for protocol fx");
	shb_url_free(&u);

	/* The syntax of a scheme is checked whatever the protocol. */
	static const struct {
		const char *in, *msg;
	} syntax[] = {
		{"1fx://h/", "invalid scheme (a letter, then letters, digits, "
			     "'+', '-' or '.')"},
		{"f_x://h/", "invalid scheme (a letter, then letters, digits, "
			     "'+', '-' or '.')"},
		{"-x://h/", "invalid scheme (a letter, then letters, digits, "
			    "'+', '-' or '.')"},
		{"://h/", "invalid scheme (a letter, then letters, digits, "
			  "'+', '-' or '.')"},
		{"fx:/h/", "one slash after \"fx:\" (expected \"fx://\")"},
		{"fx://", "empty host"},
		{"fx://[::1/", "unterminated [IPv6] literal"},
		{"fx://h:0/", "port must be a number from 1 to 65535"},
		{"fx://u@h/", "user info (user@host) is not supported"},
	};
	for (size_t i = 0; i < sizeof(syntax) / sizeof(syntax[0]); i++) {
		char want[256];
		memset(&u, 0xa5, sizeof(u));
		CU_ASSERT_EQUAL(shb_url_parse_any(syntax[i].in, &u, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "invalid URL \"%s\": %s", syntax[i].in,
			 syntax[i].msg);
		CU_ASSERT_STRING_EQUAL(err, want);
		CU_ASSERT_PTR_NULL(u.host);
	}
	/* Scheme characters a protocol may use: '+', '-', '.', digits. */
	CU_ASSERT_EQUAL_FATAL(shb_url_parse_any("a+b-c.9://h/", &u, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(u.scheme, "a+b-c.9");
	shb_url_free(&u);
	CU_ASSERT_PTR_NOT_NULL(shb_url_find_scheme(NULL, "https"));
	CU_ASSERT_EQUAL(shb_url_find_scheme(NULL, "https")->default_port, 443);
	CU_ASSERT_EQUAL(shb_url_find_scheme(NULL, "https")->flags, SHB_SCHEME_TLS);
	CU_ASSERT_EQUAL(shb_url_find_scheme(NULL, "http")->default_port, 80);
	CU_ASSERT_PTR_NULL(shb_url_find_scheme(NULL, "ws"));
	CU_ASSERT_PTR_NULL(shb_url_find_scheme(fx_schemes, "http"));
}

CU_TestInfo shb_url_tests[] = {
	{"good URLs", test_good_urls},
	{"bad URLs with messages", test_bad_urls},
	{"error escaping and truncation", test_error_escaping_and_truncation},
	{"prefixes and mutations", test_prefixes_and_mutations},
	{"declared schemes", test_declared_schemes},
	{"declared scheme errors", test_declared_scheme_errors},
	CU_TEST_INFO_NULL,
};

struct dur_case {
	const char *in;
	uint64_t ns;
};

static const struct dur_case good_dur[] = {
	{"10s", 10000000000ull},
	{"1m30s", 90000000000ull},
	{"500ms", 500000000ull},
	{"2h", 7200000000000ull},
	{"1.5s", 1500000000ull},
	{"10", 10000000000ull},
	{"0.25", 250000000ull},
	{"1.5", 1500000000ull},
	{".5s", 500000000ull},
	{"1.5m", 90000000000ull},
	{"2.5h", 9000000000000ull},
	{"100ns", 100ull},
	{"1us", 1000ull},
	{"1ms", 1000000ull},
	{"0", 0},
	{"0s", 0},
	{"0.000000001s", 1ull},
	{"1.123456789123s", 1123456789ull},
	{"0.0000001h", 360000ull},
	{"1h2m3s4ms5us6ns", 3723004005006ull},
	{"30s1m", 90000000000ull},
	{"007s", 7000000000ull},
	{"18446744073709551615ns", 18446744073709551615ull},
	{"5000000h", 18000000000000000000ull},
};

static const char *const bad_dur[] = {
	"", "s", "ms", "10x", "1m30", "-1s", "+1s", " 1s", "1s ", "1.s", ".s",
	".", "1..5s", "1.5.5s", "1e3", "1S", "10ss", "1sm", "m", "1 s",
	"1,5s", "0x10s", "18446744073709551616ns", "5200000h",
	"99999999999999999999", "18446744073709551615ns1ns", "1d",
};

static void test_durations(void)
{
	for (size_t i = 0; i < sizeof(good_dur) / sizeof(good_dur[0]); i++) {
		uint64_t ns = 12345;
		CU_ASSERT_EQUAL(shb_parse_duration(good_dur[i].in, &ns), 0);
		CU_ASSERT_EQUAL(ns, good_dur[i].ns);
		if (ns != good_dur[i].ns)
			fprintf(stderr, "\n%s -> %llu\n", good_dur[i].in,
				(unsigned long long)ns);
	}
}

static void test_bad_durations(void)
{
	for (size_t i = 0; i < sizeof(bad_dur) / sizeof(bad_dur[0]); i++) {
		uint64_t ns = 12345;
		int rc = shb_parse_duration(bad_dur[i], &ns);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_EQUAL(ns, 12345);
		if (rc != -1)
			fprintf(stderr, "\naccepted %s\n", bad_dur[i]);
	}
	uint64_t ns = 0;
	CU_ASSERT_EQUAL(shb_parse_duration(NULL, &ns), -1);
}

/* Messages echo a duration in the unit the options use, and what they
 * print parses back to the same value where 3 digits hold it. */
static void test_duration_text(void)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} t[] = {
		{10000000ull, "10ms"}, {1500000000ull, "1.5s"}, {5000000000ull, "5s"},
		{300000000ull, "300ms"}, {250000ull, "250us"}, {999ull, "999ns"},
		{90000000000ull, "90s"}, {1000000ull, "1ms"}, {0, "0ns"},
		{1234567ull, "1.23ms"},
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CU_ASSERT_STRING_EQUAL(shb_duration_text(t[i].ns, buf, sizeof(buf)),
				       t[i].text);
		uint64_t back = 0;
		CU_ASSERT_EQUAL(shb_parse_duration(buf, &back), 0);
		if (i + 1 < sizeof(t) / sizeof(t[0]))
			CU_ASSERT_EQUAL(back, t[i].ns);
	}
}

CU_TestInfo shb_duration_tests[] = {
	{"good durations", test_durations},
	{"bad durations", test_bad_durations},
	{"durations in messages", test_duration_text},
	CU_TEST_INFO_NULL,
};
