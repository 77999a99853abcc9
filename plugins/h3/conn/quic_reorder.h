/* Out-of-order stream data held until the gap before it is filled: a
 * fixed pool of small blocks shared by the streams of one connection,
 * each stream keeping its blocks in a list sorted by offset.
 *
 * Data is stored once: an insert skips the bytes the list already holds
 * (retransmissions, duplicates) and fills the free room of the block it
 * continues before taking new blocks, so a stream's data arriving in
 * order behind a gap costs one block per 240 bytes whatever the frame
 * sizes. Appending behind the last block is O(1); filling a hole walks
 * the list.
 *
 * Nothing allocates: the caller gives the block array. The pool holds at
 * least its byte capacity minus one block's worth per separate run of
 * bytes. Plain data, one thread.
 *
 * Blocks are written only when first handed out, lowest index first, so
 * the untouched part of a freshly mapped array costs no memory; once the
 * pool is empty again, shb_quic_ro_trim() says how much of the array was
 * written, for the caller to give those pages back.
 */
#ifndef SHB_QUIC_REORDER_H
#define SHB_QUIC_REORDER_H

#include <stddef.h>
#include <stdint.h>

#define SHB_QUIC_RO_BLOCK 240u

struct shb_quic_ro_block {
	uint64_t off;  /* stream offset of data[0] */
	uint32_t next; /* index + 1 of the next block in the list, 0: none */
	uint16_t len;
	uint16_t reserved;
	uint8_t data[SHB_QUIC_RO_BLOCK];
};

struct shb_quic_ro_pool {
	struct shb_quic_ro_block *b;
	uint32_t n;
	uint32_t free_head; /* index + 1, 0: none */
	uint32_t nfree;     /* on the free list, plus never handed out */
	uint32_t fresh;     /* blocks [fresh, n) never handed out */
};

/* One stream's held data: blocks sorted by offset, not overlapping. */
struct shb_quic_ro_list {
	uint32_t head; /* index + 1, 0: empty */
	uint32_t tail;
	uint32_t blocks;
};

/* Blocks needed to hold `bytes` in the worst case of one run. */
#define SHB_QUIC_RO_BLOCKS_FOR(bytes) \
	((uint32_t)(((bytes) + SHB_QUIC_RO_BLOCK - 1) / SHB_QUIC_RO_BLOCK))

void shb_quic_ro_init(struct shb_quic_ro_pool *p, struct shb_quic_ro_block *b,
		      uint32_t n);

/* Blocks an insert of [off, off + len) into l would take (the bytes
 * already held cost nothing). */
uint32_t shb_quic_ro_needed(const struct shb_quic_ro_pool *p,
			    const struct shb_quic_ro_list *l, uint64_t off,
			    size_t len);

/* Holds data[0..len) at `off` in l. Returns 0, or -1 when the pool ran out
 * (what fitted is kept; check shb_quic_ro_needed() first to avoid it). */
int shb_quic_ro_insert(struct shb_quic_ro_pool *p, struct shb_quic_ro_list *l,
		       uint64_t off, const uint8_t *data, size_t len);

/* The first block of l, or NULL. */
const struct shb_quic_ro_block *shb_quic_ro_first(const struct shb_quic_ro_pool *p,
						  const struct shb_quic_ro_list *l);

/* Takes the first block out of l and returns its index + 1 (0 if l is
 * empty). The block stays readable until shb_quic_ro_release(). */
uint32_t shb_quic_ro_detach(struct shb_quic_ro_pool *p,
			    struct shb_quic_ro_list *l);
const struct shb_quic_ro_block *shb_quic_ro_at(const struct shb_quic_ro_pool *p,
					       uint32_t idx);
void shb_quic_ro_release(struct shb_quic_ro_pool *p, uint32_t idx);

/* Gives every block of l back. */
void shb_quic_ro_clear(struct shb_quic_ro_pool *p, struct shb_quic_ro_list *l);

/* When no block is in use: the bytes at the start of the block array
 * written since init or the last trim (0 if none), and the pool starts
 * again from block 0 as if new, so the caller may drop those pages. While
 * some block is in use: 0, nothing changes. */
size_t shb_quic_ro_trim(struct shb_quic_ro_pool *p);

#endif
