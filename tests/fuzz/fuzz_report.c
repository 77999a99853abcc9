/* shb merge's reading of JSON reports (core/results/merge.c, merge_parts.c), from
 * the bytes of the files to the merged results, the merged report's
 * additions (shards, start skew, intervals on the wall clock) and the text
 * lines. Input: up to four reports separated by NUL bytes, each the text
 * of one file, merged in order as r0.json, r1.json, ...
 *
 * Checked besides memory safety: a refusal has a one-line message naming
 * the file; every report accepted counts once; the merged histogram of
 * latencies holds exactly requests.ok's sum, and the results built from
 * it say the same; every merged interval's histogram decodes to its ok
 * count; the error replies (ABI 1.4) are as many as their histogram
 * holds, in the merge and in every merged interval; the protocol's
 * metrics (ABI 1.4) reach the results as merged, each histogram holding
 * its count; shb_merge_fini releases everything (LeakSanitizer). */
#include <string.h>

#include "fuzz_input.h"
#include "common/hdrv2.h"
#include "results/merge.h"

#define MAX_REPORTS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

/* The merged report's intervals: each histogram holds its ok count. */
static void check_intervals(const json_t *out)
{
	size_t k;
	const json_t *v;
	struct shb_hdr_counts c;
	char err[256];

	if (shb_hdr_counts_init(&c) < 0)
		abort();
	json_array_foreach(json_object_get(out, "intervals"), k, v) {
		const char *h = json_string_value(json_object_get(v, "latencyHistogram"));
		FZ_CHECK(json_integer_value(json_object_get(v, "index")) == (json_int_t)k);
		if (!h)
			continue;
		memset(c.counts, 0, SHB_HDR_COUNTS * sizeof(*c.counts));
		c.total = 0;
		c.max_index = -1;
		FZ_CHECK(shb_hdr_decode(h, &c, err, sizeof(err)) == 0);
		FZ_CHECK(c.total == (uint64_t)json_integer_value(json_object_get(v, "ok")));
	}
	json_array_foreach(json_object_get(out, "intervals"), k, v) {
		const char *h = json_string_value(json_object_get(v,
						  "latencyErrorReplyHistogram"));
		const json_t *a = json_object_get(v, "answered");
		memset(c.counts, 0, SHB_HDR_COUNTS * sizeof(*c.counts));
		c.total = 0;
		c.max_index = -1;
		FZ_CHECK(!h || shb_hdr_decode(h, &c, err, sizeof(err)) == 0);
		FZ_CHECK(!a || (json_int_t)c.total == json_integer_value(a) -
			 json_integer_value(json_object_get(v, "ok")));
	}
	shb_hdr_counts_free(&c);
}

static void check_merged(struct shb_merge *m, uint64_t ok)
{
	struct shb_results_buf rb;
	struct shb_run_info info;
	struct shb_target_info target;
	char err[SHB_MERGE_TEXT] = "";

	FZ_CHECK(m->stats.ok == ok && m->stats.latency.total == ok);
	FZ_CHECK(m->stats.latency_error_reply.total == m->stats.error_replies);
	shb_merge_results(m, &rb, &info, &target, NULL, 0);
	FZ_CHECK(rb.r.requests_ok == ok);
	FZ_CHECK(rb.r.metric_count == m->stats.metrics.n);
	for (size_t i = 0; i < rb.r.metric_count; i++) {
		const struct shb_metric_value *v = &rb.r.metrics[i];
		FZ_CHECK(v->kind >= SHB_METRIC_COUNTER && v->kind <= SHB_METRIC_VALUE);
		FZ_CHECK(!v->hist == (v->kind == SHB_METRIC_COUNTER));
		FZ_CHECK(!v->hist || shb_histo_count((const struct shb_histo *)
						    (const void *)v->hist) == v->count);
	}
	json_t *out = json_object();
	if (!out)
		abort();
	if (shb_merge_extend(m, out, err, sizeof(err)) == 0) {
		FZ_CHECK(json_array_size(json_object_get(out, "shards")) == m->files);
		check_intervals(out);
	} else {
		FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
	}
	json_decref(out);
	shb_merge_text(m, sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shb_merge m;
	char err[SHB_MERGE_TEXT], name[16];
	size_t at = 0, added = 0;
	uint64_t ok = 0;

	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	if (shb_merge_init(&m) < 0)
		abort();
	for (int i = 0; i < MAX_REPORTS && at < size; i++) {
		const uint8_t *p = data + at;
		const uint8_t *nul = memchr(p, '\0', size - at);
		size_t n = nul ? (size_t)(nul - p) : size - at;
		json_error_t je;

		at += n + 1;
		json_t *doc = json_loadb((const char *)p, n, 0, &je);
		if (!doc)
			continue;
		snprintf(name, sizeof(name), "r%d.json", i);
		err[0] = '\0';
		uint64_t before = m.stats.ok;
		if (shb_merge_add(&m, name, doc, err, sizeof(err)) == 0) {
			added++;
			ok += m.stats.ok - before;
			FZ_CHECK(m.files == added);
		} else {
			FZ_CHECK(strncmp(err, name, strlen(name)) == 0 &&
				 !strchr(err, '\n'));
			FZ_CHECK(m.files == added && m.stats.ok == before);
		}
		json_decref(doc);
	}
	if (added)
		check_merged(&m, ok);
	shb_merge_fini(&m);
	return 0;
}
