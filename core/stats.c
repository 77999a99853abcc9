#include "stats.h"

#include <stdio.h>
#include <string.h>

int shb_stats_init(struct shb_stats *s)
{
	memset(s, 0, sizeof(*s));
	return shb_histo_init(&s->latency, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS);
}

void shb_stats_destroy(struct shb_stats *s)
{
	shb_histo_destroy(&s->latency);
}

void shb_stats_reset(struct shb_stats *s)
{
	struct shb_histo h = s->latency;
	memset(s, 0, sizeof(*s));
	shb_histo_reset(&h);
	s->latency = h;
}

void shb_stats_error(struct shb_stats *s, unsigned kind, const char *msg)
{
	if (kind >= SHB_ERRK_COUNT)
		kind = SHB_ERRK_PROTOCOL;
	s->errors++;
	s->err_kind[kind]++;
	if (!s->err_sample[kind][0] && msg && msg[0])
		snprintf(s->err_sample[kind], SHB_SAMPLE_LEN, "%s", msg);
}

void shb_stats_merge(struct shb_stats *dst, const struct shb_stats *src)
{
	dst->ok += src->ok;
	dst->errors += src->errors;
	dst->retried += src->retried;
	for (unsigned k = 0; k < SHB_ERRK_COUNT; k++) {
		dst->err_kind[k] += src->err_kind[k];
		if (!dst->err_sample[k][0] && src->err_sample[k][0])
			memcpy(dst->err_sample[k], src->err_sample[k], SHB_SAMPLE_LEN);
	}
	for (unsigned i = 0; i < SHB_STATUS_SLOTS; i++)
		dst->status[i] += src->status[i];
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_recv += src->bytes_recv;
	dst->conns_opened += src->conns_opened;
	shb_histo_merge(&dst->latency, &src->latency);
}
