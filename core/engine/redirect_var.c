/* A templated request's variation, kept for its redirect hops
 * (redirect_var.h). */
#include <stdlib.h>
#include <string.h>

#include "engine/redirect_var.h"

/* A variation holds at most a template's expansion: the template's own
 * scratch bounds it (template.h), this only the buffer. */
#define VAR_MAX ((size_t)1 << 30)

static int keep_headers(struct shb_redir_var *v, const struct shb_request_var *var)
{
	if (var->header_count > v->hcap) {
		struct shb_redir_var_h *h = realloc(v->h, var->header_count * sizeof(*h));
		if (!h)
			return -1;
		v->h = h;
		v->hcap = (uint32_t)var->header_count;
	}
	for (size_t i = 0; i < var->header_count; i++) {
		const struct shb_var_header *vh = &var->headers[i];
		v->h[i].index = vh->index;
		v->h[i].off = v->b.len;
		shb_buf_put(&v->b, vh->value, vh->value_len);
		shb_buf_put_u8(&v->b, 0);
	}
	v->nh = (uint32_t)var->header_count;
	return 0;
}

int shb_redir_var_keep(struct shb_redir_var *v, const struct shb_request_var *var)
{
	if (!var) {
		v->flags = 0;
		v->nh = 0;
		return 0;
	}
	if (v->b.max == 0)
		shb_buf_init(&v->b, 256, VAR_MAX);
	shb_buf_clear(&v->b);
	v->flags = 0;
	v->nh = 0;
	v->path_len = v->body_off = v->body_len = 0;
	if (var->flags & SHB_VAR_PATH) {
		shb_buf_put(&v->b, var->path, var->path_len);
		v->path_len = var->path_len;
	}
	if (var->flags & SHB_VAR_BODY) {
		v->body_off = v->b.len;
		shb_buf_put(&v->b, var->body, var->body_len);
		v->body_len = var->body_len;
	}
	if ((var->flags & SHB_VAR_HEADERS) && keep_headers(v, var) < 0)
		return -1;
	/* One byte at least, so that an empty path or body has an address. */
	shb_buf_put_u8(&v->b, 0);
	if (v->b.err != SHB_BUF_OK) {
		v->nh = 0;
		return -1;
	}
	v->flags = var->flags & (SHB_VAR_PATH | SHB_VAR_BODY | SHB_VAR_HEADERS);
	return 0;
}

const char *shb_redir_var_path(const struct shb_redir_var *v, size_t *len)
{
	if (!(v->flags & SHB_VAR_PATH))
		return NULL;
	*len = v->path_len;
	return (const char *)v->b.p;
}

const uint8_t *shb_redir_var_body(const struct shb_redir_var *v, size_t *len)
{
	if (!(v->flags & SHB_VAR_BODY))
		return NULL;
	*len = v->body_len;
	return v->b.p + v->body_off;
}

const char *shb_redir_var_header(const struct shb_redir_var *v, uint32_t index)
{
	if (!(v->flags & SHB_VAR_HEADERS))
		return NULL;
	for (uint32_t i = 0; i < v->nh; i++)
		if (v->h[i].index == index)
			return (const char *)v->b.p + v->h[i].off;
	return NULL;
}

void shb_redir_var_free(struct shb_redir_var *v)
{
	shb_buf_free(&v->b);
	free(v->h);
	memset(v, 0, sizeof(*v));
}
