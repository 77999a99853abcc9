/* Outcome-space and error-kind names, both directions. */
#include "outcome_names.h"

#include <shb/proto.h>

#include <stdio.h>
#include <string.h>

const char *const shb_err_kind_names[SHB_ERRK_EX_COUNT] = {
	"connect", "tls", "read", "write", "timeout", "protocol", "application",
	"script",
};

/* Indexed by enum shb_errspace. */
static const char *const err_spaces[] = {
	"none", "h2", "h3", "quic", "tls_alert", "errno",
};
#define ERR_SPACES (sizeof err_spaces / sizeof err_spaces[0])

const char *shb_err_kind_name(uint32_t kind)
{
	return kind < SHB_ERRK_EX_COUNT ? shb_err_kind_names[kind] : "other";
}

int shb_err_kind_of(const char *s)
{
	for (int k = 0; k < SHB_ERRK_EX_COUNT; k++)
		if (!strcmp(s, shb_err_kind_names[k]))
			return k;
	return -1;
}

const char *shb_app_space_name(char *buf, size_t len, uint32_t space)
{
	switch (space) {
	case SHB_APPSPACE_NONE:
		return "none";
	case SHB_APPSPACE_GRPC:
		return "grpc";
	case SHB_APPSPACE_WEBSOCKET:
		return "websocket";
	}
	if (space >= SHB_APPSPACE_PRIVATE)
		snprintf(buf, len, "private:%u", space - SHB_APPSPACE_PRIVATE);
	else
		snprintf(buf, len, "unknown:%u", space);
	return buf;
}

const char *shb_err_space_name(char *buf, size_t len, uint32_t space)
{
	if (space < ERR_SPACES)
		return err_spaces[space];
	snprintf(buf, len, "unknown:%u", space);
	return buf;
}

/* "unknown:N" with N a 32-bit number and nothing after it. */
static int64_t unknown_of(const char *s)
{
	unsigned long n;
	char tail;

	if (sscanf(s, "unknown:%lu%c", &n, &tail) == 1 && n <= UINT32_MAX)
		return (int64_t)n;
	return -1;
}

int64_t shb_app_space_of(const char *s)
{
	unsigned long n;
	char tail;

	if (!strcmp(s, "none"))
		return SHB_APPSPACE_NONE;
	if (!strcmp(s, "grpc"))
		return SHB_APPSPACE_GRPC;
	if (!strcmp(s, "websocket"))
		return SHB_APPSPACE_WEBSOCKET;
	if (sscanf(s, "private:%lu%c", &n, &tail) == 1 &&
	    n <= UINT32_MAX - SHB_APPSPACE_PRIVATE)
		return (int64_t)SHB_APPSPACE_PRIVATE + (int64_t)n;
	return unknown_of(s);
}

int64_t shb_err_space_of(const char *s)
{
	for (size_t i = 0; i < ERR_SPACES; i++)
		if (!strcmp(s, err_spaces[i]))
			return (int64_t)i;
	return unknown_of(s);
}

/* ---- since ABI 1.4 ---------------------------------------------------------- */

const struct shb_outcome_space *
shb_outcome_space_find(const struct shb_outcome_table *t, uint32_t space)
{
	for (size_t i = 0; t && t->spaces && i < t->count; i++)
		if (t->spaces[i].space == space && t->spaces[i].name)
			return &t->spaces[i];
	return NULL;
}

const char *shb_outcome_space_name(char *buf, size_t len,
				   const struct shb_outcome_table *t,
				   uint32_t space)
{
	const struct shb_outcome_space *sp = shb_outcome_space_find(t, space);
	return sp ? sp->name : shb_app_space_name(buf, len, space);
}

const char *shb_outcome_code_name(const struct shb_outcome_table *t,
				  uint32_t space, uint64_t code)
{
	const struct shb_outcome_space *sp = shb_outcome_space_find(t, space);
	for (const struct shb_outcome_code *c = sp ? sp->codes : NULL;
	     c && c->name; c++)
		if (c->code == code)
			return c->name;
	return NULL;
}

int64_t shb_outcome_space_of(const struct shb_outcome_table *t, const char *s)
{
	for (size_t i = 0; t && t->spaces && i < t->count; i++)
		if (t->spaces[i].name && !strcmp(t->spaces[i].name, s))
			return t->spaces[i].space;
	return shb_app_space_of(s);
}

int shb_outcome_name_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
	return n >= 1 && n <= SHB_OUTCOME_NAME_BYTES && !s[n];
}

static const char *const metric_kinds[] = {"counter", "latency", "value"};

const char *shb_metric_kind_name(uint32_t kind)
{
	return kind >= SHB_METRIC_COUNTER && kind <= SHB_METRIC_VALUE ?
	       metric_kinds[kind - 1] : "unknown";
}

uint32_t shb_metric_kind_of(const char *s)
{
	for (uint32_t k = SHB_METRIC_COUNTER; s && k <= SHB_METRIC_VALUE; k++)
		if (!strcmp(s, metric_kinds[k - 1]))
			return k;
	return 0;
}
