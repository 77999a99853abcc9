/* Responses kept for req_response, and issue_req's requests (h2_resp.h). */
#include "h2_resp.h"

#include <stdlib.h>
#include <string.h>

#include "h2_conn.h"
#include "h2_request.h"

int shb_h2_keep_init(struct shb_h2_conn *c)
{
	uint32_t n = c->slot_mask + 1;
	struct shb_h2_keep *k = calloc(1, sizeof(*k));

	c->keep = k;
	if (!k)
		return SHB_E_NOMEM;
	k->head = calloc(n, sizeof(*k->head));
	k->body = calloc(n, sizeof(*k->body));
	k->truncated = calloc(n, 1);
	if (!k->head || !k->body || !k->truncated)
		return SHB_E_NOMEM; /* conn_fini frees what there is */
	for (uint32_t i = 0; i < n; i++) {
		shb_buf_init(&k->head[i], 256, SHB_H2_FIELDS_MAX);
		shb_buf_init(&k->body[i], 1024,
			     c->mod->body_max ? (size_t)c->mod->body_max : 1);
	}
	shb_buf_init(&k->strs, 1024, 2 * SHB_H2_FIELDS_MAX);
	shb_buf_init(&k->kvs, 32 * sizeof(struct shb_kv),
		     SHB_H2_FIELDS_MAX / SHB_H2_FIELDS_REC * sizeof(struct shb_kv));
	return SHB_OK;
}

void shb_h2_keep_free(struct shb_h2_conn *c)
{
	struct shb_h2_keep *k = c->keep;

	if (!k)
		return;
	for (uint32_t i = 0; i <= c->slot_mask; i++) {
		if (k->head)
			shb_buf_free(&k->head[i]);
		if (k->body)
			shb_buf_free(&k->body[i]);
	}
	free(k->head);
	free(k->body);
	free(k->truncated);
	shb_buf_free(&k->strs);
	shb_buf_free(&k->kvs);
	free(k);
	c->keep = NULL;
}

static uint32_t slot_of(const struct shb_h2_conn *c, const struct shb_h2_stream *s)
{
	return (uint32_t)(s - c->streams);
}

void shb_h2_keep_head(struct shb_h2_conn *c, const struct shb_h2_stream *s)
{
	uint32_t i = slot_of(c, s);

	shb_buf_clear(&c->keep->head[i]);
	shb_buf_clear(&c->keep->body[i]);
	c->keep->truncated[i] = 0;
	/* Within the same cap as the fields: an allocation failure keeps
	 * fewer fields, never more. */
	shb_buf_put(&c->keep->head[i], c->fields.b.p, c->fields.b.len);
}

void shb_h2_keep_data(struct shb_h2_conn *c, const struct shb_h2_stream *s,
		      const uint8_t *p, size_t n)
{
	uint32_t i = slot_of(c, s);
	struct shb_buf *b = &c->keep->body[i];
	uint64_t room = c->mod->body_max > b->len ? c->mod->body_max - b->len : 0;

	if (n > room)
		c->keep->truncated[i] = 1;
	if (room && shb_buf_put(b, p, n < room ? n : (size_t)room) != SHB_BUF_OK)
		c->keep->truncated[i] = 1;
}

/* The kept records as NUL-terminated strings (strs) and kvs into them;
 * pseudo-headers left out. The number of fields. */
static size_t build_kvs(struct shb_h2_keep *k, uint32_t i)
{
	struct shb_h2_fields f = {.b = k->head[i]};
	const uint8_t *name, *value;
	size_t off = 0, nlen, vlen, n = 0;

	shb_buf_clear(&k->strs);
	shb_buf_clear(&k->kvs);
	while (shb_h2_fields_next(&f, &off, &name, &nlen, &value, &vlen)) {
		if (nlen && name[0] == ':')
			continue;
		shb_buf_put(&k->strs, name, nlen);
		shb_buf_put_u8(&k->strs, 0);
		shb_buf_put(&k->strs, value, vlen);
		shb_buf_put_u8(&k->strs, 0);
		n++;
	}
	if (k->strs.err)
		return 0;
	/* Pointers only once strs stopped moving. */
	const char *p = (const char *)k->strs.p;
	for (size_t j = 0; j < n; j++) {
		struct shb_kv kv = {p, p + strlen(p) + 1};
		p = kv.value + strlen(kv.value) + 1;
		if (shb_buf_put(&k->kvs, &kv, sizeof(kv)) != SHB_BUF_OK)
			return 0;
	}
	return n;
}

void shb_h2_keep_deliver(struct shb_h2_conn *c, const struct shb_h2_stream *s)
{
	const struct shb_host *h = c->mod->host;
	struct shb_h2_keep *k = c->keep;
	uint32_t i = slot_of(c, s);

	if (!SHB_HAS(h, struct shb_host, req_response) || !h->req_response)
		return;
	size_t n = build_kvs(k, i);
	struct shb_response resp = {
		.struct_size = sizeof(resp),
		.status = s->status,
		.flags = k->truncated[i] ? SHB_RESP_BODY_TRUNCATED : 0,
		.headers = n ? (const struct shb_kv *)(void *)k->kvs.p : NULL,
		.header_count = n,
		.body = k->body[i].len ? k->body[i].p : NULL,
		.body_len = k->body[i].len,
	};
	h->req_response(c->handle, s->cookie, &resp);
}

int shb_h2_own_request(struct shb_h2_conn *c, uint32_t k,
		       struct shb_h2_request *r)
{
	if (!c->oreq) {
		c->oreq = calloc(c->slot_mask + 1, sizeof(*c->oreq));
		if (!c->oreq)
			return SHB_E_NOMEM;
	}
	shb_h2_request_free(c->oreq[k]);
	c->oreq[k] = r;
	return SHB_OK;
}

void shb_h2_own_free(struct shb_h2_conn *c)
{
	for (uint32_t k = 0; c->oreq && k <= c->slot_mask; k++)
		shb_h2_request_free(c->oreq[k]);
	free(c->oreq);
	c->oreq = NULL;
}
