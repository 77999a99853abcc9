/* HPACK static table and request encoder: see h2_hpack.h. */
#include "h2_hpack.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "http_prefint.h"

/* RFC 7541 Appendix A; the unit tests compare it with the RFC text. */
static const struct shb_hpack_static_entry static_table[] = {
	{":authority", ""},
	{":method", "GET"},
	{":method", "POST"},
	{":path", "/"},
	{":path", "/index.html"},
	{":scheme", "http"},
	{":scheme", "https"},
	{":status", "200"},
	{":status", "204"},
	{":status", "206"},
	{":status", "304"},
	{":status", "400"},
	{":status", "404"},
	{":status", "500"},
	{"accept-charset", ""},
	{"accept-encoding", "gzip, deflate"},
	{"accept-language", ""},
	{"accept-ranges", ""},
	{"accept", ""},
	{"access-control-allow-origin", ""},
	{"age", ""},
	{"allow", ""},
	{"authorization", ""},
	{"cache-control", ""},
	{"content-disposition", ""},
	{"content-encoding", ""},
	{"content-language", ""},
	{"content-length", ""},
	{"content-location", ""},
	{"content-range", ""},
	{"content-type", ""},
	{"cookie", ""},
	{"date", ""},
	{"etag", ""},
	{"expect", ""},
	{"expires", ""},
	{"from", ""},
	{"host", ""},
	{"if-match", ""},
	{"if-modified-since", ""},
	{"if-none-match", ""},
	{"if-range", ""},
	{"if-unmodified-since", ""},
	{"last-modified", ""},
	{"link", ""},
	{"location", ""},
	{"max-forwards", ""},
	{"proxy-authenticate", ""},
	{"proxy-authorization", ""},
	{"range", ""},
	{"referer", ""},
	{"refresh", ""},
	{"retry-after", ""},
	{"server", ""},
	{"set-cookie", ""},
	{"strict-transport-security", ""},
	{"transfer-encoding", ""},
	{"user-agent", ""},
	{"vary", ""},
	{"via", ""},
	{"www-authenticate", ""},
};

_Static_assert(sizeof(static_table) / sizeof(static_table[0]) ==
		       SHB_HPACK_STATIC_COUNT,
	       "RFC 7541 has 61 static entries");

const struct shb_hpack_static_entry *shb_hpack_static_get(uint64_t index)
{
	if (index < 1 || index > SHB_HPACK_STATIC_COUNT)
		return NULL;
	return &static_table[index - 1];
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

static int same(const char *a, const char *s, size_t n)
{
	return strlen(a) == n && memcmp(a, s, n) == 0;
}

void shb_hpack_encode_field(struct shb_buf *b, const char *name,
			    size_t name_len, const char *value,
			    size_t value_len)
{
	size_t name_idx = 0;

	for (size_t i = 0; i < SHB_HPACK_STATIC_COUNT; i++) {
		const struct shb_hpack_static_entry *e = &static_table[i];

		if (!same(e->name, name, name_len))
			continue;
		if (same(e->value, value, value_len) && value_len > 0) {
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
