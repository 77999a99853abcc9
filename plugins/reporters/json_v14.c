/* The json reporter's ABI 1.4 members (json_v14.h). */
#include "json_v14.h"

static void put_opt(struct jb *b, json_t *doc, const char *key, const char *s)
{
	if (s)
		jput(b, doc, key, jstr(s));
}

static void put_list(struct jb *b, json_t *doc, const char *key,
		     const char *const *v, size_t n)
{
	if (!n)
		return;
	json_t *arr = json_array();
	for (size_t i = 0; i < n && arr; i++)
		if (json_array_append_new(arr, jstr(v[i])) != 0)
			b->failed = 1;
	jput(b, doc, key, arr);
}

/* The names as the run gives them, for `shb merge` to read back:
 * [{"number": 65536, "name": "redis", "codes": [{"code": 0, "name":
 * "ok", "ok": true}, ...]}, ...]. */
static json_t *outcome_spaces(struct jb *b, const struct shb_outcome_table *t)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < t->count && arr; i++) {
		const struct shb_outcome_space *sp = &t->spaces[i];
		if (!sp->name)
			continue;
		json_t *o = json_object(), *codes = json_array();
		jput(b, o, "number", jint(sp->space));
		jput(b, o, "name", jstr(sp->name));
		for (const struct shb_outcome_code *c = sp->codes;
		     c && c->name && codes; c++) {
			json_t *co = json_object();
			jput(b, co, "code", jint(c->code));
			jput(b, co, "name", jstr(c->name));
			jput(b, co, "ok", json_boolean(c->ok));
			if (json_array_append_new(codes, co) != 0)
				b->failed = 1;
		}
		jput(b, o, "codes", codes);
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	return arr;
}

void json14_run(struct jb *b, json_t *doc, const struct shb_run_info *run)
{
	struct shb_rpt_facts f;
	struct shb_outcome_table t;
	if (!shb_rpt_http(run))
		jput(b, doc, "requestModel", json_string("none"));
	shb_rpt_facts_of(run, &f);
	put_opt(b, doc, "success", f.success);
	put_opt(b, doc, "proxy", f.proxy);
	put_list(b, doc, "connectTo", f.connect_to, f.connect_to_count);
	put_list(b, doc, "resolve", f.resolve, f.resolve_count);
	put_opt(b, doc, "source", f.source);
	put_opt(b, doc, "unixSocket", f.unix_socket);
	shb_rpt_outcomes_of(run, &t);
	if (t.count)
		jput(b, doc, "outcomeSpaces", outcome_spaces(b, &t));
}

json_t *json14_app_outcomes(struct jb *b, const struct shb_run_info *run,
			    const struct shb_results *r)
{
	char sp[32];
	const struct shb_app_count *a;
	struct shb_outcome_table t;
	size_t n = shb_rpt_app_outcomes(r, &a);
	shb_rpt_outcomes_of(run, &t);
	json_t *arr = json_array();
	for (size_t i = 0; i < n && arr; i++) {
		json_t *o = json_object();
		const char *name = shb_outcome_code_name(&t, a[i].space, a[i].code);
		jput(b, o, "space", jstr(shb_outcome_space_name(sp, sizeof(sp), &t,
								a[i].space)));
		jput(b, o, "code", jint(a[i].code));
		if (name)
			jput(b, o, "name", jstr(name));
		jput(b, o, "ok", json_boolean(a[i].ok));
		jput(b, o, "count", jint(a[i].count));
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	return arr;
}

void json14_error_reply_latency(struct jb *b, json_t *doc,
				const struct shb_host *host,
				const struct shb_run_info *run,
				const struct shb_results *r)
{
	struct shb_rpt_pcts p;
	struct shb_rpt_latency l;
	if (!shb_rpt_answered_known(r))
		return;
	shb_rpt_pcts_of(run, &p);
	shb_rpt_read_hist(host, r->latency_error_reply, &p, &l);
	if (!l.count) {
		jput(b, doc, "latencyErrorReplySeconds", json_null());
		return;
	}
	json_t *o = json_object(), *pct = json_object();
	jput(b, o, "count", jint(l.count));
	jput(b, o, "min", jsecs(l.min));
	jput(b, o, "mean", jsecs(l.mean));
	jput(b, o, "stddev", jsecs(l.stddev));
	jput(b, o, "max", jsecs(l.max));
	for (size_t i = 0; i < l.npct; i++) {
		char name[16];
		name[0] = 'p';
		shb_rpt_pct_label(name + 1, sizeof(name) - 1, l.ppm[i], '.');
		jput(b, pct, name, jsecs(l.pct[i]));
	}
	jput(b, o, "percentiles", pct);
	jput(b, doc, "latencyErrorReplySeconds", o);
}

void json14_unmeasured(struct jb *b, json_t *doc, uint32_t measured)
{
	static const char *const bytes[] = {
		"bytesReceived", "bytesReceivedPerSec", "bytesSent", "bytesSentPerSec",
	};
	if (!(measured & SHB_MEASURED_BYTES))
		for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++)
			jput(b, doc, bytes[i], json_null());
	if (!(measured & SHB_MEASURED_CONNECTIONS))
		jput(b, doc, "connectionsOpened", json_null());
}
