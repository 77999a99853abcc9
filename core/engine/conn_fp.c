/* The connection fingerprints a run keeps (conn_fp.h). */
#include "engine/conn_fp.h"

#include <string.h>

#include <shb/results.h>

/* Printable ASCII, 1 to SHB_CONN_FP_MAX bytes: what a report can show on
 * one line and a JSON string carries without escapes beyond '"' and '\'. */
static size_t usable_len(const char *text)
{
	size_t n = 0;
	if (!text)
		return 0;
	for (; text[n]; n++)
		if (n == SHB_CONN_FP_MAX || text[n] < 0x20 || text[n] > 0x7e)
			return 0;
	return n;
}

void shb_conn_fp_keep(struct shb_conn_fps *f, uint32_t kind, const char *text)
{
	if (kind < 1 || kind > SHB_CONN_FP_KINDS)
		return;
	struct shb_conn_fp *fp = &f->fp[kind - 1];
	int empty = 0;
	if (atomic_load_explicit(&fp->state, memory_order_relaxed) != 0)
		return; /* the cheap no-op of every call after the first */
	size_t n = usable_len(text);
	if (n == 0 || !atomic_compare_exchange_strong(&fp->state, &empty, 1))
		return;
	memcpy(fp->text, text, n);
	fp->text[n] = '\0';
	atomic_store_explicit(&fp->state, 2, memory_order_release);
}

const char *shb_conn_fp_get(struct shb_conn_fps *f, uint32_t kind)
{
	if (kind < 1 || kind > SHB_CONN_FP_KINDS)
		return NULL;
	struct shb_conn_fp *fp = &f->fp[kind - 1];
	return atomic_load_explicit(&fp->state, memory_order_acquire) == 2 ?
	       fp->text : NULL;
}

void shb_conn_fp_results(struct shb_conn_fps *f, struct shb_results *r)
{
	r->h2_fingerprint = shb_conn_fp_get(f, SHB_FP_H2_AKAMAI);
	r->quic_tp_fingerprint = shb_conn_fp_get(f, SHB_FP_QUIC_TP);
	r->h3_settings_fingerprint = shb_conn_fp_get(f, SHB_FP_H3_SETTINGS);
}
