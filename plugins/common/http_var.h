/* A request's per-issue variation (templates, struct shb_request_var):
 * what one of its header values is for this issue. Both HTTP/2 and
 * HTTP/3 need it for a value they send apart from the header block (the
 * Priority field, which also drives PRIORITY_UPDATE frames). */
#ifndef SHB_HTTP_VAR_H
#define SHB_HTTP_VAR_H

#include <stddef.h>

#include <shb/shb.h>

/* [conn] The value of header number `index` (the order of struct
 * shb_request's headers) for this issue: *value and *len are left as
 * given (the prepared value) unless `var` (may be NULL) carries headers
 * and one of them has that index. The value is borrowed from `var` for
 * the issue_var call. */
void shb_http_var_header(const struct shb_request_var *var, size_t index,
			 const char **value, size_t *len);

#endif
