/* HdrHistogram's V2 compressed encoding of shb's latency histograms.
 *
 * shb's histograms (core/results/hist.h) have HdrHistogram's layout with a lowest
 * discernible value of 1 ns, a highest trackable value of one hour and 3
 * significant digits, so they export bucket for bucket: what HdrHistogram's
 * own libraries decode is the very histogram shb recorded. The encoding is
 * the one of HdrHistogram's encodeIntoCompressedByteBuffer (then base64):
 *   compressed cookie 0x1c849314, the zlib stream's length, the zlib stream
 *   of [V2 cookie 0x1c849313, payload length, normalizing offset 0,
 *   significant digits, lowest, highest, conversion ratio 1.0 (big-endian),
 *   then the counts as ZigZag LEB128, a run of k > 1 empty buckets as -k].
 * The cookies carry 0x10 in their word-size byte as HdrHistogram writes
 * them; decoders compare them with that byte masked off (0x1c849303 and
 * 0x1c849304).
 * The zlib stream holds stored (uncompressed) deflate blocks and the
 * Adler-32 trailer: every inflater reads them, and shb needs no zlib. The
 * decoder reads what this encoder writes (stored blocks only) and names
 * anything else.
 *
 * Used by the json reporter (encoding through the host->hist bucket walk)
 * and by `shb merge` (decoding); plain C, no core state: [any] thread. */
#ifndef SHB_COMMON_HDRV2_H
#define SHB_COMMON_HDRV2_H

#include <stddef.h>
#include <stdint.h>

#define SHB_HDR_LOWEST 1u
#define SHB_HDR_HIGHEST 3600000000000ull /* one hour in ns */
#define SHB_HDR_SIGFIGS 3
#define SHB_HDR_SUB_HALF_MAG 10 /* 3 digits: 2048 sub-buckets, half stored */
#define SHB_HDR_BUCKETS 32      /* 2048 << 31 > one hour */
#define SHB_HDR_COUNTS ((SHB_HDR_BUCKETS + 1) << SHB_HDR_SUB_HALF_MAG)

/* The counts of one histogram in the export layout. */
struct shb_hdr_counts {
	uint64_t *counts; /* SHB_HDR_COUNTS, owned */
	uint64_t total;
	int32_t max_index; /* -1 when empty */
};

int shb_hdr_counts_init(struct shb_hdr_counts *c); /* 0 or -1 (memory) */
void shb_hdr_counts_free(struct shb_hdr_counts *c);

/* Index of value v (1 <= v <= SHB_HDR_HIGHEST), and the inclusive value
 * bounds of an index. */
int32_t shb_hdr_index(uint64_t v);
void shb_hdr_bounds(int32_t index, uint64_t *lo, uint64_t *hi);

/* Adds `count` values in [lo, hi]. Returns 0, or -1 when [lo, hi] is not
 * exactly one bucket of the export layout (then nothing is added). Its
 * shape is shb_hist_bucket_fn's: pass it to host->hist->foreach_bucket
 * with the counts as `user`. */
int shb_hdr_add_bucket(void *counts, uint64_t lo, uint64_t hi,
		       uint64_t count);

/* The base64 text of the compressed V2 encoding: NUL-terminated, malloc'd
 * (the caller frees it), NULL when out of memory. */
char *shb_hdr_encode(const struct shb_hdr_counts *c);

/* Decodes base64 text into c (initialised by the caller; counts add up,
 * so several decodes into one c merge them). Returns 0, or -1 with one
 * line in err naming what is wrong; then c is as it was. Every length,
 * run and count of the text is checked before use: a histogram whose
 * counts would pass the last bucket or overflow c's 64-bit sums is
 * refused. */
int shb_hdr_decode(const char *b64, struct shb_hdr_counts *c, char *err,
		   size_t errlen);

#endif
