/* The HTTP Huffman code shared by HPACK and QPACK (plugins/common): the
 * one-shot decoder, the decoded-length counter fed in pieces, and the
 * encoder. Input: a split plan, then a Huffman string.
 *
 * Checked besides memory safety: the three decoders agree on the verdict
 * and the length; a string that decodes is the only encoding of what it
 * decodes to (the code is prefix-free and padding is fixed), so encoding
 * the result gives the input back; and any octets survive encode then
 * decode. */
#include <string.h>

#include "fuzz_input.h"
#include "http_huffman.h"

/* The shortest code is 5 bits: 8 / 5 octets out per octet in at most. */
#define MAX_IN 4096
#define MAX_OUT (MAX_IN * 8 / 5 + 8)

static uint8_t out[MAX_OUT], again[MAX_IN * 4 + 8], back[MAX_IN + 8];

static int count_feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	(void)last;
	return shb_huff_count_feed(ctx, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	struct shb_huff_count hc;
	size_t out_len = 0, n;
	uint64_t len2 = 0;
	int rc1, rc2, rc3;

	fz_plan_read(&f, &pl);
	if (f.n > MAX_IN)
		return 0;
	rc1 = shb_huff_decode(f.p, f.n, out, sizeof(out), &out_len);
	FZ_CHECK(rc1 != SHB_HUFF_E_SPACE);
	rc2 = shb_huff_decoded_len(f.p, f.n, &len2);
	shb_huff_count_begin(&hc);
	rc3 = fz_feed_plan(&pl, f.p, f.n, count_feed, &hc);
	if (rc3 == SHB_HUFF_OK)
		rc3 = shb_huff_count_end(&hc);
	FZ_CHECK(rc2 == rc1 && rc3 == rc1);
	if (rc1 == SHB_HUFF_OK) {
		FZ_CHECK(len2 == out_len && hc.len == out_len);
		FZ_CHECK(shb_huff_encoded_len(out, out_len) == f.n);
		n = shb_huff_encode(out, out_len, again, sizeof(again));
		FZ_CHECK(n == f.n && memcmp(again, f.p, n) == 0);
	}
	/* the input as plain octets: encode, decode, compare */
	n = shb_huff_encode(f.p, f.n, again, sizeof(again));
	FZ_CHECK(n == shb_huff_encoded_len(f.p, f.n));
	FZ_CHECK(shb_huff_decode(again, n, back, sizeof(back), &out_len) ==
		 SHB_HUFF_OK);
	FZ_CHECK(out_len == f.n && memcmp(back, f.p, f.n) == 0);
	return 0;
}
