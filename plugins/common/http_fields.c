/* Connection-specific request fields: see http_fields.h. */
#include "http_fields.h"

#include <stddef.h>
#include <strings.h>

const char *shb_http_conn_specific(const char *name, const char *value)
{
	static const char *const banned[] = {
		"Connection", "Keep-Alive", "Proxy-Connection",
		"Transfer-Encoding", "Upgrade",
	};

	for (size_t i = 0; i < sizeof(banned) / sizeof(banned[0]); i++)
		if (strcasecmp(name, banned[i]) == 0)
			return banned[i];
	/* TE may only say "trailers". */
	if (strcasecmp(name, "te") == 0 && strcasecmp(value, "trailers") != 0)
		return "TE";
	return NULL;
}
