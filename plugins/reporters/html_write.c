/* Writing HTML for the html reporter: escaping strings from the run, and
 * the cells and rows its tables are made of. */
#include "html_write.h"

#include <stdio.h>

/* Length of the valid UTF-8 sequence at p (1..4), 0 if invalid: no
 * overlong forms, surrogates or code points past U+10FFFF. */
static int utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	int n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* A string from the run, safe as HTML text and as a quoted attribute
 * value: the five markup characters as references, control characters
 * and invalid UTF-8 as U+FFFD. NULL writes nothing. */
void html_esc(struct shb_rpt_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		const char *rep = NULL;
		int n = 1;
		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if (*p >= 0x80 && (n = utf8_len(p)) == 0)
				rep = "&#xFFFD;";
			else if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
				rep = "&#xFFFD;";
		}
		if (rep) {
			shb_rpt_puts(o, rep);
			n = 1;
		} else {
			shb_rpt_write(o, p, (size_t)n);
		}
		p += n;
	}
}

char *html_u64s(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* Seconds with three decimals, rounded half up from ns. */
char *html_secs(char *buf, size_t len, uint64_t ns)
{
	uint64_t ms = ns / 1000000 + (ns % 1000000 >= 500000);
	return shb_rpt_fixed(buf, len, ms, 3);
}

char *html_one_decimal(char *buf, size_t len, double v)
{
	return shb_rpt_fixed(buf, len, shb_rpt_scale(v, 1), 1);
}

/* <tr><th>name</th><td>value</td></tr>, the value escaped. */
void html_fact(struct shb_rpt_out *o, const char *name, const char *value)
{
	shb_rpt_printf(o, "<tr><th>%s</th><td>", name);
	html_esc(o, value);
	shb_rpt_puts(o, "</td></tr>\n");
}

/* A row of cells, the first a header: cells[0..n), all escaped. */
void html_row(struct shb_rpt_out *o, const char *const *cells, size_t n)
{
	shb_rpt_puts(o, "<tr>");
	for (size_t i = 0; i < n; i++) {
		shb_rpt_puts(o, i ? "<td>" : "<th>");
		html_esc(o, cells[i]);
		shb_rpt_puts(o, i ? "</td>" : "</th>");
	}
	shb_rpt_puts(o, "</tr>\n");
}

void html_head_row(struct shb_rpt_out *o, const char *const *cells, size_t n)
{
	shb_rpt_puts(o, "<tr>");
	for (size_t i = 0; i < n; i++)
		shb_rpt_printf(o, "<th>%s</th>", cells[i]);
	shb_rpt_puts(o, "</tr>\n");
}

void html_latency_cells(const struct shb_rpt_latency *l, size_t i,
			char *buf, size_t len)
{
	if (l->count)
		shb_rpt_ms(buf, len, l->pct[i]);
	else
		snprintf(buf, len, "-");
}

double html_max_of(const double *v, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}
