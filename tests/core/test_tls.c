/* The core's TLS client (core/engine/tls.c) against an in-process GnuTLS server,
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
#include "engine/tls.h"
#include "engine/tls_fp.h"

/* The test's own buffers: far above anything a handshake writes. */
#define TEST_BUF_MAX ((size_t)1 << 24)

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
	struct shb_buf in, out;
	size_t in_off;
	char sni[256]; /* the SNI it received, "" if none */
};

static ssize_t sv_push(gnutls_transport_ptr_t p, const void *data, size_t len)
{
	struct server *sv = p;
	return shb_buf_put(&sv->out, data, len) != SHB_BUF_OK ? -1 : (ssize_t)len;
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
	shb_buf_init(&sv->in, 2048, TEST_BUF_MAX);
	shb_buf_init(&sv->out, 2048, TEST_BUF_MAX);
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
	shb_buf_free(&sv->in);
	shb_buf_free(&sv->out);
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

/* Records back and forth until the client's handshake is done or failed
 * (at most 16 rounds). Returns its last shb_tls_handshake result. */
static int drive_handshake(struct shb_tls *t, struct shb_buf *cout,
			   struct server *sv, char *err, size_t errlen)
{
	shb_tls_feed(t, NULL, 0);
	int r = shb_tls_handshake(t, err, errlen);
	for (int round = 0; r == 0 && round < 16; round++) {
		/* client -> server */
		CU_ASSERT_FATAL(shb_buf_put(&sv->in, cout->p, cout->len) == SHB_BUF_OK);
		shb_buf_clear(cout);
		shb_buf_clear(&sv->out);
		server_step(sv);
		/* server -> client */
		shb_tls_feed(t, sv->out.p, sv->out.len);
		r = shb_tls_handshake(t, err, errlen);
	}
	return r;
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
	struct shb_buf cout = SHB_BUF_INIT(2048, TEST_BUF_MAX);
	struct server sv;
	int r;

	err[0] = 0;
	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, verify, ca_path, host, NULL, err,
					 errlen) == 0);
	server_init(&sv, leaf, prio);
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, errlen) == 0);
	r = drive_handshake(&t, &cout, &sv, err, errlen);
	if (sni)
		strcpy(sni, sv.sni);
	shb_tls_free(&t);
	shb_buf_free(&cout);
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
	/* GnuTLS's sentences end in a blank; the sample does not */
	CU_ASSERT(strlen(err) > 0 && err[strlen(err) - 1] == '.');
	CU_ASSERT_EQUAL(handshake(&stray_leaf, 2, "127.0.0.2", err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err,
		"TLS handshake: certificate is not valid for 127.0.0.2; "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "NOT trusted"));
	CU_ASSERT(strlen(err) > 0 && err[strlen(err) - 1] == '.');
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

/* ---- what a failed handshake's message says --------------------------- */

/* A plain HTTP server's answer to the ClientHello: no TLS record, and the
 * message says the port may speak plain HTTP, not that SNI is missing. */
static void test_not_tls(void)
{
	static const char http[] = "HTTP/1.1 400 Bad Request\r\n"
				   "Content-Length: 0\r\n\r\n";
	struct shb_tls_ctx ctx;
	struct shb_tls t;
	struct shb_buf cout = SHB_BUF_INIT(2048, TEST_BUF_MAX);
	char err[512] = "";

	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, 0, NULL, "127.0.0.1", NULL, err,
					 sizeof(err)) == 0);
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, sizeof(err)) == 0);
	shb_tls_feed(&t, NULL, 0);
	CU_ASSERT_EQUAL(shb_tls_handshake(&t, err, sizeof(err)), 0);
	CU_ASSERT(cout.len > 0); /* the ClientHello */
	shb_tls_feed(&t, (const uint8_t *)http, sizeof(http) - 1);
	CU_ASSERT_EQUAL(shb_tls_handshake(&t, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(strncmp(err, "TLS handshake: ", 15), 0);
	const char *hint = " (the answer is not TLS: this port may speak plain "
			   "HTTP; try http://)";
	CU_ASSERT(strlen(err) > strlen(hint) &&
		  strcmp(err + strlen(err) - strlen(hint), hint) == 0);
	CU_ASSERT_FALSE(shb_tls_sni_may_matter(err));
	shb_tls_free(&t);
	shb_buf_free(&cout);
	shb_tls_ctx_free(&ctx);
}

/* A server with no cipher in common sends handshake_failure (40): named
 * by its number, and no cause for the SNI hint. */
static void test_alert_40(void)
{
	struct shb_tls_ctx ctx;
	struct shb_tls t;
	struct shb_buf cout = SHB_BUF_INIT(2048, TEST_BUF_MAX);
	struct server sv;
	char err[512] = "";

	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, 0, NULL, "127.0.0.1", NULL, err,
					 sizeof(err)) == 0);
	server_init(&sv, &ip4_leaf, "NORMAL:-CIPHER-ALL:+AES-128-CBC:-VERS-ALL:"
				    "+VERS-TLS1.2");
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, sizeof(err)) == 0);
	shb_tls_feed(&t, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(shb_tls_handshake(&t, err, sizeof(err)), 0);
	CU_ASSERT_FATAL(shb_buf_put(&sv.in, cout.p, cout.len) == SHB_BUF_OK);
	int r = gnutls_handshake(sv.s);
	CU_ASSERT(r < 0 && gnutls_error_is_fatal(r));
	gnutls_alert_send_appropriate(sv.s, r);
	shb_tls_feed(&t, sv.out.p, sv.out.len);
	CU_ASSERT_EQUAL(shb_tls_handshake(&t, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "TLS handshake: alert 40 (Handshake failed)");
	CU_ASSERT_FALSE(shb_tls_sni_may_matter(err));
	shb_tls_free(&t);
	shb_buf_free(&cout);
	server_free(&sv);
	shb_tls_ctx_free(&ctx);
}

/* Where SNI can be the cause: alerts 80 and 112, in the core's words and
 * in the h3 plugin's. */
static void test_sni_may_matter(void)
{
	CU_ASSERT_TRUE(shb_tls_sni_may_matter("TLS handshake: alert 112 (The server "
					      "name sent was not recognized)"));
	CU_ASSERT_TRUE(shb_tls_sni_may_matter("TLS handshake: alert 80 (Internal error)"));
	CU_ASSERT_TRUE(shb_tls_sni_may_matter("QUIC handshake failed: server sent "
					      "TLS alert 80 (internal_error)"));
	CU_ASSERT_TRUE(shb_tls_sni_may_matter("QUIC handshake failed: server sent "
					      "TLS alert 112 (unrecognized_name)"));
	CU_ASSERT_FALSE(shb_tls_sni_may_matter("QUIC handshake failed: server sent "
					       "TLS alert 40 (handshake_failure)"));
	CU_ASSERT_FALSE(shb_tls_sni_may_matter("TLS handshake: alert 70 (Protocol "
					       "version is not supported)"));
	CU_ASSERT_FALSE(shb_tls_sni_may_matter("TLS handshake: The certificate is "
					       "NOT trusted."));
	/* a name that --sni would change: the address is not in the SANs */
	CU_ASSERT_TRUE(shb_tls_sni_may_matter("TLS handshake: certificate is not "
					      "valid for 127.0.0.1"));
	CU_ASSERT_TRUE(shb_tls_sni_may_matter("QUIC handshake failed: TLS alert 42 "
					      "(bad_certificate)"));
	/* the server's 42 is about our certificate */
	CU_ASSERT_FALSE(shb_tls_sni_may_matter("QUIC handshake failed: server sent "
					       "TLS alert 42 (bad_certificate)"));
	CU_ASSERT_FALSE(shb_tls_sni_may_matter(NULL));
}

/* ---- client certificates (mTLS) and the captured ClientHello ------------ */

static char key_path[512], leaf_path[512];

/* A server that requires a client certificate (TLS 1.3) and the core's
 * client with or without one; also checks that the first ClientHello the
 * session wrote went to ctx.hello. Returns the server's handshake result;
 * err gets the client's error from reading what the server sent last. */
static int mtls(int with_cert, struct shb_hello *hello, char *err, size_t errlen)
{
	struct shb_tls_ctx ctx;
	struct shb_tls t;
	struct shb_buf cout = SHB_BUF_INIT(2048, TEST_BUF_MAX);
	struct server sv;
	uint8_t buf[256];
	int r = 0, sr = GNUTLS_E_AGAIN;

	err[0] = 0;
	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, 0, NULL, "localhost", NULL, err,
					 errlen) == 0);
	ctx.hello = hello;
	if (with_cert)
		CU_ASSERT_FATAL(shb_tls_ctx_set_client_cert(&ctx, leaf_path, key_path,
							    err, errlen) == 0);
	server_init(&sv, &both_leaf, tls13);
	gnutls_certificate_server_set_request(sv.s, GNUTLS_CERT_REQUIRE);
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, errlen) == 0);
	shb_tls_feed(&t, NULL, 0);
	r = shb_tls_handshake(&t, err, errlen);
	for (int round = 0; round < 16 && sr == GNUTLS_E_AGAIN; round++) {
		CU_ASSERT_FATAL(shb_buf_put(&sv.in, cout.p, cout.len) == SHB_BUF_OK);
		shb_buf_clear(&cout);
		shb_buf_clear(&sv.out);
		sr = gnutls_handshake(sv.s);
		if (sr < 0 && gnutls_error_is_fatal(sr))
			gnutls_alert_send_appropriate(sv.s, sr);
		shb_tls_feed(&t, sv.out.p, sv.out.len);
		if (r == 0)
			r = shb_tls_handshake(&t, err, errlen);
		else if (shb_tls_read(&t, buf, sizeof(buf), err, errlen) < 0)
			break;
	}
	/* TLS 1.3: the client is done before the server judged it */
	CU_ASSERT_EQUAL(r, 1);
	if (sr == 0) {
		unsigned n = 0;
		CU_ASSERT_PTR_NOT_NULL(gnutls_certificate_get_peers(sv.s, &n));
		CU_ASSERT_EQUAL(n, 1);
	}
	shb_tls_free(&t);
	shb_buf_free(&cout);
	server_free(&sv);
	shb_tls_ctx_free(&ctx);
	return sr;
}

static void test_client_cert(void)
{
	static struct shb_hello hello;
	const char *ja3, *ja4;
	char err[256];

	memset(&hello, 0, sizeof(hello));
	CU_ASSERT_EQUAL(mtls(1, &hello, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	/* the session's ClientHello was kept: SNI for localhost, no ALPN */
	shb_hello_fingerprints(&hello, &ja3, &ja4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ja4);
	CU_ASSERT_EQUAL(strlen(ja3), 32);
	CU_ASSERT_NSTRING_EQUAL(ja4, "t13d", 4);
	CU_ASSERT_NSTRING_EQUAL(ja4 + 8, "00_", 3);
}

static void test_client_cert_missing(void)
{
	char err[256];
	CU_ASSERT_EQUAL(mtls(0, NULL, err, sizeof(err)), GNUTLS_E_CERTIFICATE_REQUIRED);
	CU_ASSERT_STRING_EQUAL(err, "TLS read: alert 116 (Certificate is required): "
			       "the server wants a client certificate (--cert FILE "
			       "--key FILE)");
}

/* --cert/--key checked before any traffic: one line naming the file. */
static void test_client_cert_check(void)
{
	char err[1200], want[1200];
	CU_ASSERT_EQUAL(shb_tls_check_client_cert(leaf_path, key_path, err,
						  sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_tls_check_client_cert("/nonexistent/c.pem", key_path,
						  err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--cert /nonexistent/c.pem: No such file or directory");
	CU_ASSERT_EQUAL(shb_tls_check_client_cert(key_path, key_path, err,
						  sizeof(err)), -1);
	snprintf(want, sizeof(want), "--cert %s: no PEM certificate in it "
		 "(No certificate was found.)", key_path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_tls_check_client_cert(leaf_path, leaf_path, err,
						  sizeof(err)), -1);
	snprintf(want, sizeof(want), "--key %s: no PEM private key in it", leaf_path);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* the CA's certificate with the leaf's key */
	CU_ASSERT_EQUAL(shb_tls_check_client_cert(ca_path, key_path, err,
						  sizeof(err)), -1);
	snprintf(want, sizeof(want), "--key %s is not the private key of the "
		 "certificate in --cert %s", key_path, ca_path);
	CU_ASSERT_STRING_EQUAL(err, want);
}

/* --ciphers and --tls-version as one priority string, checked. */
static void test_priority(void)
{
	char err[300], *p;
	CU_ASSERT_EQUAL(shb_tls_priority(NULL, 0, 0, &p, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(p);
	CU_ASSERT_EQUAL(shb_tls_priority(NULL, 0x0304, 1, &p, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(p); /* QUIC is 1.3 anyway */
	CU_ASSERT_EQUAL(shb_tls_priority(NULL, 0x0303, 0, &p, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p, "NORMAL:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"
			       "+CHACHA20-POLY1305:-GROUP-ALL:+GROUP-X25519:"
			       "+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1:"
			       "+GROUP-X448:+GROUP-FFDHE2048:+GROUP-FFDHE3072:"
			       "+GROUP-FFDHE4096:+GROUP-FFDHE6144:+GROUP-FFDHE8192:"
			       "-VERS-ALL:+VERS-TLS1.2");
	free(p);
	CU_ASSERT_EQUAL(shb_tls_priority("SECURE256", 0, 0, &p, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p, "SECURE256");
	free(p);
	CU_ASSERT_EQUAL(shb_tls_priority("NORMAL:+NOPE:-X", 0, 0, &p, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--ciphers: GnuTLS rejects \"+NOPE\" at offset 7 "
			       "of \"NORMAL:+NOPE:-X\" (The request is invalid.)");
	CU_ASSERT_EQUAL(shb_tls_priority(NULL, 0x0303, 1, &p, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--tls-version 1.2: QUIC (HTTP/3) runs TLS 1.3 only");
	CU_ASSERT_EQUAL(shb_tls_priority("NORMAL:-CIPHER-ALL:+AES-128-CBC", 0, 1, &p,
					 err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--ciphers \"NORMAL:-CIPHER-ALL:+AES-128-CBC\": no "
			       "cipher suite left for TLS 1.3 (the only version QUIC runs)");
}

/* ---- key shares: one, X25519 ------------------------------------------- */

static unsigned u16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The groups of extension `type` of the ClientHello in one handshake
 * record: supported_groups (10) lists them after a 2-byte length,
 * key_share (51) as entries of group, key length, key. Returns how many,
 * or -1 when the record is not a ClientHello with that extension. */
static int hello_groups(const uint8_t *rec, size_t len, unsigned type,
			unsigned *groups, int cap)
{
	if (len < 9 || rec[0] != 22 || rec[5] != 1 || u16(rec + 3) + 5u > len)
		return -1;
	const uint8_t *p = rec + 9 + 2 + 32, *end = rec + 5 + u16(rec + 3);
	p += 1 + p[0];      /* session id */
	p += 2 + u16(p);    /* cipher suites */
	p += 1 + p[0];      /* compression methods */
	p += 2;             /* extensions length */
	while (p + 4 <= end) {
		unsigned t = u16(p), l = u16(p + 2);
		const uint8_t *b = p + 4, *bend = b + l;
		p = bend;
		if (t != type || bend > end || l < 2)
			continue;
		int n = 0;
		for (b += 2; b + 2 <= bend && n < cap; n++) {
			groups[n] = u16(b);
			b += type == 51 ? 4 + u16(b + 2) : 2;
		}
		return n;
	}
	return -1;
}

/* GnuTLS's default is two key shares (P-256 and X25519): the core sends
 * one, X25519, listed first, as OpenSSL-based clients do, so that a new
 * connection makes no key the server never uses. A server without X25519
 * asks for P-256 with a HelloRetryRequest, and the handshake completes. */
static void test_one_key_share(void)
{
	struct shb_tls_ctx ctx;
	struct shb_tls t;
	struct shb_buf cout = SHB_BUF_INIT(2048, TEST_BUF_MAX);
	unsigned g[16];
	char err[256];

	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, 0, NULL, "localhost", NULL, err,
					 sizeof(err)) == 0);
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, sizeof(err)) == 0);
	shb_tls_feed(&t, NULL, 0);
	CU_ASSERT_EQUAL(shb_tls_handshake(&t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(hello_groups(cout.p, cout.len, 51, g, 16), 1);
	CU_ASSERT_EQUAL(g[0], 0x001d); /* x25519 */
	CU_ASSERT_EQUAL(hello_groups(cout.p, cout.len, 10, g, 16), 10);
	CU_ASSERT_EQUAL(g[0], 0x001d);
	CU_ASSERT_EQUAL(g[1], 0x0017); /* secp256r1 */
	shb_tls_free(&t);
	shb_buf_free(&cout);
	shb_tls_ctx_free(&ctx);

	CU_ASSERT_EQUAL(handshake_prio(&both_leaf, 2, "localhost",
		"NORMAL:-VERS-ALL:+VERS-TLS1.3:-GROUP-ALL:+GROUP-SECP256R1",
		NULL, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(err, "");
}

/* --tls-resume: one connection, one request's worth of records, against
 * a server with session tickets under `key`. Returns 1 if the handshake
 * resumed a session, 0 if not, -1 if it failed. tk: the worker's ticket
 * (NULL: --tls-resume off). */
static int resume_once(const char *prio, const gnutls_datum_t *key,
		       struct shb_tls_ticket *tk)
{
	struct shb_tls_ctx ctx;
	struct shb_tls t;
	struct shb_buf cout = SHB_BUF_INIT(2048, TEST_BUF_MAX);
	struct server sv;
	char err[256];
	uint8_t buf[256];
	int r;

	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, 0, NULL, "localhost", NULL, err,
					 sizeof(err)) == 0);
	ctx.resume = tk != NULL;
	server_init(&sv, &both_leaf, prio);
	CU_ASSERT_FATAL(gnutls_session_ticket_enable_server(sv.s, key) == 0);
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, sizeof(err)) == 0);
	if (tk)
		shb_tls_resume(&t, tk);
	r = drive_handshake(&t, &cout, &sv, err, sizeof(err));
	if (r == 1) {
		/* What is left of the server's last flight (TLS 1.3: its
		 * tickets, after its handshake completed), then a response. */
		CU_ASSERT_EQUAL(shb_tls_read(&t, buf, sizeof(buf), err, sizeof(err)), 0);
		CU_ASSERT_FATAL(shb_buf_put(&sv.in, cout.p, cout.len) == SHB_BUF_OK);
		shb_buf_clear(&cout);
		shb_buf_clear(&sv.out);
		server_step(&sv);
		CU_ASSERT_FATAL(gnutls_record_send(sv.s, "ok", 2) == 2);
		shb_tls_feed(&t, sv.out.p, sv.out.len);
		CU_ASSERT_EQUAL(shb_tls_read(&t, buf, sizeof(buf), err, sizeof(err)), 2);
		r = shb_tls_resumed(&t);
	} else {
		r = -1;
	}
	shb_tls_free(&t);
	shb_buf_free(&cout);
	server_free(&sv);
	shb_tls_ctx_free(&ctx);
	return r;
}

/* The ciphertext buffer is capped (common/buf.h): a record that fits
 * goes in; one that does not fails the write with one line naming the
 * cap, and nothing of it is kept (GnuTLS gives up on the session: the
 * connection fails with it). shb_buf_clear forgets the error. */
static void test_write_cap(void)
{
	struct shb_tls_ctx ctx;
	struct shb_tls t;
	struct shb_buf cout = SHB_BUF_INIT(2048, TEST_BUF_MAX);
	struct shb_buf small = SHB_BUF_INIT(64, 512);
	struct server sv;
	uint8_t data[1000];
	char err[256] = "";

	memset(data, 'x', sizeof(data));
	CU_ASSERT_FATAL(shb_tls_ctx_init(&ctx, 0, NULL, "localhost", NULL, err,
					 sizeof(err)) == 0);
	server_init(&sv, &both_leaf, tls13);
	CU_ASSERT_FATAL(shb_tls_new(&t, &ctx, &cout, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(drive_handshake(&t, &cout, &sv, err, sizeof(err)) == 1);
	shb_tls_set_out(&t, &small);
	/* 100 octets: a record of 122 (TLS 1.3, AES-GCM: 5 + 100 + 1 + 16). */
	CU_ASSERT_EQUAL(shb_tls_write(&t, data, 100, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(small.len, 122);
	/* 1000 octets: a record of 1022, past the cap of 512. */
	CU_ASSERT_EQUAL(shb_tls_write(&t, data, sizeof(data), err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "TLS write: ciphertext buffer above its cap");
	CU_ASSERT_EQUAL(small.len, 122);
	CU_ASSERT_EQUAL(small.err, SHB_BUF_E_CAP);
	shb_buf_clear(&small);
	CU_ASSERT_EQUAL(small.len, 0);
	CU_ASSERT_EQUAL(small.err, SHB_BUF_OK);
	shb_tls_free(&t);
	shb_buf_free(&cout);
	shb_buf_free(&small);
	server_free(&sv);
	shb_tls_ctx_free(&ctx);
}

static void test_resume(void)
{
	static const char *const prios[] = { tls13, tls12 };
	gnutls_datum_t key;

	CU_ASSERT_FATAL(gnutls_session_ticket_key_generate(&key) == 0);
	for (size_t i = 0; i < 2; i++) {
		struct shb_tls_ticket tk = { { NULL, 0 } };
		/* Off: no ticket asked for or kept, never resumed. */
		CU_ASSERT_EQUAL(resume_once(prios[i], &key, NULL), 0);
		CU_ASSERT_EQUAL(resume_once(prios[i], &key, NULL), 0);
		/* On: the first connection full and keeping its ticket, the
		 * next ones resumed, each keeping a newer one. */
		CU_ASSERT_EQUAL(resume_once(prios[i], &key, &tk), 0);
		CU_ASSERT_NOT_EQUAL(tk.d.size, 0);
		for (int k = 0; k < 3; k++)
			CU_ASSERT_EQUAL(resume_once(prios[i], &key, &tk), 1);
		/* Data the server cannot use (another key): a full handshake. */
		gnutls_datum_t other;
		CU_ASSERT_FATAL(gnutls_session_ticket_key_generate(&other) == 0);
		CU_ASSERT_EQUAL(resume_once(prios[i], &other, &tk), 0);
		gnutls_free(other.data);
		shb_tls_ticket_free(&tk);
		CU_ASSERT_EQUAL(tk.d.size, 0);
	}
	gnutls_free(key.data);
}

static int write_key_temp(const struct test_cert *c, char *path, size_t cap)
{
	gnutls_datum_t d;
	int fd, ok;
	if (gnutls_x509_privkey_export2(c->key, GNUTLS_X509_FMT_PEM, &d) < 0)
		return -1;
	snprintf(path, cap, "%s/shb-test-key-XXXXXX", P_tmpdir);
	fd = mkstemp(path);
	ok = fd >= 0 && write(fd, d.data, d.size) == (ssize_t)d.size;
	if (fd >= 0)
		close(fd);
	gnutls_free(d.data);
	return ok ? 0 : -1;
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
	    test_cert_write_temp(&ca, ca_path, sizeof(ca_path)) != 0 ||
	    test_cert_write_temp(&both_leaf, leaf_path, sizeof(leaf_path)) != 0 ||
	    write_key_temp(&both_leaf, key_path, sizeof(key_path)) != 0)
		return -1;
	return 0;
}

static int suite_clean(void)
{
	if (ca_path[0])
		unlink(ca_path);
	if (leaf_path[0])
		unlink(leaf_path);
	if (key_path[0])
		unlink(key_path);
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
	{ "an answer that is not TLS: plain HTTP hint", test_not_tls },
	{ "alert 40: named by number, no SNI hint", test_alert_40 },
	{ "the SNI hint only for alerts 80 and 112", test_sni_may_matter },
	{ "client certificate presented, ClientHello kept", test_client_cert },
	{ "client certificate required, none: named alert", test_client_cert_missing },
	{ "--cert/--key checked at start", test_client_cert_check },
	{ "--ciphers/--tls-version priority strings", test_priority },
	{ "one key share, X25519; P-256 after a retry", test_one_key_share },
	{ "--tls-resume: tickets kept and offered, TLS 1.3 and 1.2", test_resume },
	{ "ciphertext buffer capped: the write fails, one line", test_write_cap },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "core_tls", suite_init, suite_clean, NULL, NULL, tls_tests },
	CU_SUITE_INFO_NULL,
};
