/* A QUIC connection ID held by value: 0..20 bytes in QUIC v1 (RFC 9000
 * Section 17.2). Used wherever one must outlive the packet it came in. */
#ifndef SHB_QUIC_CID_H
#define SHB_QUIC_CID_H

#include <stddef.h>
#include <stdint.h>

#define SHB_QUIC_MAX_CID_LEN 20

struct shb_quic_cid {
	uint8_t len;
	uint8_t id[SHB_QUIC_MAX_CID_LEN];
};

/* Copies id[0..len) into c. Returns SHB_QUIC_OK, or SHB_QUIC_E_INVALID
 * (c untouched) when len is above 20. `id` may be NULL when len is 0. */
int shb_quic_cid_set(struct shb_quic_cid *c, const uint8_t *id, size_t len);

/* 1 when c holds exactly id[0..len), else 0. */
int shb_quic_cid_eq(const struct shb_quic_cid *c, const uint8_t *id,
		    size_t len);

#endif
