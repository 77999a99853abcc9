/* The run configuration, as parsed from the command line. */
#ifndef SHB_CORE_CONFIG_H
#define SHB_CORE_CONFIG_H

/* --interval's bounds (and its default when a reporter asks for samples). */
#define SHB_INTERVAL_MIN_NS 100000000ull
#define SHB_INTERVAL_MAX_NS 3600000000000ull
#define SHB_INTERVAL_DEFAULT_NS 1000000000ull

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <shb/results.h>

#include "cli/duration.h" /* shb_parse_duration, for every user of the config */
#include "cli/percentiles.h"
#include "cli/route.h"
#include "cli/slo.h"
#include "cli/success.h"
#include "cli/typed.h"
#include "cli/url.h"
/* --help, --version and the stdout warning, for the caller that prints
 * them (main.c) */
#include "cli/cli_usage.h"

/* The largest request body (-d, --data-binary, all parts joined): a body
 * is held in memory and copied by each protocol plugin, and a source that
 * never ends (/dev/zero, an endless pipe) must fail, not fill memory. */
#define SHB_MAX_BODY ((size_t)64 << 20)
#define SHB_MAX_BODY_TEXT "64 MiB"

struct shb_header {
	char *name;  /* as typed */
	char *value; /* leading/trailing blanks trimmed */
};

struct shb_report_spec {
	char *name; /* reporter name or path to a .so */
	char *path; /* output file, or NULL for stdout */
};

/* One --proto-opt KEY[=VALUE] or --report-opt NAME.KEY[=VALUE]. */
struct shb_plugin_opt {
	char *text;   /* the option's value as typed, for messages */
	char *plugin; /* --report-opt: the reporter's NAME; NULL otherwise */
	char *key;
	char *value;  /* NULL for KEY alone (a flag) */
};

/* One target: a positional `[label=]URL` (`URL@WEIGHT` with --mix), or
 * a line of --urls FILE (targets.h). */
struct shb_target_arg {
	char *label;    /* the label before '=', or NULL */
	char *url_text; /* the URL after it (without any @WEIGHT) */
	uint32_t weight;  /* --mix, --urls: 1 by default */
	char *method;     /* --urls: the line's method, or NULL for -m's */
	char *body_file;  /* --urls: the line's body file, or NULL for -d's */
	uint8_t *body;    /* ... its bytes, read */
	size_t body_len;
	int line;         /* --urls: the line it came from; 0 otherwise */
};

struct shb_source;

#define SHB_MAX_THREADS 4096u /* -t */

struct shb_config {
	char *url_text;         /* the first target's URL as typed */
	/* Parsed; for a scheme other than http and https, the scheme's TLS
	 * flag, default port and authority are left unset: a run's URL,
	 * settled for its protocol, is its plan's (plan.h). */
	struct shb_url url;
	char *proto;            /* --proto NAME|PATH; default "h1" */
	int proto_given;        /* --proto, --http2 or --http3 was given */
	struct shb_plugin_opt *proto_opts;  /* --proto-opt, in order */
	size_t proto_opt_count;
	struct shb_plugin_opt *report_opts; /* --report-opt, in order */
	size_t report_opt_count;
	struct shb_report_spec *reports; /* --report LIST; default text */
	size_t report_count;
	uint32_t connections;   /* -c, default 50 */
	uint32_t parallel;      /* -p, default 1 */
	/* -p was given: a script's request() string is then a unit that
	 * waits for room in -p, no longer the pipeline itself. */
	int parallel_given;
	uint32_t threads;       /* -t, 0 = automatic, at most SHB_MAX_THREADS */
	uint64_t requests;      /* -n; 200 when neither -n nor -z */
	uint64_t duration_ns;   /* -z; 0 in count mode */
	char *method;           /* -m/-X; GET, or POST with -d */
	struct shb_header *headers; /* -H in order, without Host */
	size_t header_count;
	char *host_header;      /* value of a -H "Host: ..." or NULL */
	uint8_t *body;          /* -d / --data-binary */
	size_t body_len;
	int has_body;
	uint64_t connect_timeout_ns; /* default 5 s */
	uint64_t timeout_ns;         /* --timeout, 0 = none */
	int disable_keepalive;
	/* -L: follow 301, 302, 303, 307 and 308 with issue_req (redirect.h),
	 * at most max_redirs hops per chain (--max-redirs; default 50, as
	 * curl's; 0: a redirect is an error). */
	int follow_redirects;
	uint32_t max_redirs;
	uint32_t batch_size;         /* 0 = automatic, max 4096 */
	uint32_t batch_linger_us;    /* 1..1000000; 0 = automatic (batch.h) */
	char **plugin_dirs;          /* --plugin-dir, in order */
	size_t plugin_dir_count;
	int list_plugins;
	int dry_run;                 /* --dry-run: print the plan (plan.h) */
	int verify;                  /* --verify */
	int tls_resume;              /* --tls-resume */
	char *cacert;                /* --cacert FILE */
	char *sni;                   /* --sni NAME, or NULL */
	char *cert;                  /* --cert FILE: client certificate (PEM) */
	char *key;                   /* --key FILE: its key; NULL: in --cert */
	uint32_t tls_version;        /* --tls-version: 0x0303, 0x0304; 0 any */
	char *ciphers;               /* --ciphers: a GnuTLS priority string */
	struct shb_connect_to *connect_to; /* --connect-to, in order */
	size_t connect_to_count;
	struct shb_resolve *resolve; /* --resolve, in order */
	size_t resolve_count;
	int family;                  /* -4/-6: AF_INET/AF_INET6, else AF_UNSPEC */
	char *unix_socket;           /* --unix-socket PATH, or NULL */
	char *proxy;                 /* --proxy URL ("" = none), or NULL: the
				      * environment's (proxy.h) */
	char *noproxy;               /* --noproxy LIST, or NULL: NO_PROXY's */
	char *priority;              /* --priority, checked; also in headers */
	int quiet;                   /* -q: no progress line */
	/* --tui, or --report tui: the full-screen view (the reporter "tui",
	 * first in `reports`); quiet is then set too */
	int tui;
	uint64_t warmup_ns;          /* --warmup: load not measured, 0 = none */
	uint64_t interval_ns;        /* --interval as given, 0 = not given
				      * (the plan's interval_ns is the run's) */
	/* Open loop (schedule.h): -R N sets rate_milli (requests/s x 1000);
	 * -R A:B (one stage over -z) and --stages set stages instead, and
	 * --stages sets duration_ns to their sum. Closed loop: 0 and NULL. */
	uint64_t rate_milli;
	struct shb_stage *stages;
	size_t stage_count;
	struct shb_slo *slos;        /* --slo, in order */
	size_t slo_count;
	uint32_t percentiles[SHB_PCT_MAX]; /* --percentiles, ppm ascending */
	size_t percentile_count;     /* 0: the reporters' default list */
	struct shb_success success;  /* --success; .given 0: every status */
	/* --shard I/N (shard.h): -n, -c and the rates above are already
	 * this shard's parts. 0 and 1 without --shard. */
	uint32_t shard_index;
	uint32_t shard_count;
	uint64_t start_at_unix_ns;   /* --start-at (start_at.h), 0 without */
	/* The positional targets in order (at least one unless
	 * --list-plugins). More than one is a comparison (compare.h): one
	 * run per target, one after another; url_text and url hold the
	 * first, as parsed: each run's own is its plan's (plan.h). */
	struct shb_target_arg *targets;
	size_t target_count;
	/* --mix, or --urls FILE: the targets are one mixed run (targets.h)
	 * instead of a comparison. */
	int mix;
	char *urls_file;
	/* -n before --shard took this shard's part (shard.c): the mixed
	 * run's place in the request sequence. Equal to requests without. */
	uint64_t requests_all;
	/* --body-lines FILE (template.h): one body per line, requests take
	 * them in turn; has_body is set with it. NULL without. */
	char *body_lines;
	/* Some of the body came from --data-binary, whose bytes are sent
	 * unchanged: the body is then no template. */
	int body_verbatim;
	/* --source (source.h): the local addresses connections bind to,
	 * owned by the config; NULL without. Sets family. */
	struct shb_source *source;
	/* Options as typed (typed.h): the first HTTP request option,
	 * --connect-to, --resolve and --source, for refusals and reports. */
	struct shb_typed typed;
	/* -s FILE (cli_script.h): the script a script engine runs (its
	 * extension names the engine), and the arguments after "--" for its
	 * init(); NULL and 0 without. */
	char *script;
	char **script_args;
	size_t script_arg_count;
	int help;
	int version;
};

/* The configuration's life cycle: shb_cli_parse (cli.c) fills it from
 * argv, shb_config_free (config.c) releases it.
 *
 * Parses argv. Returns 0 when a run (or --list-plugins) should follow,
 * 1 when --help or --version was asked (cfg->help / cfg->version set, the
 * caller prints), and -1 on invalid input with one line (no newline) in err
 * that names what is wrong. Defaults are filled in. Always call
 * shb_config_free afterwards. The config is read-only from then on (const
 * to everything after the parse): what a run derives from it is its plan
 * (plan/plan.h). */
int shb_cli_parse(int argc, char **argv, struct shb_config *cfg, char *err,
		  size_t errlen);
/* -s: the language a script file asks for, its extension without the dot
 * ("lua" for "auth.lua"; cli_script.c), or NULL when it has none.
 * Borrowed from file. */
const char *shb_script_lang(const char *file);
void shb_config_free(struct shb_config *cfg);

#endif
