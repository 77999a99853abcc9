/* Command-line parsing of where requests go and how: routing, TLS
 * options, suggestions for a mistyped option, usage, plugin options, URL
 * schemes and comparison targets. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "cli/cli_scheme.h"
#include "cli/compare.h"
#include "cli/config.h"
#include "common/quote.h"
#include "test_util.h"

#define URL "http://example.com/x"
#define TLS_URL "https://example.com/x" /* --cacert needs TLS */

static void test_routing(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--connect-to", "a:1:b:2",
				    "--connect-to=::127.0.0.1:", "--resolve",
				    "x:80:[::1],127.0.0.1", "-6", "--sni",
				    "api.example", "-k", "https://a:1/"), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.connect_to_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.connect_to[0].to_host, "b");
	CU_ASSERT_EQUAL(cfg.connect_to[0].to_port, 2);
	CU_ASSERT_STRING_EQUAL(cfg.connect_to[1].to_host, "127.0.0.1");
	CU_ASSERT_EQUAL(cfg.connect_to[1].to_port, 0);
	CU_ASSERT_EQUAL_FATAL(cfg.resolve_count, 1);
	CU_ASSERT_EQUAL(cfg.resolve[0].count, 2);
	CU_ASSERT_EQUAL(cfg.family, AF_INET6);
	CU_ASSERT_STRING_EQUAL(cfg.sni, "api.example");
	/* -k changes nothing: not verifying is the default. */
	CU_ASSERT_EQUAL(cfg.verify, 0);
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-4", "--ipv4", "--insecure",
				    URL), 0);
	CU_ASSERT_EQUAL(cfg.family, AF_INET);
	CU_ASSERT_EQUAL(cfg.connect_to_count, 0);
	CU_ASSERT_PTR_NULL(cfg.sni);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, URL), 0);
	CU_ASSERT_EQUAL(cfg.family, AF_UNSPEC);
	shb_config_free(&cfg);
}

static void test_routing_errors(void)
{
	EXPECT_ERROR("-4/--ipv4 and -6/--ipv6 cannot be combined", "-4", "-6",
		     URL);
	EXPECT_ERROR("-4/--ipv4 and -6/--ipv6 cannot be combined", "--ipv6",
		     "-q4", URL);
	EXPECT_ERROR("--sni: empty name", "--sni", "", "https://a/");
	EXPECT_ERROR("--sni \"a b\": a host name holds only letters, "
		     "digits, '-', '.' and '_'", "--sni", "a b", "https://a/");
	EXPECT_ERROR("--sni \"::1\": a host name holds only letters, "
		     "digits, '-', '.' and '_'", "--sni=::1", "https://a/");
	EXPECT_ERROR("--sni 10.0.0.1: SNI holds a host name, never an address "
		     "(RFC 6066)", "--sni", "10.0.0.1", "https://a/");
	char long_name[255];
	memset(long_name, 'a', 254);
	long_name[254] = '\0';
	EXPECT_ERROR("--sni: a name is at most 253 characters, got 254",
		     "--sni", long_name, "https://a/");
	EXPECT_ERROR("--sni a.example: SNI is sent only over TLS, and the URL "
		     "is http://; use https://", "--sni", "a.example", URL);
	EXPECT_ERROR("--connect-to \"a:1\": expected HOST:PORT:CONNECT-HOST:"
		     "CONNECT-PORT (empty parts: any host or port, or the "
		     "URL's)", "--connect-to", "a:1", URL);
	EXPECT_ERROR("--resolve \"a:1:b\": \"b\" is not an IPv4 or IPv6 "
		     "address", "--resolve=a:1:b", URL);
	EXPECT_ERROR("--connect-to: missing value", URL, "--connect-to");
	EXPECT_ERROR("--insecure: takes no value", "--insecure=1", URL);
}

/* --cert/--key, --tls-version, --ciphers: parsed here, the files and the
 * priority string checked by GnuTLS at start (core/engine/tls.c). */
static void test_tls_options(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--cert", "c.pem", "--key", "k.pem",
				    "--tls-version", "1.2", "--ciphers",
				    "NORMAL:-CIPHER-ALL:+AES-256-GCM", "https://a/"), 0);
	CU_ASSERT_STRING_EQUAL(cfg.cert, "c.pem");
	CU_ASSERT_STRING_EQUAL(cfg.key, "k.pem");
	CU_ASSERT_EQUAL(cfg.tls_version, 0x0303);
	CU_ASSERT_STRING_EQUAL(cfg.ciphers, "NORMAL:-CIPHER-ALL:+AES-256-GCM");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--cert=both.pem",
				    "--tls-version=1.3", "https://a/"), 0);
	CU_ASSERT_PTR_NULL(cfg.key); /* the key is in the certificate's file */
	CU_ASSERT_EQUAL(cfg.tls_version, 0x0304);
	CU_ASSERT_PTR_NULL(cfg.ciphers);
	shb_config_free(&cfg);

	EXPECT_ERROR("--tls-version 1.1: give 1.2 or 1.3", "--tls-version",
		     "1.1", "https://a/");
	EXPECT_ERROR("--tls-version TLSv1.3: give 1.2 or 1.3",
		     "--tls-version=TLSv1.3", "https://a/");
	EXPECT_ERROR("--ciphers: empty priority string (e.g. "
		     "NORMAL:-CIPHER-ALL:+AES-256-GCM)", "--ciphers", "",
		     "https://a/");
	EXPECT_ERROR("--key k.pem: give the certificate too (--cert FILE)",
		     "--key", "k.pem", "https://a/");
	EXPECT_ERROR("--cert: the URL is http://, which does not run over "
		     "TLS; use https://", "--cert", "c.pem", URL);
	EXPECT_ERROR("--ciphers: the URL is http://, which does not run over "
		     "TLS; use https://", "--ciphers", "NORMAL", URL);
	EXPECT_ERROR("--tls-version: the URL is http://, which does not run "
		     "over TLS; use https://", "--tls-version", "1.3", URL);
	EXPECT_ERROR("--tls-resume: the URL is http://, which does not run "
		     "over TLS; use https://", "--tls-resume", URL);
	EXPECT_ERROR("--cacert: the URL is http://, which does not run over "
		     "TLS; use https://", "--cacert", "/dev/null", URL);
	EXPECT_ERROR("--cacert: the URL is http://, which does not run over "
		     "TLS; use https://", "--cacert", "/dev/null", "--mix", URL,
		     "http://b/");
	/* a mix (or a comparison) with an https target beside: it verifies that */
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "--cacert", "/dev/null", "--mix", URL,
			      "https://b/"), 0);
	shb_config_free(&cfg);
	EXPECT_ERROR("--tls-resume: takes no value", "--tls-resume=1", "https://a/");
	EXPECT_ERROR("--cert: missing value", URL, "--cert");
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "https://a/"), 0);
	CU_ASSERT_EQUAL(cfg.tls_resume, 0);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--tls-resume", "https://a/"), 0);
	CU_ASSERT_EQUAL(cfg.tls_resume, 1);
	shb_config_free(&cfg);
}

static void test_suggestions(void)
{
	EXPECT_ERROR("unknown option --duraton (did you mean --duration?)",
		     "--duraton", "3s", URL);
	EXPECT_ERROR("unknown option --conections (did you mean "
		     "--connections?)", "--conections=5", URL);
	EXPECT_ERROR("unknown option --hedaer (did you mean --header?)",
		     "--hedaer", "a: b", URL);
	EXPECT_ERROR("unknown option --http4 (did you mean --http2?)",
		     "--http4", URL);
	EXPECT_ERROR("unknown option --connectto (did you mean "
		     "--connect-to?)", "--connectto", "a:1:b:2", URL);
	EXPECT_ERROR("unknown option --snii (did you mean --sni?)", "--snii",
		     "x", URL);
	/* Too far from every option, or too short to guess. */
	EXPECT_ERROR("unknown option --durxxxxn", "--durxxxxn", URL);
	EXPECT_ERROR("unknown option --zz", "--zz", URL);
	EXPECT_ERROR("unknown option --k", "--k", URL);
}

static void test_usage(void)
{
	static const char *const must[] = {
		"Usage: shb [options] URL", "--proto", "--http2", "--http3",
		"--report", "-j, --json", "-c, --connections", "-p, --parallel",
		"-n, --requests", "-z, --duration", "-t, --threads",
		"-m, -X, --method", "-H, --header", "-d, --data",
		"--data-binary", "--connect-timeout", "--timeout",
		"--disable-keepalive", "--batch-size", "--batch-linger",
		"--plugin-dir", "--list-plugins", "--verify", "--cacert",
		"-q, --quiet", "-h, --help", "-V, --version", "(default: h1)",
		"(default: 50)", "(default: 1)", "(default: 5s)",
		"(default: automatic, 500 when responses are",
		"timed by kernel receive stamps, else 50 us or", "at most 500)",
		"(default: text to stdout)", "(default: 200",
		"(default: GET, or POST with a body)", "(default: none)",
		"(default: 0)", "1..1000000", "0..4096", "1..1024",
		"SHB_PLUGIN_PATH", "SHB_DEBUG", "Target:", "Load:", "Request:",
		"Timeouts", "TLS:", "Plugins:", "Output:",
		"at most 64 MiB in all", "-H Content-Length must equal",
		"Transfer-Encoding is refused", "soft limit is raised",
		"Exit status: 0 run completed, 1 run failed or no request "
		"completed,\n2 usage error, 3 an --slo failed, 130 or 143 "
		"stopped by SIGINT or\nSIGTERM (the report covers what ran "
		"until then).\n", "--slo EXPR", "--warmup D", "--success LIST", "--tls-resume",
		"-k, --insecure", "--sni NAME", "Routing (curl's meanings",
		"--connect-to HOST:PORT:CONNECT-HOST:CONNECT-PORT",
		"--resolve HOST:PORT:ADDR[,ADDR]...", "-4, --ipv4", "-6, --ipv6",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	shb_cli_usage(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, must[i]));
		if (!strstr(buf, must[i]))
			fprintf(stderr, "\nhelp lacks %s\n", must[i]);
	}
	/* Fits an 80-column terminal. */
	for (char *line = buf; *line;) {
		char *nl = strchr(line, '\n');
		CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
		CU_ASSERT((size_t)(nl - line) <= 80);
		line = nl + 1;
	}
	free(buf);
}

/* --proto-opt and --report-opt: kept in order, KEY alone is a flag (no
 * value), a value may hold '=' and, for a protocol, ','. */
static void test_plugin_options(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--proto-opt", "tag=a=b,c",
				    "--report-opt", "json.compact",
				    "--proto-opt=fail", "--report-opt=csv.x=1",
				    "--proto-opt", "k.2-_=", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.proto_opt_count, 3);
	CU_ASSERT_PTR_NULL(cfg.proto_opts[0].plugin);
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[0].key, "tag");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[0].value, "a=b,c");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[0].text, "tag=a=b,c");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[1].key, "fail");
	CU_ASSERT_PTR_NULL(cfg.proto_opts[1].value);
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[2].key, "k.2-_");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[2].value, "");
	CU_ASSERT_EQUAL_FATAL(cfg.report_opt_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[0].plugin, "json");
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[0].key, "compact");
	CU_ASSERT_PTR_NULL(cfg.report_opts[0].value);
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[1].plugin, "csv");
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[1].key, "x");
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[1].value, "1");
	/* --report json:compact keeps meaning a file named compact. */
	CU_ASSERT_EQUAL(cfg.proto_given, 0);
	shb_config_free(&cfg);
	CU_ASSERT_PTR_NULL(cfg.proto_opts);
	CU_ASSERT_EQUAL(cfg.report_opt_count, 0);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "json:compact", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].path, "compact");
	CU_ASSERT_EQUAL(cfg.report_opt_count, 0);
	shb_config_free(&cfg);
}

static void test_plugin_option_errors(void)
{
	EXPECT_ERROR("--proto-opt: expected KEY=VALUE or KEY, got \"\"",
		     "--proto-opt", "", URL);
	EXPECT_ERROR("--proto-opt: expected KEY=VALUE or KEY, got \"\"",
		     "--proto-opt=", URL);
	EXPECT_ERROR("--proto-opt \"=v\": empty key", "--proto-opt", "=v", URL);
	EXPECT_ERROR("--proto-opt \"a b=1\": invalid key \"a b\" (letters, "
		     "digits, '-', '_' and '.' only)",
		     "--proto-opt", "a b=1", URL);
	EXPECT_ERROR("--proto-opt \"k\\x0a=1\": invalid key \"k\\x0a\" "
		     "(letters, digits, '-', '_' and '.' only)",
		     "--proto-opt", "k\n=1", URL);
	EXPECT_ERROR("--proto-opt: missing value", URL, "--proto-opt");
	EXPECT_ERROR("--report-opt: expected NAME.KEY or NAME.KEY=VALUE, got "
		     "\"\"", "--report-opt", "", URL);
	EXPECT_ERROR("--report-opt \"compact\": expected NAME.KEY or "
		     "NAME.KEY=VALUE", "--report-opt", "compact", URL);
	EXPECT_ERROR("--report-opt \"json:compact\": expected NAME.KEY or "
		     "NAME.KEY=VALUE", "--report-opt", "json:compact", URL);
	EXPECT_ERROR("--report-opt \"k=a.b\": expected NAME.KEY or "
		     "NAME.KEY=VALUE", "--report-opt", "k=a.b", URL);
	EXPECT_ERROR("--report-opt \".compact\": empty reporter name",
		     "--report-opt", ".compact", URL);
	EXPECT_ERROR("--report-opt \"json.\": empty key",
		     "--report-opt", "json.", URL);
	EXPECT_ERROR("--report-opt \"json.=1\": empty key",
		     "--report-opt", "json.=1", URL);
	EXPECT_ERROR("--report-opt \"a/b.so.k\": invalid reporter name "
		     "\"a/b\" (letters, digits, '-' and '_' only)",
		     "--report-opt", "a/b.so.k", URL);
	EXPECT_ERROR("--report-opt \"json.a b\": invalid key \"a b\" "
		     "(letters, digits, '-', '_' and '.' only)",
		     "--report-opt", "json.a b", URL);
	EXPECT_ERROR("--report-opt \"csv.sep=a,b\": a reporter option's value "
		     "cannot hold ',' (the options reach the reporter "
		     "comma-separated)",
		     "--report-opt", "csv.sep=a,b", URL);
}

/* http and https are settled by the parse; any other scheme waits for
 * the protocol (proto_pick), with the port only when the URL names it. */
static void test_url_schemes(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "WS://h:81/x"), 0);
	CU_ASSERT_STRING_EQUAL(cfg.url.scheme, "ws");
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "WS://h:81/x");
	CU_ASSERT_EQUAL(cfg.url.port, 81);
	CU_ASSERT_EQUAL(cfg.url.port_given, 1);
	CU_ASSERT_PTR_NULL(cfg.url.authority);
	CU_ASSERT_STRING_EQUAL(cfg.url.path, "/x");
	CU_ASSERT_STRING_EQUAL(cfg.proto, "h1");
	CU_ASSERT_EQUAL(cfg.proto_given, 0);
	static const struct shb_scheme ws[] = {
		{"ws", 80, 0}, {"wss", 443, SHB_SCHEME_TLS}, {NULL, 0, 0}};
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, ws, "ws", err,
					   sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(cfg.url.authority, "h:81");
	CU_ASSERT_EQUAL(cfg.url.tls, 0);
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--sni", "a.example",
				    "wss://[::1]/"), 0);
	CU_ASSERT_EQUAL(cfg.url.port, 0);
	CU_ASSERT_EQUAL(cfg.url.port_given, 0);
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, ws, "ws", err,
					   sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.url.port, 443);
	CU_ASSERT_EQUAL(cfg.url.tls, 1);
	CU_ASSERT_STRING_EQUAL(cfg.url.authority, "[::1]");
	shb_config_free(&cfg);

	/* --sni needs TLS, which ws:// does not run. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--sni", "a.example",
				    "ws://h/"), 0);
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, ws, "ws", err,
					   sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--sni a.example: SNI is sent only over "
				    "TLS, and ws:// does not run over TLS");
	/* A protocol that does not serve the scheme names its schemes. */
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, NULL, "h1",
					   err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "invalid URL \"ws://h/\": scheme must be "
				    "http or https for protocol h1");
	shb_config_free(&cfg);

	EXPECT_ERROR("--sni a.example: SNI is sent only over TLS, and the URL "
		     "is http://; use https://", "--sni", "a.example",
		     "http://h/");
	EXPECT_ERROR("invalid URL \"abcdefghijabcdefghijabcdefghijabc://h/\": "
		     "scheme longer than 32 characters",
		     "abcdefghijabcdefghijabcdefghijabc://h/");

	/* --proto, --http2 and --http3 choose; the default h1 does not. */
	const char *given[][2] = {{"--proto", "h1"}, {"--http2", NULL},
				  {"--http3", NULL}};
	for (size_t i = 0; i < 3; i++) {
		int rc = given[i][1] ? PARSE(&cfg, err, given[i][0], given[i][1], URL)
				     : PARSE(&cfg, err, given[i][0], URL);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(cfg.proto_given, 1);
		shb_config_free(&cfg);
	}
}

/* Several positional targets make a comparison (compare.h); each may
 * carry a label. */
static void test_compare_targets(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "bun=http://a:3000/x?q=1",
				    "-c", "2", "http://b/?k=v=w",
				    "node.v20=http://c/"), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.target_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.targets[0].label, "bun");
	CU_ASSERT_STRING_EQUAL(cfg.targets[0].url_text, "http://a:3000/x?q=1");
	CU_ASSERT_PTR_NULL(cfg.targets[1].label);
	CU_ASSERT_STRING_EQUAL(cfg.targets[1].url_text, "http://b/?k=v=w");
	CU_ASSERT_STRING_EQUAL(cfg.targets[2].label, "node.v20");
	/* The first target is the one selected. */
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "http://a:3000/x?q=1");
	CU_ASSERT_STRING_EQUAL(cfg.url.host, "a");
	CU_ASSERT_EQUAL(cfg.url.port, 3000);
	/* Selecting another target leaves the config as parsed. */
	char *text;
	struct shb_url u;
	CU_ASSERT_EQUAL(shb_compare_select(&cfg, 2, &text, &u, err,
					   sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(text, "http://c/");
	CU_ASSERT_STRING_EQUAL(u.host, "c");
	CU_ASSERT_EQUAL(u.port, 80);
	CU_ASSERT_STRING_EQUAL(u.authority, "c");
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "http://a:3000/x?q=1");
	free(text);
	shb_url_free(&u);
	shb_config_free(&cfg);

	EXPECT_ERROR("\"=http://a/\": the label before '=' is empty (give "
		     "label=URL, or the URL alone)", "=http://a/");
	EXPECT_ERROR("\"a b=http://a/\": a label may hold only letters, "
		     "digits, '.', '_' and '-'", "a b=http://a/");
	EXPECT_ERROR("\"x=\": no URL after the label", "x=");
	EXPECT_ERROR("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     "=http://a/\": a label is at most 64 characters",
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     "=http://a/");
	EXPECT_ERROR("\"x=http://b/\": the label x is given twice",
		     "x=http://a/", "x=http://b/");
	EXPECT_ERROR("invalid URL \"nope\": missing scheme (expected http:// "
		     "or https://)",
		     "a=http://a/", "b=nope");
}

CU_TestInfo shb_cli_target_tests[] = {
	{"usage text", test_usage},
	{"routing options", test_routing},
	{"routing option errors", test_routing_errors},
	{"TLS options", test_tls_options},
	{"did you mean", test_suggestions},
	{"plugin options", test_plugin_options},
	{"plugin option errors", test_plugin_option_errors},
	{"URL schemes", test_url_schemes},
	{"compare targets", test_compare_targets},
	CU_TEST_INFO_NULL,
};
