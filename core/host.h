/* The core's implementation of struct shb_host. */
#ifndef SHB_CORE_HOST_H
#define SHB_CORE_HOST_H

#include <shb/host.h>

/* Reads SHB_DEBUG once (0 quiet, 1 debug, 2 trace) and returns the table. */
const struct shb_host *shb_core_host(void);
int shb_debug_level(void);

#endif
