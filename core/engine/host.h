/* The core's implementation of struct shb_host. */
#ifndef SHB_CORE_HOST_H
#define SHB_CORE_HOST_H

#include <shb/host.h>

/* [main] Reads SHB_DEBUG once (0 quiet, 1 debug, 2 trace) and returns the
 * table. The calling thread becomes the main thread of get_extension. */
const struct shb_host *shb_core_host(void);

/* [main] Where host->get_extension sends ids the core does not answer
 * itself (the loader: shb_loader_extension), or NULL for nowhere. Those
 * calls are answered on the main thread only: from any other thread
 * (a worker) get_extension answers the core's own ids and returns NULL
 * for the rest, since answering may load and init plugins. */
void shb_host_set_extensions(const void *(*fn)(void *ctx, const char *id),
			     void *ctx);
int shb_debug_level(void);

/* Core extension "shb.ext.run/1" (host->get_extension): facts about the run
 * that ABI 1.1's struct shb_run_info does not carry, read by reporters in
 * end(). Layout fixed: members are only appended, struct_size tells. */
#define SHB_EXT_RUN_ID "shb.ext.run/1"
struct shb_ext_run {
	uint32_t struct_size;
	uint32_t reserved0;
	uint64_t warmup_ns;       /* --warmup, 0 without */
	uint64_t warmup_requests; /* requests that ended during it, not counted */
};
/* Filled by main before the reporters' end(). */
extern struct shb_ext_run shb_ext_run_info;

#endif
