#include "test_certs.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>

/* Key, version, serial and a validity window around now. */
static int cert_begin(struct test_cert *c, const char *cn)
{
	time_t now = time(NULL);
	unsigned char serial[8];
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = gnutls_x509_privkey_init(&c->key)) < 0 ||
	    (rc = gnutls_x509_privkey_generate(c->key, GNUTLS_PK_ECDSA,
		      GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) < 0 ||
	    (rc = gnutls_x509_crt_init(&c->crt)) < 0 ||
	    (rc = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0)
		return rc;
	serial[0] &= 0x7f; /* a positive INTEGER */
	if ((rc = gnutls_x509_crt_set_version(c->crt, 3)) < 0 ||
	    (rc = gnutls_x509_crt_set_serial(c->crt, serial, sizeof(serial))) < 0 ||
	    (rc = gnutls_x509_crt_set_activation_time(c->crt, now - 3600)) < 0 ||
	    (rc = gnutls_x509_crt_set_expiration_time(c->crt, now + 86400)) < 0 ||
	    (rc = gnutls_x509_crt_set_dn_by_oid(c->crt, GNUTLS_OID_X520_COMMON_NAME,
						 0, cn, strlen(cn))) < 0 ||
	    (rc = gnutls_x509_crt_set_key(c->crt, c->key)) < 0)
		return rc;
	return 0;
}

static int cert_finish(struct test_cert *c, const struct test_cert *signer)
{
	int rc;

	if ((rc = gnutls_x509_crt_sign2(c->crt, signer->crt, signer->key,
					GNUTLS_DIG_SHA256, 0)) < 0 ||
	    (rc = gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_PEM, &c->pem)) < 0)
		return rc;
	return 0;
}

int test_cert_ca(struct test_cert *ca, const char *cn)
{
	int rc;

	if ((rc = cert_begin(ca, cn)) < 0 ||
	    (rc = gnutls_x509_crt_set_basic_constraints(ca->crt, 1, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(ca->crt, GNUTLS_KEY_KEY_CERT_SIGN |
						    GNUTLS_KEY_CRL_SIGN)) < 0)
		return rc;
	return cert_finish(ca, ca);
}

/* One "DNS:name" or "IP:address" entry; IP addresses go in binary. */
static int add_san(struct test_cert *c, const char *name)
{
	unsigned char ip[16];

	if (strncmp(name, "DNS:", 4) == 0)
		return gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_DNSNAME,
							    name + 4, strlen(name + 4),
							    GNUTLS_FSAN_APPEND);
	if (strncmp(name, "IP:", 3) == 0) {
		if (inet_pton(AF_INET, name + 3, ip) == 1)
			return gnutls_x509_crt_set_subject_alt_name(
				c->crt, GNUTLS_SAN_IPADDRESS, ip, 4, GNUTLS_FSAN_APPEND);
		if (inet_pton(AF_INET6, name + 3, ip) == 1)
			return gnutls_x509_crt_set_subject_alt_name(
				c->crt, GNUTLS_SAN_IPADDRESS, ip, 16, GNUTLS_FSAN_APPEND);
	}
	return GNUTLS_E_INVALID_REQUEST;
}

int test_cert_leaf(struct test_cert *c, const struct test_cert *ca,
		   const char *const *names)
{
	int rc;

	if ((rc = cert_begin(c, "shb test leaf")) < 0)
		return rc;
	for (; *names; names++)
		if ((rc = add_san(c, *names)) < 0)
			return rc;
	if ((rc = gnutls_x509_crt_set_basic_constraints(c->crt, 0, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(c->crt,
						GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_purpose_oid(c->crt, GNUTLS_KP_TLS_WWW_SERVER,
						      0)) < 0)
		return rc;
	return cert_finish(c, ca);
}

void test_cert_free(struct test_cert *c)
{
	if (c->crt)
		gnutls_x509_crt_deinit(c->crt);
	if (c->key)
		gnutls_x509_privkey_deinit(c->key);
	gnutls_free(c->pem.data);
	memset(c, 0, sizeof(*c));
}

int test_cert_write_temp(const struct test_cert *c, char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || !dir[0])
		dir = P_tmpdir;
	if ((size_t)snprintf(path, cap, "%s/shb-test-ca-XXXXXX", dir) >= cap)
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, c->pem.data, c->pem.size) != (ssize_t)c->pem.size) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}
