/* Decimal digits of a length (Content-Length of a varied request body),
 * written on the request path and so without snprintf. Header only, for
 * HTTP/2 and HTTP/3 (HTTP/1.1 keeps a copy: its sources are the SDK's
 * standalone example). */
#ifndef SHB_HTTP_DEC_H
#define SHB_HTTP_DEC_H

#include <stdint.h>
#include <string.h>

/* Writes the digits of v to out (at most 20 bytes, no NUL) and returns
 * how many. */
static inline size_t shb_http_put_dec(char *out, uint64_t v)
{
	char t[20];
	size_t k = sizeof(t);

	do {
		t[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(out, t + k, sizeof(t) - k);
	return sizeof(t) - k;
}

#endif
