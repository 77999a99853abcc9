/* A histogram that keeps every value (hist.h): exact answers for tests. */
#include <math.h>
#include <stdlib.h>

#include <shb/kit/hist.h>

#include "kit_int.h"

void shb_kit_hist_init(struct shb_kit_hist *h)
{
	h->values = NULL;
	h->count = 0;
	h->cap = 0;
	h->sorted = 1;
}

int shb_kit_hist_add(struct shb_kit_hist *h, uint64_t value, uint64_t count)
{
	if (count > SIZE_MAX - h->count ||
	    shb_kit_grow(&h->values, &h->cap, h->count + count,
			 sizeof *h->values))
		return -1;
	for (uint64_t i = 0; i < count; i++)
		h->values[h->count++] = value;
	h->sorted = 0;
	return 0;
}

void shb_kit_hist_fini(struct shb_kit_hist *h)
{
	free(h->values);
	shb_kit_hist_init(h);
}

const struct shb_hist *shb_kit_hist_handle(const struct shb_kit_hist *h)
{
	return (const struct shb_hist *)h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ops take a const histogram; sorting in place does not change what
 * it holds, only its order. */
static struct shb_kit_hist *kh_of(const struct shb_hist *hh)
{
	struct shb_kit_hist *h = (struct shb_kit_hist *)hh;

	if (!h->sorted) {
		qsort(h->values, h->count, sizeof *h->values, cmp_u64);
		h->sorted = 1;
	}
	return h;
}

static uint64_t op_count(const struct shb_hist *hh)
{
	return kh_of(hh)->count;
}

static uint64_t op_min(const struct shb_hist *hh)
{
	struct shb_kit_hist *h = kh_of(hh);

	return h->count ? h->values[0] : 0;
}

static uint64_t op_max(const struct shb_hist *hh)
{
	struct shb_kit_hist *h = kh_of(hh);

	return h->count ? h->values[h->count - 1] : 0;
}

static double mean_of(const struct shb_kit_hist *h)
{
	double sum = 0;

	for (size_t i = 0; i < h->count; i++)
		sum += (double)h->values[i];
	return h->count ? sum / (double)h->count : 0;
}

static uint64_t op_mean(const struct shb_hist *hh)
{
	return (uint64_t)llround(mean_of(kh_of(hh)));
}

static uint64_t op_stddev(const struct shb_hist *hh)
{
	struct shb_kit_hist *h = kh_of(hh);
	double m = mean_of(h), var = 0;

	if (!h->count)
		return 0;
	for (size_t i = 0; i < h->count; i++)
		var += ((double)h->values[i] - m) * ((double)h->values[i] - m);
	return (uint64_t)llround(sqrt(var / (double)h->count));
}

/* The smallest value v such that at least ppm/1e6 of the samples are <= v. */
static uint64_t op_value_at_ppm(const struct shb_hist *hh, uint32_t ppm)
{
	struct shb_kit_hist *h = kh_of(hh);
	uint64_t need;

	if (!h->count)
		return 0;
	if (ppm > 1000000)
		ppm = 1000000;
	need = ((uint64_t)h->count * ppm + 999999) / 1000000;
	if (need == 0)
		need = 1;
	return h->values[need - 1];
}

static int op_foreach(const struct shb_hist *hh, shb_hist_bucket_fn fn,
		      void *user)
{
	struct shb_kit_hist *h = kh_of(hh);
	size_t i = 0;

	while (i < h->count) {
		size_t j = i;
		int rc;

		while (j < h->count && h->values[j] == h->values[i])
			j++;
		rc = fn(user, h->values[i], h->values[i], j - i);
		if (rc)
			return rc;
		i = j;
	}
	return 0;
}

const struct shb_hist_ops shb_kit_hist_ops = {
	.struct_size = sizeof(struct shb_hist_ops),
	.count = op_count,
	.min = op_min,
	.max = op_max,
	.mean = op_mean,
	.stddev = op_stddev,
	.value_at_ppm = op_value_at_ppm,
	.foreach_bucket = op_foreach,
};
