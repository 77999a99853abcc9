/* Why GnuTLS refused a server's certificate, in one line that reads the
 * same whichever TLS stack of shb met it: the core's over TCP
 * (core/engine/tls.c) and the h3 plugin's over QUIC. [any] thread.
 * Needs GnuTLS at link time (its status printer). */
#ifndef SHB_COMMON_TLS_VERIFY_TEXT_H
#define SHB_COMMON_TLS_VERIFY_TEXT_H

#include <stddef.h>

/* Writes "TLS handshake: certificate is not valid for HOST[; more]" when
 * status (gnutls_certificate_status_t bits) says the name does not match
 * and host is not NULL (the likeliest mistake first, as curl does), else
 * "TLS handshake: " and GnuTLS's words for status, without trailing
 * blanks. Returns 0, or -1 (out untouched) when GnuTLS has no words. */
int shb_tls_verify_text(unsigned status, const char *host, char *out,
			size_t cap);

#endif
