/* The h3/http3 test executable: one suite array per source file, and a
 * byte-string builder for hand-made frames and field sections. */
#ifndef SHB_HTTP3_TESTS_H
#define SHB_HTTP3_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

extern CU_TestInfo shb_h3t_defs_tests[];
extern CU_TestInfo shb_h3t_varint_tests[];
extern CU_TestInfo shb_h3t_qpack_tests[];
extern CU_TestInfo shb_h3t_qpack_dyn_tests[];
extern CU_TestInfo shb_h3t_request_tests[];
extern CU_TestInfo shb_h3t_response_tests[];
extern CU_TestInfo shb_h3t_peer_tests[];
extern CU_TestInfo shb_h3t_look_tests[];

/* A growing byte string; large enough for a field section a little
 * over the 256 KiB cap. */
#define SHB_H3T_MAX (320 * 1024)
struct shb_h3t_buf {
	uint8_t b[SHB_H3T_MAX];
	size_t n;
};

void shb_h3t_clear(struct shb_h3t_buf *m);
void shb_h3t_bytes(struct shb_h3t_buf *m, const void *p, size_t n);
/* Appends the octets written in hex ("d1 c1", spaces ignored). */
void shb_h3t_hex(struct shb_h3t_buf *m, const char *hex);
void shb_h3t_str(struct shb_h3t_buf *m, const char *s);
void shb_h3t_varint(struct shb_h3t_buf *m, uint64_t v);
/* A frame: type, length, payload. */
void shb_h3t_frame(struct shb_h3t_buf *m, uint64_t type, const void *p,
		   size_t n);
/* A QPACK prefixed integer. */
void shb_h3t_prefint(struct shb_h3t_buf *m, unsigned bits, uint8_t flags,
		     uint64_t v);

/* Fills out[] from hex; returns the octet count. */
size_t shb_h3t_unhex(uint8_t *out, size_t cap, const char *hex);

#endif
