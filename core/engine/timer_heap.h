/* A worker's deadlines in one binary min-heap, keyed by time, each entry
 * named by a caller's id below a fixed capacity (a connection slot times
 * a kind of timer): arming an id that is armed moves it in place, so the
 * heap never holds more than one entry per id, and what a pass of the
 * loop touches is what is due, not every connection.
 *
 * Why a heap and not a timing wheel: the loop needs the earliest deadline
 * exactly, to bound its wait in the ring (a wheel rounds deadlines to its
 * slots, and finding the next non-empty one is a scan), and deadlines
 * here span from microseconds (a QUIC acknowledgement delay) to minutes
 * (--timeout); a heap gives the earliest in O(1) and an update in
 * O(log n), a handful of compares next to the system calls of a request.
 *
 * Single-threaded: one worker's. Not for plugins. */
#ifndef SHB_CORE_TIMER_HEAP_H
#define SHB_CORE_TIMER_HEAP_H

#include <stdint.h>

#define SHB_THEAP_NONE UINT32_MAX

struct shb_theap_ent {
	uint64_t at;
	uint32_t id;
};

struct shb_theap {
	/* e[0 .. n): a min-heap by `at`; cap places, one per id. */
	struct shb_theap_ent *e;
	uint32_t n, cap;
	/* By id: its place in e plus one, 0 while not armed (cap entries). */
	uint32_t *pos;
};

/* Room for ids 0 .. cap-1. 0, or -1 out of memory. */
int shb_theap_init(struct shb_theap *h, uint32_t cap);
void shb_theap_free(struct shb_theap *h);
/* Arms id at `at`, or moves it there if it is armed. */
void shb_theap_set(struct shb_theap *h, uint32_t id, uint64_t at);
/* Disarms id (nothing if it is not armed). */
void shb_theap_del(struct shb_theap *h, uint32_t id);
/* The earliest id due at or before `now`, disarmed; SHB_THEAP_NONE when
 * none is. Equal times come out in no particular order. */
uint32_t shb_theap_pop_due(struct shb_theap *h, uint64_t now);

static inline int shb_theap_armed(const struct shb_theap *h, uint32_t id)
{
	return h->pos[id] != 0;
}

/* When an armed id is due. */
static inline uint64_t shb_theap_at(const struct shb_theap *h, uint32_t id)
{
	return h->e[h->pos[id] - 1].at;
}

/* The earliest deadline, UINT64_MAX with none armed. */
static inline uint64_t shb_theap_next(const struct shb_theap *h)
{
	return h->n ? h->e[0].at : UINT64_MAX;
}

#endif
