/* Scripted driver for the recovery tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery_tests.h"

static void record(void *ctx, int kind, enum shb_quic_pns space,
		   const struct shb_quic_sent *p,
		   const struct shb_quic_frame_ref *refs)
{
	struct rh *h = ctx;

	if (h->nev == RH_MAX_EVENTS)
		abort();
	struct rh_event *e = &h->ev[h->nev++];

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->space = space;
	e->pn = p->pn;
	e->tag = p->tag;
	e->time_sent = p->time_sent;
	e->size = p->size;
	e->nrefs = p->nrefs;
	if (p->nrefs > 0)
		e->ref0 = refs[0];
}

static void on_acked(void *ctx, enum shb_quic_pns space,
		     const struct shb_quic_sent *p,
		     const struct shb_quic_frame_ref *refs)
{
	record(ctx, RH_ACKED, space, p, refs);
}

static void on_lost(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *p,
		    const struct shb_quic_frame_ref *refs)
{
	record(ctx, RH_LOST, space, p, refs);
}

void rh_init(struct rh *h, const struct shb_quic_recovery_config *cfg)
{
	struct shb_quic_recovery_cbs cbs = {on_acked, on_lost, h};

	h->nev = 0;
	if (shb_quic_recovery_init(&h->r, cfg, &cbs) != SHB_QUIC_RECOVERY_OK) {
		fprintf(stderr, "recovery init failed\n");
		abort();
	}
}

void rh_free(struct rh *h)
{
	shb_quic_recovery_free(&h->r);
}

uint64_t rh_send(struct rh *h, enum shb_quic_pns sp, uint32_t size,
		 int eliciting, uint64_t now, int *rc)
{
	uint64_t pn = shb_quic_recovery_next_pn(&h->r, sp);
	struct shb_quic_sent_desc d = {
		.tag = pn,
		.ack_largest = SHB_QUIC_PN_NONE,
		.size = size,
		.ack_eliciting = (uint8_t)(eliciting != 0),
	};
	struct shb_quic_frame_ref ref = {
		.id = pn, .offset = pn * 100, .len = size, .kind = 7};
	int r = shb_quic_recovery_on_sent(&h->r, sp, &d, &ref,
					  eliciting ? 1 : 0, now);

	if (rc)
		*rc = r;
	return pn;
}

int rh_ack(struct rh *h, enum shb_quic_pns sp, uint64_t lo, uint64_t hi,
	   uint64_t delay, uint64_t now)
{
	struct shb_quic_ack_range rg = {lo, hi};

	return shb_quic_recovery_on_ack(&h->r, sp, &rg, 1, delay, now);
}

uint32_t rh_count(const struct rh *h, int kind)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < h->nev; i++)
		if (kind == 0 || h->ev[i].kind == kind)
			n++;
	return n;
}

int rh_has(const struct rh *h, int kind, int sp, uint64_t pn)
{
	for (uint32_t i = 0; i < h->nev; i++)
		if (h->ev[i].kind == kind && h->ev[i].space == sp &&
		    h->ev[i].pn == pn)
			return 1;
	return 0;
}

void rh_clear_events(struct rh *h)
{
	h->nev = 0;
}

uint64_t rh_rand(uint64_t *s)
{
	/* xorshift64*: fixed seeds make every run identical. */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(2685821657736338717);
}
