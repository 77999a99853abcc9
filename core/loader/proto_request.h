/* What a protocol's requests are made of (ABI 1.4, shb_proto_desc's
 * request_model and outcome_spaces), settled against the command line
 * once the protocol is picked and before its module is created: a
 * protocol of request model NONE builds its requests from its own
 * --proto-opt options, so every HTTP request option is refused with one
 * line naming it and the protocol (exit 2, before any traffic); and
 * --success's outcome names are resolved against its outcome spaces.
 * [main]. */
#ifndef SHB_CORE_PROTO_REQUEST_H
#define SHB_CORE_PROTO_REQUEST_H

#include <stddef.h>

#include <shb/proto.h>

#include "cli/config.h"

/* The descriptor's request model (SHB_REQMODEL_HTTP when it predates
 * 1.4) and its outcome spaces (NULL when none), *count set. */
uint32_t shb_proto_request_model(const struct shb_proto_desc *d);
const struct shb_outcome_space *
shb_proto_outcome_spaces(const struct shb_proto_desc *d, size_t *count);

/* What a run's protocol decides of its requests (a plan run's). */
struct shb_proto_request {
	uint32_t request_model; /* enum shb_request_model */
	/* The descriptor's outcome names (static, the plugin's, valid while
	 * it is loaded); NULL and 0 for none. */
	const struct shb_outcome_space *outcome_spaces;
	size_t outcome_space_count;
	/* cfg's --success with its outcome names resolved for d */
	struct shb_success success;
	/* The descriptor's metrics (static, the plugin's, checked by the
	 * loader); NULL and 0 for none. */
	const struct shb_metric_def *metrics;
	size_t metric_count;
};

/* The method requests are sent with: "" for request model NONE (it
 * takes no HTTP request), else cfg->method. */
static inline const char *shb_run_method(const struct shb_proto_request *r,
					 const struct shb_config *cfg)
{
	return r->request_model == SHB_REQMODEL_NONE ? "" : cfg->method;
}

/* Fills *out for protocol d running `url` (a target of cfg): refuses the
 * HTTP request options of cfg for a NONE protocol and resolves
 * --success's names, and the --slo gates on protocol metrics against d's
 * metrics. 0, or -1 with one line in err. */
int shb_proto_request_settle(const struct shb_config *cfg,
			     const struct shb_url *url,
			     const struct shb_proto_desc *d,
			     struct shb_proto_request *out, char *err,
			     size_t errlen);

#endif
