/* QPACK with a dynamic table on one HTTP/3 connection: blocked request
 * streams and our decoder stream's instructions (RFC 9204 Sections 2.1.2
 * and 4.4). See h3_conn.h. */
#include "h3_conn.h"

#include <stdlib.h>
#include <string.h>

#include "h3_defs.h"

_Static_assert(SHB_H3_BLOCKED_MAX == 262144, "hold names the cap");

int shb_h3_qpack_init(struct shb_h3_conn *c)
{
	uint32_t n = c->mod->conf.qpack_blocked_streams;

	shb_h3_peer_init_table(&c->peer, c->mod->conf.qpack_max_table_capacity);
	if (n == 0 || c->mod->conf.qpack_max_table_capacity == 0)
		return 0;
	c->blk = calloc(n, sizeof(*c->blk));
	if (!c->blk)
		return -1;
	c->nblk = n;
	for (uint32_t i = 0; i < n; i++)
		shb_buf_init(&c->blk[i].buf, 256, SHB_H3_BLOCKED_MAX);
	return 0;
}

void shb_h3_qpack_fini(struct shb_h3_conn *c)
{
	for (uint32_t i = 0; i < c->nblk; i++)
		shb_buf_free(&c->blk[i].buf);
	free(c->blk);
	c->blk = NULL;
	c->nblk = 0;
	shb_h3_peer_fini(&c->peer);
}

/* One instruction onto our decoder stream; 0, or -1 when it could not be
 * queued (counted: the encoder then learns it later, or never, which
 * costs compression, not correctness). */
static int send_insn(struct shb_h3_conn *c, const uint8_t *b, size_t n)
{
	if (n && c->ops->uni_send(c->q, c->qdec_id, b, n) == 0)
		return 0;
	c->qpack_unsent++;
	return -1;
}

void shb_h3_qpack_acks(struct shb_h3_conn *c, struct shb_h3_req *req)
{
	uint8_t b[SHB_QPACK_DECINSN_MAX];

	for (; req->resp.acks; req->resp.acks--) {
		size_t n = shb_qpack_section_ack(b, sizeof(b), req->id);

		if (send_insn(c, b, n) == 0)
			c->qpack_acks++;
		else
			return;
	}
	/* The encoder counts every insert up to the section's Required
	 * Insert Count as received (Section 4.4.1). */
	if (req->resp.ack_ric > c->qpack_krc)
		c->qpack_krc = req->resp.ack_ric;
}

void shb_h3_qpack_increment(struct shb_h3_conn *c)
{
	uint8_t b[SHB_QPACK_DECINSN_MAX];
	uint64_t inc = c->peer.table.inserted - c->qpack_krc;

	if (c->peer.table.inserted <= c->qpack_krc || c->ended)
		return;
	if (send_insn(c, b, shb_qpack_insert_count_inc(b, sizeof(b), inc)) == 0)
		c->qpack_krc = c->peer.table.inserted;
}

static struct shb_h3_blocked *find_blocked(struct shb_h3_conn *c,
					   uint64_t id)
{
	for (uint32_t i = 0; i < c->nblk; i++)
		if (c->blk[i].used && c->blk[i].id == id)
			return &c->blk[i];
	return NULL;
}

int shb_h3_qpack_hold(struct shb_h3_conn *c, struct shb_h3_req *req,
		      const uint8_t *data, size_t len, int fin)
{
	struct shb_h3_blocked *b = find_blocked(c, req->id);

	for (uint32_t i = 0; !b && i < c->nblk; i++)
		if (!c->blk[i].used) {
			b = &c->blk[i];
			b->used = 1;
			b->id = req->id;
			b->fin = 0;
			shb_buf_clear(&b->buf);
			c->qpack_blocked++;
		}
	if (!b) {
		shb_h3_conn_fail(c, SHB_QPACK_DECOMPRESSION_FAILED,
				 "stream %llu blocked on the dynamic table beyond "
				 "the %u blocked streams we announced",
				 (unsigned long long)req->id, c->nblk);
		return -1;
	}
	if (shb_buf_put(&b->buf, data, len) != SHB_BUF_OK) {
		shb_h3_conn_fail(c, SHB_H3_EXCESSIVE_LOAD,
				 "blocked stream %llu: more than 262144 octets "
				 "held while it waits for the dynamic table "
				 "(cap 262144)", (unsigned long long)req->id);
		return -1;
	}
	b->fin |= fin != 0;
	return 0;
}

int shb_h3_qpack_ready(struct shb_h3_conn *c, struct shb_buf *out, int *fin,
		       uint64_t *id)
{
	for (uint32_t i = 0; i < c->nblk; i++) {
		struct shb_h3_blocked *b = &c->blk[i];
		struct shb_h3_req *req;

		if (!b->used)
			continue;
		req = shb_h3_reqtab_find(&c->reqs, b->id);
		if (req && req->resp.qd.ric > c->peer.table.inserted)
			continue;
		/* Handed over whole: the slot may block again meanwhile. */
		*out = b->buf;
		*fin = b->fin;
		*id = b->id;
		b->used = 0;
		shb_buf_init(&b->buf, 256, SHB_H3_BLOCKED_MAX);
		if (req)
			return 1;
		shb_buf_free(out); /* its request is gone */
	}
	return 0;
}

void shb_h3_qpack_forget(struct shb_h3_conn *c, struct shb_h3_req *req)
{
	uint8_t b[SHB_QPACK_DECINSN_MAX];
	struct shb_h3_blocked *blk = find_blocked(c, req->id);

	if (blk) {
		blk->used = 0;
		shb_buf_clear(&blk->buf);
	}
	/* Section 4.4.2: the encoder may hold entries for sections on this
	 * stream we will never read. Only with a table: otherwise nothing
	 * can be outstanding. */
	if (c->peer.table.limit == 0 || req->resp.result == SHB_H3_RESP_DONE ||
	    c->ended || !c->hs_done)
		return;
	if (send_insn(c, b, shb_qpack_stream_cancel(b, sizeof(b), req->id)) == 0)
		c->qpack_cancels++;
}
