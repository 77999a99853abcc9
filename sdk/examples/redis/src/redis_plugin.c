/* The Redis protocol plugin: options, the per-connection hello (AUTH,
 * SELECT), per-worker {seq}/{rand} state, the descriptor with its
 * request model and outcome names, and the entry (SHB_PLUGIN_DEFINE).
 *
 * Built for ABI 1.4 (the default target of the 1.4 headers): a request
 * model other than HTTP and named outcomes are 1.4 members, so the entry
 * says abi_minor 4 and an older core refuses to load it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>
#include <shb/define.h>

#include "redis_conn.h"

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

/* Decimal 0..max, nothing else. */
static int parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (!v || !*v)
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
		if (n > max)
			return -1;
	}
	*out = n;
	return 0;
}

/* The options: the command's parts aside, each checked as it comes.
 * Errors carry no "redis:" prefix (shb prints "protocol redis: ") and
 * never quote auth. */
static int take_option(struct redis_module *m, const struct shb_kv *o,
		       const char **parts, char *err, size_t errlen)
{
	uint64_t n;

	if (strcmp(o->key, "command") == 0 || strcmp(o->key, "key") == 0 ||
	    strcmp(o->key, "value") == 0) {
		parts[o->key[0] == 'c' ? 0 : o->key[0] == 'k' ? 1 : 2] = o->value;
		return 0;
	}
	if (strcmp(o->key, "database") == 0) {
		if (parse_u64(o->value, INT32_MAX, &n))
			goto bad_number;
		m->database = (int64_t)n;
	} else if (strcmp(o->key, "auth") == 0 || strcmp(o->key, "user") == 0) {
		char **dst = o->key[0] == 'a' ? &m->auth : &m->user;

		if (!o->value || !*o->value || strlen(o->value) > 1024) {
			snprintf(err, errlen, "%s must be 1 to 1024 bytes", o->key);
			return -1;
		}
		free(*dst);
		*dst = dup_str(o->value);
		if (!*dst) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	} else if (strcmp(o->key, "range") == 0) {
		if (parse_u64(o->value, UINT32_MAX, &m->range) || !m->range)
			goto bad_number;
	} else if (strcmp(o->key, "max-bulk") == 0) {
		if (parse_u64(o->value, RESP_BULK_LIMIT, &m->max_bulk))
			goto bad_number;
	} else {
		snprintf(err, errlen, "unknown option '%s' (known: command, key, value, "
			 "database, auth, user, range, max-bulk)", o->key);
		return -1;
	}
	return 0;
bad_number:
	snprintf(err, errlen, "%s must be a number (%s), not '%s'", o->key,
		 o->key[0] == 'd' ? "0 to 2147483647" :
		 o->key[0] == 'r' ? "1 to 4294967295" : "0 to 536870912",
		 o->value ? o->value : "");
	return -1;
}

static void module_free(struct redis_module *m)
{
	redis_cmd_free(&m->cmd);
	free(m->auth);
	free(m->user);
	free(m);
}

static int check_module(struct redis_module *m, const struct shb_run_config *cfg,
			const char **parts, char *err, size_t errlen)
{
	if (cfg->parallel > REDIS_PIPE_MAX) {
		snprintf(err, errlen, "-p %u: at most %u replies awaited per connection",
			 cfg->parallel, REDIS_PIPE_MAX);
		return -1;
	}
	if (m->user && !m->auth) {
		snprintf(err, errlen, "user needs auth (the password)");
		return -1;
	}
	if (redis_cmd_build(&m->cmd, parts[0] ? parts[0] : "PING", parts[1],
			    parts[2], err, errlen))
		return -1;
	if (m->cmd.max_len * m->parallel > REDIS_BUF_MAX) {
		snprintf(err, errlen, "-p %u commands of up to %zu bytes: more than "
			 "64 MiB queued per connection", m->parallel, m->cmd.max_len);
		return -1;
	}
	return 0;
}

static int redis_module_create(const struct shb_host *host,
			       const struct shb_run_config *cfg, void **module,
			       char *err, size_t errlen)
{
	struct redis_module *m = calloc(1, sizeof(*m));
	const char *parts[3] = {NULL, NULL, NULL}; /* command, key, value */

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	m->host = host;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	m->threads = cfg->threads ? cfg->threads : 1;
	m->once = (cfg->flags & SHB_RUN_DISABLE_KEEPALIVE) != 0;
	m->max_bulk = RESP_BULK_DEFAULT;
	m->range = REDIS_RANGE_DEFAULT;
	m->database = -1;
	for (size_t i = 0; i < cfg->option_count; i++)
		if (take_option(m, &cfg->options[i], parts, err, errlen))
			goto fail;
	if (check_module(m, cfg, parts, err, errlen))
		goto fail;
	*module = m;
	return SHB_OK;
fail:
	module_free(m);
	return SHB_E_INVAL;
}

static void redis_module_destroy(void *module)
{
	module_free(module);
}

/* The URL's path: "/" or empty, or "/N" for database N as redis-cli's
 * URLs have it (the database option wins when both agree). */
static int path_database(const char *path, int64_t *db, char *err, size_t errlen)
{
	uint64_t n;

	*db = -1;
	if (!path || !path[0] || strcmp(path, "/") == 0)
		return 0;
	if (path[0] != '/' || parse_u64(path + 1, INT32_MAX, &n)) {
		snprintf(err, errlen, "the URL's path must be empty or /DATABASE "
			 "(a number), not '%s'", path);
		return -1;
	}
	*db = (int64_t)n;
	return 0;
}

static int build_hello(const struct redis_module *m, int64_t db,
		       struct redis_prepared *p)
{
	char num[24];
	const char *auth[3] = {"AUTH", m->user ? m->user : m->auth, m->auth};
	const char *sel[2] = {"SELECT", num};

	if (m->auth) {
		if (redis_cmd_literal(&p->hello, auth, m->user ? 3 : 2))
			return -1;
		p->hello_names[p->hello_count++] = "AUTH";
	}
	if (db >= 0) {
		snprintf(num, sizeof num, "%lld", (long long)db);
		if (redis_cmd_literal(&p->hello, sel, 2))
			return -1;
		p->hello_names[p->hello_count++] = "SELECT";
	}
	return 0;
}

static int redis_prepare_request(void *module, const struct shb_request *req,
				 void **prepared, char *err, size_t errlen)
{
	struct redis_module *m = module;
	struct redis_prepared *p;
	int64_t db;

	if (path_database(req->path, &db, err, errlen))
		return SHB_E_INVAL;
	if (m->database >= 0 && db >= 0 && db != m->database) {
		snprintf(err, errlen, "database=%lld and the URL's /%lld disagree",
			 (long long)m->database, (long long)db);
		return SHB_E_INVAL;
	}
	if (m->database >= 0)
		db = m->database;
	p = calloc(1, sizeof *p);
	if (!p || build_hello(m, db, p)) {
		if (p)
			redis_buf_free(&p->hello);
		free(p);
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	*prepared = p;
	return SHB_OK;
}

static void redis_release_request(void *module, void *prepared)
{
	struct redis_prepared *p = prepared;

	(void)module;
	redis_buf_free(&p->hello);
	free(p);
}

static int redis_worker_init(void *module, void *worker, uint32_t index)
{
	const struct redis_module *m = module;
	struct redis_worker *w = worker;

	w->index = index;
	w->threads = m->threads;
	if (m->host->random_secure(&w->rng, sizeof w->rng) != SHB_OK || !w->rng)
		w->rng = 0x9e3779b97f4a7c15ull ^ index;
	return SHB_OK;
}

static const struct shb_proto_vtable redis_vtable = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = redis_module_create,
	.module_destroy = redis_module_destroy,
	.prepare_request = redis_prepare_request,
	.release_request = redis_release_request,
	.worker_init = redis_worker_init,
	.conn_init = redis_conn_init,
	.conn_fini = redis_conn_fini,
	.on_transport_ready = redis_conn_ready,
	.recv = redis_conn_recv,
	.recv_eof = redis_conn_recv_eof,
	.pull_send = redis_conn_pull_send,
	.sent = redis_conn_sent,
	/* No timers: --timeout is the core's, which cancels. No issue_var:
	 * the core offers no template to a request model without HTTP
	 * requests; {seq} and {rand} are this plugin's own. */
	.state = redis_conn_state,
	.capacity = redis_conn_capacity,
	.issue = redis_conn_issue,
	.cancel = redis_conn_cancel,
	.shutdown = redis_conn_shutdown,
	.error_detail = redis_conn_error_detail,
};

static const char *const redis_schemes[] = {"redis", "rediss", NULL};
static const struct shb_scheme redis_scheme_defs[] = {
	{"redis", 6379, 0},
	{"rediss", 6379, SHB_SCHEME_TLS},
	{NULL, 0, 0},
};
static const struct shb_option_def redis_options[] = {
	{"command", "WORDS", "the command, words separated by spaces (default PING)"},
	{"key", "KEY", "an argument after the command; {seq} and {rand} are replaced"},
	{"value", "VALUE", "an argument after the key; {seq} and {rand} are replaced"},
	{"database", "N", "SELECT N on each connection (or the URL's /N)"},
	{"auth", "PASSWORD", "AUTH on each connection (never printed)"},
	{"user", "NAME", "the ACL user for AUTH (with auth)"},
	{"range", "N", "{rand} is 0 to N-1 (default 1000000)"},
	{"max-bulk", "BYTES", "longest bulk string accepted in a reply (default 1048576)"},
	{NULL, NULL, NULL},
};
static const struct shb_outcome_code redis_codes[] = {
	{RESP_OK, "ok", 1, 0},
	{RESP_NIL, "nil", 1, 0},
	{RESP_ERROR, "error", 0, 0},
	{0, NULL, 0, 0},
};
static const struct shb_outcome_space redis_spaces[] = {
	{REDIS_SPACE, 0, "redis", redis_codes},
	{0, 0, NULL, NULL},
};

/* What the report shows beside the requests (indexes: enum
 * redis_metric). */
static const struct shb_metric_def redis_metrics[REDIS_METRIC_COUNT] = {
	[REDIS_METRIC_DEPTH] = {SHB_METRIC_VALUE, 0, "redis_pipeline_depth",
				"commands", "commands in flight on the "
				"connection as each is sent, itself included"},
};

static const struct shb_proto_desc redis_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.flags = SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED,
	.name = "redis",
	.display_name = "Redis",
	.summary = "Redis (RESP2): one command per request, pipelined with -p",
	.schemes = redis_schemes,
	.worker_size = sizeof(struct redis_worker),
	.conn_size = sizeof(struct redis_conn),
	.vt = &redis_vtable,
	.scheme_defs = redis_scheme_defs,
	.option_defs = redis_options,
	.request_model = SHB_REQMODEL_NONE,
	.outcome_spaces = redis_spaces,
	.metrics = redis_metrics,
	.metric_count = REDIS_METRIC_COUNT,
};

SHB_PLUGIN_DEFINE(REDIS_PLUGIN_ID, "1.0.0", NULL, NULL,
		  SHB_PROTOCOLS(&redis_desc), SHB_NO_REPORTERS);
