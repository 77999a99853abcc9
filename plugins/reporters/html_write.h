/* Writing HTML for the html reporter: every string from the run (URL,
 * labels, error samples, plugin paths) goes through html_esc; numbers are
 * printed without the C locale. [main], like every reporter call. */
#ifndef SHB_HTML_WRITE_H
#define SHB_HTML_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "report_common.h"

/* A string from the run, safe as HTML text and as a quoted attribute
 * value: the five markup characters as references, control characters
 * and invalid UTF-8 as U+FFFD. NULL writes nothing. */
void html_esc(struct shb_rpt_out *o, const char *s);
/* v in decimal. Returns buf. */
char *html_u64s(char *buf, size_t len, uint64_t v);
/* Seconds with three decimals, rounded half up from ns. Returns buf. */
char *html_secs(char *buf, size_t len, uint64_t ns);
/* v with one decimal. Returns buf. */
char *html_one_decimal(char *buf, size_t len, double v);
/* <tr><th>name</th><td>value</td></tr>, the value escaped. */
void html_fact(struct shb_rpt_out *o, const char *name, const char *value);
/* A row of cells, the first a header: cells[0..n), all escaped. */
void html_row(struct shb_rpt_out *o, const char *const *cells, size_t n);
/* A row of header cells, the reporter's own constants, not escaped. */
void html_head_row(struct shb_rpt_out *o, const char *const *cells, size_t n);
/* Percentile i of l in ms, or "-" when l counted nothing. */
void html_latency_cells(const struct shb_rpt_latency *l, size_t i,
			char *buf, size_t len);
/* The largest of v[0..n), or 0. */
double html_max_of(const double *v, size_t n);

#endif
