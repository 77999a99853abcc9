#include "engine/dgram_split.h"

size_t shb_dgram_split(uint8_t *base, size_t len, size_t seg, size_t skip,
		       struct shb_vec *v, size_t max)
{
	size_t n = 0, off;

	if (seg == 0 || seg >= len) {
		if (skip || !max)
			return 0;
		v[0].base = base;
		v[0].len = len;
		return 1;
	}
	for (off = skip * seg; off < len && n < max; off += seg, n++) {
		v[n].base = base + off;
		v[n].len = len - off < seg ? len - off : seg;
	}
	return n;
}
