/* HTTP/3 frame headers: see h3_frame.h. */
#include "h3_frame.h"

size_t shb_h3_fhead_feed(struct shb_h3_fhead *h, const uint8_t *in,
			 size_t len, uint64_t *type, uint64_t *length,
			 int *done)
{
	size_t used = 0;
	int vdone;

	*done = 0;
	while (used < len) {
		used += shb_h3_varint_feed(&h->vi, in + used, len - used,
					   &vdone);
		if (!vdone)
			break;
		if (!h->have_type) {
			h->type = h->vi.value;
			h->have_type = 1;
			shb_h3_varint_reset(&h->vi);
			continue;
		}
		*type = h->type;
		*length = h->vi.value;
		h->have_type = 0;
		shb_h3_varint_reset(&h->vi);
		*done = 1;
		break;
	}
	return used;
}

size_t shb_h3_frame_header_encode(uint8_t *out, size_t cap, uint64_t type,
				  uint64_t length)
{
	size_t a = shb_h3_varint_encode(out, cap, type), b;

	if (a == 0)
		return 0;
	b = shb_h3_varint_encode(out + a, cap - a, length);
	return b ? a + b : 0;
}
