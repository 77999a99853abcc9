/* The response scanner tests' driver (test_h1_scan.c): a vector of
 * responses and what the scanner must make of them, fed whole, split in
 * two at every offset, in three at every pair of offsets (small vectors)
 * and byte by byte, every way compared. */
#ifndef SHB_TEST_H1_SCAN_FX_H
#define SHB_TEST_H1_SCAN_FX_H

#include <stddef.h>
#include <stdint.h>

#include "h1_scan.h"

#define MAX_RESP 4

struct expect {
	int error;       /* this response is malformed */
	uint32_t status; /* the rest: for a complete response */
	size_t resp_len; /* bytes on the wire: head + body */
	uint64_t body;
	int keep_alive;
	uint32_t framing;
	const char *reason; /* for an error */
};

struct vector {
	const char *name;
	const uint8_t *data;
	size_t len;
	int eof;            /* the peer closes after the data */
	uint32_t head_mask; /* bit i: response i answers a HEAD */
	size_t count;
	struct expect ex[MAX_RESP];
};

struct got {
	int rc;
	uint32_t status;
	uint64_t head, body;
	int keep_alive;
	uint32_t framing;
	const char *reason;
};

struct outcome {
	size_t count;
	struct got r[MAX_RESP + 1];
	int incomplete; /* bytes of a response were left without an end */
};

/* malloc that aborts on failure (0 bytes: 1). */
void *h1s_xmalloc(size_t n);
/* Feeds v->data cut at the ascending offsets cuts[0..ncuts) into *o. */
void h1s_drive(const struct vector *v, const size_t *cuts, size_t ncuts,
	       struct outcome *o);
/* *o is what v expects. */
void h1s_check_expected(const struct vector *v, const struct outcome *o);
/* v fed every way: what it expects, and the same every way. */
void h1s_check_vector(const struct vector *v);

#endif
