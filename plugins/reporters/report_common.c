#include "report_common.h"
#include "report_metrics.h"
#include "report_spool.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Written once by init, read-only afterwards (plugin.h allows this). */
static const struct shb_host *rpt_host;

const uint32_t shb_rpt_default_ppm[SHB_RPT_PCT_COUNT] = {
	100000, 250000, 500000, 750000, 900000, 950000, 990000, 999000, 999900,
};

const char *const shb_rpt_setup_names[SHB_RPT_SETUP_COUNT] = {
	"connect", "handshake", "first_byte",
};

/* ---- entry glue ------------------------------------------------------------ */

static int hist_ops_usable(const struct shb_hist_ops *h)
{
	/* foreach_bucket is not needed: only the summary accessors are. */
	return h && SHB_HAS(h, struct shb_hist_ops, value_at_ppm) && h->count &&
	       h->min && h->max && h->mean && h->stddev && h->value_at_ppm;
}

int shb_rpt_init(const struct shb_host *host)
{
	if (!host || !SHB_HAS(host, struct shb_host, hist) ||
	    !hist_ops_usable(host->hist))
		return SHB_E_UNSUPPORTED;
	rpt_host = host;
	return SHB_OK;
}


/* ---- the reporter object --------------------------------------------------- */

static int set_err(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int find_flag(const char *const *known, const char *tok, size_t n)
{
	for (int i = 0; known && known[i]; i++)
		if (strlen(known[i]) == n && memcmp(known[i], tok, n) == 0)
			return i;
	return -1;
}

static void join_known(const char *const *known, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; known && known[i] && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 known[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int parse_options(const char *rname, const char *const *known,
			 const char *options, uint32_t *flags, char *err,
			 size_t errlen)
{
	const char *p = options ? options : "";
	*flags = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n > 0) {
			int i = find_flag(known, p, n);
			if (i < 0) {
				char list[128];
				join_known(known, list, sizeof(list));
				return set_err(err, errlen, SHB_E_INVAL,
					       "%s reporter: unknown option '%.*s' (%s%s)",
					       rname, (int)(n > 64 ? 64 : n), p,
					       list[0] ? "known: " : "it takes none",
					       list);
			}
			*flags |= 1u << i;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return SHB_OK;
}

int shb_rpt_create(const char *rname, const char *const *known,
		   const struct shb_host *host, const struct shb_ostream *out,
		   const char *options, void **rep, char *err, size_t errlen)
{
	(void)host; /* the same table init() already checked and kept */
	if (!rep)
		return SHB_E_INVAL;
	*rep = NULL;
	if (!rpt_host)
		return set_err(err, errlen, SHB_E_STATE,
			       "%s reporter: create before init", rname);
	if (!out || !SHB_HAS(out, struct shb_ostream, write) || !out->write)
		return set_err(err, errlen, SHB_E_INVAL,
			       "%s reporter: no usable output stream", rname);
	uint32_t flags;
	int rc = parse_options(rname, known, options, &flags, err, errlen);
	if (rc < 0)
		return rc;
	struct shb_rpt *r = calloc(1, sizeof(*r));
	if (!r)
		return set_err(err, errlen, SHB_E_NOMEM,
			       "%s reporter: out of memory", rname);
	r->host = rpt_host;
	r->out = out;
	r->flags = flags;
	r->spool_fd = -1;
	*rep = r;
	return SHB_OK;
}

static int run_info_usable(const struct shb_run_info *info)
{
	return info && SHB_HAS(info, struct shb_run_info, duration_target_ns);
}

int shb_rpt_begin(void *rep, const struct shb_run_info *info)
{
	struct shb_rpt *r = rep;
	if (!r || !run_info_usable(info))
		return SHB_E_INVAL;
	/* In a comparison (ABI 1.3) each run brings its own intervals. */
	for (size_t i = 0; i < r->nivals; i++) {
		free(r->ivals[i].hdr);
		free(r->ivals[i].hdr_error_reply);
		free(r->ivals[i].metric_vals);
	}
	r->nivals = 0;
	shb_rpt_spool_reset(r);
	r->info = info;
	return SHB_OK;
}

void shb_rpt_destroy(void *rep)
{
	struct shb_rpt *r = rep;
	for (size_t i = 0; r && i < r->nivals; i++) {
		free(r->ivals[i].hdr);
		free(r->ivals[i].hdr_error_reply);
		free(r->ivals[i].metric_vals);
	}
	if (r) {
		shb_rpt_spool_close(r);
		free(r->ivals);
		free(r->cmp_rows);
	}
	free(rep);
}

int shb_rpt_sample(void *rep, const struct shb_results *r)
{
	struct shb_rpt *j = rep;
	if (!j || !r || !SHB_HAS(r, struct shb_results, interval_start_ns) ||
	    r->kind != SHB_RESULTS_INTERVAL)
		return SHB_E_INVAL;
	if (j->nivals == j->ivals_cap) {
		size_t cap = j->ivals_cap ? 2 * j->ivals_cap : 64;
		struct shb_rpt_ival *n = realloc(j->ivals, cap * sizeof(*n));
		if (!n)
			return SHB_E_NOMEM;
		j->ivals = n;
		j->ivals_cap = cap;
	}
	struct shb_rpt_pcts p = {.count = 3, .ppm = {500000, 900000, 990000}};
	struct shb_rpt_latency lat;
	shb_rpt_read_hist(j->host, r->latency, &p, &lat);
	j->ivals[j->nivals++] = (struct shb_rpt_ival){
		.index = r->interval_index,
		.start_ns = r->interval_start_ns,
		.len_ns = r->elapsed_ns,
		.ok = r->requests_ok,
		.errors = r->requests_errors,
		.bytes_sent = r->bytes_sent,
		.bytes_received = r->bytes_received,
		.p50 = lat.count ? lat.pct[0] : 0,
		.p90 = lat.count ? lat.pct[1] : 0,
		.p99 = lat.count ? lat.pct[2] : 0,
		.max = lat.count ? lat.max : 0,
		.answered_known = shb_rpt_answered_known(r),
		.answered = shb_rpt_answered_known(r) ? r->requests_answered : 0,
	};
	return shb_rpt_ival_metrics(&j->ivals[j->nivals - 1], j->host, r);
}

uint32_t shb_rpt_compare_index(const struct shb_run_info *run)
{
	return shb_rpt_compare_count(run) > 1 ? run->compare_index : 0;
}

uint32_t shb_rpt_compare_count(const struct shb_run_info *run)
{
	if (!SHB_RPT_HAS(run, struct shb_run_info, compare_count) ||
	    run->compare_count < 2 || run->compare_index >= run->compare_count)
		return 1;
	return run->compare_count;
}

int shb_rpt_compare_keep(struct shb_rpt *rep, const struct shb_run_info *run,
			 const struct shb_results *r)
{
	struct shb_rpt_cmp_row *rows = realloc(rep->cmp_rows, (rep->ncmp_rows + 1) *
					       sizeof(*rows));
	if (!rows)
		return SHB_E_NOMEM;
	rep->cmp_rows = rows;
	struct shb_rpt_cmp_row *w = &rows[rep->ncmp_rows++];
	memset(w, 0, sizeof(*w));
	const char *label = SHB_RPT_HAS(run, struct shb_run_info, label) &&
			    run->label ? run->label : shb_rpt_str(run->url);
	snprintf(w->label, sizeof(w->label), "%s", label);
	struct shb_rpt_pcts p = {.count = 2, .ppm = {500000, 990000}};
	struct shb_rpt_latency lat;
	shb_rpt_read_hist(rep->host, r->latency, &p, &lat);
	w->ok = r->requests_ok;
	w->errors = r->requests_errors;
	w->elapsed_ns = r->elapsed_ns;
	w->p50 = lat.count ? lat.pct[0] : 0;
	w->p99 = lat.count ? lat.pct[1] : 0;
	w->has_rx = SHB_RPT_HAS(r, struct shb_results, rx_body_bytes);
	w->rx_header = w->has_rx ? r->rx_header_bytes : 0;
	w->rx_body = w->has_rx ? r->rx_body_bytes : 0;
	w->interrupted = (int)r->interrupted;
	return SHB_OK;
}

const struct shb_run_info *shb_rpt_check(const struct shb_rpt *rep,
					 const struct shb_results *r)
{
	if (!rep || !r || !SHB_HAS(r, struct shb_results, latency))
		return NULL;
	const struct shb_run_info *run = r->run ? r->run : rep->info;
	if (!run_info_usable(run))
		return NULL;
	if ((r->status_count && !r->statuses) || (r->error_count && !r->errors))
		return NULL;
	return run;
}

const char *shb_rpt_str(const char *s)
{
	return s ? s : "";
}

/* ---- what the reporters print ------------------------------------------------ */

void shb_rpt_pcts_of(const struct shb_run_info *run, struct shb_rpt_pcts *p)
{
	p->count = 0;
	if (SHB_RPT_HAS(run, struct shb_run_info, percentile_count) &&
	    run->percentiles_ppm) {
		uint32_t last = 0;
		for (size_t i = 0; i < run->percentile_count &&
				   p->count < SHB_RPT_PCT_MAX; i++) {
			uint32_t ppm = run->percentiles_ppm[i];
			if (ppm > last && ppm <= 1000000)
				p->ppm[p->count++] = last = ppm;
		}
	}
	if (p->count)
		return;
	memcpy(p->ppm, shb_rpt_default_ppm, sizeof(shb_rpt_default_ppm));
	p->count = SHB_RPT_PCT_COUNT;
}

char *shb_rpt_pct_label(char *buf, size_t len, uint32_t ppm, char dot)
{
	/* ppm / 10^4 is the percent: four decimals at most, trailing zeros
	 * dropped ("10", "99.9", "99.999"). */
	unsigned whole = ppm / 10000, frac = ppm % 10000, digits = 4;
	while (frac && frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	if (frac)
		snprintf(buf, len, "%u%c%0*u", whole, dot, (int)digits, frac);
	else
		snprintf(buf, len, "%u", whole);
	return buf;
}

void shb_rpt_read_hist(const struct shb_host *host, const struct shb_hist *h,
		       const struct shb_rpt_pcts *p, struct shb_rpt_latency *lat)
{
	const struct shb_hist_ops *ops = host->hist;
	memset(lat, 0, sizeof(*lat));
	lat->npct = p->count;
	memcpy(lat->ppm, p->ppm, p->count * sizeof(p->ppm[0]));
	/* results.h promises a histogram; an absent one reads as empty. */
	if (!h || (lat->count = ops->count(h)) == 0)
		return;
	lat->min = ops->min(h);
	lat->max = ops->max(h);
	lat->mean = ops->mean(h);
	lat->stddev = ops->stddev(h);
	for (size_t i = 0; i < p->count; i++)
		lat->pct[i] = ops->value_at_ppm(h, p->ppm[i]);
}

void shb_rpt_read_latency(const struct shb_host *host,
			  const struct shb_results *r,
			  const struct shb_run_info *run,
			  struct shb_rpt_latency *lat)
{
	struct shb_rpt_pcts p;
	shb_rpt_pcts_of(run, &p);
	shb_rpt_read_hist(host, r->latency, &p, lat);
}

void shb_rpt_sum_errors(const struct shb_results *r, struct shb_rpt_errors *e)
{
	const struct shb_error_count *list = r->errors;
	size_t n = r->error_count;
	memset(e, 0, sizeof(*e));
	e->kinds = SHB_ERRK_COUNT;
	if (SHB_RPT_HAS(r, struct shb_results, error_ex_count) &&
	    (r->errors_ex || r->error_ex_count == 0)) {
		list = r->errors_ex;
		n = r->error_ex_count;
		e->kinds = SHB_ERRK_EX_COUNT;
	}
	for (size_t i = 0; i < n; i++) {
		const struct shb_error_count *ec = &list[i];
		uint64_t *count = &e->other;
		const char **sample = &e->other_sample;
		if (ec->kind < (uint32_t)e->kinds) {
			count = &e->count[ec->kind];
			sample = &e->sample[ec->kind];
		}
		*count += ec->count;
		if (!*sample)
			*sample = ec->sample;
	}
}

const char *shb_rpt_start_time(char *buf, size_t len,
			       const struct shb_run_info *run)
{
	if (!run || !SHB_HAS(run, struct shb_run_info, start_unix_ns) ||
	    !run->start_unix_ns)
		return NULL;
	time_t secs = (time_t)(run->start_unix_ns / 1000000000u);
	unsigned ms = (unsigned)(run->start_unix_ns % 1000000000u / 1000000u);
	struct tm tm;
	if (!gmtime_r(&secs, &tm))
		return NULL;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ms);
	return buf;
}

const struct shb_rpt_ext_run *shb_rpt_ext_run(const struct shb_host *host)
{
	if (!host || !host->get_extension)
		return NULL;
	const struct shb_rpt_ext_run *x = host->get_extension(SHB_RPT_EXT_RUN_ID);
	if (!x || x->struct_size < sizeof(*x))
		return NULL;
	return x;
}

/* ---- ABI 1.2 members -------------------------------------------------------- */

void shb_rpt_warmup_of(const struct shb_host *host,
		       const struct shb_run_info *run,
		       const struct shb_results *r, struct shb_rpt_warmup *w)
{
	memset(w, 0, sizeof(*w));
	if (SHB_RPT_HAS(run, struct shb_run_info, warmup_ns) &&
	    SHB_RPT_HAS(r, struct shb_results, requests_warmup)) {
		w->known = 1;
		w->ns = run->warmup_ns;
		w->requests = r->requests_warmup;
		return;
	}
	/* A 1.1 core: the interim extension, if it has it. */
	const struct shb_rpt_ext_run *x = shb_rpt_ext_run(host);
	if (x) {
		w->known = 1;
		w->ns = x->warmup_ns;
		w->requests = x->warmup_requests;
	}
}

size_t shb_rpt_app_outcomes(const struct shb_results *r,
			    const struct shb_app_count **out)
{
	*out = NULL;
	if (!SHB_RPT_HAS(r, struct shb_results, app_outcome_count) ||
	    !r->app_outcomes)
		return 0;
	*out = r->app_outcomes;
	return r->app_outcome_count;
}

size_t shb_rpt_error_codes(const struct shb_results *r,
			   const struct shb_code_count **out)
{
	*out = NULL;
	if (!SHB_RPT_HAS(r, struct shb_results, error_code_count) ||
	    !r->error_codes)
		return 0;
	*out = r->error_codes;
	return r->error_code_count;
}

size_t shb_rpt_plugins(const struct shb_run_info *run,
		       const struct shb_plugin_info **out)
{
	*out = NULL;
	if (!SHB_RPT_HAS(run, struct shb_run_info, plugin_count) ||
	    !run->plugins)
		return 0;
	*out = run->plugins;
	return run->plugin_count;
}

size_t shb_rpt_stages(const struct shb_run_info *run,
		      const struct shb_stage **out)
{
	*out = NULL;
	if (!SHB_RPT_HAS(run, struct shb_run_info, stage_count) || !run->stages)
		return 0;
	*out = run->stages;
	return run->stage_count;
}

size_t shb_rpt_target_count(const struct shb_results *r)
{
	if (!SHB_RPT_HAS(r, struct shb_results, target_count) || !r->targets)
		return 0;
	return r->target_count;
}

const struct shb_results *shb_rpt_target(const struct shb_results *r,
					 const struct shb_run_info *run,
					 size_t i,
					 const struct shb_target_info **info)
{
	*info = NULL;
	if (i >= shb_rpt_target_count(r))
		return NULL;
	const struct shb_results *t = r->targets[i];
	/* The same checks as shb_rpt_check, so that a target reads safely. */
	if (!t || !SHB_HAS(t, struct shb_results, latency) ||
	    (t->status_count && !t->statuses) || (t->error_count && !t->errors))
		return NULL;
	if (SHB_RPT_HAS(run, struct shb_run_info, target_count) &&
	    run->targets && i < run->target_count)
		*info = &run->targets[i];
	return t;
}

void shb_rpt_target_share(const struct shb_results *r,
			  const struct shb_run_info *run, size_t i,
			  struct shb_rpt_share *out)
{
	const struct shb_target_info *ti;
	uint64_t wsum = 0, all = 0, mine = 0;
	size_t n = shb_rpt_target_count(r);
	out->intended = out->achieved = -1;
	for (size_t k = 0; k < n; k++) {
		const struct shb_results *t = shb_rpt_target(r, run, k, &ti);
		wsum += ti ? ti->weight : 0;
		all += t ? t->requests_total : 0;
		if (k == i) {
			mine = t ? t->requests_total : 0;
			if (!ti || !t)
				return;
			out->intended = (double)ti->weight;
		}
	}
	if (i >= n)
		return;
	out->intended = wsum ? out->intended / (double)wsum : -1;
	out->achieved = all ? (double)mine / (double)all : -1;
}

const struct shb_hist *shb_rpt_uncorrected(const struct shb_results *r)
{
	if (!SHB_RPT_HAS(r, struct shb_results, latency_uncorrected) ||
	    r->latency_uncorrected == r->latency)
		return NULL;
	return r->latency_uncorrected;
}

void shb_rpt_read_setup(const struct shb_host *host,
			const struct shb_results *r, struct shb_rpt_setup *s)
{
	static const struct shb_rpt_pcts p = {3, {500000, 900000, 990000}};
	const struct shb_hist *h[SHB_RPT_SETUP_COUNT] = {NULL, NULL, NULL};
	if (SHB_RPT_HAS(r, struct shb_results, first_byte)) {
		h[SHB_RPT_SETUP_CONNECT] = r->connect;
		h[SHB_RPT_SETUP_HANDSHAKE] = r->handshake;
		h[SHB_RPT_SETUP_FIRST_BYTE] = r->first_byte;
	}
	s->any = 0;
	for (int i = 0; i < SHB_RPT_SETUP_COUNT; i++) {
		shb_rpt_read_hist(host, h[i], &p, &s->h[i]);
		if (s->h[i].count)
			s->any = 1;
	}
}

const char *shb_rpt_tls_verify_name(uint32_t v)
{
	switch (v) {
	case SHB_TLS_VERIFY_NONE:
		return "none";
	case SHB_TLS_VERIFY_SYSTEM:
		return "system";
	case SHB_TLS_VERIFY_CAFILE:
		return "cafile";
	default:
		return "unknown";
	}
}

/* ---- numbers ----------------------------------------------------------------- */

double shb_rpt_per_sec(uint64_t n, uint64_t elapsed_ns)
{
	if (elapsed_ns == 0)
		return 0.0;
	return (double)n * 1e9 / (double)elapsed_ns;
}

uint64_t shb_rpt_scale(double v, unsigned decimals)
{
	for (unsigned i = 0; i < decimals; i++)
		v *= 10.0;
	v = floor(v + 0.5);
	if (!(v > 0.0)) /* also catches NaN */
		return 0;
	if (v >= 18446744073709551616.0) /* 2^64 */
		return UINT64_MAX;
	return (uint64_t)v;
}

char *shb_rpt_fixed(char *buf, size_t len, uint64_t scaled, unsigned decimals)
{
	uint64_t div = 1;
	for (unsigned i = 0; i < decimals; i++)
		div *= 10;
	if (decimals == 0)
		snprintf(buf, len, "%llu", (unsigned long long)scaled);
	else
		snprintf(buf, len, "%llu.%0*llu",
			 (unsigned long long)(scaled / div), (int)decimals,
			 (unsigned long long)(scaled % div));
	return buf;
}

double shb_rpt_per(uint64_t total, uint64_t n)
{
	return n ? (double)total / (double)n : 0.0;
}

char *shb_rpt_milli(char *buf, size_t len, uint64_t milli)
{
	unsigned decimals = 3;
	uint64_t v = milli;
	while (decimals && v % 10 == 0) {
		v /= 10;
		decimals--;
	}
	return shb_rpt_fixed(buf, len, v, decimals);
}

char *shb_rpt_ms(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);
	return shb_rpt_fixed(buf, len, us, 3);
}

/* ---- output -------------------------------------------------------------------- */

void shb_rpt_out_init(struct shb_rpt_out *o, const struct shb_ostream *os)
{
	o->os = os;
	o->err = SHB_OK;
	o->len = 0;
}

static void drain(struct shb_rpt_out *o, const char *p, size_t n)
{
	while (n > 0 && o->err == SHB_OK) {
		shb_ssize w = o->os->write(o->os->ctx, p, n);
		if (w < 0) {
			o->err = (int)w;
		} else if (w == 0 || (size_t)w > n) {
			/* The contract is "len or negative"; anything else
			 * would loop forever or overrun. */
			o->err = SHB_E_STATE;
		} else {
			p += w;
			n -= (size_t)w;
		}
	}
}

void shb_rpt_write(struct shb_rpt_out *o, const void *p, size_t n)
{
	if (o->err != SHB_OK)
		return;
	if (o->len + n > sizeof(o->buf)) {
		drain(o, o->buf, o->len);
		o->len = 0;
		if (n > sizeof(o->buf)) {
			drain(o, p, n);
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void shb_rpt_puts(struct shb_rpt_out *o, const char *s)
{
	shb_rpt_write(o, s, strlen(s));
}

void shb_rpt_printf(struct shb_rpt_out *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = o->err ? o->err : SHB_E_INVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		shb_rpt_write(o, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		o->err = o->err ? o->err : SHB_E_NOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	shb_rpt_write(o, big, (size_t)n);
	free(big);
}

int shb_rpt_flush(struct shb_rpt_out *o)
{
	drain(o, o->buf, o->len);
	o->len = 0;
	return o->err;
}

int shb_rpt_short(const struct shb_results *r)
{
	if (!SHB_RPT_HAS(r, struct shb_results, requests_unsent))
		return 0;
	uint64_t unsent = r->requests_unsent;
	return unsent && unsent * 100 >
		(r->requests_total + unsent) * SHB_RPT_SHORT_PCT;
}
