/* A request's per-issue variation (http_var.h). */
#include "http_var.h"

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
