/* The QPACK field decoder for req_response (plugins/h3/http3/
 * qpack_fields.c), on a field section as a server sends it, with no table
 * or over a dynamic table that encoder-stream input fills
 * (fuzz_qpack_table.h; all of it before the section). Input: the
 * table's part, then the section.
 *
 * Checked besides memory safety: a section the streaming decoder
 * (qpack_dec.c, which the response reader runs first) accepts is decoded
 * here too, over the same table, into at most as many fields as it has
 * lines, none a pseudo-header, each name and value a NUL-terminated
 * string within the strings buffer; one it finds blocked is not. */
#include <string.h>

#include <shb/types.h>

#include "fuzz_qpack_table.h"
#include "qpack_dec.h"
#include "qpack_fields.h"

static struct shb_buf strs = SHB_BUF_INIT(256, 1u << 20);
static struct shb_buf kvs = SHB_BUF_INIT(256, 1u << 20);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_qtable q;
	struct shb_qpack_dec d;
	const struct shb_qpack_table *t;
	int rc = -1;

	fz_qtable_read(&f, &q);
	fz_qtable_rest(&q);
	t = q.on ? &q.t : NULL;
	shb_qpack_dec_begin_table(&d, f.n, t);
	if (f.n)
		rc = shb_qpack_dec_feed(&d, f.p, f.n);
	long n = shb_qpack_fields(f.p, f.n, t, &strs, &kvs);
	fz_qtable_check(&q);
	fz_qtable_free(&q);
	if (rc == SHB_QPACK_DEC_DONE) {
		FZ_CHECK(n >= 0);
		FZ_CHECK((uint64_t)n <= d.lines);
	}
	if (rc == SHB_QPACK_DEC_BLOCKED)
		FZ_CHECK(n == -1);
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
