/* The reporter "facts14" of line14 (tests/abi/run_1_3/line_proto.c):
 * prints the 1.4 members of shb_run_info, one "key value" line each, so
 * that reqmodel.sh checks what the core fills before any reporter shows them:
 *
 *   method                 (empty with request model NONE)
 *   target_method
 *   request_model 1
 *   spaces line:65537=ok/1,err/0;    (every space, its codes and ok bits)
 *   success ok,err
 *   proxy http://127.0.0.1:9     ("-" for NULL)
 *   connect_to a:1:b:2|...       (in order, "|" between; "-" for none)
 *   resolve ...
 *   source -
 *   unix_socket -
 *   answered 200           (shb_results.requests_answered)
 *
 * Included once, by line_proto.c built as line14. */
#ifndef LINE14_FACTS_H
#define LINE14_FACTS_H

struct facts {
	const struct shb_ostream *out;
	const struct shb_run_info *info;
};

static int facts_create(const struct shb_host *h, const struct shb_ostream *out,
			const char *options, void **rep, char *err,
			size_t errlen)
{
	struct facts *f = calloc(1, sizeof(*f));

	(void)h;
	(void)options;
	(void)err;
	(void)errlen;
	if (!f)
		return SHB_E_NOMEM;
	f->out = out;
	*rep = f;
	return SHB_OK;
}

static int facts_begin(void *rep, const struct shb_run_info *info)
{
	((struct facts *)rep)->info = info;
	return SHB_OK;
}

static int put(const struct facts *f, const char *key, const char *v)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s %s\n", key, v ? v : "-");

	return n < 0 || n >= (int)sizeof(buf) ||
	       f->out->write(f->out->ctx, buf, (size_t)n) != n;
}

/* Strings joined by "|", or "-" for none. */
static int put_list(const struct facts *f, const char *key,
		    const char *const *v, size_t n)
{
	char buf[768];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? "|" : "", v[i]);
	return put(f, key, n ? buf : NULL);
}

static int put_spaces(const struct facts *f, const struct shb_run_info *i)
{
	char buf[768];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t s = 0; s < i->outcome_space_count && len < sizeof(buf); s++) {
		const struct shb_outcome_space *sp = &i->outcome_spaces[s];
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s:%u=",
					sp->name, sp->space);
		for (const struct shb_outcome_code *c = sp->codes;
		     c->name && len < sizeof(buf); c++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"%s%s/%u", c == sp->codes ? "" : ",",
						c->name, c->ok);
		if (len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, ";");
	}
	return put(f, "spaces", i->outcome_space_count ? buf : NULL);
}

static int facts_end(void *rep, const struct shb_results *res)
{
	const struct facts *f = rep;
	const struct shb_run_info *i = f->info;
	char num[32];
	int bad = 0;

	if (!i || !SHB_HAS(i, struct shb_run_info, unix_socket) ||
	    !SHB_HAS(res, struct shb_results, requests_answered))
		return SHB_E_INVAL;
	bad |= put(f, "method", i->method);
	bad |= put(f, "target_method", i->target_count ? i->targets[0].method : NULL);
	snprintf(num, sizeof(num), "%u", i->request_model);
	bad |= put(f, "request_model", num);
	bad |= put_spaces(f, i);
	bad |= put(f, "success", i->success);
	bad |= put(f, "proxy", i->proxy);
	bad |= put_list(f, "connect_to", i->connect_to, i->connect_to_count);
	bad |= put_list(f, "resolve", i->resolve, i->resolve_count);
	bad |= put(f, "source", i->source);
	bad |= put(f, "unix_socket", i->unix_socket);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)res->requests_answered);
	bad |= put(f, "answered", num);
	return bad ? SHB_E_INVAL : SHB_OK;
}

static void facts_destroy(void *rep)
{
	free(rep);
}

static const struct shb_report_vtable facts_vt = {
	.struct_size = sizeof facts_vt,
	.create = facts_create,
	.begin = facts_begin,
	.end = facts_end,
	.destroy = facts_destroy,
};

static const struct shb_report_desc facts_desc = {
	.struct_size = sizeof facts_desc,
	.name = "facts14",
	.summary = "the 1.4 run facts, one line each (tests)",
	.vt = &facts_vt,
};

#endif
