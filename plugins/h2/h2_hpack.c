/* HPACK static table and request encoder: see h2_hpack.h. */
#include "h2_hpack.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "http_prefint.h"

/* An entry with its lengths, counted by the compiler: the response
 * scanner needs them for every field it measures. */
#define E(n, v) {n, v, sizeof(n) - 1, sizeof(v) - 1}

/* RFC 7541 Appendix A; the unit tests compare it with the RFC text. */
const struct shb_hpack_static_entry shb_hpack_static_table[] = {
	E(":authority", ""),
	E(":method", "GET"),
	E(":method", "POST"),
	E(":path", "/"),
	E(":path", "/index.html"),
	E(":scheme", "http"),
	E(":scheme", "https"),
	E(":status", "200"),
	E(":status", "204"),
	E(":status", "206"),
	E(":status", "304"),
	E(":status", "400"),
	E(":status", "404"),
	E(":status", "500"),
	E("accept-charset", ""),
	E("accept-encoding", "gzip, deflate"),
	E("accept-language", ""),
	E("accept-ranges", ""),
	E("accept", ""),
	E("access-control-allow-origin", ""),
	E("age", ""),
	E("allow", ""),
	E("authorization", ""),
	E("cache-control", ""),
	E("content-disposition", ""),
	E("content-encoding", ""),
	E("content-language", ""),
	E("content-length", ""),
	E("content-location", ""),
	E("content-range", ""),
	E("content-type", ""),
	E("cookie", ""),
	E("date", ""),
	E("etag", ""),
	E("expect", ""),
	E("expires", ""),
	E("from", ""),
	E("host", ""),
	E("if-match", ""),
	E("if-modified-since", ""),
	E("if-none-match", ""),
	E("if-range", ""),
	E("if-unmodified-since", ""),
	E("last-modified", ""),
	E("link", ""),
	E("location", ""),
	E("max-forwards", ""),
	E("proxy-authenticate", ""),
	E("proxy-authorization", ""),
	E("range", ""),
	E("referer", ""),
	E("refresh", ""),
	E("retry-after", ""),
	E("server", ""),
	E("set-cookie", ""),
	E("strict-transport-security", ""),
	E("transfer-encoding", ""),
	E("user-agent", ""),
	E("vary", ""),
	E("via", ""),
	E("www-authenticate", ""),
};

#undef E

_Static_assert(sizeof(shb_hpack_static_table) /
			       sizeof(shb_hpack_static_table[0]) ==
		       SHB_HPACK_STATIC_COUNT,
	       "RFC 7541 has 61 static entries");

const struct shb_hpack_static_entry *shb_hpack_static_get(uint64_t index)
{
	if (index < 1 || index > SHB_HPACK_STATIC_COUNT)
		return NULL;
	return &shb_hpack_static_table[index - 1];
}

int shb_hpack_static_status(uint64_t index)
{
	static const int codes[] = {200, 204, 206, 304, 400, 404, 500};

	if (index < SHB_HPACK_IDX_STATUS_200 || index > SHB_HPACK_IDX_STATUS_500)
		return 0;
	return codes[index - SHB_HPACK_IDX_STATUS_200];
}

static void put_int(struct shb_buf *b, unsigned prefix, uint8_t flags,
		    uint64_t v)
{
	uint8_t *p = shb_buf_room(b, 10);

	if (p)
		shb_buf_commit(b, shb_prefint_encode(p, 10, prefix, flags, v));
}

static void put_string(struct shb_buf *b, const char *s, size_t n)
{
	put_int(b, 7, 0x00, n); /* H = 0: never Huffman on output */
	shb_buf_put(b, s, n);
}

static int same(const char *a, size_t a_len, const char *s, size_t n)
{
	return a_len == n && memcmp(a, s, n) == 0;
}

void shb_hpack_encode_field(struct shb_buf *b, const char *name,
			    size_t name_len, const char *value,
			    size_t value_len)
{
	size_t name_idx = 0;

	for (size_t i = 0; i < SHB_HPACK_STATIC_COUNT; i++) {
		const struct shb_hpack_static_entry *e = &shb_hpack_static_table[i];

		if (!same(e->name, e->name_len, name, name_len))
			continue;
		if (same(e->value, e->value_len, value, value_len) && value_len > 0) {
			put_int(b, 7, 0x80, i + 1); /* indexed field */
			return;
		}
		if (!name_idx)
			name_idx = i + 1;
	}
	/* Literal without indexing (0000xxxx). */
	put_int(b, 4, 0x00, name_idx);
	if (!name_idx)
		put_string(b, name, name_len);
	put_string(b, value, value_len);
}

void shb_hpack_encode_size_update(struct shb_buf *b, uint64_t size)
{
	put_int(b, 5, 0x20, size);
}
