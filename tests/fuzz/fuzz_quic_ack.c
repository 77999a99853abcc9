/* ACK range handling on both sides of a QUIC connection.
 *
 * Receiving (plugins/h3/recovery/quic_ackrx.c): packet numbers arrive in
 * any order, ACKs are sent and acknowledged, and every ACK frame we would
 * send is encoded (plugins/h3/wire/quic_ack.c) and decoded back.
 * Sending (plugins/h3/recovery/quic_recovery.c): packets are sent, then
 * the peer's frames are decoded as in quic_conn_rx.c and every ACK among
 * them goes to the loss detector, with timers firing in between.
 *
 * Input: a mode byte (bits 0-1: the space of the sending side; bit 2: the
 * handshake is confirmed), a byte for how many packets we send, a length
 * byte for the receive part, the receive part (three bytes per step: what,
 * then a 16-bit number), then the peer's frames.
 *
 * Checked besides memory safety: our ranges stay largest first, disjoint,
 * not adjacent, at most SHB_QUIC_ACKRX_MAX_RANGES; our ACK frames decode
 * to exactly the ranges they were made from; each packet we sent is
 * reported acknowledged or lost at most once and only if it was sent; the
 * recovery's return codes are the documented ones. */
#include <string.h>

#include "fuzz_input.h"
#include "quic_frame.h"
#include "quic_header.h"
#include "quic_recovery.h"
#include "quic_wire_err.h"

/* ---- receiving ----------------------------------------------------------- */

static uint8_t buf[4096];

static void check_view(const struct shb_quic_ack_view *v, uint64_t largest)
{
	FZ_CHECK(v->count >= 1 && v->count <= SHB_QUIC_ACKRX_MAX_RANGES);
	FZ_CHECK(v->ranges[0].hi == v->largest);
	FZ_CHECK(v->largest <= largest);
	for (uint32_t i = 0; i < v->count; i++) {
		FZ_CHECK(v->ranges[i].lo <= v->ranges[i].hi);
		if (i)
			FZ_CHECK(v->ranges[i].hi + 1 < v->ranges[i - 1].lo);
	}
}

/* Our ACK frame for the first k ranges, decoded back. */
static void check_encoding(const struct shb_quic_ack_view *v, uint32_t k)
{
	struct shb_quic_frame f;
	struct shb_quic_ack_iter it;
	struct shb_quic_ack_range r;
	uint64_t delay_us = v->ack_delay << SHB_QUIC_ACK_DELAY_EXPONENT;
	size_t n = shb_quic_ack_frame_encode(buf, sizeof(buf), v->ranges, k,
					     delay_us,
					     SHB_QUIC_ACK_DELAY_EXPONENT);
	uint32_t i = 0;

	FZ_CHECK(n > 0 && n == shb_quic_ack_frame_len(v->ranges, k, delay_us,
						       SHB_QUIC_ACK_DELAY_EXPONENT));
	FZ_CHECK(shb_quic_frame_decode(buf, n, SHB_QUIC_PT_1RTT, &f) ==
		 SHB_QUIC_OK);
	FZ_CHECK(f.type == SHB_QUIC_FT_ACK && f.wire_len == n);
	FZ_CHECK(f.u.ack.delay == v->ack_delay);
	shb_quic_ack_iter_init(&it, &f.u.ack);
	while (shb_quic_ack_iter_next(&it, &r)) {
		FZ_CHECK(i < k);
		FZ_CHECK(r.lo == v->ranges[i].lo && r.hi == v->ranges[i].hi);
		i++;
	}
	FZ_CHECK(i == k);
}

static void receive_side(struct fz f)
{
	struct shb_quic_ackrx a;
	struct shb_quic_ack_view v;
	uint64_t now = 1000000, largest = 0;
	int any = 0;

	shb_quic_ackrx_init(&a);
	while (f.n) {
		unsigned op = fz_u8(&f);
		uint64_t pn = fz_u16(&f);

		if (op & 4)
			pn <<= 16; /* far jumps too */
		if (op & 8)
			pn = SHB_QUIC_PN_MAX - (pn & 0xffff);
		now += 1000;
		switch (op & 3) {
		case 0:
			if (shb_quic_ackrx_on_packet(&a, pn, op & 16, now) ==
			    SHB_QUIC_ACKRX_NEW) {
				FZ_CHECK(pn <= SHB_QUIC_PN_MAX);
				if (!any || pn > largest)
					largest = pn;
				any = 1;
				FZ_CHECK(shb_quic_ackrx_pending(&a));
			}
			break;
		case 1:
			if (shb_quic_ackrx_view(&a, now, &v) == 0) {
				uint32_t k = 1 + (op >> 4) % v.count;

				check_view(&v, largest);
				check_encoding(&v, v.count);
				check_encoding(&v, k);
				k = (uint32_t)shb_quic_ack_ranges_fit(
					v.ranges, v.count,
					v.ack_delay << SHB_QUIC_ACK_DELAY_EXPONENT,
					SHB_QUIC_ACK_DELAY_EXPONENT,
					(op >> 4) * 3);
				FZ_CHECK(k <= v.count);
				if (k)
					check_encoding(&v, k);
			}
			break;
		case 2:
			shb_quic_ackrx_on_ack_sent(&a);
			FZ_CHECK(!shb_quic_ackrx_owed(&a));
			break;
		case 3:
			shb_quic_ackrx_trim(&a, pn);
			if (shb_quic_ackrx_view(&a, now, &v) == 0)
				FZ_CHECK(v.ranges[v.count - 1].lo > pn);
			break;
		}
		if (any)
			FZ_CHECK(shb_quic_ackrx_largest(&a) == largest);
	}
}

/* ---- sending ------------------------------------------------------------- */

#define MAX_SENT 2048

struct sender {
	struct shb_quic_recovery r;
	uint64_t sent; /* packet numbers 0..sent-1 went out */
	uint8_t seen[MAX_SENT]; /* acked or lost already */
	uint64_t acked;
	int inited;
};

static void on_acked(void *ctx, enum shb_quic_pns space,
		     const struct shb_quic_sent *pkt,
		     const struct shb_quic_frame_ref *refs)
{
	struct sender *s = ctx;

	FZ_CHECK(pkt->pn < s->sent && pkt->pn < MAX_SENT);
	FZ_CHECK(!s->seen[pkt->pn]);
	FZ_CHECK(pkt->tag == pkt->pn);
	s->seen[pkt->pn] = 1;
	s->acked++;
}

static void on_lost(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *pkt,
		    const struct shb_quic_frame_ref *refs)
{
	struct sender *s = ctx;

	FZ_CHECK(pkt->pn < s->sent && pkt->pn < MAX_SENT);
	FZ_CHECK(!s->seen[pkt->pn]);
	FZ_CHECK(pkt->tag == pkt->pn);
	s->seen[pkt->pn] = 2;
}

static int ack_next(void *it, struct shb_quic_ack_range *out)
{
	return shb_quic_ack_iter_next(it, out);
}

static struct sender snd;

static void send_side(unsigned mode, unsigned count, struct fz f)
{
	static const uint32_t ptypes[] = {SHB_QUIC_PT_INITIAL,
					  SHB_QUIC_PT_HANDSHAKE,
					  SHB_QUIC_PT_1RTT};
	enum shb_quic_pns space = (enum shb_quic_pns)((mode & 3) % 3);
	struct shb_quic_recovery_cbs cbs = {on_acked, on_lost, &snd};
	struct shb_quic_timeout to;
	uint64_t now = 1000000000;
	size_t off = 0;

	/* the rings are allocated once; reset() is a new connection */
	if (!snd.inited) {
		FZ_CHECK(shb_quic_recovery_init(&snd.r, NULL, &cbs) ==
			 SHB_QUIC_RECOVERY_OK);
		snd.inited = 1;
	}
	shb_quic_recovery_reset(&snd.r);
	snd.sent = 0;
	snd.acked = 0;
	memset(snd.seen, 0, sizeof(snd.seen));
	if (space != SHB_QUIC_PNS_INITIAL)
		shb_quic_recovery_handshake_keys(&snd.r);
	if (mode & 4)
		shb_quic_recovery_handshake_confirmed(&snd.r, now);
	for (unsigned i = 0; i < count; i++) {
		struct shb_quic_sent_desc d = {
			.tag = snd.sent,
			.ack_largest = SHB_QUIC_PN_NONE,
			.size = 1200,
			.ack_eliciting = i % 5 != 4,
		};
		struct shb_quic_frame_ref ref = {.id = i, .len = 100};
		uint32_t max_refs = 0;
		int v = shb_quic_recovery_can_send(&snd.r, space, d.size,
						   &max_refs);
		int rc;

		if (d.ack_eliciting && v != SHB_QUIC_SEND_OK &&
		    v != SHB_QUIC_SEND_PROBE)
			break;
		FZ_CHECK(shb_quic_recovery_next_pn(&snd.r, space) == snd.sent);
		rc = shb_quic_recovery_on_sent(&snd.r, space, &d, &ref,
					       max_refs ? 1 : 0, now);
		FZ_CHECK(rc == SHB_QUIC_RECOVERY_OK ||
			 rc == SHB_QUIC_RECOVERY_NOT_RECORDED);
		snd.sent++;
		now += 100000;
	}
	/* The peer's frames, each after a millisecond; ACKs to recovery. */
	while (off < f.n) {
		struct shb_quic_frame fr;
		int rc = shb_quic_frame_decode(f.p + off, f.n - off,
					       ptypes[space], &fr);

		if (rc != SHB_QUIC_OK)
			break;
		off += fr.wire_len;
		now += 1000000;
		if (shb_quic_recovery_deadline(&snd.r) <= now)
			shb_quic_recovery_on_timeout(&snd.r, now, &to);
		if (fr.type != SHB_QUIC_FT_ACK && fr.type != SHB_QUIC_FT_ACK_ECN)
			continue;
		{
			struct shb_quic_ack_iter it;
			uint64_t before = snd.acked;

			shb_quic_ack_iter_init(&it, &fr.u.ack);
			rc = shb_quic_recovery_on_ack_iter(
				&snd.r, space, ack_next, &it,
				shb_quic_ack_delay_ns(fr.u.ack.delay, 3), now);
			FZ_CHECK(rc >= 0 || rc == SHB_QUIC_RECOVERY_E_PROTOCOL ||
				 rc == SHB_QUIC_RECOVERY_E_FRAME);
			if (rc >= 0)
				FZ_CHECK(snd.acked - before == (uint64_t)rc);
			if (rc == SHB_QUIC_RECOVERY_E_PROTOCOL)
				FZ_CHECK(snd.acked == before);
			if (rc < 0)
				break; /* the connection closes */
		}
	}
	FZ_CHECK(shb_quic_recovery_stats(&snd.r)->packets_acked == snd.acked);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	unsigned mode = fz_u8(&f), count = fz_u8(&f);
	struct fz rx;
	size_t n;

	rx.p = fz_take(&f, fz_u8(&f) * 3u, &n);
	rx.n = n;
	receive_side(rx);
	send_side(mode, count, f);
	return 0;
}
