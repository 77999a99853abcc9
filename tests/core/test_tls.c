/* The core's TLS client (core/tls.c) against an in-process GnuTLS server,
 * records exchanged in memory: with verification on, the certificate must
 * be valid for the URL host, a DNS name against the DNS SANs and an IPv4
 * or IPv6 literal against the iPAddress SANs (a DNS SAN never matches an
 * address). SNI carries DNS names only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>
#include <gnutls/gnutls.h>

#include "test_certs.h"
#include "tls.h"

static struct test_cert ca, other_ca;
static struct test_cert dns_leaf;  /* DNS:foo.example */
static struct test_cert ip4_leaf;  /* IP:127.0.0.1 */
static struct test_cert ip6_leaf;  /* IP:::1 */
static struct test_cert both_leaf; /* DNS:localhost, IP:127.0.0.1, IP:::1 */
static struct test_cert stray_leaf; /* IP:127.0.0.1, signed by other_ca */
static char ca_path[512];

/* The server: a GnuTLS session reading what the client wrote. */
struct server {
	gnutls_session_t s;
	gnutls_certificate_credentials_t cred;
	struct shb_bytes in, out;
	size_t in_off;
	char sni[256]; /* the SNI it received, "" if none */
};

static ssize_t sv_push(gnutls_transport_ptr_t p, const void *data, size_t len)
{
	struct server *sv = p;
	return shb_bytes_append(&sv->out, data, len) < 0 ? -1 : (ssize_t)len;
}

static ssize_t sv_pull(gnutls_transport_ptr_t p, void *data, size_t len)
{
	struct server *sv = p;
	size_t avail = sv->in.len - sv->in_off;
	if (avail == 0) {
		gnutls_transport_set_errno(sv->s, EAGAIN);
		return -1;
	}
	if (len > avail)
		len = avail;
	memcpy(data, sv->in.p + sv->in_off, len);
	sv->in_off += len;
	return (ssize_t)len;
}

static void server_init(struct server *sv, const struct test_cert *leaf,
			const char *prio)
{
	gnutls_x509_crt_t crt = leaf->crt;

	memset(sv, 0, sizeof(*sv));
	CU_ASSERT_FATAL(gnutls_certificate_allocate_credentials(&sv->cred) == 0);
	CU_ASSERT_FATAL(gnutls_certificate_set_x509_key(sv->cred, &crt, 1, leaf->key) == 0);
	CU_ASSERT_FATAL(gnutls_init(&sv->s, GNUTLS_SERVER | GNUTLS_NONBLOCK) == 0);
	CU_ASSERT_FATAL(gnutls_priority_set_direct(sv->s, prio, NULL) == 0);
	CU_ASSERT_FATAL(gnutls_credentials_set(sv->s, GNUTLS_CRD_CERTIFICATE,
					       sv->cred) == 0);
	gnutls_transport_set_ptr(sv->s, sv);
	gnutls_transport_set_push_function(sv->s, sv_push);
	gnutls_transport_set_pull_function(sv->s, sv_pull);
}

static void server_free(struct server *sv)
{
	gnutls_deinit(sv->s);
	gnutls_certificate_free_credentials(sv->cred);
	free(sv->in.p);
	free(sv->out.p);
}

static void server_step(struct server *sv)
{
	size_t len = sizeof(sv->sni);
	unsigned type;

	(void)gnutls_handshake(sv->s); /* AGAIN until done; failures show in the client */
	if (!sv->sni[0] &&
	    gnutls_server_name_get(sv->s, sv->sni, &len, &type, 0) != 0)
		sv->sni[0] = 0;
}

/* A whole handshake between a client for `host` (verify: 0 none, 2 the
 * test CA) and a server presenting `leaf`. Returns the client's last
 * shb_tls_handshake result (1 done, -1 failed) with its message in err. */
static int handshake_prio(const struct test_cert *leaf, int verify,
			  const char *host, const char *prio, char *sni,
			  char *err, size_t errlen)
{
	struct shb_tls_ctx ctx;
	struct shb_tls t;
	struct shb_bytes cout = { 0 };
	struct server sv;
	int r;

	err[0] = 0;
	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, verify, ca_path, host, NULL, err,
					 errlen) == 0);
	server_init(&sv, leaf, prio);
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, errlen) == 0);
	shb_tls_feed(&t, NULL, 0);
	r = shb_tls_handshake(&t, err, errlen);
	for (int round = 0; r == 0 && round < 16; round++) {
		/* client -> server */
		CU_ASSERT_FATAL(shb_bytes_append(&sv.in, cout.p, cout.len) == 0);
		cout.len = 0;
		sv.out.len = 0;
		server_step(&sv);
		/* server -> client */
		shb_tls_feed(&t, sv.out.p, sv.out.len);
		r = shb_tls_handshake(&t, err, errlen);
	}
	if (sni)
		strcpy(sni, sv.sni);
	shb_tls_free(&t);
	free(cout.p);
	server_free(&sv);
	shb_tls_ctx_free(&ctx);
	return r;
}

static const char tls13[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3";
static const char tls12[] = "NORMAL:-VERS-ALL:+VERS-TLS1.2";

static int handshake(const struct test_cert *leaf, int verify, const char *host,
		     char *err, size_t errlen)
{
	return handshake_prio(leaf, verify, host, tls13, NULL, err, errlen);
}

/* A run expected to fail on the certificate's name. */
static void refused_for(const struct test_cert *leaf, const char *host)
{
	char err[512], want[300];

	snprintf(want, sizeof(want), "TLS handshake: certificate is not valid for %s",
		 host);
	CU_ASSERT_EQUAL(handshake(leaf, 2, host, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
}

static void accepted_for(const struct test_cert *leaf, const char *host)
{
	char err[512];

	CU_ASSERT_EQUAL(handshake(leaf, 2, host, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(err, "");
}

/* The hole this guards: a DNS-only certificate at an IP-literal URL. */
static void test_ipv4(void)
{
	char err[512];

	refused_for(&dns_leaf, "127.0.0.1");
	accepted_for(&ip4_leaf, "127.0.0.1");
	accepted_for(&both_leaf, "127.0.0.1");
	refused_for(&ip4_leaf, "127.0.0.2");
	refused_for(&ip6_leaf, "127.0.0.1");
	/* TLS 1.2 verifies the same way */
	CU_ASSERT_EQUAL(handshake_prio(&dns_leaf, 2, "127.0.0.1", tls12, NULL, err,
				       sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "TLS handshake: certificate is not valid for 127.0.0.1");
	CU_ASSERT_EQUAL(handshake_prio(&ip4_leaf, 2, "127.0.0.1", tls12, NULL, err,
				       sizeof(err)), 1);
}

static void test_ipv6(void)
{
	refused_for(&dns_leaf, "::1");
	accepted_for(&ip6_leaf, "::1");
	accepted_for(&ip6_leaf, "0:0:0:0:0:0:0:1"); /* the same address */
	accepted_for(&both_leaf, "::1");
	refused_for(&ip4_leaf, "::1");
	refused_for(&ip6_leaf, "::2");
	/* an IPv4-mapped address is not the IPv4 address */
	refused_for(&ip4_leaf, "::ffff:127.0.0.1");
}

/* DNS names were checked before; they must stay checked. */
static void test_dns(void)
{
	accepted_for(&dns_leaf, "foo.example");
	accepted_for(&dns_leaf, "FOO.example");
	refused_for(&dns_leaf, "localhost");
	refused_for(&dns_leaf, "bar.foo.example");
	accepted_for(&both_leaf, "localhost");
	/* an address SAN is no DNS name */
	refused_for(&ip4_leaf, "localhost");
}

/* An untrusted chain is refused for that reason, with the name too when
 * that is also wrong. */
static void test_untrusted(void)
{
	char err[512];

	CU_ASSERT_EQUAL(handshake(&stray_leaf, 2, "127.0.0.1", err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "TLS handshake: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "NOT trusted"));
	CU_ASSERT_PTR_NULL(strstr(err, "not valid for"));
	CU_ASSERT_EQUAL(handshake(&stray_leaf, 2, "127.0.0.2", err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err,
		"TLS handshake: certificate is not valid for 127.0.0.2; "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "NOT trusted"));
}

/* Without verification any certificate is accepted, for any host. */
static void test_no_verify(void)
{
	char err[512];

	CU_ASSERT_EQUAL(handshake(&dns_leaf, 0, "127.0.0.1", err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(handshake(&stray_leaf, 0, "localhost", err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(handshake(&ip6_leaf, 0, "::1", err, sizeof(err)), 1);
}

/* SNI names DNS hosts only (RFC 6066 3), with or without verification. */
static void test_sni(void)
{
	char err[512], sni[256];

	CU_ASSERT_EQUAL(handshake_prio(&dns_leaf, 2, "foo.example", tls13, sni, err,
				       sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(sni, "foo.example");
	CU_ASSERT_EQUAL(handshake_prio(&ip4_leaf, 2, "127.0.0.1", tls13, sni, err,
				       sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(sni, "");
	CU_ASSERT_EQUAL(handshake_prio(&ip6_leaf, 0, "::1", tls13, sni, err,
				       sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(sni, "");
}

static int suite_init(void)
{
	static const char *const dns[] = { "DNS:foo.example", NULL };
	static const char *const ip4[] = { "IP:127.0.0.1", NULL };
	static const char *const ip6[] = { "IP:::1", NULL };
	static const char *const both[] = { "DNS:localhost", "IP:127.0.0.1",
					    "IP:::1", NULL };

	if (test_cert_ca(&ca, "shb test CA") != 0 ||
	    test_cert_ca(&other_ca, "shb other CA") != 0 ||
	    test_cert_leaf(&dns_leaf, &ca, dns) != 0 ||
	    test_cert_leaf(&ip4_leaf, &ca, ip4) != 0 ||
	    test_cert_leaf(&ip6_leaf, &ca, ip6) != 0 ||
	    test_cert_leaf(&both_leaf, &ca, both) != 0 ||
	    test_cert_leaf(&stray_leaf, &other_ca, ip4) != 0 ||
	    test_cert_write_temp(&ca, ca_path, sizeof(ca_path)) != 0)
		return -1;
	return 0;
}

static int suite_clean(void)
{
	if (ca_path[0])
		unlink(ca_path);
	test_cert_free(&ca);
	test_cert_free(&other_ca);
	test_cert_free(&dns_leaf);
	test_cert_free(&ip4_leaf);
	test_cert_free(&ip6_leaf);
	test_cert_free(&both_leaf);
	test_cert_free(&stray_leaf);
	return 0;
}

static CU_TestInfo tls_tests[] = {
	{ "IPv4 literal: iPAddress SAN only", test_ipv4 },
	{ "IPv6 literal: iPAddress SAN only", test_ipv6 },
	{ "DNS name: DNS SAN", test_dns },
	{ "untrusted chain", test_untrusted },
	{ "no verification", test_no_verify },
	{ "SNI for DNS names only", test_sni },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "core_tls", suite_init, suite_clean, NULL, NULL, tls_tests },
	CU_SUITE_INFO_NULL,
};
