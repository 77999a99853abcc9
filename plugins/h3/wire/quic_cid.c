/* Connection IDs held by value. */
#include <string.h>

#include "quic_cid.h"
#include "quic_wire_err.h"

int shb_quic_cid_set(struct shb_quic_cid *c, const uint8_t *id, size_t len)
{
	if (len > SHB_QUIC_MAX_CID_LEN)
		return SHB_QUIC_E_INVALID;
	c->len = (uint8_t)len;
	if (len)
		memcpy(c->id, id, len);
	return SHB_QUIC_OK;
}

int shb_quic_cid_eq(const struct shb_quic_cid *c, const uint8_t *id,
		    size_t len)
{
	return c->len == len && (len == 0 || memcmp(c->id, id, len) == 0);
}
