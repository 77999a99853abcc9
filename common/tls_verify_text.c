/* A refused certificate in words: see tls_verify_text.h. */
#include "common/tls_verify_text.h"

#include <stdio.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

/* GnuTLS ends its text with a blank. */
static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		s[--n] = '\0';
}

int shb_tls_verify_text(unsigned status, const char *host, char *out,
			size_t cap)
{
	const unsigned name = GNUTLS_CERT_UNEXPECTED_OWNER;
	gnutls_datum_t txt;

	if (!cap)
		return -1;
	if ((status & name) && host) {
		status &= ~(name | GNUTLS_CERT_INVALID);
		if (!status) {
			snprintf(out, cap,
				 "TLS handshake: certificate is not valid for %s", host);
			return 0;
		}
		if (gnutls_certificate_verification_status_print(
			    status | GNUTLS_CERT_INVALID, GNUTLS_CRT_X509, &txt, 0) < 0)
			return -1;
		snprintf(out, cap, "TLS handshake: certificate is not valid for %s; %s",
			 host, txt.data);
	} else {
		if (gnutls_certificate_verification_status_print(status,
								 GNUTLS_CRT_X509, &txt, 0) < 0)
			return -1;
		snprintf(out, cap, "TLS handshake: %s", txt.data);
	}
	gnutls_free(txt.data);
	trim_end(out);
	return 0;
}
