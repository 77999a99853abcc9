/* The requests in flight on one HTTP/3 connection, found by stream ID.
 *
 * An open-addressed table with linear probing, keyed by the request
 * stream's index (ID / 4), sized once per connection to a power of two at
 * least twice -p, so it is never more than half full and a lookup touches
 * one or two slots. Stream IDs grow by 4 per request, so consecutive
 * requests land in consecutive slots; a request that stays open for long
 * only makes later ones probe one slot further. Removal shifts the
 * following run back (no tombstones), so the table never degrades. */
#ifndef SHB_H3_REQTAB_H
#define SHB_H3_REQTAB_H

#include <stddef.h>
#include <stdint.h>

#include <shb/types.h>

#include "h3_response.h"

/* One request in flight: plain data, moved freely by the table. */
struct shb_h3_req {
	uint64_t id;     /* its QUIC stream */
	uint64_t cookie; /* the core's id for it */
	shb_tstamp ts_first_byte; /* 0 until a response byte arrived */
	struct shb_h3_resp resp;
	/* ABI 1.4: where its response is kept (shb_h3_reqtab_keep), else
	 * NULL; the table hands it out and takes it back. */
	struct shb_h3_keep *keep;
	uint8_t used;
};

struct shb_h3_reqtab {
	struct shb_h3_req *slot;
	uint32_t mask;  /* slot count - 1 */
	uint32_t count; /* slots in use */
	uint32_t limit; /* most requests in flight (-p) */
	/* shb_h3_reqtab_keep: one keep per request in flight, those not
	 * lent out in kfree[0..nkfree). */
	struct shb_h3_keep *keeps;
	struct shb_h3_keep **kfree;
	uint32_t nkfree;
};

/* Allocates room for `limit` requests (1..65536). Returns 0, or -1 when
 * out of memory (t is then empty). */
int shb_h3_reqtab_init(struct shb_h3_reqtab *t, uint32_t limit);
void shb_h3_reqtab_free(struct shb_h3_reqtab *t);

/* Runs that want responses (ABI 1.4 req_response): every entry add()
 * makes gets a keep of its own (bodies kept up to body_max octets) until
 * remove(). Returns 0, or -1 when out of memory. */
int shb_h3_reqtab_keep(struct shb_h3_reqtab *t, uint64_t body_max);

/* The request on stream `id`, or NULL. */
struct shb_h3_req *shb_h3_reqtab_find(struct shb_h3_reqtab *t, uint64_t id);

/* The request with core cookie `cookie`, or NULL (a scan: rare calls). */
struct shb_h3_req *shb_h3_reqtab_find_cookie(struct shb_h3_reqtab *t,
					     uint64_t cookie);

/* A fresh, zeroed entry for stream `id` (not present yet), or NULL when
 * `limit` requests are in flight. */
struct shb_h3_req *shb_h3_reqtab_add(struct shb_h3_reqtab *t, uint64_t id);

/* Removes `r` (from find or add). Other entries may move: pointers to
 * them are stale afterwards. */
void shb_h3_reqtab_remove(struct shb_h3_reqtab *t, struct shb_h3_req *r);

/* The entry in slot `i` (0..mask) if used, else NULL: for walks that
 * remove as they go, which must look at slot i again after a removal. */
static inline struct shb_h3_req *shb_h3_reqtab_at(struct shb_h3_reqtab *t,
						  uint32_t i)
{
	return t->slot[i].used ? &t->slot[i] : NULL;
}

#endif
