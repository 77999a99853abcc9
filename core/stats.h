/* Per-worker counters and the latency histogram; merged once at the end.
 * Workers write only their own stats; the main thread reads the published
 * `live_*` counters (relaxed atomics) for the progress line. */
#ifndef SHB_CORE_STATS_H
#define SHB_CORE_STATS_H

#include <stdint.h>
#include <shb/results.h>
#include "hist.h"

#define SHB_STATUS_SLOTS 1000 /* every 3-digit code, e.g. a CDN's 999 */
#define SHB_SAMPLE_LEN 160
/* Latencies above an hour are clamped; 3 significant digits. */
#define SHB_HIST_HIGHEST 3600000000000ull
#define SHB_HIST_SIGFIGS 3

struct shb_stats {
	uint64_t ok;
	uint64_t errors;
	uint64_t retried;
	uint64_t err_kind[SHB_ERRK_COUNT];
	char err_sample[SHB_ERRK_COUNT][SHB_SAMPLE_LEN];
	uint64_t status[SHB_STATUS_SLOTS];
	uint64_t bytes_sent;
	uint64_t bytes_recv;
	uint64_t conns_opened;
	struct shb_histo latency;
};

int shb_stats_init(struct shb_stats *s);
void shb_stats_destroy(struct shb_stats *s);
void shb_stats_error(struct shb_stats *s, unsigned kind, const char *msg);
static inline void shb_stats_ok(struct shb_stats *s, uint32_t status,
				uint64_t latency_ns)
{
	s->ok++;
	if (status < SHB_STATUS_SLOTS)
		s->status[status]++;
	shb_histo_record(&s->latency, latency_ns);
}
/* Back to nothing recorded (the end of --warmup). */
void shb_stats_reset(struct shb_stats *s);
/* dst += src (samples: the first one seen wins). */
void shb_stats_merge(struct shb_stats *dst, const struct shb_stats *src);

#endif
