/* The prom reporter's options (prom_opts.h). */
#include "prom_opts.h"

#include <stdio.h>
#include <string.h>

#include "common/quote.h"

int shb_prom_duration(const char *s, size_t n, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	size_t i = 0, digits = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && whole < 1000000; i++, digits++)
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			if (scale < 1000000000) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				scale *= 10;
			}
	uint64_t unit = 1000000000; /* seconds without a suffix */
	if (n - i == 2 && memcmp(s + i, "ms", 2) == 0)
		unit = 1000000;
	else if (!(n - i == 1 && s[i] == 's') && n != i)
		return -1;
	if (digits == 0 || whole >= 1000000)
		return -1;
	*ns = whole * unit + frac * unit / scale;
	return *ns >= 1000000 && *ns <= SHB_PROM_TIMEOUT_MAX_NS ? 0 : -1;
}

/* A label value that needs no care anywhere it is typed: a PromQL string,
 * a Grafana variable, a file name. */
static int id_ok(const char *v, size_t n)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._:-";
	return n > 0 && n <= SHB_PROM_ID_MAX && strspn(v, ok) >= n;
}

static int one(const char *item, size_t n, struct shb_prom_opts *o,
	       char *url, size_t urlcap, char *err, size_t errlen)
{
	const char *eq = memchr(item, '=', n);
	size_t kn = eq ? (size_t)(eq - item) : n;
	const char *v = eq ? eq + 1 : "";
	size_t vn = eq ? n - kn - 1 : 0;
	if (kn == 3 && memcmp(item, "url", 3) == 0 && vn < urlcap) {
		snprintf(url, urlcap, "%.*s", (int)vn, v);
		return 0;
	}
	if (kn == 3 && memcmp(item, "run", 3) == 0 && id_ok(v, vn)) {
		snprintf(o->run_id, sizeof(o->run_id), "%.*s", (int)vn, v);
		return 0;
	}
	if (kn == 7 && memcmp(item, "timeout", 7) == 0 &&
	    shb_prom_duration(v, vn, &o->timeout_ns) == 0)
		return 0;
	struct shb_quoted q = shb_quote_n(item, n);
	return shb_errf(err, errlen, "option \"%s\": expected "
			"url=http://HOST[:PORT][/PATH], run=ID (1 to %d of "
			"A-Z a-z 0-9 . _ : -) or timeout=DURATION (1ms to 600s, "
			"as 2s or 500ms)", q.s, SHB_PROM_ID_MAX);
}

int shb_prom_opts_parse(const char *options, struct shb_prom_opts *o,
			char *err, size_t errlen)
{
	char url[sizeof(o->target.url)];
	memset(o, 0, sizeof(*o));
	o->timeout_ns = SHB_PROM_TIMEOUT_DEFAULT_NS;
	snprintf(url, sizeof(url), "%s", SHB_PROM_URL_DEFAULT);
	for (const char *p = options; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n && one(p, n, o, url, sizeof(url), err, errlen) < 0)
			return -1;
		p += n;
		if (*p)
			p++;
	}
	return shb_prom_target_parse(url, &o->target, err, errlen);
}
