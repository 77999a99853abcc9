/* --slo: parsing the gates (checking them: results/slo_check.c). */
#include "common/quote.h"
#include "cli/slo.h"

#include <stdio.h>
#include <string.h>

#include "cli/duration.h"

#define PPM_ALL 1000000u
#define MILLIONTH SHB_SLO_MILLIONTH

static const char examples[] = "e.g. p99<5ms, error_rate<1% or rps>1000";

/* "<int>[.<frac>]" with at most maxfrac fraction digits, as an integer
 * scaled by 10^maxfrac. Returns the end, or NULL (no digits, too many
 * fraction digits, overflow). */
static const char *parse_decimal(const char *p, unsigned maxfrac,
				 uint64_t *out)
{
	uint64_t v = 0;
	unsigned ndig = 0, nfrac = 0;

	for (; *p >= '0' && *p <= '9'; p++, ndig++) {
		if (v > (UINT64_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, nfrac++) {
			if (nfrac == maxfrac || v > (UINT64_MAX - 9) / 10)
				return NULL;
			v = v * 10 + (uint64_t)(*p - '0');
		}
		if (nfrac == 0)
			return NULL;
	}
	if (ndig + nfrac == 0)
		return NULL;
	for (; nfrac < maxfrac; nfrac++) {
		if (v > UINT64_MAX / 10)
			return NULL;
		v *= 10;
	}
	*out = v;
	return p;
}

/* The expression without blanks, so that "p99 < 5ms" reads as "p99<5ms". */
static int squeeze(const char *expr, char *buf, size_t len)
{
	size_t o = 0;
	for (; *expr; expr++) {
		if (*expr == ' ' || *expr == '\t')
			continue;
		if (o + 1 >= len)
			return -1;
		/* Quoted back in errors: no control characters. */
		buf[o++] = (unsigned char)*expr < 0x20 || *expr == 0x7f ? '?' : *expr;
	}
	buf[o] = '\0';
	return 0;
}

const char *const shb_slo_op_text[4] = {"<", "<=", ">", ">="};

/* pNN of name[0..n): *ppm set; 0, or -1 with the line in err. */
static int parse_pct(const char *name, size_t n, uint32_t *ppm,
		     const char *expr, char *err, size_t errlen)
{
	uint64_t v;
	const char *end = parse_decimal(name + 1, 4, &v);
	if (!end || end != name + n || v == 0 || v > PPM_ALL) {
		snprintf(err, errlen, "\"%s\": the percentile must be above 0 "
			 "and at most 100, with at most four decimals (p50, "
			 "p99.9, p99.9999)", expr);
		return -1;
	}
	*ppm = (uint32_t)v;
	return 0;
}

static int is_pct(const char *s, size_t n)
{
	return n > 1 && s[0] == 'p' && s[1] >= '0' && s[1] <= '9';
}

/* NAME.pNN or NAME.count: a protocol metric, named as the loader allows
 * (the protocol says later whether it has it). */
static int parse_plugin_metric(const char *name, size_t n, struct shb_slo *slo,
			       const char *expr, char *err, size_t errlen)
{
	size_t dot = (size_t)((const char *)memchr(name, '.', n) - name);
	const char *sub = name + dot + 1;
	size_t ns = n - dot - 1;
	int ok = dot > 0 && dot <= 32 && name[0] >= 'a' && name[0] <= 'z';
	for (size_t i = 0; ok && i < dot; i++)
		ok = (name[i] >= 'a' && name[i] <= 'z') || name[i] == '_' ||
		     (name[i] >= '0' && name[i] <= '9');
	if (!ok || !(is_pct(sub, ns) || (ns == 5 && !strncmp(sub, "count", 5)))) {
		snprintf(err, errlen, "\"%s\": a protocol metric is NAME.pNN or "
			 "NAME.count (e.g. ws_msg_latency.p99<5ms)", expr);
		return -1;
	}
	if (sub[0] == 'p') {
		if (parse_pct(sub, ns, &slo->ppm, expr, err, errlen) < 0)
			return -1;
		slo->metric = SHB_SLO_METRIC_PCT;
	} else {
		slo->metric = SHB_SLO_METRIC_COUNT;
	}
	snprintf(slo->metric_name, sizeof(slo->metric_name), "%.*s", (int)dot, name);
	snprintf(slo->name, sizeof(slo->name), "%.*s", (int)n, name);
	return 0;
}

static int parse_metric(const char *name, size_t n, struct shb_slo *slo,
			const char *expr, char *err, size_t errlen)
{
	/* p99.9 has a digit after its dot, NAME.p99 and NAME.count a
	 * letter. */
	const char *dot = memchr(name, '.', n);
	if (dot && dot + 1 < name + n && dot[1] >= 'a' && dot[1] <= 'z')
		return parse_plugin_metric(name, n, slo, expr, err, errlen);
	if (n == 10 && strncmp(name, "error_rate", n) == 0) {
		slo->metric = SHB_SLO_ERROR_RATE;
	} else if (n == 3 && strncmp(name, "rps", n) == 0) {
		slo->metric = SHB_SLO_RPS;
	} else if (is_pct(name, n)) {
		if (parse_pct(name, n, &slo->ppm, expr, err, errlen) < 0)
			return -1;
		slo->metric = SHB_SLO_PCT;
	} else {
		snprintf(err, errlen, "\"%s\": unknown metric \"%.*s\" (pNN "
			 "for a latency percentile, error_rate, rps, or a "
			 "protocol metric's NAME.pNN or NAME.count)", expr,
			 (int)n, name);
		return -1;
	}
	snprintf(slo->name, sizeof(slo->name), "%.*s", (int)n, name);
	return 0;
}

static int limit_fail(const struct shb_slo *slo, const char *expr, char *err,
		      size_t errlen)
{
	snprintf(err, errlen, "\"%s\": expected %s after %s", expr,
		 slo->metric == SHB_SLO_METRIC_COUNT ? "a number like 1000" :
		 "a duration like 5ms (a LATENCY metric) or a number like 16 "
		 "(a VALUE metric)", shb_slo_op_text[slo->op]);
	return -1;
}

static int parse_limit(const char *v, struct shb_slo *slo, const char *expr,
		       char *err, size_t errlen)
{
	const char *end;
	size_t n = strlen(v);

	snprintf(slo->limit_text, sizeof(slo->limit_text), "%.*s",
		 (int)sizeof(slo->limit_text) - 1, v);
	switch (slo->metric) {
	case SHB_SLO_PCT:
		/* A bare number would be seconds elsewhere in shb: too easy to
		 * misread in a gate, so the unit is required. */
		if (n && v[n - 1] >= '0' && v[n - 1] <= '9') {
			snprintf(err, errlen, "\"%s\": the limit needs a unit "
				 "(ns, us, ms, s, m or h), e.g. %s<5ms", expr,
				 slo->name);
			return -1;
		}
		if (shb_parse_duration(v, &slo->limit) < 0) {
			snprintf(err, errlen, "\"%s\": expected a duration "
				 "like 5ms, 250us or 1.5s after %s", expr,
				 shb_slo_op_text[slo->op]);
			return -1;
		}
		return 0;
	case SHB_SLO_ERROR_RATE:
		end = parse_decimal(v, 6, &slo->limit);
		if (!end || strcmp(end, "%") != 0) {
			snprintf(err, errlen, "\"%s\": expected a percentage "
				 "like 1%% or 0.5%% after %s", expr,
				 shb_slo_op_text[slo->op]);
			return -1;
		}
		if (slo->limit > 100 * MILLIONTH) {
			snprintf(err, errlen, "\"%s\": the error rate must be "
				 "from 0%% to 100%%", expr);
			return -1;
		}
		return 0;
	case SHB_SLO_METRIC_PCT:
	case SHB_SLO_METRIC_COUNT:
		/* A unit: a LATENCY metric's duration; none: a number. */
		if (slo->metric == SHB_SLO_METRIC_PCT && n &&
		    (v[n - 1] < '0' || v[n - 1] > '9'))
			return shb_parse_duration(v, &slo->limit) < 0 ?
			       limit_fail(slo, expr, err, errlen) : 0;
		slo->plain = 1;
		end = parse_decimal(v, 6, &slo->limit);
		return !end || *end ? limit_fail(slo, expr, err, errlen) : 0;
	case SHB_SLO_RPS:
		end = parse_decimal(v, 6, &slo->limit);
		if (!end || *end) {
			snprintf(err, errlen, "\"%s\": expected a number of "
				 "requests per second like 1000 or 99.5 after %s",
				 expr, shb_slo_op_text[slo->op]);
			return -1;
		}
		return 0;
	}
	return -1;
}

int shb_slo_parse(const char *expr, struct shb_slo *slo, char *err,
		  size_t errlen)
{
	char buf[2 * SHB_SLO_TEXT];

	memset(slo, 0, sizeof(*slo));
	if (squeeze(expr, buf, sizeof(buf)) < 0) {
		/* Quoted: the raw text may hold a newline (found by fuzzing). */
		snprintf(err, errlen, "\"%s...\": too long",
			 shb_quote_n(expr, 40).s);
		return -1;
	}
	if (!buf[0]) {
		snprintf(err, errlen, "\"\": empty expression (%s)", examples);
		return -1;
	}
	size_t n = strcspn(buf, "<>");
	if (!buf[n]) {
		snprintf(err, errlen, "\"%s\": no comparison (<, <=, > or >=), "
			 "%s", buf, examples);
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "\"%s\": no metric before %c (pNN, "
			 "error_rate or rps)", buf, buf[0]);
		return -1;
	}
	const char *v = buf + n + 1;
	slo->op = buf[n] == '<' ? SHB_SLO_LT : SHB_SLO_GT;
	if (*v == '=') {
		slo->op = slo->op == SHB_SLO_LT ? SHB_SLO_LE : SHB_SLO_GE;
		v++;
	}
	if (!*v) {
		snprintf(err, errlen, "\"%s\": no limit after %s", buf,
			 shb_slo_op_text[slo->op]);
		return -1;
	}
	if (parse_metric(buf, n, slo, buf, err, errlen) < 0)
		return -1;
	return parse_limit(v, slo, buf, err, errlen);
}

/* ---- checking ----------------------------------------------------------- */

/* ---- protocol metrics ------------------------------------------------------ */

static const struct shb_metric_def *find_def(const struct shb_metric_def *d,
					     size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].name, name))
			return &d[i];
	return NULL;
}

/* "a, b, c" into buf, cut at its end. */
static void list_names(const struct shb_metric_def *d, size_t n, char *buf,
		       size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		int w = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", d[i].name);
		o += w > 0 ? (size_t)w : 0;
	}
}

static int metric_fault(const struct shb_slo *s, const struct shb_metric_def *m,
			const char *proto, char *err, size_t errlen)
{
	if (s->metric == SHB_SLO_METRIC_PCT && m->kind == SHB_METRIC_COUNTER)
		snprintf(err, errlen, "--slo \"%s\": %s of protocol \"%s\" is a "
			 "counter: it has a count, no percentiles", s->name,
			 m->name, proto);
	else if (s->metric == SHB_SLO_METRIC_PCT && !s->plain &&
		 m->kind == SHB_METRIC_VALUE)
		snprintf(err, errlen, "--slo \"%s%s%s\": %s of protocol \"%s\" "
			 "holds plain numbers: give a number, not a duration",
			 s->name, shb_slo_op_text[s->op], s->limit_text, m->name,
			 proto);
	else if (s->metric == SHB_SLO_METRIC_PCT && s->plain &&
		 m->kind == SHB_METRIC_LATENCY)
		snprintf(err, errlen, "--slo \"%s%s%s\": %s of protocol \"%s\" "
			 "is a latency: the limit needs a unit (ns, us, ms, s, m "
			 "or h)", s->name, shb_slo_op_text[s->op], s->limit_text,
			 m->name, proto);
	else
		return 0;
	return -1;
}

int shb_slo_metrics_check(const struct shb_slo *slos, size_t n,
			  const struct shb_metric_def *defs, size_t ndefs,
			  const char *proto, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const struct shb_slo *s = &slos[i];
		if (s->metric != SHB_SLO_METRIC_PCT && s->metric != SHB_SLO_METRIC_COUNT)
			continue;
		const struct shb_metric_def *m = find_def(defs, ndefs, s->metric_name);
		if (!m) {
			char names[200];
			list_names(defs, ndefs, names, sizeof(names));
			snprintf(err, errlen, "--slo \"%s\": protocol \"%s\" has no "
				 "metric \"%s\" (%s%s)", s->name, proto,
				 s->metric_name, ndefs ? "its metrics: " :
				 "it declares none", names);
			return -1;
		}
		if (metric_fault(s, m, proto, err, errlen) < 0)
			return -1;
	}
	return 0;
}
