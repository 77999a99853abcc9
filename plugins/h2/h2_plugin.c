/* The HTTP/2 protocol plugin: entry point, descriptor and module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>
#include <shb/define.h>

#include "h2_conn.h"
#include "h2_request.h"

/* Written once by init, read-only afterwards (plugin.h allows this). */
static const struct shb_host *g_host;

/* What h2 calls on a host: init checks the core's, module_create the one
 * it is given. */
static int host_usable(const struct shb_host *host)
{
	return host && SHB_HAS(host, struct shb_host, conn_event) &&
	       host->req_done && host->log;
}

static const struct shb_option_def h2_option_defs[] = {
	{"priority-update", "auto|off",
	 "auto (default): an RFC 9218 PRIORITY_UPDATE frame before the "
	 "HEADERS of each request with a Priority field, unless the server's "
	 "SETTINGS lack NO_RFC7540_PRIORITIES=1; off: the header alone"},
	{"profile", "chrome|firefox|curl|shb",
	 "what the connection looks like to a server: that client's "
	 "SETTINGS, WINDOW_UPDATE, PRIORITY frames, pseudo-header order, "
	 "default request headers (-H replaces one of the same name) and, "
	 "for chrome and firefox, TLS suites, groups and signature "
	 "algorithms (--ciphers or --tls-version win); shb (default): shb's "
	 "own (docs/fingerprints.md)"},
	{NULL, NULL, NULL},
};

/* --proto-opt profile=NAME: one line listing the profiles otherwise. */
static int h2_parse_profile(const char *v, const struct shb_h2_profile **prof,
			    char *err, size_t errlen)
{
	*prof = shb_h2_profile_find(v);
	if (!*prof) {
		snprintf(err, errlen, "h2: --proto-opt profile=%s: unknown "
			 "profile (known: %s)", v ? v : "", shb_h2_profile_names());
		return -1;
	}
	return 0;
}

/* --proto-opt: the core refused keys not in h2_option_defs already; a
 * host that does not check them gets the same line from here. */
static int h2_parse_options(const struct shb_run_config *cfg,
			    uint32_t *no_prio_update,
			    const struct shb_h2_profile **prof, char *err,
			    size_t errlen)
{
	for (uint32_t i = 0; i < cfg->option_count; i++) {
		const char *k = cfg->options[i].key ? cfg->options[i].key : "";
		const char *v = cfg->options[i].value;

		if (strcmp(k, "profile") == 0) {
			if (h2_parse_profile(v, prof, err, errlen) < 0)
				return -1;
			continue;
		}
		if (strcmp(k, "priority-update") != 0) {
			snprintf(err, errlen, "h2: unknown option '%s' (known: "
				 "priority-update, profile)", k);
			return -1;
		}
		if (!v || (strcmp(v, "auto") != 0 && strcmp(v, "off") != 0)) {
			snprintf(err, errlen, "h2: --proto-opt priority-update=%s: "
				 "expected auto or off", v ? v : "");
			return -1;
		}
		*no_prio_update = strcmp(v, "off") == 0;
	}
	return 0;
}

static int h2_module_create(const struct shb_host *host,
			    const struct shb_run_config *cfg, void **module,
			    char *err, size_t errlen)
{
	struct shb_h2_module *m;
	uint32_t no_prio_update = 0;
	const struct shb_h2_profile *prof = shb_h2_profile_default();

	/* The module uses the host it is given: the core's own (the one
	 * init saw), or the table of a plugin that wraps h2 through
	 * org.shb.h2.proto/1 and forwards to the core's. */
	if (!host)
		host = g_host;
	if (!host_usable(host)) {
		snprintf(err, errlen, "h2: the host table lacks req_done, "
			 "conn_event or log");
		return SHB_E_INVAL;
	}
	if (!cfg || !SHB_HAS(cfg, struct shb_run_config, option_count)) {
		snprintf(err, errlen, "h2: missing host or run configuration");
		return SHB_E_INVAL;
	}
	if (h2_parse_options(cfg, &no_prio_update, &prof, err, errlen) < 0)
		return SHB_E_INVAL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "h2: out of memory");
		return SHB_E_NOMEM;
	}
	m->host = host;
	m->no_prio_update = no_prio_update;
	m->prof = prof;
	if (shb_h2_preface_build(prof, &m->preface) < 0) {
		snprintf(err, errlen, "h2: profile %s holds a value HTTP/2 "
			 "forbids", prof->name);
		free(m);
		return SHB_E_INVAL;
	}
	m->run_flags = cfg->flags;
	/* A pre-1.4 core never sets SHB_RUN_WANT_RESPONSE. */
	m->want_response = (cfg->flags & SHB_RUN_WANT_RESPONSE) != 0;
	if ((cfg->flags & SHB_RUN_WANT_BODY) &&
	    SHB_HAS(cfg, struct shb_run_config, response_body_max))
		m->body_max = cfg->response_body_max;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	/* Asked once: tracing every frame is decided for the whole run. */
	m->debug = host->log_enabled && host->log &&
		   host->log_enabled(SHB_LOG_DEBUG) != 0;
	*module = m;
	return SHB_OK;
}

/* The profile's TLS side (h2_profile.h): browsers' suites, groups and
 * signature algorithms; NULL keeps the core's default. */
static const char *h2_tls_priority(void *module)
{
	return ((const struct shb_h2_module *)module)->prof->tls_priority;
}

static void h2_module_destroy(void *module)
{
	free(module);
}

static int h2_prepare_request(void *module, const struct shb_request *req,
			      void **prepared, char *err, size_t errlen)
{
	struct shb_h2_request *r = NULL;
	int rc;

	if (!req || !SHB_HAS(req, struct shb_request, body_len)) {
		snprintf(err, errlen, "h2: missing request template");
		return SHB_E_INVAL;
	}
	rc = shb_h2_request_encode_as(req, ((struct shb_h2_module *)module)->prof,
				      &r, err, errlen);
	if (rc == SHB_OK)
		*prepared = r;
	return rc;
}

static void h2_release_request(void *module, void *prepared)
{
	shb_h2_request_free(prepared);
}

static const struct shb_proto_vtable h2_vtable = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = h2_module_create,
	.module_destroy = h2_module_destroy,
	.prepare_request = h2_prepare_request,
	.release_request = h2_release_request,
	.worker_init = NULL,
	.worker_fini = NULL,
	.conn_init = shb_h2_conn_init,
	.conn_fini = shb_h2_conn_fini,
	.on_transport_ready = shb_h2_conn_transport_ready,
	.recv = shb_h2_conn_recv,
	.recv_eof = shb_h2_conn_recv_eof,
	.pull_send = shb_h2_conn_pull_send,
	.sent = shb_h2_conn_sent,
	.recv_dgrams = NULL,
	.write_dgrams = NULL,
	/* No timers (ABI 1.2 lets a protocol leave out both): request
	 * timeouts are the core's, and h2 waits on nothing else. */
	.next_deadline = NULL,
	.on_timer = NULL,
	.state = shb_h2_conn_state,
	.capacity = shb_h2_conn_capacity,
	.issue = shb_h2_conn_issue,
	.issue_var = shb_h2_conn_issue_var,
	.issue_req = shb_h2_conn_issue_req,
	.cancel = shb_h2_conn_cancel,
	.shutdown = shb_h2_conn_shutdown,
	.error_detail = shb_h2_conn_error_detail,
	.tls_priority = h2_tls_priority,
};

static const char *const h2_schemes[] = {"http", "https", NULL};
static const char *const h2_alpn[] = {"h2", NULL};

static const struct shb_proto_desc h2_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.flags = SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED |
		 SHB_PROTO_ALPN_REQUIRED,
	.name = "h2",
	.display_name = "HTTP/2",
	.summary = "HTTP/2 over TLS (ALPN h2) or cleartext with prior "
		   "knowledge (h2c), many streams per connection",
	.schemes = h2_schemes,
	.alpn = h2_alpn,
	.worker_size = 0,
	.conn_size = sizeof(struct shb_h2_conn),
	.vt = &h2_vtable,
	.option_defs = h2_option_defs,
};

/* ---- org.shb.h2.proto/1 (shb/ext/h2.h) ---- */

static int h2_set_observer(void *module, const struct shb_h2_observer *obs)
{
	struct shb_h2_module *m = module;
	size_t n;

	if (!m || !obs || !SHB_HAS(obs, struct shb_h2_observer, on_field))
		return SHB_E_INVAL;
	if (m->observed)
		return SHB_E_STATE;
	/* A shorter (older) table leaves the newer members NULL. */
	n = obs->struct_size < sizeof(m->obs) ? obs->struct_size
					      : sizeof(m->obs);
	memset(&m->obs, 0, sizeof(m->obs));
	memcpy(&m->obs, obs, n);
	m->obs.struct_size = sizeof(m->obs);
	m->observed = 1;
	return SHB_OK;
}

const struct shb_h2_proto_ext shb_h2_proto_ext = {
	.struct_size = sizeof(struct shb_h2_proto_ext),
	.desc = &h2_desc,
	.set_observer = h2_set_observer,
};

static const void *h2_get_extension(const char *id)
{
	if (id && strcmp(id, SHB_EXT_H2_PROTO) == 0)
		return &shb_h2_proto_ext;
	return NULL;
}

static int h2_init(const struct shb_host *host)
{
	if (!host_usable(host))
		return SHB_E_UNSUPPORTED;
	g_host = host;
	return SHB_OK;
}

static void h2_deinit(void)
{
	g_host = NULL;
}

SHB_PLUGIN_DEFINE_FULL(SHB_H2_PLUGIN_ID, SHB_VERSION_STRING, "shb", NULL, "MIT",
		       h2_init, h2_deinit, h2_get_extension, SHB_PROTOCOLS(&h2_desc),
		       SHB_NO_REPORTERS);
