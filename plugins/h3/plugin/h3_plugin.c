/* The HTTP/3 protocol plugin: entry point, descriptor, module and
 * prepared requests. The connections are in h3_conn.c and h3_events.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>
#include <shb/define.h>

#include "h3_conn.h"
#include "h3_request.h"

/* Written once by init, read-only afterwards (plugin.h allows this). */
static const struct shb_host *g_host;

/* The largest initial-window= accepted: far above any useful start, low
 * enough that window arithmetic never nears overflow. */
#define H3_MAX_INITIAL_WINDOW (UINT64_C(1) << 30)

static const struct shb_option_def h3_option_defs[] = {
	{"initial-window", "BYTES",
	 "congestion window at start (K/M suffixes: KiB/MiB); default RFC "
	 "9002's 12000 bytes; 4M is the old lab start"},
	{"pacing", "0|1",
	 "1 (default): pace packets over the RTT (RFC 9002 7.7); 0: send "
	 "whole trains as the window allows"},
	{"priority-update", "auto|off",
	 "auto (default): an RFC 9218 PRIORITY_UPDATE frame on the control "
	 "stream before each request with a Priority field; off: the header "
	 "alone"},
	{"qpack-table", "BYTES",
	 "QPACK dynamic table capacity announced to the server, 0..65536 "
	 "(K suffix: KiB); default 0, no dynamic table"},
	{"qpack-blocked", "N",
	 "QPACK streams the server may leave blocked on its table, 0..100; "
	 "default 0"},
	{"profile", "chrome|firefox|curl|shb",
	 "what the connection looks like to a server: that client's QUIC "
	 "transport parameters (ids, values, order), HTTP/3 SETTINGS, "
	 "pseudo-header order, default request headers (-H replaces one of "
	 "the same name) and, for chrome and firefox, TLS suites, groups and "
	 "signature algorithms (--ciphers or --tls-version win); curl: its "
	 "request only; shb (default): shb's own (docs/fingerprints.md)"},
	{NULL, NULL, NULL},
};

/* "12000", "64K", "4M": bytes, binary suffixes. 0 on success. */
static int parse_bytes(const char *v, uint64_t *out)
{
	uint64_t n = 0, mul = 1;
	const char *p = v;

	if (!v || *v < '0' || *v > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > H3_MAX_INITIAL_WINDOW)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (*p == 'k' || *p == 'K')
		mul = 1024, p++;
	else if (*p == 'm' || *p == 'M')
		mul = 1024 * 1024, p++;
	if (*p || n > H3_MAX_INITIAL_WINDOW / mul)
		return -1;
	*out = n * mul;
	return 0;
}

/* A decimal count 0..max, nothing else. 0 on success. */
static int parse_count(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (!v || !*v)
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || n > max)
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	if (n > max)
		return -1;
	*out = n;
	return 0;
}

/* qpack-table= and qpack-blocked=; 1 when k is neither. */
static int qpack_option(const char *k, const char *v,
			struct shb_h3_module *m, char *err, size_t errlen)
{
	uint64_t n;

	if (strcmp(k, "qpack-table") == 0) {
		if (parse_bytes(v, &n) < 0 || n > SHB_H3_QPACK_TABLE_MAX) {
			snprintf(err, errlen, "h3: --proto-opt qpack-table=%s: "
				 "expected bytes from 0 to 65536 (K suffix "
				 "allowed)", v ? v : "");
			return SHB_E_INVAL;
		}
		if (m)
			m->conf.qpack_max_table_capacity = (uint32_t)n;
		return SHB_OK;
	}
	if (strcmp(k, "qpack-blocked") == 0) {
		if (parse_count(v, SHB_H3_QPACK_BLOCKED_MAX, &n) < 0) {
			snprintf(err, errlen, "h3: --proto-opt qpack-blocked=%s: "
				 "expected a number from 0 to 100", v ? v : "");
			return SHB_E_INVAL;
		}
		if (m)
			m->conf.qpack_blocked_streams = (uint32_t)n;
		return SHB_OK;
	}
	return 1;
}

/* 1 when the user gave --proto-opt KEY. */
static int option_given(const struct shb_run_config *cfg, const char *key)
{
	for (uint32_t i = 0; i < cfg->option_count; i++)
		if (cfg->options[i].key && strcmp(cfg->options[i].key, key) == 0)
			return 1;
	return 0;
}

/* --proto-opt profile=NAME: one line listing the profiles otherwise,
 * or naming what of the profile the QUIC connection cannot hold. */
static int h3_parse_profile(const char *v, struct shb_h3_module *m, char *err,
			    size_t errlen)
{
	const struct shb_h3_profile *p = shb_h3_profile_find(v);
	struct shb_quic_conn_config k;

	if (!p) {
		snprintf(err, errlen, "h3: --proto-opt profile=%s: unknown "
			 "profile (known: %s)", v ? v : "", shb_h3_profile_names());
		return -1;
	}
	memset(&k, 0, sizeof(k));
	if (shb_h3_profile_quic(p, &k) < 0) {
		snprintf(err, errlen, "h3: profile %s announces transport "
			 "parameters the QUIC connection cannot hold", p->name);
		return -1;
	}
	if (m)
		m->prof = p;
	return 0;
}

/* --proto-opt: the core already refused keys not in h3_option_defs.
 * Fills m when it is not NULL. */
static int h3_parse_options(const struct shb_run_config *cfg,
			    struct shb_h3_module *m, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < cfg->option_count; i++) {
		const char *k = cfg->options[i].key ? cfg->options[i].key : "";
		const char *v = cfg->options[i].value;
		uint64_t n;

		if (strcmp(k, "initial-window") == 0) {
			if (parse_bytes(v, &n) < 0 || n < 2 * SHB_H3_DGRAM) {
				snprintf(err, errlen, "h3: --proto-opt initial-window=%s: "
					 "expected bytes from %u to 1G (K and M "
					 "suffixes allowed)", v ? v : "",
					 2 * SHB_H3_DGRAM);
				return SHB_E_INVAL;
			}
			if (m)
				m->initial_window = n;
		} else if (strcmp(k, "pacing") == 0) {
			if (!v || (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)) {
				snprintf(err, errlen, "h3: --proto-opt pacing=%s: "
					 "expected 0 or 1", v ? v : "");
				return SHB_E_INVAL;
			}
			if (m)
				m->no_pacing = v[0] == '0';
		} else if (strcmp(k, "priority-update") == 0) {
			if (!v || (strcmp(v, "auto") != 0 && strcmp(v, "off") != 0)) {
				snprintf(err, errlen, "h3: --proto-opt priority-update=%s: "
					 "expected auto or off", v ? v : "");
				return SHB_E_INVAL;
			}
			if (m)
				m->no_prio_update = strcmp(v, "off") == 0;
		} else if (strcmp(k, "profile") == 0) {
			if (h3_parse_profile(v, m, err, errlen) < 0)
				return SHB_E_INVAL;
		} else {
			int rc = qpack_option(k, v, m, err, errlen);

			if (rc == 1) {
				snprintf(err, errlen, "h3: unknown option '%s' "
					 "(known: initial-window, pacing, "
					 "priority-update, qpack-table, "
					 "qpack-blocked, profile)", k);
				return SHB_E_INVAL;
			}
			if (rc < 0)
				return rc;
		}
	}
	return SHB_OK;
}

static int h3_check_config(const struct shb_run_config *cfg, char *err,
			   size_t errlen)
{
	int rc = h3_parse_options(cfg, NULL, err, errlen);

	if (rc < 0)
		return rc;
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

/* The user's GnuTLS priorities with QUIC's rules after them, so they win:
 * TLS 1.3 only, no compatibility mode (RFC 9001 8.4). malloc'd. */
static char *quic_priority(const char *user)
{
	static const char quic[] = ":-VERS-ALL:+VERS-TLS1.3:%DISABLE_TLS13_COMPAT_MODE";
	size_t n = strlen(user) + sizeof(quic);
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s", user, quic);
	return s;
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
	m->prof = shb_h3_profile_default();
	h3_parse_options(cfg, m, err, errlen); /* checked above */
	/* The profile's QPACK table, which the decoder takes, unless
	 * qpack-table= or qpack-blocked= says otherwise. */
	if (!option_given(cfg, "qpack-table") && !option_given(cfg, "qpack-blocked"))
		shb_h3_profile_qpack(m->prof, &m->conf);
	m->look.pseudo = m->prof->pseudo;
	m->look.defaults = m->prof->headers;
	m->look.n = m->prof->n_headers;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	m->run_flags = cfg->flags;
	/* A pre-1.4 core never sets SHB_RUN_WANT_RESPONSE. */
	m->want_response = (cfg->flags & SHB_RUN_WANT_RESPONSE) != 0;
	if ((cfg->flags & SHB_RUN_WANT_BODY) &&
	    SHB_HAS(cfg, struct shb_run_config, response_body_max))
		m->body_max = cfg->response_body_max;
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
	/* 1.3: --cert/--key and --ciphers/--tls-version, checked by the core
	 * already; QUIC's rules stay on top of the user's priorities. */
	char *prio = NULL;
	if (SHB_HAS(cfg, struct shb_run_config, tls_priority)) {
		tc.cert_file = cfg->cert_file;
		tc.key_file = cfg->key_file;
		m->has_cert = cfg->cert_file != NULL;
		/* The user's --ciphers or --tls-version, else the profile's. */
		const char *want = cfg->tls_priority ? cfg->tls_priority
						     : m->prof->tls_priority;
		if (want && !(prio = quic_priority(want))) {
			snprintf(err, errlen, "h3: out of memory");
			free(m->server_name);
			free(m);
			return SHB_E_NOMEM;
		}
		tc.priority = prio;
	}
	/* A core older than 1.3 passes no priorities: the profile's still. */
	if (!prio && m->prof->tls_priority &&
	    !SHB_HAS(cfg, struct shb_run_config, tls_priority))
		tc.priority = prio = quic_priority(m->prof->tls_priority);
	int trc = shb_quic_tls_ctx_init(&m->tls, &tc, terr, sizeof(terr));
	free(prio);
	if (trc != 0) {
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

	if (!req || !SHB_HAS(req, struct shb_request, body_len)) {
		snprintf(err, errlen, "h3: missing request template");
		return SHB_E_INVAL;
	}
	rc = shb_h3_request_encode_as(req, &((struct shb_h3_module *)module)->look,
				      &r, err, errlen);
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
	.issue_var = shb_h3_conn_issue_var,
	.issue_req = shb_h3_conn_issue_req,
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
	.option_defs = h3_option_defs,
	.max_dgram = 1200, /* no path MTU discovery (RFC 9000 14.1) */
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

SHB_PLUGIN_DEFINE_FULL(SHB_H3_PLUGIN_ID, SHB_VERSION_STRING, "shb", NULL, "MIT",
		       h3_init, h3_deinit, NULL, SHB_PROTOCOLS(&h3_desc),
		       SHB_NO_REPORTERS);
