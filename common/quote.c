/* Quoting user text in errors: see quote.h. */
#include "common/quote.h"

#include <stdarg.h>
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

int shb_quote_fail(char *err, size_t errlen, const char *name, const char *v,
		   const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return -1;
	n = snprintf(err, errlen, "%s \"%s\": ", name, shb_quote(v).s);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

void shb_err_one_line(char *err, size_t errlen)
{
	char out[1024];
	size_t o = 0, room;

	if (!err || !errlen)
		return;
	room = (errlen < sizeof(out) ? errlen : sizeof(out)) - 1;
	for (const unsigned char *p = (const unsigned char *)err; *p; p++) {
		int ctl = *p < 0x20 || *p == 0x7f;
		if (o + (ctl ? 4 : 1) > room)
			break; /* cut before an escape, never inside one */
		if (ctl)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", *p);
		else
			out[o++] = (char)*p;
	}
	memcpy(err, out, o);
	err[o] = '\0';
}

int shb_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}
