/* The server's unidirectional streams (plugins/h3/http3/h3_peer.c: the
 * stream type, the control stream's SETTINGS and GOAWAY, the QPACK encoder
 * and decoder streams), up to four of them interleaved in the order the
 * input chooses, as the plugin feeds them, with field sections decoded
 * over the dynamic table the encoder stream fills between them. Input: a
 * table byte (our limit: its value * 256 octets), then operations, each
 * an op byte (bits 0-1: which stream; bit 2: FIN after the data; bit 3:
 * the peer resets the stream instead; bit 4: the octets are a field
 * section on a request stream instead) and a length byte, then that many
 * octets.
 *
 * Checked besides memory safety: an error carries its code and reason and
 * sticks; a GOAWAY id never grows; the settings are read once; inserts
 * are reported exactly when the table grew, which stays within its
 * capacity and our limit; a section blocks only on inserts the table has
 * not seen, and one that decoded decodes for req_response too. */
#include <string.h>

#include <shb/types.h>

#include "fuzz_input.h"
#include "h3_peer.h"
#include "qpack_dec.h"
#include "qpack_fields.h"

static struct shb_buf strs = SHB_BUF_INIT(256, 1u << 20);
static struct shb_buf kvs = SHB_BUF_INIT(256, 1u << 20);

/* A field section on some request stream, over the peer's table. */
static void section(const struct shb_h3_peer *p, const uint8_t *d, size_t n)
{
	struct shb_qpack_dec q;
	int rc = -1;
	long k;

	if (n == 0)
		return;
	shb_qpack_dec_begin_table(&q, n, p->table.limit ? &p->table : NULL);
	rc = shb_qpack_dec_feed(&q, d, n);
	k = shb_qpack_fields(d, n, p->table.limit ? &p->table : NULL, &strs,
			     &kvs);
	if (rc == SHB_QPACK_DEC_BLOCKED)
		FZ_CHECK(q.ric > p->table.inserted && k == -1);
	if (rc == SHB_QPACK_DEC_DONE)
		FZ_CHECK(k >= 0 && (uint64_t)k <= q.lines);
}

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

	shb_h3_peer_init_table(&p, fz_u8(&f) * 256u);
	for (int i = 0; i < 4; i++)
		shb_h3_uni_init(&u[i]);
	while (f.n && rc != SHB_H3_PEER_ERROR) {
		unsigned op = fz_u8(&f), i = op & 3;
		const uint8_t *d;
		size_t n;

		d = fz_take(&f, fz_u8(&f), &n);
		if (op & 16) {
			section(&p, d, n);
			continue;
		}
		if (ended[i])
			continue;
		uint64_t inserted = p.table.inserted;
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
			 (rc & ~(SHB_H3_EV_SETTINGS | SHB_H3_EV_GOAWAY |
				 SHB_H3_EV_INSERTS)) == 0);
		FZ_CHECK(!!(rc & SHB_H3_EV_INSERTS) == (p.table.inserted > inserted));
		FZ_CHECK(p.table.size <= p.table.capacity &&
			 p.table.capacity <= p.table.limit);
		if (rc & SHB_H3_EV_SETTINGS) {
			FZ_CHECK(++settings == 1 && p.settings_received);
		}
		if (rc & SHB_H3_EV_GOAWAY) {
			FZ_CHECK(p.goaway_id <= goaway);
			goaway = p.goaway_id;
		}
		FZ_CHECK(p.goaway_id == goaway);
	}
	shb_h3_peer_fini(&p);
	return 0;
}
