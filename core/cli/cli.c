/* Command-line parsing into struct shb_config: the option table, the
 * scan over argv and the order of the checks after it.
 *
 * A hand-written scanner rather than getopt_long: getopt prints its own
 * messages, keeps global state and cannot name the option in the words we
 * want. Rules: options and the URL may come in any order; "--" ends
 * options; long options take "--opt value" or "--opt=value"; short options
 * cluster ("-qj") and take attached values ("-c10"). Every error is one
 * line that names the option as the user typed it.
 *
 * The options of each concern are parsed in a file of their own:
 * cli_request.c (-m, -H, -d, --data-binary, --priority), cli_load.c (-R,
 * --stages), cli_conn.c (TLS and where connections go), cli_report.c
 * (--report, --tui, --slo), cli_plugin.c (--proto, --proto-opt,
 * --report-opt, --plugin-dir); cli_checks.c holds the checks across
 * options once the scan is done, cli_scheme.c the ones that wait for the
 * protocol. */
#include "common/quote.h"
#include "cli/cli.h"
#include "cli/cli_checks.h"
#include "cli/cli_conn.h"
#include "cli/cli_hints.h"
#include "cli/cli_load.h"
#include "cli/cli_plugin.h"
#include "cli/cli_report.h"
#include "cli/cli_request.h"
#include "cli/cli_scheme.h"
#include "cli/cli_script.h"
#include "cli/compare.h"
#include "cli/parse_num.h"
#include "cli/shard.h"
#include "cli/start_at.h"
#include "cli/targets.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#define SHB_MAX_CONNECTIONS 1000000u
#define SHB_MAX_PARALLEL 1024u
#define SHB_MAX_REQUESTS 1000000000000000ull
#define SHB_MAX_BATCH 4096u
#define SHB_MAX_LINGER_US 1000000u
#define SHB_DEFAULT_REQUESTS 200u
/* --max-redirs at most: a chain is one user's requests in a row. */
#define SHB_MAX_REDIRS 1000u
#define SHB_DEFAULT_MAX_REDIRS 50u
#define SHB_DEFAULT_CONNECT_TIMEOUT_NS 5000000000ull

enum opt_id {
	O_PROTO, O_HTTP2, O_HTTP3, O_REPORT, O_JSON, O_CONNECTIONS,
	O_PARALLEL, O_REQUESTS, O_DURATION, O_THREADS, O_METHOD, O_HEADER,
	O_DATA, O_DATA_BINARY, O_CONNECT_TIMEOUT, O_TIMEOUT, O_NO_KEEPALIVE,
	O_BATCH_SIZE, O_BATCH_LINGER, O_PLUGIN_DIR, O_LIST_PLUGINS, O_VERIFY,
	O_CACERT, O_QUIET, O_HELP, O_VERSION, O_SLO, O_WARMUP, O_INTERVAL,
	O_CONNECT_TO, O_RESOLVE, O_SNI, O_IPV4, O_IPV6, O_INSECURE,
	O_CERT, O_KEY, O_TLS_VERSION, O_CIPHERS,
	O_PROTO_OPT, O_REPORT_OPT, O_PERCENTILES, O_SUCCESS, O_RATE, O_STAGES,
	O_SHARD, O_START_AT, O_TLS_RESUME,
	O_UNIX_SOCKET, O_PROXY, O_NOPROXY, O_PRIORITY, O_TUI,
	O_BODY_LINES, O_URLS, O_MIX, O_SOURCE, O_DRY_RUN, O_LOCATION,
	O_MAX_REDIRS, O_SCRIPT,
};

struct opt_def {
	const char *lng; /* NULL for a short-only alias */
	char shrt;       /* 0 for long-only */
	int has_arg;
	enum opt_id id;
};

static const struct opt_def opts[] = {
	{"proto", 0, 1, O_PROTO},
	{"proto-opt", 0, 1, O_PROTO_OPT},
	{"http2", 0, 0, O_HTTP2},
	{"http3", 0, 0, O_HTTP3},
	{"report", 0, 1, O_REPORT},
	{"report-opt", 0, 1, O_REPORT_OPT},
	{"json", 'j', 0, O_JSON},
	{"connections", 'c', 1, O_CONNECTIONS},
	{"parallel", 'p', 1, O_PARALLEL},
	{"requests", 'n', 1, O_REQUESTS},
	{"duration", 'z', 1, O_DURATION},
	{"warmup", 0, 1, O_WARMUP},
	{"interval", 0, 1, O_INTERVAL},
	{"rate", 'R', 1, O_RATE},
	{"stages", 0, 1, O_STAGES},
	{"threads", 't', 1, O_THREADS},
	{"shard", 0, 1, O_SHARD},
	{"start-at", 0, 1, O_START_AT},
	{"method", 'm', 1, O_METHOD},
	{NULL, 'X', 1, O_METHOD},
	{"header", 'H', 1, O_HEADER},
	{"data", 'd', 1, O_DATA},
	{"data-binary", 0, 1, O_DATA_BINARY},
	{"body-lines", 0, 1, O_BODY_LINES},
	{"urls", 0, 1, O_URLS},
	{"script", 's', 1, O_SCRIPT},
	{"mix", 0, 0, O_MIX},
	{"connect-timeout", 0, 1, O_CONNECT_TIMEOUT},
	{"timeout", 0, 1, O_TIMEOUT},
	{"disable-keepalive", 0, 0, O_NO_KEEPALIVE},
	{"location", 'L', 0, O_LOCATION},
	{"max-redirs", 0, 1, O_MAX_REDIRS},
	{"batch-size", 0, 1, O_BATCH_SIZE},
	{"batch-linger", 0, 1, O_BATCH_LINGER},
	{"plugin-dir", 0, 1, O_PLUGIN_DIR},
	{"list-plugins", 0, 0, O_LIST_PLUGINS},
	{"dry-run", 0, 0, O_DRY_RUN},
	{"verify", 0, 0, O_VERIFY},
	{"cacert", 0, 1, O_CACERT},
	{"insecure", 'k', 0, O_INSECURE},
	{"tls-resume", 0, 0, O_TLS_RESUME},
	{"cert", 0, 1, O_CERT},
	{"key", 0, 1, O_KEY},
	{"tls-version", 0, 1, O_TLS_VERSION},
	{"ciphers", 0, 1, O_CIPHERS},
	{"sni", 0, 1, O_SNI},
	{"connect-to", 0, 1, O_CONNECT_TO},
	{"resolve", 0, 1, O_RESOLVE},
	{"ipv4", '4', 0, O_IPV4},
	{"ipv6", '6', 0, O_IPV6},
	{"source", 0, 1, O_SOURCE},
	{"unix-socket", 0, 1, O_UNIX_SOCKET},
	{"proxy", 'x', 1, O_PROXY},
	{"noproxy", 0, 1, O_NOPROXY},
	{"priority", 0, 1, O_PRIORITY},
	{"quiet", 'q', 0, O_QUIET},
	{"tui", 0, 0, O_TUI},
	{"slo", 0, 1, O_SLO},
	{"percentiles", 0, 1, O_PERCENTILES},
	{"success", 0, 1, O_SUCCESS},
	{"help", 'h', 0, O_HELP},
	{"version", 'V', 0, O_VERSION},
};

static int number_opt(struct cli *c, const char *name, const char *v,
		      uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;

	if (shb_parse_u64(v, &x) < 0 || x < min || x > max)
		return fail(c,
			    "%s: expected a whole number from %llu to %llu, "
			    "got \"%s\"",
			    name, (unsigned long long)min,
			    (unsigned long long)max, shb_quote(v).s);
	*out = x;
	return 0;
}

static int number_opt32(struct cli *c, const char *name, const char *v,
			uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t x = 0;

	if (number_opt(c, name, v, min, max, &x) < 0)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

static int duration_opt(struct cli *c, const char *name, const char *v,
			int allow_zero, uint64_t *out)
{
	if (shb_parse_duration(v, out) < 0)
		return fail(c,
			    "%s: expected a duration like 10s, 1m30s, 500ms "
			    "or 1.5s, got \"%s\"",
			    name, shb_quote(v).s);
	if (*out == 0 && !allow_zero)
		return fail(c, "%s: duration must be greater than 0, got "
			       "\"%s\"",
			    name, shb_quote(v).s);
	return 0;
}

static int apply_flag(struct cli *c, enum opt_id id)
{
	struct shb_config *cfg = c->cfg;

	switch (id) {
	case O_HTTP2: cfg->proto_given = 1; return set_string(c, &cfg->proto, "h2");
	case O_HTTP3: cfg->proto_given = 1; return set_string(c, &cfg->proto, "h3");
	case O_JSON: c->json = 1; return 0;
	case O_NO_KEEPALIVE: cfg->disable_keepalive = 1; return 0;
	case O_LOCATION: cfg->follow_redirects = 1; return 0;
	case O_LIST_PLUGINS: cfg->list_plugins = 1; return 0;
	case O_DRY_RUN: cfg->dry_run = 1; return 0;
	case O_VERIFY: cfg->verify = 1; return 0;
	case O_INSECURE: return 0; /* not verifying is the default */
	case O_TLS_RESUME: cfg->tls_resume = 1; return 0;
	case O_IPV4: return shb_cli_family_opt(c, AF_INET);
	case O_IPV6: return shb_cli_family_opt(c, AF_INET6);
	case O_QUIET: cfg->quiet = 1; return 0;
	case O_TUI: cfg->tui = 1; return 0;
	case O_MIX: cfg->mix = 1; return 0;
	case O_HELP: cfg->help = 1; return 0;
	case O_VERSION: cfg->version = 1; return 0;
	default: return fail(c, "internal error: option %d", (int)id);
	}
}

static const char *shard_env(const char *name)
{
	return getenv(name);
}

static int start_at_opt(struct cli *c, const char *name, const char *v)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return shb_start_at_opt(name, v, now, &c->cfg->start_at_unix_ns,
				c->err, c->errlen);
}

static int apply_value(struct cli *c, enum opt_id id, const char *name,
		       const char *v)
{
	struct shb_config *cfg = c->cfg;

	if (shb_typed_note(&cfg->typed, name, v) < 0)
		return fail(c, "out of memory");
	switch (id) {
	case O_PROTO: return shb_cli_proto_opt(c, name, v);
	case O_REPORT: return shb_cli_report_opt(c, name, v);
	case O_PROTO_OPT: return shb_cli_plugin_opt(c, name, v, 0);
	case O_REPORT_OPT: return shb_cli_plugin_opt(c, name, v, 1);
	case O_CONNECTIONS:
		return number_opt32(c, name, v, 1, SHB_MAX_CONNECTIONS,
				    &cfg->connections);
	case O_PARALLEL:
		cfg->parallel_given = 1;
		return number_opt32(c, name, v, 1, SHB_MAX_PARALLEL,
				    &cfg->parallel);
	case O_REQUESTS:
		c->requests_given = 1;
		return number_opt(c, name, v, 1, SHB_MAX_REQUESTS,
				  &cfg->requests);
	case O_DURATION:
		c->duration_given = 1;
		return duration_opt(c, name, v, 0, &cfg->duration_ns);
	case O_THREADS:
		return number_opt32(c, name, v, 0, SHB_MAX_THREADS,
				    &cfg->threads);
	case O_METHOD: return shb_cli_method_opt(c, name, v);
	case O_HEADER: return shb_cli_header_opt(c, name, v);
	case O_DATA:
		if (shb_cli_hint_data(name, v, c->err, c->errlen) < 0)
			return -1;
		return shb_cli_data_opt(c, name, v, 1);
	case O_DATA_BINARY: return shb_cli_data_opt(c, name, v, 0);
	case O_BODY_LINES: return set_string(c, &cfg->body_lines, v);
	case O_URLS: return set_string(c, &cfg->urls_file, v);
	case O_SCRIPT: return set_string(c, &cfg->script, v);
	case O_CONNECT_TIMEOUT:
		return duration_opt(c, name, v, 0, &cfg->connect_timeout_ns);
	case O_TIMEOUT: return duration_opt(c, name, v, 1, &cfg->timeout_ns);
	case O_MAX_REDIRS:
		c->max_redirs_given = 1;
		return number_opt32(c, name, v, 0, SHB_MAX_REDIRS, &cfg->max_redirs);
	case O_BATCH_SIZE:
		return number_opt32(c, name, v, 0, SHB_MAX_BATCH,
				    &cfg->batch_size);
	case O_BATCH_LINGER:
		return number_opt32(c, name, v, 1, SHB_MAX_LINGER_US,
				    &cfg->batch_linger_us);
	case O_PLUGIN_DIR: return shb_cli_plugin_dir_opt(c, name, v);
	case O_CACERT: return shb_cli_cacert_opt(c, name, v);
	case O_SNI: return shb_cli_sni_opt(c, name, v);
	case O_CERT: return set_string(c, &c->cfg->cert, v);
	case O_KEY: return set_string(c, &c->cfg->key, v);
	case O_TLS_VERSION: return shb_cli_tls_version_opt(c, name, v);
	case O_CIPHERS: return shb_cli_ciphers_opt(c, name, v);
	case O_CONNECT_TO: return shb_cli_connect_to_opt(c, name, v);
	case O_RESOLVE: return shb_cli_resolve_opt(c, name, v);
	case O_SLO: return shb_cli_slo_opt(c, name, v);
	case O_PERCENTILES: {
		char perr[160];
		if (shb_percentiles_parse(v, cfg->percentiles, &cfg->percentile_count,
					  perr, sizeof(perr)) < 0)
			return fail(c, "%s: %s", name, perr);
		return 0;
	}
	case O_SUCCESS: return shb_success_opt(name, v, &cfg->success, c->err,
					      c->errlen);
	case O_WARMUP: return duration_opt(c, name, v, 1, &cfg->warmup_ns);
	case O_INTERVAL:
		if (duration_opt(c, name, v, 0, &cfg->interval_ns) < 0)
			return -1;
		if (cfg->interval_ns < SHB_INTERVAL_MIN_NS ||
		    cfg->interval_ns > SHB_INTERVAL_MAX_NS)
			return fail(c, "%s: expected 100ms to 1h, got \"%s\"", name,
				    shb_quote(v).s);
		return 0;
	case O_RATE: return shb_cli_rate_opt(c, name, v);
	case O_STAGES: return shb_cli_stages_opt(c, name, v);
	case O_SHARD:
		return shb_shard_parse(name, v, shard_env, &cfg->shard_index,
				       &cfg->shard_count, c->err, c->errlen);
	case O_START_AT: return start_at_opt(c, name, v);
	case O_UNIX_SOCKET: return shb_cli_unix_socket_opt(c, name, v);
	case O_PROXY: return set_string(c, &cfg->proxy, v);
	case O_NOPROXY: return set_string(c, &cfg->noproxy, v);
	case O_PRIORITY: return shb_cli_priority_opt(c, name, v);
	case O_SOURCE: return shb_cli_source_opt(c, name, v);
	default: return fail(c, "internal error: option %d", (int)id);
	}
}

static const struct opt_def *find_long(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].lng && strlen(opts[i].lng) == n &&
		    strncmp(opts[i].lng, s, n) == 0)
			return &opts[i];
	return NULL;
}

static const struct opt_def *find_short(char ch)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].shrt == ch)
			return &opts[i];
	return NULL;
}

/* Levenshtein distance of a[0..an) and b, for suggestions only: both
 * are short (an <= 40, option names < 40). */
static size_t edit_distance(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b), row[48];

	if (bn >= sizeof(row) / sizeof(row[0]))
		return SIZE_MAX;
	for (size_t j = 0; j <= bn; j++)
		row[j] = j;
	for (size_t i = 1; i <= an; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= bn; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[bn];
}

/* The known long option closest to a typo: at most 2 edits away, and
 * fewer than half the name's length, so that "--x" suggests nothing. */
static const char *nearest_long(const char *s, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (!opts[i].lng)
			continue;
		size_t d = edit_distance(s, n, opts[i].lng);
		if (d < best_d && d * 2 < n) {
			best = opts[i].lng;
			best_d = d;
		}
	}
	return best;
}

/* argv[*i] is "--name" or "--name=value". */
static int long_option(struct cli *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2;
	size_t n = strcspn(arg, "=");
	char name[48];

	snprintf(name, sizeof(name), "--%.*s", (int)(n < 40 ? n : 40), arg);
	const struct opt_def *o = find_long(arg, n);
	if (!o) {
		const char *near = n <= 40 ? nearest_long(arg, n) : NULL;
		if (near)
			return fail(c, "unknown option %s (did you mean --%s?)",
				    shb_quote(name).s, near);
		return fail(c, "unknown option %s%s", shb_quote(name).s,
			    n > 40 ? "..." : "");
	}
	if (!o->has_arg) {
		if (arg[n] == '=')
			return fail(c, "%s: takes no value", name);
		return apply_flag(c, o->id);
	}
	if (arg[n] == '=')
		return apply_value(c, o->id, name, arg + n + 1);
	if (*i + 1 >= argc)
		return fail(c, "%s: missing value", name);
	return apply_value(c, o->id, name, argv[++*i]);
}

/* argv[*i] is "-abc": flags cluster, and an option with a value takes the
 * rest of the word or, when that is empty, the next argument. */
static int short_options(struct cli *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];

	for (size_t k = 1; arg[k]; k++) {
		char name[3] = {'-', arg[k], '\0'};
		const struct opt_def *o = find_short(arg[k]);
		if (!o) {
			if (k > 1 || arg[2])
				return fail(c, "unknown option %s in \"%s\"",
					    shb_quote(name).s, shb_quote(arg).s);
			return fail(c, "unknown option %s", shb_quote(arg).s);
		}
		if (!o->has_arg) {
			if (apply_flag(c, o->id) < 0)
				return -1;
			continue;
		}
		if (arg[k + 1])
			return apply_value(c, o->id, name, arg + k + 1);
		if (*i + 1 >= argc)
			return fail(c, "%s: missing value", name);
		return apply_value(c, o->id, name, argv[++*i]);
	}
	return 0;
}

/* A target, `[label=]URL`; several make a comparison (compare.h). */
static int positional(struct cli *c, const char *arg)
{
	struct shb_config *cfg = c->cfg;
	const char *label, *url;
	size_t label_len;

	if (shb_target_split(arg, &label, &label_len, &url, c->err, c->errlen) < 0)
		return -1;
	for (size_t i = 0; label && i < cfg->target_count; i++)
		if (cfg->targets[i].label &&
		    strlen(cfg->targets[i].label) == label_len &&
		    memcmp(cfg->targets[i].label, label, label_len) == 0)
			return fail(c, "\"%s\": the label %s is given twice",
				    shb_quote(arg).s,
				    shb_quote_n(label, label_len).s);
	struct shb_target_arg *t = realloc(cfg->targets, (cfg->target_count + 1) *
					   sizeof(*t));
	if (!t)
		return fail(c, "out of memory");
	cfg->targets = t;
	t = &t[cfg->target_count];
	memset(t, 0, sizeof(*t));
	t->label = label ? strndup(label, label_len) : NULL;
	t->url_text = strdup(url);
	t->weight = 1;
	cfg->target_count++;
	if ((label && !t->label) || !t->url_text)
		return fail(c, "out of memory");
	if (!c->url)
		c->url = t->url_text;
	return 0;
}

static int scan(struct cli *c, int argc, char **argv)
{
	int options_done = 0;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int rc;
		if (options_done || arg[0] != '-' || arg[1] == '\0')
			rc = positional(c, arg);
		else if (strcmp(arg, "--") == 0 && c->cfg->script)
			return shb_cli_script_args(c, argc - i - 1, argv + i + 1);
		else if (strcmp(arg, "--") == 0)
			rc = 0, options_done = 1;
		else if (arg[1] == '-')
			rc = long_option(c, argc, argv, &i);
		else
			rc = short_options(c, argc, argv, &i);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int has_header(const struct shb_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->header_count; i++)
		if (strcasecmp(cfg->headers[i].name, name) == 0)
			return 1;
	return 0;
}

static int has_stdout_report(const struct shb_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->report_count; i++)
		if (!cfg->reports[i].path &&
		    strcmp(cfg->reports[i].name, name) == 0)
			return 1;
	return 0;
}

static int fill_defaults(struct cli *c)
{
	struct shb_config *cfg = c->cfg;

	if (!cfg->proto && set_string(c, &cfg->proto, "h1") < 0)
		return -1;
	if (c->max_redirs_given && !cfg->follow_redirects)
		return fail(c, "--max-redirs: redirects are followed only with "
			       "-L/--location (without it a 3xx is a status like "
			       "any other)");
	if (cfg->body_lines && cfg->has_body)
		return fail(c, "--body-lines and -d/--data-binary: give one "
			       "of them");
	cfg->has_body |= cfg->body_lines != NULL; /* the lines are bodies */
	if (!cfg->method &&
	    set_string(c, &cfg->method, cfg->has_body ? "POST" : "GET") < 0)
		return -1;
	if (cfg->has_body && !has_header(cfg, "content-type")) {
		static const char ct[] = "application/x-www-form-urlencoded";
		if (shb_cli_add_header(c, "Content-Type", 12, ct,
				       sizeof(ct) - 1) < 0)
			return -1;
	}
	if (c->json && !has_stdout_report(cfg, "json") &&
	    shb_cli_add_report(c, "json", 4, NULL, 0) < 0)
		return -1;
	if (cfg->report_count == 0 &&
	    shb_cli_add_report(c, "text", 4, NULL, 0) < 0)
		return -1;
	if (shb_cli_tui_report(c) < 0)
		return -1;
	if (!c->duration_given && !c->requests_given)
		cfg->requests = SHB_DEFAULT_REQUESTS;
	cfg->requests_all = cfg->requests; /* before --shard takes its part */
	return 0;
}

static void set_defaults(struct shb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->connections = 50;
	cfg->parallel = 1;
	cfg->connect_timeout_ns = SHB_DEFAULT_CONNECT_TIMEOUT_NS;
	cfg->max_redirs = SHB_DEFAULT_MAX_REDIRS;
	cfg->batch_linger_us = 0; /* automatic (core/engine/batch.h) */
	cfg->shard_count = 1;
}

static int cli_parse(int argc, char **argv, struct shb_config *cfg, char *err,
		     size_t errlen)
{
	struct cli c = {.cfg = cfg, .err = err, .errlen = errlen};

	if (err && errlen)
		err[0] = '\0';
	set_defaults(cfg);
	if (scan(&c, argc, argv) < 0)
		return -1;
	if (cfg->help || cfg->version)
		return 1;
	if (c.requests_given && c.duration_given)
		return fail(&c, "-n/--requests and -z/--duration cannot be "
				"combined: give a request count or a duration");
	if (shb_cli_finish_open_loop(&c) < 0 || shb_cli_check_framing(&c) < 0 ||
	    fill_defaults(&c) < 0 || shb_shard_apply(cfg, err, errlen) < 0 ||
	    shb_cli_check_route_opts(&c) < 0)
		return -1;
	if (shb_cli_finish_targets(&c) < 0)
		return -1;
	if (!c.url) {
		if (cfg->list_plugins)
			return 0;
		return fail(&c, "missing URL (usage: shb [options] URL)");
	}
	if (shb_cli_check_targets(&c) < 0 || shb_cli_check_script(&c) < 0)
		return -1;
	if (set_string(&c, &cfg->url_text, c.url) < 0)
		return -1;
	if (shb_url_parse_any(c.url, &cfg->url, err, errlen) < 0 ||
	    shb_cli_check_source(&c) < 0)
		return -1;
	/* http and https are settled now, as every protocol without
	 * scheme_defs serves them; other schemes wait for the protocol. */
	if (shb_url_find_scheme(NULL, cfg->url.scheme))
		return shb_cli_set_scheme(cfg, &cfg->url, cfg->url_text, NULL,
					  NULL, err, errlen);
	return 0;
}

int shb_cli_parse(int argc, char **argv, struct shb_config *cfg, char *err,
		  size_t errlen)
{
	int rc = cli_parse(argc, argv, cfg, err, errlen);

	if (rc < 0)
		shb_err_one_line(err, errlen);
	return rc;
}
