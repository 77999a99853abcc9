/* A run's URL and protocol (plan_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/compare.h"
#include "loader/proto_pick.h"
#include "plan/plan_int.h"

/* -p and TLS against what the protocol can do. */
static int check_proto(const struct shb_config *cfg, const struct shb_url *url,
		       const struct shb_proto_desc *d, char *err, size_t errlen)
{
	if (cfg->parallel > 1 && !(d->flags & SHB_PROTO_MULTIPLEXED)) {
		snprintf(err, errlen, "-p %u: protocol %s sends one request at a time "
			 "per connection (h1, h2 and h3 take -p)",
			 cfg->parallel, d->name);
		return -1;
	}
	/* Datagram protocols (QUIC) run their own TLS. */
	if (url->tls && d->transport == SHB_TRANSPORT_STREAM &&
	    !(d->flags & SHB_PROTO_CORE_TLS)) {
		snprintf(err, errlen, "protocol %s cannot run over TLS here", d->name);
		return -1;
	}
	return 0;
}

int shb_plan_run_pick(struct shb_plan_run *r, const struct shb_config *cfg,
		      struct shb_loader *l, size_t k, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (shb_compare_select(cfg, k, &r->url_text, &r->url, err, errlen) < 0 ||
	    shb_proto_pick(l, cfg, &r->url, r->url_text, &r->proto, err,
			   errlen) < 0 ||
	    check_proto(cfg, &r->url, r->proto.desc, err, errlen) < 0 ||
	    shb_proto_request_settle(cfg, &r->url, r->proto.desc, &r->req, err,
				     errlen) < 0)
		return -1;
	/* A mixed run's labels are its targets' (shb_mix_run_info). */
	r->label = cfg->mix ? NULL : cfg->targets[k].label;
	r->streams = (r->proto.desc->flags & SHB_PROTO_MULTIPLEXED) &&
		     cfg->parallel ? cfg->parallel : 1;
	return 0;
}

void shb_plan_run_free(struct shb_plan_run *r)
{
	free(r->url_text);
	shb_url_free(&r->url);
	memset(r, 0, sizeof(*r));
}
