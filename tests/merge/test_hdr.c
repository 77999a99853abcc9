/* Unit tests for the HdrHistogram export (common/hdrv2.c) and
 * --percentiles (core/cli/percentiles.c): an encoding checked byte for
 * byte against one made by another zlib, round trips through the core's
 * own bucket walk, hostile encodings, and every refusal word for word. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>

#include "common/hdrv2.h"
#include "results/merge.h"
#include "cli/percentiles.h"
#include "merge_fx.h"

/* ---- the encoding ----------------------------------------------------------- */

/* Values {1, 1, 3}, encoded by an independent writer (Python's struct,
 * its own ZigZag LEB128 and zlib.compress(level 0), then base64). */
static const char tiny_b64[] =
	"HISTFAAAADd4AQEsANP/HISTEwAAAAQAAAAAAAAAAwAAAAAAAAABAAADRjC4oAA/"
	"8AAAAAAAAAAEAAJgBwRV";


static void test_encode_known(void)
{
	struct shb_histo h;
	mt_new_histo(&h);
	shb_histo_record(&h, 1);
	shb_histo_record(&h, 1);
	shb_histo_record(&h, 3);
	char *s = mt_encode_histo(&h);
	CU_ASSERT_STRING_EQUAL(s, tiny_b64);
	free(s);
	shb_histo_destroy(&h);
}

/* The layouts are one: every index of the core is the export's. */
static void test_layout_same(void)
{
	struct shb_histo h;
	mt_new_histo(&h);
	CU_ASSERT_EQUAL(h.counts_len, SHB_HDR_COUNTS);
	int checked = 0;
	for (int32_t i = 0; i < SHB_HDR_COUNTS; i += 7) {
		uint64_t lo, hi;
		shb_hdr_bounds(i, &lo, &hi);
		if (lo == 0 || hi > SHB_HIST_HIGHEST) /* above: clamped */
			continue;
		checked++;
		shb_histo_reset(&h);
		shb_histo_record(&h, hi);
		CU_ASSERT_EQUAL(shb_hdr_index(lo), i);
		CU_ASSERT_EQUAL(shb_hdr_index(hi), i);
		CU_ASSERT_EQUAL(h.counts[i], 1);
	}
	CU_ASSERT_TRUE(checked > 4700);
	shb_histo_destroy(&h);
}

/* Something in every bucket, counts of 1 to 3 LEB128 bytes: a V2 payload
 * beyond one stored deflate block (65535 bytes). */
static void test_round_trip_every_bucket(void)
{
	struct shb_histo h;
	mt_new_histo(&h);
	for (int32_t i = 0; i < h.counts_len; i++) {
		uint64_t lo, hi;
		shb_hdr_bounds(i, &lo, &hi);
		if (lo == 0 || lo > SHB_HIST_HIGHEST)
			continue;
		uint64_t n = 1 + (uint64_t)(i % 3) * 9000;
		for (uint64_t k = 0; k < n % 50 + 1; k++)
			shb_histo_record(&h, lo + (hi - lo) / 2);
		h.counts[i] += n; /* the counts only matter here */
		h.total += n;
	}
	char *s = mt_encode_histo(&h);
	CU_ASSERT_TRUE(strlen(s) > 65535 * 4 / 3);
	struct shb_hdr_counts c;
	char err[160] = "";
	CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
	CU_ASSERT_EQUAL(shb_hdr_decode(s, &c, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(c.total, h.total);
	int same = 1;
	for (int32_t i = 0; i < h.counts_len; i++)
		same &= c.counts[i] == h.counts[i];
	CU_ASSERT_TRUE(same);
	shb_hdr_counts_free(&c);
	free(s);
	shb_histo_destroy(&h);
}

static void decode_fails(const char *b64, const char *want)
{
	struct shb_hdr_counts c;
	char err[160] = "";
	CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
	CU_ASSERT_EQUAL(shb_hdr_decode(b64, &c, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\nwant \"%s\", got \"%s\"\n", want, err);
	CU_ASSERT_EQUAL(c.total, 0);
	shb_hdr_counts_free(&c);
}

static void test_decode_errors(void)
{
	char buf[sizeof(tiny_b64)];
	decode_fails("HIST*", "not base64");
	decode_fails("AAAAAAAAAAAA", "not an HdrHistogram V2 compressed histogram");
	/* cut inside the zlib stream */
	snprintf(buf, sizeof(buf), "%.24s", tiny_b64);
	decode_fails(buf, "compressed length beyond the data");
	/* {1, 1, 3} again, compressed: Python's zlib.compress(raw, 9) */
	decode_fails("HISTFAAAACR42pNpmSzMwMDAwgABzFCaEch0M9ixgMH+A1SEhYEJAGAHBFU=",
		     "compressed deflate blocks: shb reads the stored blocks it writes");
	/* one payload byte changed: the Adler-32 catches it */
	snprintf(buf, sizeof(buf), "%s", tiny_b64);
	buf[strlen(buf) - 9] = buf[strlen(buf) - 9] == 'A' ? 'B' : 'A';
	decode_fails(buf, "zlib Adler-32 mismatch");
}

/* ---- hostile encodings ------------------------------------------------------ */
/* Runs that used to move the index past INT64_MAX, wrap it to -1 and
 * write the count before the array (108 characters of base64). */
static const int64_t wrap_to_minus_one[] = {-INT64_MAX, -INT64_MAX, -1, 1};

static void test_decode_hostile_counts(void)
{
	decode_fails(mt_wrap_words(wrap_to_minus_one, 4),
		     "a run of 9223372036854775807 empty buckets past the last bucket");
	const int64_t min_run[] = {INT64_MIN, 1};
	decode_fails(mt_wrap_words(min_run, 2),
		     "a run of 9223372036854775808 empty buckets past the last bucket");
	const int64_t past[] = {5, -SHB_HDR_COUNTS, 1};
	decode_fails(mt_wrap_words(past, 3), "a run of 33792 empty buckets past the last bucket");
	const int64_t at_end[] = {-SHB_HDR_COUNTS, 1};
	decode_fails(mt_wrap_words(at_end, 2), "a count beyond the highest trackable value");
	const int64_t sum[] = {INT64_MAX, INT64_MAX, 2};
	decode_fails(mt_wrap_words(sum, 3), "counts whose sum overflows 64 bits");

	/* a run to the very end is no error; -1 is a run of one */
	struct shb_hdr_counts c;
	char err[160] = "";
	CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
	const int64_t ok[] = {7, -1, 3, -(SHB_HDR_COUNTS - 3)};
	CU_ASSERT_EQUAL(shb_hdr_decode(mt_wrap_words(ok, 4), &c, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(c.counts[0], 7);
	CU_ASSERT_EQUAL(c.counts[1], 0);
	CU_ASSERT_EQUAL(c.counts[2], 3);
	CU_ASSERT_EQUAL(c.total, 10);
	CU_ASSERT_EQUAL(c.max_index, 2);
	/* decodes add up until the sum would overflow; the one refused adds
	 * nothing */
	const int64_t big[] = {-2, INT64_MAX};
	CU_ASSERT_EQUAL(shb_hdr_decode(mt_wrap_words(big, 2), &c, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.total, 10 + (uint64_t)INT64_MAX);
	const int64_t more[] = {1, -1, 1, INT64_MAX};
	CU_ASSERT_EQUAL(shb_hdr_decode(mt_wrap_words(more, 4), &c, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "counts whose sum overflows 64 bits");
	CU_ASSERT_EQUAL(c.counts[0], 7);
	CU_ASSERT_EQUAL(c.counts[2], 3 + (uint64_t)INT64_MAX);
	CU_ASSERT_EQUAL(c.total, 10 + (uint64_t)INT64_MAX);
	CU_ASSERT_EQUAL(c.max_index, 2);
	shb_hdr_counts_free(&c);
	/* a word cut short by the payload's end */
	const uint8_t cut[] = {0x02, 0x80, 0x80};
	decode_fails(mt_wrap_bytes(cut, 3), "counts cut short");
}

/* ---- --percentiles -------------------------------------------------------------- */

static void test_percentiles(void)
{
	uint32_t ppm[SHB_PCT_MAX];
	size_t n = 0;
	char err[160] = "";
	CU_ASSERT_EQUAL(shb_percentiles_parse("50,90,99,99.9,99.99,99.999,100",
					      ppm, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(n, 7);
	CU_ASSERT_EQUAL(ppm[0], 500000);
	CU_ASSERT_EQUAL(ppm[3], 999000);
	CU_ASSERT_EQUAL(ppm[5], 999990);
	CU_ASSERT_EQUAL(ppm[6], 1000000);
	CU_ASSERT_EQUAL(shb_percentiles_parse("0.0001", ppm, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ppm[0], 1);
	static const struct {
		const char *in, *err;
	} bad[] = {
		{"", "\"\" is not a percentile (0 < P <= 100, at most 4 decimals)"},
		{"50,", "\"\" is not a percentile (0 < P <= 100, at most 4 decimals)"},
		{"0", "\"0\" is not a percentile (0 < P <= 100, at most 4 decimals)"},
		{"100.01", "\"100.01\" is not a percentile (0 < P <= 100, at most 4 decimals)"},
		{"99.99999", "\"99.99999\" is not a percentile (0 < P <= 100, at most 4 decimals)"},
		{"50,p99", "\"p99\" is not a percentile (0 < P <= 100, at most 4 decimals)"},
		{"5.", "\"5.\" is not a percentile (0 < P <= 100, at most 4 decimals)"},
		{"90,50", "\"50\": percentiles must be ascending and distinct"},
		{"90,90", "\"90\": percentiles must be ascending and distinct"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(shb_percentiles_parse(bad[i].in, ppm, &n, err,
						      sizeof(err)), -1);
		CU_ASSERT_STRING_EQUAL(err, bad[i].err);
	}
	/* 64 are allowed, 65 are not */
	char list[1024] = "";
	for (int i = 1; i <= 65; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d.5",
			 i > 1 ? "," : "", i);
	CU_ASSERT_EQUAL(shb_percentiles_parse(list, ppm, &n, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "at most 64 percentiles");
	*strrchr(list, ',') = '\0';
	CU_ASSERT_EQUAL(shb_percentiles_parse(list, ppm, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(n, 64);
}


CU_TestInfo hdr_tests[] = {
	{"encoding of {1, 1, 3} byte for byte", test_encode_known},
	{"the core's layout is the export's", test_layout_same},
	{"round trip, every bucket, several blocks", test_round_trip_every_bucket},
	{"decoding errors", test_decode_errors},
	{"hostile counts: runs, indexes, sums", test_decode_hostile_counts},
	{"--percentiles", test_percentiles},
	CU_TEST_INFO_NULL,
};
