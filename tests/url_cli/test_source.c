/* --source: address sets (single, ranges across byte boundaries, lists,
 * IPv6), every refusal with its message, the slot-to-address spread, and
 * the option's checks against -4/-6 and the URL. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "cli/source.h"

static const char *text(const struct shb_source *s, uint32_t i)
{
	static char buf[8][INET6_ADDRSTRLEN];
	char *b = buf[i % 8];
	shb_source_text(s, &s->addr[i], b, INET6_ADDRSTRLEN);
	return b;
}

static void test_parse(void)
{
	char err[256] = "";
	struct shb_source *s = shb_source_parse("127.0.0.2", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->family, AF_INET);
	CU_ASSERT_EQUAL(s->len, sizeof(struct sockaddr_in));
	CU_ASSERT_EQUAL(s->count, 1);
	CU_ASSERT_STRING_EQUAL(text(s, 0), "127.0.0.2");
	CU_ASSERT_EQUAL(s->addr[0].v4.sin_port, 0);
	shb_source_free(s);

	/* A range over a byte boundary, inclusive at both ends. */
	s = shb_source_parse("10.0.0.254-10.0.1.1", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(s->count, 4);
	CU_ASSERT_STRING_EQUAL(text(s, 0), "10.0.0.254");
	CU_ASSERT_STRING_EQUAL(text(s, 1), "10.0.0.255");
	CU_ASSERT_STRING_EQUAL(text(s, 2), "10.0.1.0");
	CU_ASSERT_STRING_EQUAL(text(s, 3), "10.0.1.1");
	shb_source_free(s);

	/* A list of single addresses and ranges, in the order given. */
	s = shb_source_parse("127.0.0.9,127.0.0.2-127.0.0.3,127.0.0.5-127.0.0.5",
			     err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(s->count, 4);
	CU_ASSERT_STRING_EQUAL(text(s, 0), "127.0.0.9");
	CU_ASSERT_STRING_EQUAL(text(s, 1), "127.0.0.2");
	CU_ASSERT_STRING_EQUAL(text(s, 2), "127.0.0.3");
	CU_ASSERT_STRING_EQUAL(text(s, 3), "127.0.0.5");
	shb_source_free(s);

	/* IPv6, bracketed or not, a range carrying into the next group. */
	s = shb_source_parse("[fd00::fffe]-fd00::1:1", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->family, AF_INET6);
	CU_ASSERT_EQUAL(s->len, sizeof(struct sockaddr_in6));
	CU_ASSERT_EQUAL_FATAL(s->count, 4);
	CU_ASSERT_STRING_EQUAL(text(s, 0), "fd00::fffe");
	CU_ASSERT_STRING_EQUAL(text(s, 1), "fd00::ffff");
	CU_ASSERT_STRING_EQUAL(text(s, 2), "fd00::1:0");
	CU_ASSERT_STRING_EQUAL(text(s, 3), "fd00::1:1");
	shb_source_free(s);

	/* Exactly the most allowed. */
	s = shb_source_parse("10.1.0.0-10.1.0.255", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->count, SHB_SOURCE_MAX);
	CU_ASSERT_STRING_EQUAL(text(s, 255), "10.1.0.255");
	shb_source_free(s);
}

static void expect_refused(const char *spec, const char *want)
{
	char err[256] = "";
	struct shb_source *s = shb_source_parse(spec, err, sizeof(err));
	CU_ASSERT_PTR_NULL(s);
	shb_source_free(s);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n%s: got \"%s\"\n", spec, err);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
}

static void test_refused(void)
{
	expect_refused("127.0.0.3-127.0.0.2",
		       "--source \"127.0.0.3-127.0.0.2\": the range ends below its start");
	expect_refused("127.0.0.2,::1",
		       "--source mixes IPv4 and IPv6 addresses: give one family");
	expect_refused("127.0.0.2-::1",
		       "--source mixes IPv4 and IPv6 addresses: give one family");
	expect_refused("127.0.0.2,127.0.0.1-127.0.0.3", "--source: 127.0.0.2 is given twice");
	expect_refused("10.1.0.0-10.1.1.0", "--source holds more than 256 addresses");
	expect_refused("10.0.0.0-10.255.255.255", "--source holds more than 256 addresses");
	expect_refused("0.0.0.0", "--source \"0.0.0.0\": the unspecified address is not a source");
	expect_refused("::", "--source \"::\": the unspecified address is not a source");
	/* What the user typed is quoted: the message stays one line. */
	expect_refused("2\n\xcf-1", "--source \"2\\x0a\xcf-1\" is not an IPv4 or IPv6 "
		       "address or range (ADDR, ADDR-ADDR, or a comma-separated list)");
	const char *tail = "\" is not an IPv4 or IPv6 address or range (ADDR, "
			   "ADDR-ADDR, or a comma-separated list)";
	const char *bad[] = {"", "127.0.0.2,", ",127.0.0.2", "127.0.0.2-",
			     "localhost", "127.0.0.256", "127.0.0.2:80",
			     "127.0.0.2-127.0.0.3-127.0.0.4", "[127.0.0.2"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[256];
		/* The item named is the one that failed. */
		const char *item = bad[i];
		if (strcmp(item, "127.0.0.2,") == 0)
			item = "";
		else if (strcmp(item, ",127.0.0.2") == 0)
			item = "";
		snprintf(want, sizeof(want), "--source \"%s%s", item, tail);
		expect_refused(bad[i], want);
	}
}

/* Slot k takes address k mod count: with 3 addresses, 7 slots spread
 * 3, 2, 2. */
static void test_spread(void)
{
	char err[256] = "";
	struct shb_source *s = shb_source_parse("127.0.0.2-127.0.0.4", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	unsigned per[3] = {0, 0, 0};
	for (uint64_t k = 0; k < 7; k++) {
		const union shb_source_addr *a = shb_source_pick(s, k);
		per[a - s->addr]++;
		CU_ASSERT_PTR_EQUAL(a, &s->addr[k % 3]);
	}
	CU_ASSERT_EQUAL(per[0], 3);
	CU_ASSERT_EQUAL(per[1], 2);
	CU_ASSERT_EQUAL(per[2], 2);
	shb_source_free(s);
}

/* Bound with IP_BIND_ADDRESS_NO_PORT: the address is set, the port is
 * not taken until connect. */
static void test_bind(void)
{
	char err[256] = "";
	struct shb_source *s = shb_source_parse("127.0.0.3", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(shb_source_check_local(s, 1, err, sizeof(err)), 0);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(shb_source_bind(fd, s, &s->addr[0], 1), 0);
	struct sockaddr_in got;
	socklen_t len = sizeof(got);
	CU_ASSERT_EQUAL(getsockname(fd, (struct sockaddr *)&got, &len), 0);
	CU_ASSERT_EQUAL(got.sin_addr.s_addr, htonl(0x7f000003));
	CU_ASSERT_EQUAL(got.sin_port, 0);
	close(fd);
	shb_source_free(s);

	/* TEST-NET-1 is nobody's address here. */
	s = shb_source_parse("127.0.0.2,192.0.2.1", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(shb_source_check_local(s, 1, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--source: cannot bind to 192.0.2.1 (Cannot "
			       "assign requested address): not an address of this machine");
	shb_source_free(s);
}

static int parse_args(struct shb_config *cfg, char *err, size_t errlen,
		      const char *a1, const char *a2, const char *a3, const char *a4)
{
	char *argv[8];
	int argc = 0;
	const char *in[] = {"shb", a1, a2, a3, a4};
	for (size_t i = 0; i < 5 && in[i]; i++)
		argv[argc++] = strdup(in[i]);
	argv[argc] = NULL;
	memset(cfg, 0, sizeof(*cfg));
	err[0] = '\0';
	int rc = shb_cli_parse(argc, argv, cfg, err, errlen);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

static void expect_cli(const char *want, const char *a1, const char *a2,
		       const char *a3, const char *a4)
{
	struct shb_config cfg;
	char err[256];
	CU_ASSERT_EQUAL(parse_args(&cfg, err, sizeof(err), a1, a2, a3, a4), -1);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\ngot \"%s\"\n", err);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_config_free(&cfg);
}

static void test_cli(void)
{
	struct shb_config cfg;
	char err[256];

	/* The family narrows name resolution, as -4 does. */
	CU_ASSERT_EQUAL_FATAL(parse_args(&cfg, err, sizeof(err), "--source",
					 "127.0.0.2-127.0.0.4", "http://localhost:8080/", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.source);
	CU_ASSERT_EQUAL(cfg.source->count, 3);
	CU_ASSERT_EQUAL(cfg.family, AF_INET);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(parse_args(&cfg, err, sizeof(err), "-6", "--source",
					 "::1", "http://localhost:8080/"), 0);
	CU_ASSERT_EQUAL(cfg.family, AF_INET6);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(parse_args(&cfg, err, sizeof(err), "http://x/", NULL, NULL, NULL), 0);
	CU_ASSERT_PTR_NULL(cfg.source);
	CU_ASSERT_EQUAL(cfg.family, 0);
	shb_config_free(&cfg);

	expect_cli("--source is IPv4 but -6 was given", "-6", "--source",
		   "127.0.0.2", "http://localhost/");
	expect_cli("--source is IPv6 but the URL's host 127.0.0.1 is IPv4",
		   "--source", "::1", "http://127.0.0.1/", NULL);
	expect_cli("--source is IPv4 but the URL's host ::1 is IPv6",
		   "--source", "127.0.0.2", "http://[::1]:80/", NULL);
	expect_cli("--source given twice: list the addresses in one (ADDR-ADDR or ADDR,ADDR)",
		   "--source", "127.0.0.2", "--source=127.0.0.3", "http://x/");
	expect_cli("--source cannot be combined with --unix-socket", "--source",
		   "127.0.0.2", "--unix-socket=/nonexistent", "http://x/");
	expect_cli("--source \"127.0.0.2-127.0.0.1\": the range ends below its start",
		   "--source", "127.0.0.2-127.0.0.1", "http://x/", NULL);
}

static CU_TestInfo source_tests[] = {
	{"address sets", test_parse},
	{"refusals", test_refused},
	{"spread over slots", test_spread},
	{"bind without a port", test_bind},
	{"--source option", test_cli},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"source", NULL, NULL, NULL, NULL, source_tests},
	CU_SUITE_INFO_NULL,
};
