/* Sent-packet records of one packet number space: a fixed-capacity ring in
 * packet-number order, plus a ring of frame references.
 *
 * Every packet sent in a space gets a record (pn, send time, size, flags,
 * an opaque 64-bit tag, the largest packet number acknowledged by the ACK
 * frame it carried) and a contiguous slice of "frame references": small
 * (kind, id, offset, len, flags) tuples the connection defines and reads
 * back when the packet is acknowledged or declared lost, to requeue CRYPTO
 * or STREAM byte ranges and control frames without allocating. Recovery
 * never looks inside a reference.
 *
 * Records leave the ring in order: an acknowledged or lost record stays as
 * a hole until every older record is settled too. A record that is not
 * ack-eliciting (ACK-only) at the head of the ring may be evicted to make
 * room: it carries nothing to retransmit, and the peer may never
 * acknowledge it.
 *
 * The ring does not allocate; its storage is given to init. It uses only
 * the start of each array at first and doubles what it uses when a push
 * does not fit otherwise, up to the storage given: a connection with a
 * few packets in flight writes a few KB of it, so untouched pages of a
 * fresh mapping stay free. Used by the recovery part; the connection sees
 * records only through the recovery callbacks.
 */
#ifndef SHB_QUIC_SENT_H
#define SHB_QUIC_SENT_H

#include <stdint.h>

/* What a packet carried that may need to be sent again or released. The
 * meaning of every member is the connection's; recovery copies it in and
 * hands it back. Example: kind = CRYPTO, offset/len = the byte range;
 * kind = STREAM, id = stream id, offset/len, flags = FIN; kind =
 * MAX_STREAM_DATA, id = stream id (resend the current value if lost). */
struct shb_quic_frame_ref {
	uint64_t id;
	uint64_t offset;
	uint32_t len;
	uint16_t kind;
	uint16_t flags;
};

enum shb_quic_sent_state {
	SHB_QUIC_SENT_OUTSTANDING = 0,
	SHB_QUIC_SENT_ACKED = 1,
	SHB_QUIC_SENT_LOST = 2,
};

/* flags */
#define SHB_QUIC_SENT_ACK_ELICITING 0x01u
/* Counted in bytes in flight right now: set at send time for
 * ack-eliciting packets, cleared when acknowledged, lost or discarded. */
#define SHB_QUIC_SENT_IN_FLIGHT 0x02u

/* One sent packet. */
struct shb_quic_sent {
	uint64_t pn;
	uint64_t time_sent;
	uint64_t tag;         /* the connection's, opaque */
	uint64_t ack_largest; /* largest acked by its ACK frame, or PN_NONE */
	uint64_t ref_pos;     /* private: first reference (ring position) */
	uint32_t size;        /* bytes of the packet */
	uint16_t nrefs;
	uint8_t flags; /* SHB_QUIC_SENT_* */
	uint8_t state; /* enum shb_quic_sent_state */
};

/* Where the arrays start when their storage allows halving down to it. */
#define SHB_QUIC_SENT_START_RECS 32u
#define SHB_QUIC_SENT_START_REFS 128u

/* All members are private. */
struct shb_quic_sent_ring {
	struct shb_quic_sent *rec;
	struct shb_quic_frame_ref *refs;
	uint32_t cap;     /* records in use: max_cap >> k */
	uint32_t ref_cap; /* references in use: ref_max >> k */
	uint32_t max_cap;
	uint32_t ref_max;
	uint32_t head;  /* index of the oldest record */
	uint32_t count; /* records in the ring, holes included */
	uint64_t ref_tail; /* next free reference position */
};

/* Uses rec[cap] and refs[ref_cap] (borrowed for the ring's lifetime;
 * cap >= 1, ref_cap may be 0) and starts empty. Each array starts at its
 * size halved while it stays even and at least SHB_QUIC_SENT_START_*. */
void shb_quic_sent_ring_init(struct shb_quic_sent_ring *g,
			     struct shb_quic_sent *rec, uint32_t cap,
			     struct shb_quic_frame_ref *refs, uint32_t ref_cap);

/* Forgets every record. */
void shb_quic_sent_ring_clear(struct shb_quic_sent_ring *g);

/* Records in the ring (holes included). */
uint32_t shb_quic_sent_ring_count(const struct shb_quic_sent_ring *g);

/* Can one more record be pushed while leaving `reserve` free slots
 * (counting evictable head records as free, and the arrays at their full
 * size)? Returns 1 and, if max_refs is not NULL, the largest nrefs that
 * push() would accept; 0 when not. */
int shb_quic_sent_ring_fits(const struct shb_quic_sent_ring *g,
			    uint32_t reserve, uint32_t *max_refs);

/* Appends a copy of *p (pn must be above every pn in the ring; ref_pos and
 * state are set here) with a copy of refs[0..p->nrefs), evicting
 * evictable head records if needed, else growing an array. Returns the
 * stored record, or NULL when it does not fit (nothing changed). Growing
 * moves records: pointers from ring_at() do not survive a push. */
struct shb_quic_sent *shb_quic_sent_ring_push(struct shb_quic_sent_ring *g,
					      const struct shb_quic_sent *p,
					      const struct shb_quic_frame_ref *refs);

/* The i-th record from the oldest, i < count. */
struct shb_quic_sent *shb_quic_sent_ring_at(const struct shb_quic_sent_ring *g,
					    uint32_t i);

/* Index of the newest record with pn <= `pn`, or UINT32_MAX if none. */
uint32_t shb_quic_sent_ring_find(const struct shb_quic_sent_ring *g,
				 uint64_t pn);

/* A record's references (nrefs of them, contiguous). */
const struct shb_quic_frame_ref *
shb_quic_sent_ring_refs(const struct shb_quic_sent_ring *g,
			const struct shb_quic_sent *s);

/* The records and references in use now (tests and diagnostics). */
uint32_t shb_quic_sent_ring_cap(const struct shb_quic_sent_ring *g);
uint32_t shb_quic_sent_ring_ref_cap(const struct shb_quic_sent_ring *g);

/* Drops settled (acknowledged or lost) records from the head. */
void shb_quic_sent_ring_pop_settled(struct shb_quic_sent_ring *g);

#endif
