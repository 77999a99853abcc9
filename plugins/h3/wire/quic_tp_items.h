/* A client's transport parameters as a list (RFC 9000 Section 18): the
 * ids, their values and their order as data, so that a connection
 * profile can send another client's parameters exactly, including what
 * struct shb_quic_tp does not model (max_datagram_frame_size of RFC 9221,
 * version_information of RFC 9368, reserved "GREASE" parameters, a
 * vendor's opaque ones).
 *
 * Use:
 *   uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN];     // fresh per connection
 *   shb_quic_tp_items_shuffle(copy, n, rnd); // when the client permutes
 *   shb_quic_tp_encode_items(buf, cap, copy, n, &scid, rnd, &len);
 * then shb_quic_tp_decode_server(buf, len, &tp, &why) reads back what was
 * encoded (the same rules hold for both sides' integer parameters), so
 * the connection acts on what it announced.
 */
#ifndef SHB_QUIC_TP_ITEMS_H
#define SHB_QUIC_TP_ITEMS_H

#include <stddef.h>
#include <stdint.h>

#include "quic_cid.h"

/* Beyond RFC 9000's table. */
#define SHB_QUIC_TP_VERSION_INFORMATION 0x11 /* RFC 9368 Section 3 */
#define SHB_QUIC_TP_MAX_DATAGRAM_FRAME_SIZE 0x20 /* RFC 9221 Section 3 */
#define SHB_QUIC_TP_GREASE_QUIC_BIT 0x2ab2 /* RFC 9287 Section 3, empty */

enum shb_quic_tp_kind {
	SHB_QUIC_TPK_INT = 0,      /* `value` as a varint */
	SHB_QUIC_TPK_EMPTY = 1,    /* a zero-length value */
	SHB_QUIC_TPK_BYTES = 2,    /* bytes[0..len) */
	SHB_QUIC_TPK_SCID = 3,     /* ours: the Source Connection ID */
	/* A reserved parameter (RFC 9000 18.1): id 31 * N + 27 with a random
	 * N, `id` ignored; `len` random octets (at most 16), or a random
	 * 0..len of them when `value` is 1. */
	SHB_QUIC_TPK_GREASE = 4,
	/* version_information: Chosen Version 1, Available Versions 1 and a
	 * reserved version (0x?a?a?a?a, RFC 9000 15), the reserved one
	 * first when `value` is 1; Available Versions 1 alone when `value`
	 * is 2 (what ngtcp2's client sends unless told other versions). */
	SHB_QUIC_TPK_VERSIONS = 5,
};

struct shb_quic_tp_item {
	uint64_t id;
	uint32_t kind; /* enum shb_quic_tp_kind */
	uint32_t len;  /* BYTES and GREASE */
	uint64_t value;
	const uint8_t *bytes; /* BYTES */
};

#define SHB_QUIC_TP_ITEMS_MAX 24u
#define SHB_QUIC_TP_GREASE_MAX 16u
/* The random octets one encoding (and its shuffle) may use. */
#define SHB_QUIC_TP_RANDOM_LEN 64u
/* Room that always holds an encoding of SHB_QUIC_TP_ITEMS_MAX items of
 * at most 32 octets each. */
#define SHB_QUIC_TP_ITEMS_MAX_LEN 1024u

/* 1 for a reserved transport parameter id (31 * N + 27). */
static inline int shb_quic_tp_is_grease(uint64_t id)
{
	return id >= 27 && (id - 27) % 31 == 0;
}

/* Encodes it[0..n) in order into out[0..cap), `scid` for the SCID item,
 * random choices from rnd[SHB_QUIC_TP_RANDOM_LEN]. SHB_QUIC_OK and
 * *written; SHB_QUIC_E_INVALID for a list that is too long, an id or
 * value above 2^62 - 1, BYTES longer than 32 or without bytes, a GREASE
 * longer than 16, an unknown kind, or one id twice; SHB_QUIC_E_SPACE when
 * cap is too small. */
int shb_quic_tp_encode_items(uint8_t *out, size_t cap,
			     const struct shb_quic_tp_item *it, size_t n,
			     const struct shb_quic_cid *scid,
			     const uint8_t *rnd, size_t *written);

/* Permutes it[0..n) (n <= SHB_QUIC_TP_ITEMS_MAX) with the last
 * SHB_QUIC_TP_ITEMS_MAX octets of rnd (Fisher-Yates), as Chrome does to
 * its parameters on every connection. */
void shb_quic_tp_items_shuffle(struct shb_quic_tp_item *it, size_t n,
			       const uint8_t *rnd);

/* The INT value of the item with `id`, else `def`. */
uint64_t shb_quic_tp_items_int(const struct shb_quic_tp_item *it, size_t n,
			       uint64_t id, uint64_t def);

#endif
