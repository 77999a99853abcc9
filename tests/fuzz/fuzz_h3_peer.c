/* The server's unidirectional streams (plugins/h3/http3/h3_peer.c: the
 * stream type, the control stream's SETTINGS and GOAWAY, the QPACK encoder
 * and decoder streams), up to four of them interleaved in the order the
 * input chooses, as the plugin feeds them. Input: operations, each an op
 * byte (bits 0-1: which stream; bit 2: FIN after the data; bit 3: the peer
 * resets the stream instead) and a length byte, then that many octets.
 *
 * Checked besides memory safety: an error carries its code and reason and
 * sticks; a GOAWAY id never grows; the settings are read once. */
#include <string.h>

#include "fuzz_input.h"
#include "h3_peer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct shb_h3_peer p;
	struct shb_h3_uni u[4];
	uint8_t ended[4] = {0};
	uint64_t goaway = SHB_H3_NO_GOAWAY;
	unsigned settings = 0;
	int rc = 0;

	shb_h3_peer_init(&p);
	for (int i = 0; i < 4; i++)
		shb_h3_uni_init(&u[i]);
	while (f.n && rc != SHB_H3_PEER_ERROR) {
		unsigned op = fz_u8(&f), i = op & 3;
		const uint8_t *d;
		size_t n;

		d = fz_take(&f, fz_u8(&f), &n);
		if (ended[i])
			continue;
		if (op & 8) {
			rc = shb_h3_uni_reset(&p, &u[i]);
			ended[i] = 1;
		} else {
			rc = shb_h3_uni_feed(&p, &u[i], d, n, op & 4);
			ended[i] = !!(op & 4);
		}
		if (rc == SHB_H3_PEER_ERROR) {
			FZ_CHECK(p.error != 0 && p.detail != NULL);
			FZ_CHECK(shb_h3_uni_feed(&p, &u[i], d, n, 0) ==
				 SHB_H3_PEER_ERROR);
			break;
		}
		FZ_CHECK(rc >= 0 &&
			 (rc & ~(SHB_H3_EV_SETTINGS | SHB_H3_EV_GOAWAY)) == 0);
		if (rc & SHB_H3_EV_SETTINGS) {
			FZ_CHECK(++settings == 1 && p.settings_received);
		}
		if (rc & SHB_H3_EV_GOAWAY) {
			FZ_CHECK(p.goaway_id <= goaway);
			goaway = p.goaway_id;
		}
		FZ_CHECK(p.goaway_id == goaway);
	}
	return 0;
}
