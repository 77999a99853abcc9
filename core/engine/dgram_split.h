/* A UDP GRO receive holds several datagrams back to back: every one
 * `seg` bytes but possibly a shorter last one (the UDP_GRO control
 * message gives `seg`). */
#ifndef SHB_CORE_DGRAM_SPLIT_H
#define SHB_CORE_DGRAM_SPLIT_H

#include <stddef.h>
#include <stdint.h>
#include <shb/types.h>

/* [worker] Fills at most `max` vecs with the datagrams of the `len` bytes
 * at `base`, from datagram number `skip` on; seg 0 (or not smaller than
 * len) means one datagram. Returns how many it filled: 0 once past the
 * end. The vecs point into `base`. */
size_t shb_dgram_split(uint8_t *base, size_t len, size_t seg, size_t skip,
		       struct shb_vec *v, size_t max);

#endif
