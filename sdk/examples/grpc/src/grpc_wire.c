/* gRPC messages and status: see grpc_wire.h. */
#include "grpc_wire.h"

#include <string.h>

void grpc_reader_init(struct grpc_reader *r, uint32_t max_message)
{
	memset(r, 0, sizeof(*r));
	r->max_message = max_message;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The prefix is complete: check it and start the message. */
static int prefix_done(struct grpc_reader *r)
{
	uint32_t len = get32(r->prefix + 1);

	if (r->prefix[0] == 1)
		return GRPC_READ_E_COMPRESSED;
	if (r->prefix[0] != 0)
		return GRPC_READ_E_FLAG;
	if (len > r->max_message)
		return GRPC_READ_E_TOO_LARGE;
	r->left = len;
	if (len == 0) { /* an empty message is complete at once */
		r->have = 0;
		r->messages++;
	}
	return GRPC_READ_OK;
}

int grpc_reader_feed(struct grpc_reader *r, const uint8_t *p, size_t n)
{
	while (n) {
		if (r->have < GRPC_PREFIX_LEN) {
			size_t take = GRPC_PREFIX_LEN - r->have;
			int rc;

			if (take > n)
				take = n;
			memcpy(r->prefix + r->have, p, take);
			r->have = (uint8_t)(r->have + take);
			p += take;
			n -= take;
			if (r->have == GRPC_PREFIX_LEN &&
			    (rc = prefix_done(r)) != GRPC_READ_OK)
				return rc;
			continue;
		}
		size_t take = n < r->left ? n : r->left;

		r->left -= (uint32_t)take;
		r->message_bytes += take;
		p += take;
		n -= take;
		if (r->left == 0) {
			r->have = 0;
			r->messages++;
		}
	}
	return GRPC_READ_OK;
}

int grpc_reader_partial(const struct grpc_reader *r)
{
	return r->have != 0;
}

uint32_t grpc_reader_bad_length(const struct grpc_reader *r)
{
	return get32(r->prefix + 1);
}

const char *grpc_read_strerror(int err)
{
	switch (err) {
	case GRPC_READ_E_COMPRESSED:
		return "a compressed message (the request allowed none)";
	case GRPC_READ_E_FLAG: return "a message flag other than 0 or 1";
	case GRPC_READ_E_TOO_LARGE: return "a message above max-message";
	default: return "no error";
	}
}

void grpc_prefix(uint8_t out[GRPC_PREFIX_LEN], uint32_t len)
{
	out[0] = 0;
	out[1] = (uint8_t)(len >> 24);
	out[2] = (uint8_t)(len >> 16);
	out[3] = (uint8_t)(len >> 8);
	out[4] = (uint8_t)len;
}

int grpc_parse_status(const uint8_t *v, size_t n, uint32_t *code)
{
	uint64_t x = 0;

	if (n == 0 || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x > UINT32_MAX)
		return -1;
	*code = (uint32_t)x;
	return 0;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t grpc_decode_message(const uint8_t *v, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	if (cap == 0)
		return 0;
	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		int c = v[i];

		/* A '%' without two hex digits is kept as it is. */
		if (c == '%' && i + 2 < n && hexval(v[i + 1]) >= 0 &&
		    hexval(v[i + 2]) >= 0) {
			c = hexval(v[i + 1]) << 4 | hexval(v[i + 2]);
			i += 2;
		}
		out[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	out[o] = '\0';
	return o;
}

static const char *const code_names[] = {
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
	"RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
	"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE",
	"DATA_LOSS", "UNAUTHENTICATED",
};

const char *grpc_code_name(uint32_t code)
{
	return code < sizeof(code_names) / sizeof(code_names[0])
		       ? code_names[code]
		       : NULL;
}

uint32_t grpc_code_from_http(uint32_t http_status)
{
	switch (http_status) {
	case 400: return 13; /* INTERNAL */
	case 401: return 16; /* UNAUTHENTICATED */
	case 403: return 7;  /* PERMISSION_DENIED */
	case 404: return 12; /* UNIMPLEMENTED */
	case 429:
	case 502:
	case 503:
	case 504: return 14; /* UNAVAILABLE */
	default: return 2;   /* UNKNOWN */
	}
}

int grpc_content_type_ok(const uint8_t *v, size_t n)
{
	static const char ct[] = "application/grpc";
	size_t k = sizeof(ct) - 1;

	if (n < k || memcmp(v, ct, k) != 0)
		return 0;
	return n == k || v[k] == '+' || v[k] == ';';
}
