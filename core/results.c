#include "results.h"

#include <string.h>

void shb_results_build(struct shb_results_buf *b, const struct shb_stats *s,
		       const struct shb_run_info *info, uint64_t elapsed_ns,
		       int interrupted)
{
	struct shb_results *r = &b->r;
	memset(r, 0, sizeof(*r));
	r->struct_size = sizeof(*r);
	r->kind = SHB_RESULTS_TOTAL;
	r->interrupted = interrupted ? 1 : 0;
	r->run = info;
	r->elapsed_ns = elapsed_ns;
	r->requests_ok = s->ok;
	r->requests_errors = s->errors;
	r->requests_total = s->ok + s->errors;
	r->requests_retried = s->retried;
	r->bytes_sent = s->bytes_sent;
	r->bytes_received = s->bytes_recv;
	r->connections_opened = s->conns_opened;
	size_t n = 0;
	for (uint32_t code = 0; code < SHB_STATUS_SLOTS; code++) {
		if (!s->status[code])
			continue;
		b->statuses[n].code = code;
		b->statuses[n].reserved0 = 0;
		b->statuses[n].count = s->status[code];
		n++;
	}
	r->statuses = b->statuses;
	r->status_count = n;
	n = 0;
	for (uint32_t k = 0; k < SHB_ERRK_COUNT; k++) {
		if (!s->err_kind[k])
			continue;
		b->errors[n].kind = k;
		b->errors[n].reserved0 = 0;
		b->errors[n].count = s->err_kind[k];
		b->errors[n].sample = s->err_sample[k][0] ? s->err_sample[k] : NULL;
		n++;
	}
	r->errors = b->errors;
	r->error_count = n;
	r->latency = shb_histo_abi(&s->latency);
}
