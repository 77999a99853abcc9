#include "results/interval.h"

#include <sched.h>
#include <string.h>

int shb_ival_init(struct shb_ival *iv)
{
	memset(iv, 0, sizeof(*iv));
	if (shb_stats_init(&iv->slot[0]) < 0)
		return -1;
	if (shb_stats_init(&iv->slot[1]) < 0) {
		shb_stats_destroy(&iv->slot[0]);
		return -1;
	}
	return 0;
}

int shb_ival_metrics(struct shb_ival *iv, const struct shb_metric_def *defs,
		     uint32_t n)
{
	if (shb_metrics_init(&iv->slot[0].metrics, defs, n) < 0)
		return -1;
	return shb_metrics_init(&iv->slot[1].metrics, defs, n);
}

void shb_ival_destroy(struct shb_ival *iv)
{
	shb_stats_destroy(&iv->slot[0]);
	shb_stats_destroy(&iv->slot[1]);
}

/* seq becomes odd before cur is read, both sequentially consistent: either
 * this read sees the main thread's flip, or the main thread's read of seq
 * sees this section open and waits for it. */
void shb_ival_enter(struct shb_ival *iv)
{
	if (iv->w)
		return;
	atomic_fetch_add_explicit(&iv->seq, 1, memory_order_seq_cst);
	unsigned i = atomic_load_explicit(&iv->cur, memory_order_seq_cst);
	iv->w = &iv->slot[i & 1];
}

static void fold(uint64_t *dst, uint64_t *last, uint64_t now)
{
	*dst += now - *last;
	*last = now;
}

void shb_ival_leave(struct shb_ival *iv, const struct shb_stats *t)
{
	struct shb_stats *d = iv->w, *l = &iv->last;
	if (!d)
		return;
	fold(&d->ok, &l->ok, t->ok);
	fold(&d->errors, &l->errors, t->errors);
	fold(&d->retried, &l->retried, t->retried);
	fold(&d->error_replies, &l->error_replies, t->error_replies);
	fold(&d->conns_opened, &l->conns_opened, t->conns_opened);
	fold(&d->bytes_sent, &l->bytes_sent, t->bytes_sent);
	fold(&d->bytes_recv, &l->bytes_recv, t->bytes_recv);
	fold(&d->rx_header_bytes, &l->rx_header_bytes, t->rx_header_bytes);
	fold(&d->rx_body_bytes, &l->rx_body_bytes, t->rx_body_bytes);
	for (unsigned k = 0; k < SHB_ERRK_EX_COUNT; k++)
		fold(&d->err_kind[k], &l->err_kind[k], t->err_kind[k]);
	for (uint32_t i = 0; i < t->metrics.n; i++)
		fold(&d->metrics.count[i], &l->metrics.count[i], t->metrics.count[i]);
	iv->w = NULL;
	/* Publishes the slot's writes to the main thread's acquire of seq. */
	atomic_fetch_add_explicit(&iv->seq, 1, memory_order_release);
}

void shb_ival_rebase(struct shb_ival *iv, const struct shb_stats *t)
{
	struct shb_stats *l = &iv->last;
	l->ok = t->ok;
	l->errors = t->errors;
	l->retried = t->retried;
	l->conns_opened = t->conns_opened;
	l->bytes_sent = t->bytes_sent;
	l->bytes_recv = t->bytes_recv;
	l->rx_header_bytes = t->rx_header_bytes;
	l->rx_body_bytes = t->rx_body_bytes;
	memcpy(l->err_kind, t->err_kind, sizeof(l->err_kind));
	memcpy(l->metrics.count, t->metrics.count, sizeof(l->metrics.count));
}

void shb_ival_collect(struct shb_ival *iv, struct shb_stats *into)
{
	unsigned old = atomic_load_explicit(&iv->cur, memory_order_relaxed) & 1;
	atomic_store_explicit(&iv->cur, old ^ 1, memory_order_seq_cst);
	unsigned g = atomic_load_explicit(&iv->seq, memory_order_seq_cst);
	/* Inside a section that may have read the old slot: wait for its
	 * end, a single pass of the worker's loop. */
	while ((g & 1) && atomic_load_explicit(&iv->seq, memory_order_acquire) == g)
		sched_yield();
	struct shb_stats *s = &iv->slot[old];
	shb_stats_merge(into, s);
	shb_stats_reset(s);
}
