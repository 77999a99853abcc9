/* The QPACK static table (RFC 9204 Appendix A): 99 entries, indices 0..98,
 * unrelated to HPACK's. shb names some entries by number. */
#ifndef SHB_QPACK_STATIC_H
#define SHB_QPACK_STATIC_H

#include <stddef.h>
#include <stdint.h>

#define SHB_QPACK_STATIC_COUNT 99

enum {
	SHB_QPACK_IDX_AUTHORITY = 0,
	SHB_QPACK_IDX_PATH_ROOT = 1,       /* :path / */
	SHB_QPACK_IDX_CONTENT_LENGTH = 4,  /* content-length 0 */
	SHB_QPACK_IDX_METHOD_CONNECT = 15, /* first :method entry */
	SHB_QPACK_IDX_METHOD_PUT = 21,     /* last :method entry */
	SHB_QPACK_IDX_SCHEME_HTTP = 22,
	SHB_QPACK_IDX_SCHEME_HTTPS = 23,
	SHB_QPACK_IDX_STATUS_103 = 24,     /* :status 103..503 */
	SHB_QPACK_IDX_STATUS_503 = 28,
	SHB_QPACK_IDX_STATUS_100 = 63,     /* :status 100..500 */
	SHB_QPACK_IDX_STATUS_500 = 71,
};

struct shb_qpack_static_entry {
	const char *name;
	const char *value; /* "" when the entry has no value */
	uint32_t name_len;
	uint32_t value_len;
};

/* Index 0..98 -> entry, else NULL. */
const struct shb_qpack_static_entry *shb_qpack_static_get(uint64_t index);

/* Non-zero when entry `index` exists and its name is ":status". */
static inline int shb_qpack_static_is_status(uint64_t index)
{
	return (index >= SHB_QPACK_IDX_STATUS_103 &&
		index <= SHB_QPACK_IDX_STATUS_503) ||
	       (index >= SHB_QPACK_IDX_STATUS_100 &&
		index <= SHB_QPACK_IDX_STATUS_500);
}

/* The index of the entry whose name and value are exactly name[name_len]
 * and value[value_len], or -1. */
int shb_qpack_static_find(const char *name, size_t name_len,
			  const char *value, size_t value_len);

#endif
