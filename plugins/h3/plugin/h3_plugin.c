/* The HTTP/3 protocol plugin: entry point, descriptor, module and
 * prepared requests. The connections are in h3_conn.c and h3_events.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>

#include "h3_conn.h"
#include "h3_request.h"

/* Written once by init, read-only afterwards (plugin.h allows this). */
static const struct shb_host *g_host;

static int h3_check_config(const struct shb_run_config *cfg, char *err,
			   size_t errlen)
{
	if (cfg->option_count > 0) {
		snprintf(err, errlen, "h3: unknown option '%s' (h3 has none)",
			 cfg->options[0].key ? cfg->options[0].key : "");
		return SHB_E_INVAL;
	}
	if (!(cfg->flags & SHB_RUN_TLS)) {
		snprintf(err, errlen, "h3: HTTP/3 runs over QUIC, which needs an "
			 "https:// URL");
		return SHB_E_INVAL;
	}
	if (cfg->parallel > 4096) {
		snprintf(err, errlen, "h3: -p %u is above 4096", cfg->parallel);
		return SHB_E_INVAL;
	}
	return SHB_OK;
}

static void h3_module_destroy(void *module)
{
	struct shb_h3_module *m = module;

	if (!m)
		return;
	shb_quic_tls_ctx_deinit(&m->tls);
	free(m->server_name);
	free(m);
}

static int h3_module_create(const struct shb_host *host,
			    const struct shb_run_config *cfg, void **module,
			    char *err, size_t errlen)
{
	struct shb_quic_tls_config tc;
	struct shb_h3_module *m;
	char terr[200] = "";
	int rc;

	if (g_host)
		host = g_host;
	if (!host || !cfg || !SHB_HAS(cfg, struct shb_run_config, option_count)) {
		snprintf(err, errlen, "h3: missing host or run configuration");
		return SHB_E_INVAL;
	}
	rc = h3_check_config(cfg, err, errlen);
	if (rc < 0)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m || (cfg->host && !(m->server_name = strdup(cfg->host)))) {
		free(m);
		snprintf(err, errlen, "h3: out of memory");
		return SHB_E_NOMEM;
	}
	m->host = host;
	m->ops = &shb_h3_quic_ops_real;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	m->run_flags = cfg->flags;
	/* Asked once: tracing is decided for the whole run. */
	m->debug = host->log_enabled && host->log &&
		   host->log_enabled(SHB_LOG_DEBUG) != 0;
	m->trace = m->debug && host->log_enabled(SHB_LOG_TRACE) != 0;
	m->handshake_timeout = cfg->connect_timeout_ns;
	m->idle_timeout = cfg->request_timeout_ns > SHB_H3_MIN_IDLE_NS ?
				  cfg->request_timeout_ns : SHB_H3_MIN_IDLE_NS;
	/* Certificates are verified only when asked (--verify, --cacert),
	 * as for TLS over TCP; a core older than ABI 1.1 cannot ask. */
	memset(&tc, 0, sizeof(tc));
	if (SHB_HAS(cfg, struct shb_run_config, cafile) &&
	    cfg->tls_verify != SHB_TLS_VERIFY_NONE) {
		tc.verify = true;
		tc.ca_file = cfg->tls_verify == SHB_TLS_VERIFY_CAFILE ? cfg->cafile : NULL;
	}
	if (shb_quic_tls_ctx_init(&m->tls, &tc, terr, sizeof(terr)) != 0) {
		snprintf(err, errlen, "h3: TLS setup failed: %s",
			 terr[0] ? terr : "GnuTLS error");
		free(m->server_name);
		free(m);
		return SHB_E_TLS;
	}
	*module = m;
	return SHB_OK;
}

static int h3_prepare_request(void *module, const struct shb_request *req,
			      void **prepared, char *err, size_t errlen)
{
	struct shb_h3_request *r = NULL;
	int rc;

	(void)module;
	if (!req || !SHB_HAS(req, struct shb_request, body_len)) {
		snprintf(err, errlen, "h3: missing request template");
		return SHB_E_INVAL;
	}
	rc = shb_h3_request_encode(req, &r, err, errlen);
	if (rc == SHB_OK)
		*prepared = r;
	return rc;
}

static void h3_release_request(void *module, void *prepared)
{
	(void)module;
	shb_h3_request_free(prepared);
}

static int h3_worker_init(void *module, void *worker, uint32_t index)
{
	struct shb_h3_worker *w = worker;

	(void)module;
	if (w) {
		memset(w, 0, sizeof(*w));
		w->index = index;
	}
	return SHB_OK;
}

static const struct shb_proto_vtable h3_vtable = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = h3_module_create,
	.module_destroy = h3_module_destroy,
	.prepare_request = h3_prepare_request,
	.release_request = h3_release_request,
	.worker_init = h3_worker_init,
	.worker_fini = NULL,
	.conn_init = shb_h3_conn_init,
	.conn_fini = shb_h3_conn_fini,
	.on_transport_ready = shb_h3_conn_transport_ready,
	.recv = NULL,
	.recv_eof = NULL,
	.pull_send = NULL,
	.sent = NULL,
	.recv_dgrams = shb_h3_conn_recv_dgrams,
	.write_dgrams = shb_h3_conn_write_dgrams,
	.next_deadline = shb_h3_conn_next_deadline,
	.on_timer = shb_h3_conn_on_timer,
	.state = shb_h3_conn_state,
	.capacity = shb_h3_conn_capacity,
	.issue = shb_h3_conn_issue,
	.cancel = shb_h3_conn_cancel,
	.shutdown = shb_h3_conn_shutdown,
	.error_detail = shb_h3_conn_error_detail,
};

static const char *const h3_schemes[] = {"https", NULL};
static const char *const h3_alpn[] = {"h3", NULL};

static const struct shb_proto_desc h3_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_DGRAM,
	.flags = SHB_PROTO_MULTIPLEXED,
	.name = "h3",
	.display_name = "HTTP/3",
	.summary = "HTTP/3 over QUIC v1 (own client on GnuTLS, UDP GSO), "
		   "many streams per connection",
	.schemes = h3_schemes,
	.alpn = h3_alpn,
	.worker_size = sizeof(struct shb_h3_worker),
	.conn_size = sizeof(struct shb_h3_conn),
	.vt = &h3_vtable,
	.max_dgram = 1200, /* no path MTU discovery (RFC 9000 14.1) */
};

static const struct shb_proto_desc *h3_factory_get(uint32_t index)
{
	return index == 0 ? &h3_desc : NULL;
}

static const struct shb_proto_factory h3_factory = {
	.struct_size = sizeof(struct shb_proto_factory),
	.count = 1,
	.get = h3_factory_get,
};

static int h3_init(const struct shb_host *host)
{
	if (!host || !SHB_HAS(host, struct shb_host, conn_event) ||
	    !host->req_done || !host->conn_event || !host->log)
		return SHB_E_UNSUPPORTED;
	g_host = host;
	return SHB_OK;
}

static void h3_deinit(void)
{
	g_host = NULL;
}

static const void *h3_get_factory(const char *factory_id)
{
	if (factory_id && strcmp(factory_id, SHB_FACTORY_PROTOCOL) == 0)
		return &h3_factory;
	return NULL;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_TARGET_ABI_MINOR,
	.flags = 0,
	.id = SHB_H3_PLUGIN_ID,
	.version = SHB_VERSION_STRING,
	.vendor = "shb",
	.url = NULL,
	.license = "MIT",
	.init = h3_init,
	.deinit = h3_deinit,
	.get_factory = h3_get_factory,
};
