/* Request model and outcome names of the run's protocol (proto_request.h). */
#include "loader/proto_request.h"

#include <string.h>

#include "cli/slo.h"
#include "common/quote.h"
#include "loader/loader_metrics.h"

uint32_t shb_proto_request_model(const struct shb_proto_desc *d)
{
	return SHB_HAS(d, struct shb_proto_desc, request_model) ?
	       d->request_model : SHB_REQMODEL_HTTP;
}

const struct shb_outcome_space *
shb_proto_outcome_spaces(const struct shb_proto_desc *d, size_t *count)
{
	const struct shb_outcome_space *sp =
		SHB_HAS(d, struct shb_proto_desc, outcome_spaces) ?
		d->outcome_spaces : NULL;
	size_t n = 0;

	while (sp && sp[n].name)
		n++;
	*count = n;
	return n ? sp : NULL;
}

/* A placeholder in `s` (template.h): "{{" not escaped as "\{{". */
static int has_template(const char *s)
{
	for (const char *p = s; (p = strstr(p, "{{")); p += 2)
		if (p == s || p[-1] != '\\')
			return 1;
	return 0;
}

#define NO_HTTP "protocol \"%s\" takes no HTTP request (its requests come " \
		"from --proto-opt)"

/* The first HTTP request part the command line gives, named. */
static int refuse_http(const struct shb_config *cfg, const struct shb_url *url,
		       const char *proto, char *err, size_t errlen)
{
	if (cfg->typed.http_opt[0])
		return shb_errf(err, errlen, "%s is an HTTP option; " NO_HTTP,
				cfg->typed.http_opt, proto);
	/* A redirect is an HTTP status and header: nothing to follow. */
	if (cfg->follow_redirects)
		return shb_errf(err, errlen, "-L/--location is an HTTP option; "
				NO_HTTP, proto);
	for (size_t i = 0; i < cfg->target_count; i++) {
		const struct shb_target_arg *t = &cfg->targets[i];
		if (t->method || t->body_file)
			return shb_errf(err, errlen, "--urls %s line %d: a %s is "
					"part of an HTTP request; " NO_HTTP,
					cfg->urls_file ? cfg->urls_file : "",
					t->line, t->method ? "method" : "body file",
					proto);
	}
	const char *path = url->path ? url->path : "";
	for (size_t i = 0; !has_template(path) && cfg->mix &&
			   i < cfg->target_count; i++)
		if (cfg->targets[i].url_text && has_template(cfg->targets[i].url_text))
			path = cfg->targets[i].url_text;
	if (has_template(path))
		return shb_errf(err, errlen, "template in the URL \"%s\": "
				"templates make HTTP requests vary; " NO_HTTP,
				shb_quote(path).s, proto);
	return 0;
}

int shb_proto_request_settle(const struct shb_config *cfg,
			     const struct shb_url *url,
			     const struct shb_proto_desc *d,
			     struct shb_proto_request *out, char *err,
			     size_t errlen)
{
	out->request_model = shb_proto_request_model(d);
	out->outcome_spaces = shb_proto_outcome_spaces(d, &out->outcome_space_count);
	out->success = cfg->success;
	int http = out->request_model != SHB_REQMODEL_NONE;
	if (!http && refuse_http(cfg, url, d->name, err, errlen) < 0)
		return -1;
	out->metrics = shb_proto_metrics(d, &out->metric_count);
	if (shb_slo_metrics_check(cfg->slos, cfg->slo_count, out->metrics,
				  out->metric_count, d->name, err, errlen) < 0)
		return -1;
	return shb_success_resolve(&out->success, out->outcome_spaces, http,
				   d->name, err, errlen);
}
