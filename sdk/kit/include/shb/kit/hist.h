/* shb plugin test kit: a simple histogram behind struct shb_hist_ops.
 *
 * The core's histograms are opaque to plugins; a reporter test needs one it
 * can fill. This one keeps every value (a test records a handful), so its
 * answers are exact: one bucket [v, v] per distinct value, percentiles by
 * the rule of hist.h. The fake host's `hist` member points at
 * shb_kit_hist_ops.
 *
 * Thread: the test thread ([main] for the reporter under test). */
#ifndef SHB_KIT_HIST_H
#define SHB_KIT_HIST_H

#include <shb/hist.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_kit_hist {
	uint64_t *values; /* kit-owned, sorted on demand */
	size_t count;
	size_t cap;
	int sorted;
};

/* The accessors the fake host hands reporters. */
extern const struct shb_hist_ops shb_kit_hist_ops;

void shb_kit_hist_init(struct shb_kit_hist *h);
/* Records `count` samples of `value`. 0, or -1 when out of memory. */
int shb_kit_hist_add(struct shb_kit_hist *h, uint64_t value, uint64_t count);
void shb_kit_hist_fini(struct shb_kit_hist *h);

/* The handle to put in struct shb_results (valid while `h` lives). */
const struct shb_hist *shb_kit_hist_handle(const struct shb_kit_hist *h);

#ifdef __cplusplus
}
#endif
#endif
