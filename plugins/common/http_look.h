/* How a client's requests look, shared by the HTTP/2 and HTTP/3
 * connection profiles (--proto-opt profile=): the order of the
 * pseudo-headers and the default request headers in their order, and
 * the one rule that merges them with the user's -H headers.
 *
 * The rule: each of the profile's headers in its order, or in its place
 * the user's header of the same name (any case); then the user's other
 * headers in their order. Host and Content-Length are left out as
 * always (shb_http_field_dropped). */
#ifndef SHB_HTTP_LOOK_H
#define SHB_HTTP_LOOK_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>
#include <shb/types.h>

#define SHB_HTTP_LOOK_MAX_HEADERS 16

/* GnuTLS priority strings for a browser's ClientHello as near as GnuTLS
 * writes it (docs/fingerprints.md says what differs), the same over TCP
 * and QUIC (where the QUIC module keeps TLS 1.3 alone on top).
 * Chrome: groups X25519, P-256, P-384 and Chrome 120's 8 signature
 * algorithms in its order; its 15 suites plus ECDHE-ECDSA-AES128-SHA and
 * -AES256-SHA (GnuTLS cannot leave out one combination), ordered by key
 * exchange first (ECDSA before RSA). */
#define SHB_HTTP_TLS_CHROME \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:" \
	"-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:" \
	"+AES-128-CBC:+AES-256-CBC:-MAC-ALL:+AEAD:+SHA1:-KX-ALL:" \
	"+ECDHE-ECDSA:+ECDHE-RSA:+RSA:-GROUP-ALL:+GROUP-X25519:" \
	"+GROUP-SECP256R1:+GROUP-SECP384R1:-SIGN-ALL:" \
	"+SIGN-ECDSA-SECP256R1-SHA256:+SIGN-RSA-PSS-RSAE-SHA256:" \
	"+SIGN-RSA-SHA256:+SIGN-ECDSA-SECP384R1-SHA384:" \
	"+SIGN-RSA-PSS-RSAE-SHA384:+SIGN-RSA-SHA384:" \
	"+SIGN-RSA-PSS-RSAE-SHA512:+SIGN-RSA-SHA512"
/* Firefox: groups X25519, P-256, P-384, P-521, ffdhe2048, ffdhe3072 and
 * Firefox 120's 11 signature algorithms in its order; its 17 suites
 * exactly (the TLS 1.3 ones in its order, the TLS 1.2 ones by key
 * exchange first), so JA4's cipher hash is Firefox's (5b57614c22b0). */
#define SHB_HTTP_TLS_FIREFOX \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:" \
	"-CIPHER-ALL:+AES-128-GCM:+CHACHA20-POLY1305:+AES-256-GCM:" \
	"+AES-256-CBC:+AES-128-CBC:-MAC-ALL:+AEAD:+SHA1:-KX-ALL:" \
	"+ECDHE-ECDSA:+ECDHE-RSA:+RSA:-GROUP-ALL:+GROUP-X25519:" \
	"+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1:" \
	"+GROUP-FFDHE2048:+GROUP-FFDHE3072:-SIGN-ALL:" \
	"+SIGN-ECDSA-SECP256R1-SHA256:+SIGN-ECDSA-SECP384R1-SHA384:" \
	"+SIGN-ECDSA-SECP521R1-SHA512:+SIGN-RSA-PSS-RSAE-SHA256:" \
	"+SIGN-RSA-PSS-RSAE-SHA384:+SIGN-RSA-PSS-RSAE-SHA512:" \
	"+SIGN-RSA-SHA256:+SIGN-RSA-SHA384:+SIGN-RSA-SHA512:" \
	"+SIGN-ECDSA-SHA1:+SIGN-RSA-SHA1"

/* curl's request as the h2 and h3 curl profiles send it (curl 7.88.1,
 * Debian 12's): after :method :path :scheme :authority, these two. */
#define SHB_HTTP_CURL_UA "curl/7.88.1"
#define SHB_HTTP_CURL_ACCEPT "*/*"

/* Called once per field in order: a profile's default (i is SIZE_MAX) or
 * the template's header i. Non-zero stops the walk. */
typedef int (*shb_http_look_fn)(void *user, const char *name,
				const char *value, size_t i);

/* Walks req's headers merged with defaults[0..n) by the rule above.
 * Returns 0, -1 out of memory, or emit's first non-zero result. */
int shb_http_look_walk(const struct shb_kv *defaults, size_t n,
		       const struct shb_request *req, shb_http_look_fn emit,
		       void *user);

#endif
