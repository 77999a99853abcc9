/* The QPACK field decoder for req_response (plugins/h3/http3/
 * qpack_fields.c), on a field section as a server sends it. Input: the
 * section.
 *
 * Checked besides memory safety: a section the streaming decoder
 * (qpack_dec.c, which the response reader runs first) accepts is decoded
 * here too, into at most as many fields as it has lines, none a
 * pseudo-header, each name and value a NUL-terminated string within the
 * strings buffer. */
#include <string.h>

#include <shb/types.h>

#include "fuzz_input.h"
#include "qpack_dec.h"
#include "qpack_fields.h"

static struct shb_buf strs = SHB_BUF_INIT(256, 1u << 20);
static struct shb_buf kvs = SHB_BUF_INIT(256, 1u << 20);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shb_qpack_dec d;
	int rc = -1;

	shb_qpack_dec_begin(&d, size);
	if (size)
		rc = shb_qpack_dec_feed(&d, data, size);
	long n = shb_qpack_fields(data, size, &strs, &kvs);
	if (rc == SHB_QPACK_DEC_DONE) {
		FZ_CHECK(n >= 0);
		FZ_CHECK((uint64_t)n <= d.lines);
	}
	if (n <= 0)
		return 0;
	const struct shb_kv *kv = (const struct shb_kv *)(void *)kvs.p;
	const char *lo = (const char *)strs.p, *hi = lo + strs.len;
	FZ_CHECK(kvs.len == (size_t)n * sizeof(*kv));
	for (long i = 0; i < n; i++) {
		FZ_CHECK(kv[i].key >= lo && kv[i].key < hi);
		FZ_CHECK(kv[i].value > kv[i].key && kv[i].value < hi);
		FZ_CHECK(kv[i].key + strlen(kv[i].key) + 1 == kv[i].value);
		FZ_CHECK(kv[i].value + strlen(kv[i].value) < hi);
		FZ_CHECK(kv[i].key[0] != ':');
	}
	return 0;
}
