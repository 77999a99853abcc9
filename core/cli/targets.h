/* Several targets in one run (--mix, --urls): the URL-list file, the
 * `URL@WEIGHT` form of the command line, and the smooth weighted
 * round-robin that spreads requests over the targets by weight, exactly.
 *
 * A --urls FILE holds one target per line:
 *
 *     [LABEL=]URL [WEIGHT] [METHOD [BODY-FILE]]
 *
 * fields separated by blanks (spaces or tabs). WEIGHT is a decimal
 * 1..SHB_WEIGHT_MAX (default 1); the second field is the weight when it
 * is all digits, else the method. METHOD is an HTTP method token
 * (default: -m, or GET / POST as without a list); BODY-FILE names a file
 * whose bytes are the request body (default: -d's body), relative to the
 * current directory. Blank lines and lines whose first non-blank is '#'
 * are skipped. A URL or file name cannot hold blanks.
 *
 * The picker (struct shb_swrr) is nginx's smooth weighted round-robin:
 * every pick adds each target's weight to its current value, takes the
 * largest (the lowest index on a tie) and subtracts the total from it.
 * Over any W = sum of weights consecutive picks each target is picked
 * exactly its weight times, and the sequence is deterministic, so a
 * request count splits exactly (shb_swrr_counts). */
#ifndef SHB_CORE_TARGETS_H
#define SHB_CORE_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "cli/config.h"

#define SHB_TARGETS_MAX 64        /* targets of one run */
#define SHB_WEIGHT_MAX 1000000u   /* a weight, and the sum of all */
#define SHB_URLS_LINE_MAX 8192    /* a --urls line, in bytes */
#define SHB_URLS_FILE_MAX ((size_t)1 << 20) /* a --urls file */

/* Parses one line of a --urls file (without its newline; `len` bytes, no
 * NUL inside). Returns 1 with *t filled (strings malloc'd; body_file set
 * but the body not read), 0 for a blank or comment line, or -1 with one
 * line in err saying what is wrong (without file and line). */
int shb_urls_parse_line(const char *line, size_t len,
			struct shb_target_arg *t, char *err, size_t errlen);

/* Reads a --urls FILE: every line parsed, every body file read (each at
 * most SHB_MAX_BODY). Appends the targets to cfg->targets. Returns 0, or
 * -1 with one line in err: "FILE:LINE: what is wrong" for a bad line. */
int shb_urls_load(struct shb_config *cfg, const char *path, char *err,
		  size_t errlen);

/* --mix: splits "URL@WEIGHT" (after any label) into the URL's length and
 * the weight: only a final '@' followed by 1..7 digits and nothing else
 * is a weight (a URL has no userinfo here, so an '@' in it is in the path
 * or query). Returns 0 (*weight 1 without one) or -1 with one line in
 * err. */
int shb_target_split_weight(const char *url, size_t *url_len,
			    uint32_t *weight, char *err, size_t errlen);

/* The smooth weighted round-robin over `n` weights (borrowed, each > 0).
 * With `left` (the caller's, n counters) it is bounded: a target whose
 * counter is 0 is left out of the pick (and of the total), and a pick
 * takes one from it. */
struct shb_swrr {
	uint32_t n;
	const uint32_t *weight;
	int64_t *cur;   /* the caller's, n values, zeroed to start */
	uint64_t *left; /* NULL: unbounded */
};

/* The next target's index, or -1 when every counter is 0. */
int shb_swrr_next(struct shb_swrr *s);

/* How many of picks off .. off + count - 1 of the unbounded sequence go to
 * each target: out[i] for target i (n of them). The sum of weights must be
 * at most SHB_WEIGHT_MAX (the command line checks it); the cost is at most
 * two periods of picks. */
void shb_swrr_counts(const uint32_t *weight, uint32_t n, uint64_t off,
		     uint64_t count, uint64_t *out);

/* Splits `total` over the k = min(workers, parts) workers that have a
 * part (0 .. k-1): worker i's share of item j, rotated by j so that the
 * remainders spread. 0 for i >= k. */
uint64_t shb_split_share(uint64_t total, uint32_t k, uint32_t i, uint32_t j);

/* Splits `total` (>= n) into n parts proportional to weight[] by largest
 * remainder, each at least 1 (ties to the lower index). */
void shb_split_weighted(uint32_t total, const uint64_t *weight, uint32_t n,
			uint32_t *out);

#endif
