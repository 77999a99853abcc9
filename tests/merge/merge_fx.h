/* The merge and HdrHistogram export tests' helpers (test_hdr.c,
 * test_merge.c): histograms encoded through the reporters' path, V2
 * encodings made here with no help from hdrv2.c, reports as the json
 * reporter writes them, and a refused merge. */
#ifndef SHB_TEST_MERGE_FX_H
#define SHB_TEST_MERGE_FX_H

#include <stddef.h>
#include <stdint.h>
#include <CUnit/CUnit.h>
#include <jansson.h>

#include "results/hist.h"

/* The suites (test_merge.c registers them). */
extern CU_TestInfo hdr_tests[], merge_tests[];

/* The core's histogram through the reporters' path: the ABI bucket walk;
 * the base64 text, malloc'd. */
char *mt_encode_histo(const struct shb_histo *h);
/* h initialised as the core's (fatal on failure). */
void mt_new_histo(struct shb_histo *h);
/* v big-endian at p; the byte after it. */
uint8_t *mt_be32(uint8_t *p, uint32_t v);
/* ZigZag LEB128 as HdrHistogram writes it; the bytes written. */
size_t mt_zz(uint8_t *p, int64_t sv);
/* The base64 of a compressed V2 histogram whose counts are the bytes
 * `w`: header, one stored deflate block, Adler-32. Static buffer: one at
 * a time. */
const char *mt_wrap_bytes(const uint8_t *w, size_t nw);
/* The same, of counts given as numbers. */
const char *mt_wrap_words(const int64_t *words, size_t nw);
/* A report as the json reporter writes it, for a histogram of ok
 * requests, with `errs` timeouts and a status 200 per ok request. */
json_t *mt_report(const struct shb_histo *h, uint64_t errs, const char *url,
		  int connections);
/* Adds good then bad; bad must be refused with `want`. */
void mt_refused(json_t *good, json_t *bad, const char *want);

#endif
