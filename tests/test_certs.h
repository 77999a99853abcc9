/* Certificates made in memory for the TLS tests: a CA and leaves it signs
 * with exactly the subjectAltNames a test asks for (DNS names, IPv4 or IPv6
 * addresses), so name checks can be tested against every kind of host. */
#ifndef SHB_TEST_CERTS_H
#define SHB_TEST_CERTS_H

#include <stddef.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

struct test_cert {
	gnutls_x509_crt_t crt;
	gnutls_x509_privkey_t key;
	gnutls_datum_t pem; /* the certificate, PEM */
};

/* A fresh P-256 key and a self-signed CA certificate (CN `cn`, no
 * subjectAltName). Returns 0 or a GnuTLS error. */
int test_cert_ca(struct test_cert *ca, const char *cn);

/* A fresh P-256 key and a TLS server certificate signed by `ca`, with one
 * subjectAltName per entry of `names` (NULL-terminated): "DNS:foo.example",
 * "IP:127.0.0.1" or "IP:::1". The CN is "shb test leaf", never a host name,
 * so only the SANs can match. Returns 0 or a GnuTLS error (also for a name
 * without a known prefix). */
int test_cert_leaf(struct test_cert *c, const struct test_cert *ca,
		   const char *const *names);

void test_cert_free(struct test_cert *c);

/* Writes the certificate's PEM to a new temporary file; path receives its
 * name (cap bytes). Returns 0 or -1. The caller unlinks it. */
int test_cert_write_temp(const struct test_cert *c, char *path, size_t cap);

#endif
