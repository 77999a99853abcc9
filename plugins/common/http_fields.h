/* Request fields that HTTP/2 and HTTP/3 do not carry: the
 * connection-specific ones (RFC 9113 Section 8.2.2, RFC 9114 Section
 * 4.2). A user header naming one is refused at prepare time with one
 * line, since sending it makes the request malformed and silently
 * dropping it would run a different test than the one asked for. */
#ifndef SHB_HTTP_FIELDS_H
#define SHB_HTTP_FIELDS_H

#include <shb/types.h>

/* NULL when `name: value` may be sent over HTTP/2 and HTTP/3; else the
 * field's name as the RFCs spell it: Connection, Keep-Alive,
 * Proxy-Connection, Transfer-Encoding, Upgrade, or TE with any value
 * other than "trailers". Names compare without regard to case. */
const char *shb_http_conn_specific(const char *name, const char *value);

/* Checks a request's user headers for a protocol that does not carry the
 * connection-specific fields: SHB_OK, or SHB_E_INVAL with one line in
 * err[errlen] naming the first one, prefixed by `proto` ("h2") and citing
 * `rfc` ("RFC 9113 8.2.2"); `version` is the protocol's name in the
 * message ("HTTP/2"). Entries with a NULL key or value are skipped. */
int shb_http_refuse_conn_specific(const struct shb_kv *headers, size_t count,
				  const char *proto, const char *version,
				  const char *rfc, char *err, size_t errlen);

/* Non-zero for the user fields HTTP/2 and HTTP/3 requests leave out
 * because the core already carries them: Host (:authority) and
 * Content-Length (the body's length, checked by the core). */
int shb_http_field_dropped(const char *name);

#endif
