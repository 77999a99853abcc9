/* The request bytes a script's request() returns (shb/script.h), parsed
 * into whole requests for issue_req: HTTP/1.1 request messages back to
 * back (a pipeline), each "METHOD /path HTTP/1.1", header fields, an empty
 * line and a body of Content-Length bytes.
 *
 * Validated like a request template (proto.h struct shb_request): the
 * method a token, the path starting with '/' and without controls or
 * spaces, header names tokens, values without controls other than tab.
 * The Host field becomes the request's authority (NULL without one: the
 * connection's); Content-Length frames the body and is not passed on (the
 * protocol writes its own). Transfer-Encoding, obsolete line folding, a
 * Content-Length twice with different values, a body shorter than it
 * says, and anything past the caps are errors: one line naming what is
 * wrong, never a crash. LF alone ends a line too. Pure: no I/O, no clock;
 * after the first few calls no allocation (the set keeps its memory). */
#ifndef SHB_CORE_SCRIPT_REQ_H
#define SHB_CORE_SCRIPT_REQ_H

#include <stddef.h>
#include <stdint.h>
#include <shb/shb.h>

/* Header fields one request may have, and requests one string may hold. */
#define SHB_SREQ_HEADERS_MAX 256u
#define SHB_SREQ_REQUESTS_MAX 1024u

/* What one string parsed into. Every pointer of reqs[] points into the
 * set's own copy of the string (text) or its header table (kv): valid
 * until the next parse into the set or shb_sreq_free. */
struct shb_sreq_set {
	struct shb_request *reqs;
	size_t count;
	size_t reqs_cap;
	struct shb_kv *kv;
	size_t kv_cap;
	char *text;
	size_t text_cap;
};

/* Parses buf[len] (at most SHB_SCRIPT_REQUEST_MAX bytes) into s, the
 * requests' scheme set to `scheme` (borrowed, kept in the requests).
 * Returns 0 with s->count >= 1, or -1 with one line in err (an empty
 * string, a malformed one, out of memory). */
int shb_sreq_parse(struct shb_sreq_set *s, const uint8_t *buf, size_t len,
		   const char *scheme, char *err, size_t errlen);
void shb_sreq_free(struct shb_sreq_set *s);

#endif
