/* Request fields that HTTP/2 and HTTP/3 do not carry: the
 * connection-specific ones (RFC 9113 Section 8.2.2, RFC 9114 Section
 * 4.2). A user header naming one is refused at prepare time with one
 * line, since sending it makes the request malformed and silently
 * dropping it would run a different test than the one asked for. */
#ifndef SHB_HTTP_FIELDS_H
#define SHB_HTTP_FIELDS_H

/* NULL when `name: value` may be sent over HTTP/2 and HTTP/3; else the
 * field's name as the RFCs spell it: Connection, Keep-Alive,
 * Proxy-Connection, Transfer-Encoding, Upgrade, or TE with any value
 * other than "trailers". Names compare without regard to case. */
const char *shb_http_conn_specific(const char *name, const char *value);

#endif
