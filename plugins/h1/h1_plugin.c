/* The HTTP/1.1 protocol plugin: entry point, descriptor and module. */
#include <stdio.h>
#include <stdlib.h>

#include <shb/shb.h>
#include <shb/define.h>

#include "h1_conn.h"
#include "h1_request.h"

/* Written once by init, read-only afterwards (plugin.h allows this). */
static const struct shb_host *g_host;

static int h1_module_create(const struct shb_host *host,
			    const struct shb_run_config *cfg, void **module,
			    char *err, size_t errlen)
{
	struct shb_h1_module *m;

	/* The table from init() is the one the plugin contract names. */
	if (g_host)
		host = g_host;
	if (!host || !cfg || !SHB_HAS(cfg, struct shb_run_config, option_count)) {
		snprintf(err, errlen, "h1: missing host or run configuration");
		return SHB_E_INVAL;
	}
	if (cfg->option_count > 0) {
		const char *key = cfg->options && cfg->options[0].key
					  ? cfg->options[0].key
					  : "";
		snprintf(err, errlen, "h1: unknown option '%s' (h1 has none)",
			 key);
		return SHB_E_INVAL;
	}
	uint32_t depth = cfg->parallel ? cfg->parallel : 1;
	if (depth > SHB_H1_PIPE_MAX) {
		snprintf(err, errlen, "h1: -p %u: HTTP/1.1 pipelines at most %u "
			 "requests per connection", depth, SHB_H1_PIPE_MAX);
		return SHB_E_INVAL;
	}
	if (depth > 1 && (cfg->flags & SHB_RUN_DISABLE_KEEPALIVE)) {
		snprintf(err, errlen, "h1: -p %u pipelines requests on a "
			 "connection that --disable-keepalive closes after "
			 "the first", depth);
		return SHB_E_INVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "h1: out of memory");
		return SHB_E_NOMEM;
	}
	m->host = host;
	m->run_flags = cfg->flags;
	m->depth = depth;
	/* A pre-1.4 core never sets SHB_RUN_WANT_RESPONSE. */
	if ((cfg->flags & SHB_RUN_WANT_BODY) &&
	    SHB_HAS(cfg, struct shb_run_config, response_body_max))
		m->body_max = cfg->response_body_max;
	/* Asked once: the log level is fixed for the run, and the hot path
	 * should not pay an indirect call per response to stay quiet. */
	m->debug = host->log_enabled && host->log &&
		   host->log_enabled(SHB_LOG_DEBUG) != 0;
	*module = m;
	return SHB_OK;
}

static void h1_module_destroy(void *module)
{
	free(module);
}

static int h1_prepare_request(void *module, const struct shb_request *req,
			      void **prepared, char *err, size_t errlen)
{
	const struct shb_h1_module *m = module;
	struct shb_h1_request *r = NULL;
	int rc;

	if (!req || !SHB_HAS(req, struct shb_request, body_len)) {
		snprintf(err, errlen, "h1: missing request template");
		return SHB_E_INVAL;
	}
	rc = shb_h1_request_encode(req, m->run_flags, &r, err, errlen);
	if (rc == SHB_OK)
		*prepared = r;
	return rc;
}

static void h1_release_request(void *module, void *prepared)
{
	shb_h1_request_free(prepared);
}

static const struct shb_proto_vtable h1_vtable = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = h1_module_create,
	.module_destroy = h1_module_destroy,
	.prepare_request = h1_prepare_request,
	.release_request = h1_release_request,
	.worker_init = NULL,
	.worker_fini = NULL,
	.conn_init = shb_h1_conn_init,
	.conn_fini = shb_h1_conn_fini,
	.on_transport_ready = shb_h1_conn_transport_ready,
	.recv = shb_h1_conn_recv,
	.recv_eof = shb_h1_conn_recv_eof,
	.pull_send = shb_h1_conn_pull_send,
	.sent = shb_h1_conn_sent,
	.recv_dgrams = NULL,
	.write_dgrams = NULL,
	.next_deadline = shb_h1_conn_next_deadline,
	.on_timer = shb_h1_conn_on_timer,
	.state = shb_h1_conn_state,
	.capacity = shb_h1_conn_capacity,
	.issue = shb_h1_conn_issue,
	.issue_var = shb_h1_conn_issue_var,
	.issue_req = shb_h1_conn_issue_req,
	.cancel = shb_h1_conn_cancel,
	.shutdown = shb_h1_conn_shutdown,
	.error_detail = shb_h1_conn_error_detail,
};

/* No options: the core refuses every --proto-opt key itself, naming it. */
static const struct shb_option_def h1_option_defs[] = {
	{NULL, NULL, NULL},
};

static const char *const h1_schemes[] = {"http", "https", NULL};
static const char *const h1_alpn[] = {"http/1.1", NULL};

static const struct shb_proto_desc h1_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	/* Multiplexed in the core's sense: -p requests in flight, here
	 * pipelined and answered in order. */
	.flags = SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED |
		 SHB_PROTO_ABSOLUTE_FORM,
	.name = "h1",
	.display_name = "HTTP/1.1",
	.summary = "HTTP/1.1 over TCP or TLS, up to -p requests pipelined per connection",
	.schemes = h1_schemes,
	.alpn = h1_alpn,
	.worker_size = 0,
	.conn_size = sizeof(struct shb_h1_conn),
	.vt = &h1_vtable,
	.option_defs = h1_option_defs,
};

static int h1_init(const struct shb_host *host)
{
	if (!host || !SHB_HAS(host, struct shb_host, req_done) ||
	    !host->req_done)
		return SHB_E_UNSUPPORTED;
	g_host = host;
	return SHB_OK;
}

static void h1_deinit(void)
{
	g_host = NULL;
}

/* The entry, the protocol factory over h1_desc and get_factory. */
SHB_PLUGIN_DEFINE_FULL(SHB_H1_PLUGIN_ID, SHB_VERSION_STRING, "shb", NULL, "MIT",
		       h1_init, h1_deinit, NULL, SHB_PROTOCOLS(&h1_desc),
		       SHB_NO_REPORTERS);
