/* The html reporter's tables, one function per <h3> part of a run's
 * section. [main], like every reporter call. */
#ifndef SHB_HTML_TABLES_H
#define SHB_HTML_TABLES_H

#include "report_common.h"

/* The run's label (ABI 1.3), or NULL. */
const char *html_run_label(const struct shb_run_info *run);
/* 1 when the run was open loop (-R or --stages). */
int html_open_loop(const struct shb_run_info *run);
/* The run's figures in large type above its tables: ok per second, p50,
 * p99, errors and duration (the target is the section's heading). */
void html_headline(struct shb_rpt_out *o, const struct shb_host *host,
		   unsigned idx, const struct shb_results *r);
void html_run_facts(struct shb_rpt_out *o, const struct shb_host *host,
		    const struct shb_run_info *run, const struct shb_results *r);
void html_totals(struct shb_rpt_out *o, const struct shb_host *host,
		 const struct shb_run_info *run, const struct shb_results *r);
void html_setup_section(struct shb_rpt_out *o, const struct shb_host *host,
			const struct shb_results *r);
void html_metrics_section(struct shb_rpt_out *o, const struct shb_host *host,
			  const struct shb_results *r);
void html_targets_section(struct shb_rpt_out *o, const struct shb_host *host,
			  const struct shb_run_info *run,
			  const struct shb_results *r);
void html_status_section(struct shb_rpt_out *o, const struct shb_run_info *run,
			 const struct shb_results *r);
void html_error_section(struct shb_rpt_out *o, const struct shb_results *r);

#endif
