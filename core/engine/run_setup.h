/* [main] A run's set-up before its workers start, from its plan: the
 * addresses (after a proxy or a Unix socket, --connect-to, --resolve, -4
 * and -6), the TLS options, the protocol module and its prepared request,
 * the templates, the core's TLS and a mixed run's origins. */
#ifndef SHB_CORE_RUN_SETUP_H
#define SHB_CORE_RUN_SETUP_H

#include <stddef.h>

#include "engine/run.h"
#include "plan/plan.h"

/* Sets up *run for run k of the plan. 0, or -1 with one line in err (bad
 * input: exit 2); shb_run_release either way. */
int shb_run_setup(struct shb_run *run, const struct shb_plan *plan, size_t k,
		  const struct shb_host *host, struct shb_loader *loader,
		  char *err, size_t errlen);
void shb_run_release(struct shb_run *run);

/* --dry-run: what shb_run_setup checks of run k without the network or
 * the script (neither resolved nor run): TLS options, the protocol's
 * module and prepared request (made and released again), templates.
 * 0, or -1 with the line shb_run_setup would give (bad input: exit 2). */
int shb_run_check(const struct shb_plan *plan, size_t k,
		  const struct shb_host *host, struct shb_loader *loader,
		  char *err, size_t errlen);

/* The run's addresses into run->addrs (run->cfg, ->url and ->proto set):
 * a comparison checks every target's before any traffic. 0, or -1 with
 * one line in err. */
int shb_run_resolve(struct shb_run *run, char *err, size_t errlen);

/* --cert/--key, --tls-version and --ciphers, checked before any traffic
 * whichever runs the TLS (the core, or a QUIC module) for a run of url
 * with protocol desc: *prio receives the priority string (malloc'd), or
 * NULL for the default. 0, or -1 with one line in err. */
int shb_run_tls_options(const struct shb_config *cfg, const struct shb_url *url,
			const struct shb_proto_desc *desc, char **prio,
			char *err, size_t errlen);

#endif
