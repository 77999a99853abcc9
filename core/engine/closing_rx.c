/* The count of what a closing connection still receives (closing_rx.h). */
#include "engine/closing_rx.h"

int shb_closing_rx_add(uint32_t *count, uint32_t n)
{
	if (*count <= CLOSING_RX_MAX)
		*count += n > CLOSING_RX_MAX ? CLOSING_RX_MAX + 1u : n;
	return *count > CLOSING_RX_MAX;
}
