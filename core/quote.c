/* Quoting user text in errors: see quote.h. */
#include "quote.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct shb_quoted shb_quote_n(const char *v, size_t n)
{
	struct shb_quoted q;
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)v;

	for (size_t i = 0; i < n && p[i]; i++) {
		if (i >= SHB_QUOTE_MAX) {
			memcpy(q.s + o, "...", 3);
			o += 3;
			break;
		}
		if (p[i] < 0x20 || p[i] == 0x7f || p[i] == '"' || p[i] == '\\')
			o += (size_t)snprintf(q.s + o, sizeof(q.s) - o,
					      "\\x%02x", p[i]);
		else
			q.s[o++] = (char)p[i];
	}
	q.s[o] = '\0';
	return q;
}

struct shb_quoted shb_quote(const char *v)
{
	return shb_quote_n(v, SIZE_MAX);
}
