/* A client's request look: see http_look.h. */
#include "http_look.h"

#include <stdlib.h>
#include <strings.h>

#include "http_fields.h"

static int usable(const struct shb_kv *kv)
{
	return kv->key && kv->value && !shb_http_field_dropped(kv->key);
}

/* The user's first usable header named `name` (any case), or count. */
static size_t user_named(const struct shb_request *req, const char *name)
{
	for (size_t i = 0; i < req->header_count; i++)
		if (usable(&req->headers[i]) &&
		    strcasecmp(req->headers[i].key, name) == 0)
			return i;
	return req->header_count;
}

static int walk(const struct shb_kv *defaults, size_t n,
		const struct shb_request *req, shb_http_look_fn emit,
		void *user, unsigned char *used)
{
	const struct shb_kv *h = req->headers;
	int rc;

	for (size_t j = 0; j < n; j++) {
		size_t i = user_named(req, defaults[j].key);
		if (i == req->header_count)
			rc = emit(user, defaults[j].key, defaults[j].value, SIZE_MAX);
		else
			rc = used[i] ? 0 : emit(user, h[i].key, h[i].value, i);
		if (rc)
			return rc;
		if (i < req->header_count)
			used[i] = 1;
	}
	for (size_t i = 0; i < req->header_count; i++)
		if (!used[i] && usable(&h[i]) &&
		    (rc = emit(user, h[i].key, h[i].value, i)) != 0)
			return rc;
	return 0;
}

int shb_http_look_walk(const struct shb_kv *defaults, size_t n,
		       const struct shb_request *req, shb_http_look_fn emit,
		       void *user)
{
	unsigned char *used = calloc(req->header_count + 1, 1);
	int rc;

	if (!used)
		return -1;
	rc = walk(defaults, n, req, emit, user, used);
	free(used);
	return rc;
}
