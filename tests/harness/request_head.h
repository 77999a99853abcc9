/* HTTP/1.x request heads as a scripted peer sees them: only what a test
 * server needs to frame the request (method, version, body framing,
 * whether the client asked to close). Pure functions, no I/O. */
#ifndef SHB_HARNESS_REQUEST_HEAD_H
#define SHB_HARNESS_REQUEST_HEAD_H

#include <stddef.h>
#include <stdint.h>

/* Heads larger than this are refused (a client gone wrong, not a test). */
#define SHB_HREQ_MAX_HEAD (64u * 1024u)

struct shb_hreq {
	char method[16];        /* NUL-terminated; longer methods are refused */
	int version_minor;      /* 0 or 1 (HTTP/1.0, HTTP/1.1) */
	int64_t content_length; /* -1 when absent */
	int chunked;            /* Transfer-Encoding ends in chunked */
	int wants_close;        /* the connection must close after the answer */
	size_t head_len;        /* bytes through the empty line */
};

/* Parses a complete head: `len` bytes ending with the empty line (CRLF
 * CRLF). Returns 0 and fills *req, or -1 when the head is malformed or its
 * body framing is ambiguous (then *req is unspecified). */
int shb_hreq_parse(const char *head, size_t len, struct shb_hreq *req);

#endif
