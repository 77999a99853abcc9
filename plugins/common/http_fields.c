/* Connection-specific request fields: see http_fields.h. */
#include "http_fields.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
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

int shb_http_refuse_conn_specific(const struct shb_kv *headers, size_t count,
				  const char *proto, const char *version,
				  const char *rfc, char *err, size_t errlen)
{
	for (size_t i = 0; i < count; i++) {
		const struct shb_kv *kv = &headers[i];
		const char *bad;

		if (!kv->key || !kv->value)
			continue;
		bad = shb_http_conn_specific(kv->key, kv->value);
		if (!bad)
			continue;
		if (strcmp(bad, "TE") == 0)
			snprintf(err, errlen,
				 "%s: header '%s: %s' is not allowed in %s: "
				 "TE may only be \"trailers\" (%s)",
				 proto, kv->key, kv->value, version, rfc);
		else
			snprintf(err, errlen,
				 "%s: header '%s' is connection-specific and not "
				 "allowed in %s (%s)", proto, kv->key, version, rfc);
		return SHB_E_INVAL;
	}
	return SHB_OK;
}

int shb_http_field_dropped(const char *name)
{
	return strcasecmp(name, "host") == 0 ||
	       strcasecmp(name, "content-length") == 0;
}
