/* Byte-string builder for the h3/http3 tests. */
#include "http3_tests.h"

#include <stdlib.h>
#include <string.h>

#include "h3_frame.h"
#include "h3_varint.h"
#include "http_prefint.h"

void shb_h3t_clear(struct shb_h3t_buf *m)
{
	m->n = 0;
}

void shb_h3t_bytes(struct shb_h3t_buf *m, const void *p, size_t n)
{
	if (n > sizeof(m->b) - m->n)
		abort(); /* a test bug */
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t shb_h3t_unhex(uint8_t *out, size_t cap, const char *hex)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v = nibble(*hex);

		if (v < 0)
			continue;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == cap)
			abort();
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return n;
}

void shb_h3t_hex(struct shb_h3t_buf *m, const char *hex)
{
	m->n += shb_h3t_unhex(m->b + m->n, sizeof(m->b) - m->n, hex);
}

void shb_h3t_str(struct shb_h3t_buf *m, const char *s)
{
	shb_h3t_bytes(m, s, strlen(s));
}

void shb_h3t_varint(struct shb_h3t_buf *m, uint64_t v)
{
	uint8_t tmp[8];

	shb_h3t_bytes(m, tmp, shb_h3_varint_encode(tmp, sizeof(tmp), v));
}

void shb_h3t_frame(struct shb_h3t_buf *m, uint64_t type, const void *p,
		   size_t n)
{
	shb_h3t_varint(m, type);
	shb_h3t_varint(m, n);
	shb_h3t_bytes(m, p, n);
}

void shb_h3t_prefint(struct shb_h3t_buf *m, unsigned bits, uint8_t flags,
		     uint64_t v)
{
	uint8_t tmp[16];

	shb_h3t_bytes(m, tmp, shb_prefint_encode(tmp, sizeof(tmp), bits,
						 flags, v));
}
