/* The header block scanner tests' helpers (test_h2_hscan.c,
 * test_h2_hscan_table.c): scanning a block every way it can be cut, and
 * building blocks by hand. */
#ifndef SHB_TEST_H2_HSCAN_FX_H
#define SHB_TEST_H2_HSCAN_FX_H

#include <stddef.h>
#include <stdint.h>

#include "h2_hscan.h"

/* Scans blk[n] as pieces cut at cuts[0..ncuts) starting from table `in`;
 * the table ends in *out. Returns the feed/end result. */
int hs_scan_pieces(const struct shb_h2_dtable *in, struct shb_h2_dtable *out,
		   const uint8_t *blk, size_t n, const size_t *cuts,
		   size_t ncuts, int *status);
/* Scans blk[n] on table *t whole, in two pieces split at every offset,
 * in three at every pair of offsets (small blocks), and one octet at a
 * time: all must agree on the result, the status and the table left
 * behind, which becomes *t. Returns the result; *status the status. */
int hs_scan_all_ways_t(struct shb_h2_dtable *t, const uint8_t *blk, size_t n,
		       int *status);
/* The same from an empty table. */
int hs_scan_all_ways(const uint8_t *blk, size_t n, int *status);
/* blk[cap] = the bytes of hex; their count. */
long hs_unhex(const char *hex, uint8_t *blk, size_t cap);
/* hs_scan_all_ways(_t) of a block given in hex. */
int hs_scan_hex(const char *hex, int *status);
int hs_scan_hex_t(struct shb_h2_dtable *t, const char *hex, int *status);
/* Asserts the table holds exactly entries of these sizes, newest first;
 * name_len and status of each too when the arrays are given. */
void hs_table_is(const struct shb_h2_dtable *t, size_t count,
		 const unsigned *sizes, const unsigned *name_lens,
		 const int *statuses);

/* A block built by hand. */
struct hs_blk {
	uint8_t p[8192];
	size_t n;
};

/* An HPACK integer of `prefix` bits after `flags` (RFC 7541 5.1). */
void hs_put_int(struct hs_blk *b, unsigned prefix, uint8_t flags, uint64_t v);
/* A string literal, Huffman-coded or not (RFC 7541 5.2). */
void hs_put_str(struct hs_blk *b, const char *s, size_t len, int huffman);
/* A literal with incremental indexing: an indexed name (name_index > 0)
 * or a literal `name`, and `value`. */
void hs_put_indexed_literal(struct hs_blk *b, uint64_t name_index,
			    const char *name, const char *value, int huffman);

#endif
