/* Remote write's protobuf and snappy encodings, and the answer's status
 * line (prom_wire.h). */
#include "prom_wire.h"

#include <stdio.h>
#include <string.h>

#include "common/quote.h"

/* Wire types of protobuf keys. */
enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

#define PB_KEY(field, type) ((uint8_t)(((field) << 3) | (type)))

size_t shb_prom_varint(uint8_t out[10], uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static size_t varint_len(uint64_t v)
{
	uint8_t t[10];
	return shb_prom_varint(t, v);
}

static void put_varint(struct shb_buf *b, uint64_t v)
{
	uint8_t t[10];
	shb_buf_put(b, t, shb_prom_varint(t, v));
}

/* A length-delimited field's key and length (its bytes follow). */
static void put_len(struct shb_buf *b, unsigned field, size_t len)
{
	shb_buf_put_u8(b, PB_KEY(field, PB_LEN));
	put_varint(b, len);
}

static size_t len_field(size_t len)
{
	return 1 + varint_len(len) + len;
}

static size_t label_size(const struct shb_prom_label *l)
{
	return len_field(strlen(l->name)) + len_field(strlen(l->value));
}

/* Sample: value (fixed64 double), timestamp (varint int64). */
static size_t sample_size(int64_t ts_ms)
{
	return 1 + 8 + 1 + varint_len((uint64_t)ts_ms);
}

void shb_prom_sort_labels(struct shb_prom_label *l, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct shb_prom_label x = l[i];
		size_t j = i;
		for (; j > 0 && strcmp(l[j - 1].name, x.name) > 0; j--)
			l[j] = l[j - 1];
		l[j] = x;
	}
}

static void put_double(struct shb_buf *b, double v)
{
	uint64_t u;
	uint8_t t[8];
	memcpy(&u, &v, sizeof(u));
	for (int i = 0; i < 8; i++)
		t[i] = (uint8_t)(u >> (8 * i)); /* little-endian, as fixed64 */
	shb_buf_put(b, t, sizeof(t));
}

int shb_prom_put_series(struct shb_buf *b, const struct shb_prom_label *l,
			size_t n, double value, int64_t ts_ms)
{
	size_t body = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && strcmp(l[i - 1].name, l[i].name) >= 0)
			return -3;
		body += len_field(label_size(&l[i]));
	}
	body += len_field(sample_size(ts_ms));
	put_len(b, 1, body); /* WriteRequest.timeseries */
	for (size_t i = 0; i < n; i++) {
		put_len(b, 1, label_size(&l[i])); /* TimeSeries.labels */
		put_len(b, 1, strlen(l[i].name));
		shb_buf_put(b, l[i].name, strlen(l[i].name));
		put_len(b, 2, strlen(l[i].value));
		shb_buf_put(b, l[i].value, strlen(l[i].value));
	}
	put_len(b, 2, sample_size(ts_ms)); /* TimeSeries.samples */
	shb_buf_put_u8(b, PB_KEY(1, PB_I64));
	put_double(b, value);
	shb_buf_put_u8(b, PB_KEY(2, PB_VARINT));
	put_varint(b, (uint64_t)ts_ms);
	return b->err;
}

/* Snappy: the uncompressed length as a varint, then elements. A literal's
 * tag byte holds (length - 1) << 2 below 60; 61 << 2 says two bytes of
 * length - 1 follow, little-endian (so at most 65536 bytes). */
#define SNAPPY_LIT_MAX 65536

int shb_prom_snappy(struct shb_buf *out, const uint8_t *in, size_t n)
{
	put_varint(out, n);
	for (size_t at = 0; at < n;) {
		size_t k = n - at < SNAPPY_LIT_MAX ? n - at : SNAPPY_LIT_MAX;
		if (k <= 60) {
			shb_buf_put_u8(out, (uint8_t)((k - 1) << 2));
		} else {
			shb_buf_put_u8(out, 61 << 2);
			shb_buf_put_u8(out, (uint8_t)((k - 1) & 0xff));
			shb_buf_put_u8(out, (uint8_t)((k - 1) >> 8));
		}
		shb_buf_put(out, in + at, k);
		at += k;
	}
	return out->err;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int shb_prom_status(const char *p, size_t n, int *status)
{
	static const char ver[] = "HTTP/1.";
	size_t vl = sizeof(ver) - 1;
	size_t cmp = n < vl ? n : vl;
	if (memcmp(p, ver, cmp) != 0)
		return -1;
	const char *nl = memchr(p, '\n', n < SHB_PROM_LINE_MAX ? n : SHB_PROM_LINE_MAX);
	if (!nl)
		return n >= SHB_PROM_LINE_MAX ? -1 : 0;
	size_t len = (size_t)(nl - p);
	/* "HTTP/1.x NNN" at least, then a space or the end of the line. */
	if (len < vl + 5 || !is_digit(p[vl]) || p[vl + 1] != ' ')
		return -1;
	const char *c = p + vl + 2;
	if (!is_digit(c[0]) || !is_digit(c[1]) || !is_digit(c[2]) || c[0] == '0')
		return -1;
	if (len > vl + 5 && c[3] != ' ' && c[3] != '\r')
		return -1;
	*status = (c[0] - '0') * 100 + (c[1] - '0') * 10 + (c[2] - '0');
	return 1;
}

int shb_prom_answer(const char *buf, size_t n, char *why, size_t whylen)
{
	int status = 0;
	if (shb_prom_status(buf, n, &status) != 1) {
		snprintf(why, whylen, "the answer is not an HTTP/1.x status line");
		return -1;
	}
	const char *body = NULL;
	for (size_t i = 0; i + 3 < n && !body; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0)
			body = buf + i + 4;
	size_t bl = body ? (size_t)(buf + n - body) : 0;
	while (bl > 0 && (body[bl - 1] == '\n' || body[bl - 1] == '\r' ||
			  body[bl - 1] == ' '))
		bl--;
	struct shb_quoted q = shb_quote_n(body ? body : "", bl > 120 ? 120 : bl);
	snprintf(why, whylen, "answered %d%s%s", status, bl ? ": " : "",
		 bl ? q.s : "");
	return status;
}
