/* HTTP/1.1 responses handed whole to the core (h1_resp.h). */
#include "h1_resp.h"

#include <string.h>

static int is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* One field line [p, end) (no CR/LF): NUL-terminated in place and
 * appended to kvs, or left out. */
static void field_line(char *p, char *end, struct shb_buf *kvs)
{
	char *colon = memchr(p, ':', (size_t)(end - p));
	if (p == end || is_ows(*p) || !colon || colon == p)
		return; /* obs-fold, or not a field */
	/* A NUL cannot be in a NUL-terminated string: such a field (which
	 * RFC 9110 does not allow) is left out rather than cut. */
	if (memchr(p, '\0', (size_t)(end - p)))
		return;
	*colon = '\0';
	char *v = colon + 1;
	while (v < end && is_ows(*v))
		v++;
	while (end > v && is_ows(end[-1]))
		end--;
	*end = '\0';
	struct shb_kv kv = {p, v};
	shb_buf_put(kvs, &kv, sizeof(kv));
}

void shb_h1_resp_deliver(const struct shb_host *host, struct shb_conn *handle,
			 uint64_t cookie, uint32_t status,
			 struct shb_h1_keep *keep, struct shb_buf *kvs)
{
	if (!SHB_HAS(host, struct shb_host, req_response) || !host->req_response)
		return;
	shb_buf_clear(kvs);
	char *p = (char *)keep->head.p, *end = p + keep->head.len;
	char *lf = p ? memchr(p, '\n', keep->head.len) : NULL;
	/* After the status line, every line up to the empty one. */
	for (p = lf ? lf + 1 : end; p < end; p = lf + 1) {
		lf = memchr(p, '\n', (size_t)(end - p));
		if (!lf)
			break;
		char *e = lf > p && lf[-1] == '\r' ? lf - 1 : lf;
		if (e == p)
			break;
		field_line(p, e, kvs);
	}
	struct shb_response resp = {
		.struct_size = sizeof(resp),
		.status = status,
		.flags = keep->truncated ? SHB_RESP_BODY_TRUNCATED : 0,
		.headers = (const struct shb_kv *)(void *)kvs->p,
		.header_count = kvs->err ? 0 : kvs->len / sizeof(struct shb_kv),
		.body = keep->body.len ? keep->body.p : NULL,
		.body_len = keep->body.len,
	};
	host->req_response(handle, cookie, &resp);
}
