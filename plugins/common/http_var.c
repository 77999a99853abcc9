/* A request's per-issue variation: see http_var.h. */
#include "http_var.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "http_dec.h"
#include "http_prefint.h"

/* The template's octets from *from up to field k, then field k with
 * `value`; *from moves past field k. */
static void splice(const struct shb_http_tmpl *t, struct shb_buf *b,
		   size_t *from, size_t k, const char *value, size_t value_len)
{
	uint8_t len[16];
	size_t n = shb_prefint_encode(len, sizeof(len), 7, 0x00, value_len);

	shb_buf_put(b, t->block + *from, t->at[k].off - *from);
	shb_buf_put(b, t->pre + t->pre_at[k].off, t->pre_at[k].len);
	shb_buf_put(b, len, n);
	shb_buf_put(b, value, value_len);
	*from = t->at[k].off + t->at[k].len;
}

/* The varied headers, ascending by index; SHB_E_INVAL for one the
 * template lacks or out of order. They are spliced in block order, which
 * is index order unless a user header took a profile header's place
 * (h2's --proto-opt profile): the next is the nearest after *from. */
static int splice_headers(const struct shb_http_tmpl *t,
			  const struct shb_request_var *v, struct shb_buf *b,
			  size_t *from, uint64_t *delta)
{
	size_t n = (v->flags & SHB_VAR_HEADERS) ? v->header_count : 0;

	for (size_t i = 0; i < n; i++)
		if (v->headers[i].index >= t->header_count ||
		    (i && v->headers[i].index <= v->headers[i - 1].index))
			return SHB_E_INVAL;
	for (;;) {
		const struct shb_var_header *h = NULL;

		for (size_t i = 0; i < n; i++) {
			const struct shb_http_fspan *a = &t->at[v->headers[i].index];

			/* len 0: dropped (host, content-length) */
			if (a->len && a->off >= *from &&
			    (!h || a->off < t->at[h->index].off))
				h = &v->headers[i];
		}
		if (!h)
			return SHB_OK;
		splice(t, b, from, h->index, h->value, h->value_len);
		*delta += h->value_len - t->at[h->index].value_len;
	}
}

int shb_http_var_splice(const struct shb_http_tmpl *t,
			const struct shb_request_var *v, struct shb_buf *b,
			uint64_t *value_delta)
{
	size_t from = 0;
	uint64_t delta = 0;
	char clen[24];
	int rc;

	shb_buf_clear(b);
	if (v->flags & SHB_VAR_PATH) {
		splice(t, b, &from, SHB_HTTP_AT_PATH(t), v->path, v->path_len);
		delta += v->path_len - t->at[SHB_HTTP_AT_PATH(t)].value_len;
	}
	rc = splice_headers(t, v, b, &from, &delta);
	if (rc < 0)
		return rc;
	if (v->flags & SHB_VAR_BODY) {
		size_t n = shb_http_put_dec(clen, v->body_len);

		splice(t, b, &from, SHB_HTTP_AT_CLEN(t), clen, n);
		delta += (uint64_t)n - t->at[SHB_HTTP_AT_CLEN(t)].value_len;
	}
	shb_buf_put(b, t->block + from, t->block_len - from);
	if (value_delta)
		*value_delta = delta;
	return b->err == SHB_BUF_OK ? SHB_OK
	       : b->err == SHB_BUF_E_CAP ? SHB_E_INVAL : SHB_E_NOMEM;
}

int shb_http_prio_keep(const struct shb_kv *headers, size_t count,
		       char **value, size_t *len, size_t *index)
{
	*value = NULL;
	for (size_t i = 0; i < count; i++) {
		const struct shb_kv *kv = &headers[i];

		if (!kv->key || !kv->value || strcasecmp(kv->key, "priority"))
			continue;
		*value = strdup(kv->value);
		*len = strlen(kv->value);
		*index = i;
		return *value ? 0 : -1;
	}
	return 0;
}

void shb_http_var_header(const struct shb_request_var *var, size_t index,
			 const char **value, size_t *len)
{
	if (!var || !(var->flags & SHB_VAR_HEADERS))
		return;
	/* Ascending by index, and short: a scan. */
	for (size_t i = 0; i < var->header_count; i++) {
		if (var->headers[i].index == index) {
			*value = var->headers[i].value;
			*len = var->headers[i].value_len;
			return;
		}
	}
}
