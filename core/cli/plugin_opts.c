/* Plugin options (see plugin_opts.h). */
#include "cli/plugin_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/quote.h"

/* Keys are words: letters, digits, '-', '_' and '.'. That keeps ',' (the
 * reporters' separator) and '=' out of them and every message readable. */
static int key_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

static int word_ok(const char *p, size_t n, int dot)
{
	for (size_t i = 0; i < n; i++)
		if (!key_char((unsigned char)p[i]) || (!dot && p[i] == '.'))
			return 0;
	return n > 0;
}

int shb_plugin_opt_parse(const char *optname, const char *v, int reporter,
			 struct shb_plugin_opt *out, char *err, size_t errlen)
{
	const char *key = v;
	size_t klen = strcspn(v, "=");
	const char *want = reporter ? "NAME.KEY or NAME.KEY=VALUE"
				    : "KEY=VALUE or KEY";

	memset(out, 0, sizeof(*out));
	if (!*v)
		return shb_errf(err, errlen, "%s: expected %s, got \"\"", optname,
			    want);
	if (reporter) {
		const char *dot = memchr(v, '.', klen);
		if (!dot)
			return shb_errf(err, errlen, "%s \"%s\": expected %s",
				    optname, shb_quote(v).s, want);
		size_t nlen = (size_t)(dot - v);
		if (nlen == 0)
			return shb_errf(err, errlen, "%s \"%s\": empty reporter name",
				    optname, shb_quote(v).s);
		if (!word_ok(v, nlen, 0))
			return shb_errf(err, errlen,
				    "%s \"%s\": invalid reporter name \"%s\" "
				    "(letters, digits, '-' and '_' only)",
				    optname, shb_quote(v).s,
				    shb_quote_n(v, nlen).s);
		out->plugin = strndup(v, nlen);
		if (!out->plugin)
			return shb_errf(err, errlen, "out of memory");
		key = dot + 1;
		klen -= nlen + 1;
	}
	if (klen == 0) {
		shb_plugin_opt_free(out);
		return shb_errf(err, errlen, "%s \"%s\": empty key", optname,
			    shb_quote(v).s);
	}
	if (!word_ok(key, klen, 1)) {
		shb_plugin_opt_free(out);
		return shb_errf(err, errlen,
			    "%s \"%s\": invalid key \"%s\" (letters, digits, "
			    "'-', '_' and '.' only)",
			    optname, shb_quote(v).s, shb_quote_n(key, klen).s);
	}
	const char *value = key[klen] == '=' ? key + klen + 1 : NULL;
	if (reporter && value && strchr(value, ',')) {
		shb_plugin_opt_free(out);
		return shb_errf(err, errlen,
			    "%s \"%s\": a reporter option's value cannot "
			    "hold ',' (the options reach the reporter "
			    "comma-separated)",
			    optname, shb_quote(v).s);
	}
	out->text = strdup(v);
	out->key = strndup(key, klen);
	out->value = value ? strdup(value) : NULL;
	if (!out->text || !out->key || (value && !out->value)) {
		shb_plugin_opt_free(out);
		return shb_errf(err, errlen, "out of memory");
	}
	return 0;
}

void shb_plugin_opt_free(struct shb_plugin_opt *o)
{
	if (!o)
		return;
	free(o->text);
	free(o->plugin);
	free(o->key);
	free(o->value);
	memset(o, 0, sizeof(*o));
}

/* "tag=TEXT, fail": the keys a plugin knows, as --list-plugins would show
 * them, cut to the buffer. */
static void known_keys(const struct shb_option_def *defs, char *buf,
		       size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; defs[i].key && i < SHB_MAX_OPTION_DEFS && o < n;
	     i++) {
		int w = snprintf(buf + o, n - o, "%s%s%s%s", i ? ", " : "",
				 defs[i].key, defs[i].value_name ? "=" : "",
				 defs[i].value_name ? defs[i].value_name : "");
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

static const struct shb_option_def *find_def(
	const struct shb_option_def *defs, const char *key)
{
	for (size_t i = 0; defs[i].key && i < SHB_MAX_OPTION_DEFS; i++)
		if (strcmp(defs[i].key, key) == 0)
			return &defs[i];
	return NULL;
}

static int check_one(const char *optname, const char *noun, const char *name,
		     const struct shb_option_def *defs,
		     const struct shb_plugin_opt *o, char *err, size_t errlen)
{
	const struct shb_option_def *d = find_def(defs, o->key);
	char known[512];

	if (!d) {
		known_keys(defs, known, sizeof(known));
		return shb_errf(err, errlen,
			    "%s \"%s\": %s %s has no option \"%s\" (%s%s)",
			    optname, shb_quote(o->text).s, noun, name,
			    shb_quote(o->key).s,
			    known[0] ? "known: " : "it takes none", known);
	}
	if (!d->value_name && o->value)
		return shb_errf(err, errlen,
			    "%s \"%s\": option \"%s\" of %s %s takes no "
			    "value (give it as %s alone)",
			    optname, shb_quote(o->text).s, d->key, noun, name,
			    d->key);
	if (d->value_name && !o->value)
		return shb_errf(err, errlen,
			    "%s \"%s\": option \"%s\" of %s %s needs a value "
			    "(%s=%s)",
			    optname, shb_quote(o->text).s, d->key, noun, name,
			    d->key, d->value_name);
	return 0;
}

int shb_plugin_opts_check(const char *optname, const char *noun,
			  const char *name, const struct shb_option_def *defs,
			  const struct shb_plugin_opt *o, size_t n, char *err,
			  size_t errlen)
{
	if (!defs)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (check_one(optname, noun, name, defs, &o[i], err, errlen) < 0)
			return -1;
	return 0;
}

const struct shb_option_def *shb_proto_option_defs(
	const struct shb_proto_desc *d)
{
	return SHB_HAS(d, struct shb_proto_desc, option_defs) ? d->option_defs
							       : NULL;
}

const struct shb_option_def *shb_report_option_defs(
	const struct shb_report_desc *d)
{
	return SHB_HAS(d, struct shb_report_desc, option_defs) ? d->option_defs
								: NULL;
}

int shb_proto_opts(const struct shb_config *cfg,
		   const struct shb_proto_desc *d, struct shb_kv **kv,
		   char *err, size_t errlen)
{
	size_t n = cfg->proto_opt_count;

	*kv = NULL;
	if (shb_plugin_opts_check("--proto-opt", "protocol", d->name,
				  shb_proto_option_defs(d), cfg->proto_opts, n,
				  err, errlen) < 0)
		return -1;
	if (n == 0)
		return 0;
	*kv = calloc(n, sizeof(**kv));
	if (!*kv)
		return shb_errf(err, errlen, "out of memory");
	for (size_t i = 0; i < n; i++) {
		(*kv)[i].key = cfg->proto_opts[i].key;
		(*kv)[i].value = cfg->proto_opts[i].value ? cfg->proto_opts[i].value
							  : "";
	}
	return 0;
}

static int for_reporter(const struct shb_plugin_opt *o, const char *spec,
			const struct shb_report_desc *d)
{
	return strcmp(o->plugin, spec) == 0 || strcmp(o->plugin, d->name) == 0;
}

int shb_report_opts(const struct shb_config *cfg, const char *spec,
		    const struct shb_report_desc *d, char **out,
		    unsigned char *used, char *err, size_t errlen)
{
	const struct shb_option_def *defs = shb_report_option_defs(d);
	size_t len = 0;

	*out = NULL;
	for (size_t i = 0; i < cfg->report_opt_count; i++) {
		const struct shb_plugin_opt *o = &cfg->report_opts[i];
		if (!for_reporter(o, spec, d))
			continue;
		if (shb_plugin_opts_check("--report-opt", "reporter", d->name,
					  defs, o, 1, err, errlen) < 0)
			return -1;
		len += strlen(o->key) + (o->value ? strlen(o->value) + 1 : 0) + 1;
	}
	if (len == 0)
		return 0;
	char *s = malloc(len);
	if (!s)
		return shb_errf(err, errlen, "out of memory");
	size_t at = 0;
	for (size_t i = 0; i < cfg->report_opt_count; i++) {
		const struct shb_plugin_opt *o = &cfg->report_opts[i];
		if (!for_reporter(o, spec, d))
			continue;
		used[i] = 1;
		at += (size_t)snprintf(s + at, len - at, "%s%s%s%s",
				       at ? "," : "", o->key,
				       o->value ? "=" : "",
				       o->value ? o->value : "");
	}
	*out = s;
	return 0;
}

int shb_report_opts_unused(const struct shb_config *cfg,
			   const unsigned char *used, char *err, size_t errlen)
{
	for (size_t i = 0; i < cfg->report_opt_count; i++) {
		const struct shb_plugin_opt *o = &cfg->report_opts[i];
		char list[256];
		size_t at = 0;
		if (used[i])
			continue;
		list[0] = '\0';
		for (size_t k = 0; k < cfg->report_count && at < sizeof(list);
		     k++) {
			int w = snprintf(list + at, sizeof(list) - at, "%s%s",
					 k ? "," : "", cfg->reports[k].name);
			if (w < 0)
				break;
			at += (size_t)w;
		}
		return shb_errf(err, errlen,
			    "--report-opt \"%s\": reporter %s is not in this "
			    "run (--report %s)",
			    shb_quote(o->text).s, o->plugin, shb_quote(list).s);
	}
	return 0;
}
