/* The parser of a script's request() bytes (core/engine/script_req.c).
 * Input: the bytes as request() returned them, parsed twice into one set
 * (the second parse reuses the set's memory, as a worker does).
 *
 * Checked besides memory safety: a parse gives requests or one error line
 * (never both, never an empty line); each request's method is a token,
 * its path starts with '/' and has no control or space, its header names
 * and values are NUL-terminated inside the set's copy with no CR or LF,
 * no header is Host, Content-Length or Transfer-Encoding, its body lies
 * inside the copy, and the second parse gives the same requests. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/script_req.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_request(const struct shb_sreq_set *s, const struct shb_request *r,
			  size_t len)
{
	const char *lo = s->text, *hi = s->text + len + 1;
	if (!r->method[0] || r->path[0] != '/' || r->method < lo || r->path >= hi)
		abort();
	for (const char *p = r->path; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			abort();
	for (size_t i = 0; i < r->header_count; i++) {
		const struct shb_kv *h = &r->headers[i];
		if (!h->key[0] || strpbrk(h->key, "\r\n:") || strpbrk(h->value, "\r\n") ||
		    !strcasecmp(h->key, "host") || !strcasecmp(h->key, "content-length") ||
		    !strcasecmp(h->key, "transfer-encoding"))
			abort();
	}
	if (r->body_len && ((const char *)r->body < lo ||
			    (const char *)r->body + r->body_len > hi))
		abort();
	if (r->body_len && !(r->flags & SHB_REQUEST_HAS_BODY))
		abort();
}

/* Two parses of the same bytes give the same requests. */
static void check_same(const struct shb_sreq_set *s, const size_t *paths,
		       size_t n)
{
	if (s->count != n)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((size_t)(s->reqs[i].path - s->text) != paths[i])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct shb_sreq_set s;
	static size_t paths[SHB_SREQ_REQUESTS_MAX];
	char err[256];

	for (int round = 0; round < 2; round++) {
		err[0] = '\0';
		int rc = shb_sreq_parse(&s, data, size, "http", err, sizeof(err));
		if (rc < 0) {
			if (!err[0] || strchr(err, '\n') || s.count)
				abort();
			continue;
		}
		if (s.count == 0 || s.count > SHB_SREQ_REQUESTS_MAX)
			abort();
		for (size_t i = 0; i < s.count; i++)
			check_request(&s, &s.reqs[i], size);
		if (round == 0)
			for (size_t i = 0; i < s.count; i++)
				paths[i] = (size_t)(s.reqs[i].path - s.text);
		else
			check_same(&s, paths, s.count);
	}
	return 0;
}
