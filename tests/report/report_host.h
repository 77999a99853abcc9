/* What the reporter tests that load the reporters with the core's loader
 * share: the host table a reporter gets there (the core's histogram
 * accessors, nothing else), output captured in memory, and the loader
 * pointed at SHB_REPORT_PLUGIN_DIR (set by meson: the build directory of
 * plugins/reporters). */
#ifndef SHB_TEST_REPORT_HOST_H
#define SHB_TEST_REPORT_HOST_H

#include <stddef.h>
#include <shb/shb.h>

#include "loader/loader.h"

extern const struct shb_host rep_host;

/* A reporter's output so far, NUL-terminated; data is malloc'd, the test
 * frees it. */
struct membuf {
	char *data;
	size_t len;
};

/* The shb_ostream write of a struct membuf context. */
shb_ssize membuf_write(void *ctx, const void *buf, size_t len);

/* l over SHB_REPORT_PLUGIN_DIR with rep_host: 0, or -1 when it is not
 * set. */
int rep_loader_init(struct shb_loader *l);

#endif
