/* A run's set-up before its workers start (run_setup.h): addresses, the
 * protocol module and its prepared request, templates, TLS, a mix's
 * origins, and their release. [main] thread. */
#include "engine/run_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plugin_opts.h"
#include "cli/template.h"
#include "common/quote.h"
#include "engine/host.h"
#include "engine/mix.h"
#include "engine/route_run.h"
#include "engine/script_run.h"
#include "engine/tls.h"

/* Since 1.4 a module may size its connections once it has seen -p and
 * its options (conn_size_for); never less than the descriptor says, and
 * never so much that a few connections could exhaust the machine. */
#define CONN_SIZE_MAX ((size_t)64 << 20)
static int size_conns(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_proto_handle *p = run->proto;
	size_t n = p->vt.conn_size_for ? p->vt.conn_size_for(run->module) : 0;
	run->conn_size = n > p->desc->conn_size ? n : p->desc->conn_size;
	if (run->conn_size <= CONN_SIZE_MAX)
		return 0;
	snprintf(err, errlen, "protocol %s: conn_size_for asks %zu bytes per "
		 "connection, more than 64 MiB", p->desc->name, n);
	return -1;
}

/* Since 1.4 a protocol whose TLS is the core's may name the priority
 * string that TLS uses (a browser profile's suites, groups, signature
 * algorithms), checked here before any traffic. --ciphers and
 * --tls-version are the user's word and win: the string built from them
 * alone stays. */
static int module_tls_priority(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_proto_handle *p = run->proto;
	if (!(p->desc->flags & SHB_PROTO_CORE_TLS) || !p->vt.tls_priority)
		return 0;
	const char *prio = p->vt.tls_priority(run->module);
	if (!prio)
		return 0;
	char e[256];
	if (shb_tls_priority_check(prio, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "protocol %s: its TLS priority \"%s\" %s",
			 p->desc->name, shb_quote(prio).s, e);
		return -1;
	}
	if (run->cfg->ciphers || run->cfg->tls_version)
		return 0;
	free(run->tls_priority);
	run->tls_priority = strdup(prio);
	if (!run->tls_priority) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* The protocol's module for this run and its request, encoded once. */
/* A plugin's error line as the core quotes it after "protocol NAME: ":
 * many plugins start their lines with their own name already, which would
 * then read "protocol h1: h1: ...". */
static const char *plugin_message(const char *name, const char *msg,
				  const char *fallback)
{
	size_t n = strlen(name);
	if (!msg[0])
		return fallback;
	if (strncmp(msg, name, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ' &&
	    msg[n + 2])
		return msg + n + 2;
	return msg;
}

static int prepare(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	const struct shb_proto_handle *p = run->proto;
	struct shb_run_config rc;
	/* -L sends each next hop with issue_req (ABI 1.4): refused before
	 * any traffic by a protocol without it. */
	if (cfg->follow_redirects && !p->vt.issue_req) {
		snprintf(err, errlen, "-L/--location: protocol %s cannot send a "
			 "redirect's next hop (it has no issue_req, ABI 1.4)",
			 p->desc->name);
		return -1;
	}
	memset(&rc, 0, sizeof(rc));
	rc.struct_size = sizeof(rc);
	rc.flags = (run->url->tls ? SHB_RUN_TLS : 0) |
		   (cfg->disable_keepalive ? SHB_RUN_DISABLE_KEEPALIVE : 0) |
		   (shb_debug_level() ? SHB_RUN_DEBUG : 0) |
		   (cfg->follow_redirects ? SHB_RUN_WANT_RESPONSE : 0);
	rc.connections = cfg->connections;
	/* -s without -p: room for the longest string (plan_script.h). */
	rc.parallel = run->prun->strings ? run->prun->streams : cfg->parallel;
	rc.threads = run->threads;
	rc.port = run->url->port;
	rc.scheme = run->url->scheme;
	/* QUIC takes SNI and the name it verifies from here (none for an IP
	 * literal): --sni replaces both. */
	rc.host = cfg->sni ? cfg->sni : run->url->host;
	rc.authority = cfg->host_header ? cfg->host_header : run->url->authority;
	rc.connect_timeout_ns = cfg->connect_timeout_ns;
	rc.request_timeout_ns = cfg->timeout_ns;
	rc.tls_verify = !run->url->tls ? SHB_TLS_VERIFY_NONE :
			cfg->cacert ? SHB_TLS_VERIFY_CAFILE :
			cfg->verify ? SHB_TLS_VERIFY_SYSTEM : SHB_TLS_VERIFY_NONE;
	rc.cafile = cfg->cacert;
	rc.cert_file = cfg->cert;
	rc.key_file = cfg->cert ? (cfg->key ? cfg->key : cfg->cert) : NULL;
	rc.tls_priority = run->tls_priority;
	/* -s: what the script's response() reads (script_run.h). */
	if (run->script) {
		rc.flags |= run->script->run_flags;
		if (rc.flags & SHB_RUN_WANT_BODY)
			rc.response_body_max = SHB_SCRIPT_BODY_MAX;
	}
	struct shb_kv *opts;
	if (shb_proto_opts(cfg, p->desc, &opts, err, errlen) < 0)
		return -1;
	rc.options = opts;
	rc.option_count = cfg->proto_opt_count;

	char perr[256] = "";
	int created = p->vt.module_create(run->host, &rc, &run->module, perr, sizeof(perr));
	free(opts);
	if (created < 0) {
		snprintf(err, errlen, "protocol %s: %s", p->desc->name,
			 plugin_message(p->desc->name, perr, "cannot start"));
		run->module = NULL;
		return -1;
	}
	if (size_conns(run, err, errlen) < 0 ||
	    module_tls_priority(run, err, errlen) < 0)
		return -1;
	struct shb_kv *kv = calloc(run->header_count + 1, sizeof(*kv));
	if (!kv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < run->header_count; i++) {
		kv[i].key = run->headers[i].name;
		kv[i].value = run->headers[i].value;
	}
	struct shb_request req;
	memset(&req, 0, sizeof(req));
	req.struct_size = sizeof(req);
	req.flags = cfg->has_body ? SHB_REQUEST_HAS_BODY : 0;
	req.method = shb_run_method(&run->prun->req, cfg);
	req.scheme = run->url->scheme;
	req.authority = rc.authority;
	req.path = run->url->path;
	req.headers = kv;
	req.header_count = run->header_count;
	req.body = cfg->body;
	req.body_len = cfg->body_len;
	int r = p->vt.prepare_request(run->module, &req, &run->prepared, perr, sizeof(perr));
	free(kv);
	if (r < 0) {
		snprintf(err, errlen, "protocol %s: %s", p->desc->name,
			 plugin_message(p->desc->name, perr,
					"cannot encode the request"));
		run->prepared = NULL;
		return -1;
	}
	return 0;
}

/* Every address of the target after --connect-to, --resolve and -4/-6;
 * the workers' connections walk them in order. */
int shb_run_resolve(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	/* A Unix socket or a proxy (route_run.h) instead of the URL's host. */
	int routed = shb_run_route(run, err, errlen);
	if (routed != 0)
		return routed < 0 ? -1 : 0;
	struct shb_route_spec rs = {
		.host = run->url->host,
		.port = run->url->port,
		.family = cfg->family,
		.connect_to = cfg->connect_to,
		.connect_to_count = cfg->connect_to_count,
		.resolve = cfg->resolve,
		.resolve_count = cfg->resolve_count,
	};
	int n = shb_route_addrs(&rs, run->addrs, err, errlen);
	if (n < 0)
		return -1;
	run->naddrs = (uint32_t)n;
	run->sni_hint = run->url->tls && run->url->host_is_ip && !cfg->sni;
	return 0;
}

/* Templates and --body-lines: compiled once, before any traffic; a
 * protocol that cannot vary its requests is refused here. */

/* Target t's template (t 0 without a mix): its path and body, the run's
 * headers. NULL with err[0] == '\0' when it does not vary. */
static struct shb_tmpl *compile_target(const struct shb_run *run, size_t t,
				       const char *const *names,
				       const char *const *values, char *err,
				       size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	struct shb_tmpl_src src = {
		.path = run->url->path,
		.header_names = names,
		.header_values = values,
		.header_count = run->header_count,
		.body = cfg->has_body && !cfg->body_lines && !cfg->body_verbatim ?
			(cfg->body ? cfg->body : (const uint8_t *)"") : NULL,
		.body_len = cfg->body_len,
		.body_lines = cfg->body_lines,
	};
	struct shb_url u;
	char e[256];
	if (!cfg->mix)
		return shb_tmpl_compile(&src, err, errlen);
	const struct shb_target_arg *ta = &cfg->targets[t];
	if (shb_url_parse_any(ta->url_text, &u, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "%s", e);
		return NULL;
	}
	src.path = u.path;
	if (ta->body_file && cfg->body_lines) {
		snprintf(err, errlen, "target %zu: --body-lines and the body file "
			 "of its line: give one of them", t + 1);
		shb_url_free(&u);
		return NULL;
	}
	if (ta->body_file) { /* sent unchanged, like --data-binary */
		src.body = NULL;
		src.body_len = 0;
	}
	struct shb_tmpl *tm = shb_tmpl_compile(&src, e, sizeof(e));
	shb_url_free(&u);
	if (!tm && e[0])
		snprintf(err, errlen, "target %zu: %s", t + 1, e);
	return tm;
}

static int compile_templates(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	size_t n = cfg->mix ? cfg->target_count : 1, any = 0;
	if (cfg->host_header && strstr(cfg->host_header, "{{")) {
		snprintf(err, errlen, "template in header \"Host\": not "
			 "expanded (the Host is the connection's authority)");
		return -1;
	}
	const char **names = calloc(run->header_count + 1, sizeof(*names));
	const char **values = calloc(run->header_count + 1, sizeof(*values));
	run->tmpls = calloc(n, sizeof(*run->tmpls));
	if (!names || !values || !run->tmpls) {
		free(names);
		free(values);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	run->ntmpls = (uint32_t)n;
	for (size_t i = 0; i < run->header_count; i++) {
		names[i] = run->headers[i].name;
		values[i] = run->headers[i].value;
	}
	err[0] = '\0';
	for (size_t t = 0; t < n && !err[0]; t++) {
		run->tmpls[t] = compile_target(run, t, names, values, err, errlen);
		any += run->tmpls[t] != NULL;
	}
	free(names);
	free(values);
	if (err[0])
		return -1;
	if (!any) { /* a plain run: issue() only */
		free(run->tmpls);
		run->tmpls = NULL;
		run->ntmpls = 0;
		return 0;
	}
	if (!run->proto->vt.issue_var) {
		snprintf(err, errlen, "protocol %s cannot vary requests (it has no "
			 "issue_var): templates and --body-lines need it",
			 run->proto->desc->name);
		return -1;
	}
	return 0;
}

/* --cert/--key, --tls-version and --ciphers, checked before any traffic
 * whichever runs the TLS (the core, or a QUIC module): *prio receives the
 * priority string, or NULL for the default. */
int shb_run_tls_options(const struct shb_config *cfg, const struct shb_url *url,
			const struct shb_proto_desc *desc, char **prio,
			char *err, size_t errlen)
{
	*prio = NULL;
	if (!url->tls)
		return 0;
	if (cfg->cert && shb_tls_check_client_cert(cfg->cert,
			cfg->key ? cfg->key : cfg->cert, err, errlen) < 0)
		return -1;
	if (cfg->tls_resume && desc->transport == SHB_TRANSPORT_DGRAM) {
		snprintf(err, errlen, "--tls-resume: protocol %s runs its own "
			 "TLS over UDP, which is not resumed; the core's TLS over "
			 "TCP is (h1, h2)", desc->name);
		return -1;
	}
	return shb_tls_priority(cfg->ciphers, cfg->tls_version,
				desc->transport == SHB_TRANSPORT_DGRAM, prio,
				err, errlen);
}

void shb_run_release(struct shb_run *run)
{
	shb_script_run_free(run);
	shb_run_route_unheaders(run);
	for (uint32_t t = 0; run->tmpls && t < run->ntmpls; t++)
		shb_tmpl_free(run->tmpls[t]);
	free(run->tmpls);
	shb_mix_free(run);
	if (run->prepared && run->proto->vt.release_request) /* optional */
		run->proto->vt.release_request(run->module, run->prepared);
	if (run->module)
		run->proto->vt.module_destroy(run->module);
	if (run->use_tls)
		shb_tls_ctx_free(&run->tls);
	free(run->tls_priority);
	shb_run_route_free(run);
	memset(run, 0, sizeof(*run));
}

/* The core's TLS for a stream protocol over TLS. */
static int core_tls(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	const struct shb_proto_desc *d = run->proto->desc;
	if (!run->url->tls || d->transport != SHB_TRANSPORT_STREAM)
		return 0;
	run->use_tls = 1;
	int verify = cfg->cacert ? 2 : cfg->verify ? 1 : 0;
	if (shb_tls_ctx_init(&run->tls, verify, cfg->cacert,
			     cfg->sni ? cfg->sni : run->url->host,
			     d->alpn, err, errlen) < 0) {
		run->use_tls = 0;
		return -1;
	}
	run->tls.hello = &run->hello;
	run->tls.resume = cfg->tls_resume;
	if (run->tls_priority &&
	    shb_tls_ctx_set_priority(&run->tls, run->tls_priority, err, errlen) < 0)
		return -1;
	if (cfg->cert &&
	    shb_tls_ctx_set_client_cert(&run->tls, cfg->cert,
			cfg->key ? cfg->key : cfg->cert, err, errlen) < 0)
		return -1;
	return 0;
}

static void run_init(struct shb_run *run, const struct shb_plan *plan,
		     size_t k, const struct shb_host *host,
		     struct shb_loader *loader)
{
	memset(run, 0, sizeof(*run));
	run->cfg = plan->cfg;
	run->plan = plan;
	run->prun = &plan->runs[k];
	run->url = &run->prun->url;
	run->proto = &run->prun->proto;
	run->host = host;
	run->loader = loader;
	run->threads = plan->threads;
}

/* The run's own checks, in its own code: a dry run that checked less
 * would accept what the run then refuses (a protocol's options and -p
 * are judged by its module_create alone). */
int shb_run_check(const struct shb_plan *plan, size_t k,
		  const struct shb_host *host, struct shb_loader *loader,
		  char *err, size_t errlen)
{
	struct shb_run run;
	run_init(&run, plan, k, host, loader);
	int bad = shb_run_route_headers(&run) < 0;
	if (bad)
		snprintf(err, errlen, "out of memory");
	bad = bad ||
	      shb_run_tls_options(run.cfg, run.url, run.proto->desc,
				  &run.tls_priority, err, errlen) < 0 ||
	      prepare(&run, err, errlen) < 0 ||
	      compile_templates(&run, err, errlen) < 0;
	shb_run_release(&run);
	return bad ? -1 : 0;
}

int shb_run_setup(struct shb_run *run, const struct shb_plan *plan, size_t k,
		  const struct shb_host *host, struct shb_loader *loader,
		  char *err, size_t errlen)
{
	run_init(run, plan, k, host, loader);
	if (shb_run_resolve(run, err, errlen) < 0)
		return -1;
	if (shb_run_route_headers(run) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (shb_run_tls_options(run->cfg, run->url, run->proto->desc,
				&run->tls_priority, err, errlen) < 0 ||
	    shb_script_run_setup(run, err, errlen) < 0 ||
	    prepare(run, err, errlen) < 0 ||
	    compile_templates(run, err, errlen) < 0)
		return -1;
	if (run->script && run->tmpls) {
		snprintf(err, errlen, "-s and a template ({{...}}) in -H or -d: "
			 "the script makes the requests; give one of them");
		return -1;
	}
	shb_run_set_origin(run);
	if (core_tls(run, err, errlen) < 0)
		return -1;
	/* --mix, --urls: every target's origin and request (mix.h); each
	 * target's template was compiled with the others (compile_templates). */
	if (run->cfg->mix && shb_mix_setup(run, err, errlen) < 0)
		return -1;
	shb_run_views(run);
	return 0;
}
