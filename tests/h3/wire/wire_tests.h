/* The QUIC wire codec test executable: suites and shared helpers. */
#ifndef SHB_WIRE_TESTS_H
#define SHB_WIRE_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

extern CU_TestInfo shb_wire_varint_tests[];
extern CU_TestInfo shb_wire_header_tests[];
extern CU_TestInfo shb_wire_frame_tests[];
extern CU_TestInfo shb_wire_frame_enc_tests[];
extern CU_TestInfo shb_wire_ack_tests[];
extern CU_TestInfo shb_wire_tp_tests[];
extern CU_TestInfo shb_wire_tp_items_tests[];
extern CU_TestInfo shb_wire_robust_tests[];

/* Heap copy of `hex` (lowercase or uppercase pairs, spaces ignored) of
 * exactly the decoded size, so that ASan catches any read past its end.
 * *len receives the size. Aborts on malformed hex. Free with free(). */
uint8_t *wt_hex(const char *hex, size_t *len);

/* Heap copy of p[0..n) of exactly n bytes (see wt_hex). */
uint8_t *wt_copy(const uint8_t *p, size_t n);

/* 1 when a[0..n) == b[0..n). */
int wt_same(const uint8_t *a, const uint8_t *b, size_t n);
/* 1 when a[0..al) and b[0..bl) are the same bytes. */
int wt_bytes_eq(const uint8_t *a, size_t al, const uint8_t *b, size_t bl);

/* A deterministic pseudo-random sequence for property tests. */
uint64_t wt_rand(uint64_t *state);

#endif
