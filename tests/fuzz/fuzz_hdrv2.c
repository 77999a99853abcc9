/* The HdrHistogram V2 decoder (common/hdrv2.c) that shb merge runs on other
 * machines' reports. Input: one mode byte, then
 *   mode & 3 == 0: the base64 text as a report holds it;
 *   mode & 3 == 1: the counts of a V2 payload (ZigZag LEB128 words), put
 *                  here behind shb's header and wrapped in a stored zlib
 *                  stream with its Adler-32, then base64: the fuzzer
 *                  reaches the counts walk without forging checksums;
 *   mode & 3 >= 2: the whole uncompressed V2 encoding (header included),
 *                  wrapped the same way.
 *
 * Checked besides memory safety: a refusal has a one-line message and
 * leaves the counts it decoded into as they were (merge decodes several
 * into one); an accepted histogram has a total equal to the sum of its
 * counts and a max_index at its last non-zero count, and re-encoded by
 * shb_hdr_encode it decodes to the very same counts. */
#include <string.h>

#include "fuzz_input.h"
#include "common/hdrv2.h"

#define MAX_RAW 8192

static char text[4 * (MAX_RAW + 64) / 3 + 8];
static struct shb_hdr_counts got, again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *be32(uint8_t *p, uint32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		*p++ = (uint8_t)(v >> s);
	return p;
}

/* shb's V2 header for `n` bytes of counts. */
static size_t header(uint8_t *p, size_t n)
{
	uint8_t *h = be32(p, 0x1c849313u);
	h = be32(h, (uint32_t)n);
	h = be32(h, 0);
	h = be32(h, SHB_HDR_SIGFIGS);
	h = be32(be32(h, 0), SHB_HDR_LOWEST);
	h = be32(be32(h, (uint32_t)(SHB_HDR_HIGHEST >> 32)),
		 (uint32_t)SHB_HDR_HIGHEST);
	be32(be32(h, 0x3ff00000u), 0); /* 1.0 */
	return 40;
}

/* raw[0..n) as the compressed encoding's base64, into text. */
static void wrap(const uint8_t *raw, size_t n)
{
	static uint8_t z[MAX_RAW + 64];
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint8_t *p = z + 8;
	uint32_t a = 1, b = 0;

	*p++ = 0x78;
	*p++ = 0x01;
	*p++ = 1; /* one final stored block: n < 65536 */
	*p++ = (uint8_t)n;
	*p++ = (uint8_t)(n >> 8);
	*p++ = (uint8_t)~n;
	*p++ = (uint8_t)(~n >> 8);
	memcpy(p, raw, n);
	p += n;
	for (size_t i = 0; i < n; i++) {
		a = (a + raw[i]) % 65521u;
		b = (b + a) % 65521u;
	}
	p = be32(p, b << 16 | a);
	be32(z, 0x1c849314u);
	be32(z + 4, (uint32_t)(p - z - 8));
	size_t zn = (size_t)(p - z), o = 0;
	for (size_t i = 0; i < zn; i += 3) {
		uint32_t v = (uint32_t)z[i] << 16 |
			     (i + 1 < zn ? (uint32_t)z[i + 1] << 8 : 0) |
			     (i + 2 < zn ? z[i + 2] : 0);
		text[o++] = tab[v >> 18];
		text[o++] = tab[(v >> 12) & 63];
		text[o++] = i + 1 < zn ? tab[(v >> 6) & 63] : '=';
		text[o++] = i + 2 < zn ? tab[v & 63] : '=';
	}
	text[o] = '\0';
}

static void clear(struct shb_hdr_counts *c)
{
	memset(c->counts, 0, SHB_HDR_COUNTS * sizeof(*c->counts));
	c->total = 0;
	c->max_index = -1;
}

static const uint64_t zeros[SHB_HDR_COUNTS];

/* The counts hold what an accepted decode must leave. Whole-array loops
 * are memcmp calls: the target's own loops are instrumented, and 33792
 * compares per input would cost most of the run. */
static void check_counts(const struct shb_hdr_counts *c)
{
	uint64_t sum = 0;
	int32_t top = c->max_index;

	FZ_CHECK(top >= -1 && top < SHB_HDR_COUNTS);
	FZ_CHECK(top < 0 || c->counts[top] != 0);
	FZ_CHECK(!memcmp(c->counts + top + 1, zeros,
			 (size_t)(SHB_HDR_COUNTS - top - 1) * sizeof(*zeros)));
	for (int32_t i = 0; i <= top; i++) {
		FZ_CHECK(c->counts[i] <= UINT64_MAX - sum);
		sum += c->counts[i];
	}
	FZ_CHECK(sum == c->total);
}

static void round_trip(void)
{
	char err[256] = "";
	char *enc = shb_hdr_encode(&got);

	FZ_CHECK(enc != NULL);
	clear(&again);
	FZ_CHECK(shb_hdr_decode(enc, &again, err, sizeof(err)) == 0);
	FZ_CHECK(again.total == got.total && again.max_index == got.max_index);
	FZ_CHECK(memcmp(again.counts, got.counts,
			SHB_HDR_COUNTS * sizeof(*got.counts)) == 0);
	free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t raw[MAX_RAW + 40];
	struct fz in = {data, size};
	unsigned mode = fz_u8(&in);
	char err[256] = "";

	if (!got.counts && (shb_hdr_counts_init(&got) < 0 ||
			    shb_hdr_counts_init(&again) < 0))
		abort();
	if (in.n > MAX_RAW)
		return 0;
	if ((mode & 3) == 0) {
		memcpy(text, in.p, in.n);
		text[in.n] = '\0';
	} else if ((mode & 3) == 1) {
		size_t h = header(raw, in.n);
		memcpy(raw + h, in.p, in.n);
		wrap(raw, h + in.n);
	} else {
		wrap(in.p, in.n);
	}
	clear(&got);
	if (shb_hdr_decode(text, &got, err, sizeof(err)) != 0) {
		FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
		FZ_CHECK(got.total == 0 && got.max_index == -1);
		FZ_CHECK(!memcmp(got.counts, zeros, sizeof(zeros)));
		return 0;
	}
	check_counts(&got);
	round_trip();
	return 0;
}
