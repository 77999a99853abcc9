/* -L with templates (template.h): what a templated request was sent with,
 * kept for the hops of its chain (redirect.h). A hop resends its chain's
 * first request as it went out: its varied header values, and for 307
 * and 308 its body, as they were expanded for it, not expanded again and
 * not the template's text. All [worker].
 *
 * A kept variation is owned by a request slot until a redirect makes a
 * chain of that request, which then takes it over (the slot gets the
 * chain's old one back to reuse): no copy at the redirect, one copy of
 * the variation per templated request while -L is on, and none in any
 * other run. */
#ifndef SHB_CORE_REDIRECT_VAR_H
#define SHB_CORE_REDIRECT_VAR_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>

#include "common/buf.h"

/* The variation of one request, its bytes in `b` (path, body, then each
 * header value NUL-terminated). Zeroed: empty, nothing allocated. */
struct shb_redir_var {
	struct shb_buf b;
	uint32_t flags; /* enum shb_var_flags of what it holds; 0: none */
	uint32_t nh;    /* header values, in h */
	uint32_t hcap;  /* room in h */
	size_t path_len, body_off, body_len;
	struct shb_redir_var_h {
		uint32_t index; /* of the run's headers (run.h) */
		size_t off;     /* of its value, NUL-terminated, in b */
	} *h;
};

/* Keeps a copy of *var in v, replacing what v held (var NULL: nothing
 * varied). 0, or -1 out of memory (v then holds nothing). */
int shb_redir_var_keep(struct shb_redir_var *v, const struct shb_request_var *var);

/* v's path (starting with '/'), or NULL when the request's was the
 * template's; *len gets its length. */
const char *shb_redir_var_path(const struct shb_redir_var *v, size_t *len);

/* v's body, or NULL when the request's was the template's. */
const uint8_t *shb_redir_var_body(const struct shb_redir_var *v, size_t *len);

/* The value header `index` was sent with, NUL-terminated, or NULL when it
 * was the template's. */
const char *shb_redir_var_header(const struct shb_redir_var *v, uint32_t index);

void shb_redir_var_free(struct shb_redir_var *v);

#endif
