/* shb merge's reading of the ABI 1.4 members of a report (merge_v14.h). */
#include "results/merge_v14.h"

#include <stdlib.h>
#include <string.h>

#include "common/quote.h"
#include "results/merge_json.h"

static int bad(const char *name, const char *field, const char *why,
	       char *err, size_t errlen)
{
	return shb_errf(err, errlen, "%s: %s: %s", name, field, why);
}

/* One space's codes into out[], ended by a code named NULL. */
static int codes_of(const json_t *codes, struct shb_outcome_code *out,
		    const char *name, char *err, size_t errlen)
{
	size_t i, n = json_array_size(codes);
	const json_t *c;
	if (!json_is_array(codes) || n > SHB_MERGE14_CODES)
		return bad(name, "outcomeSpaces.codes", "not an array of at most "
			   "256 codes", err, errlen);
	json_array_foreach(codes, i, c) {
		const char *cn = json_string_value(json_object_get(c, "name"));
		const json_t *code = json_object_get(c, "code");
		if (!cn || !shb_outcome_name_ok(cn) || !json_is_integer(code) ||
		    json_integer_value(code) < 0)
			return bad(name, "outcomeSpaces.codes", "a code without a "
				   "number, or a name not [a-z0-9_]{1,31}", err, errlen);
		for (size_t k = 0; k < i; k++)
			if (out[k].code == (uint64_t)json_integer_value(code) ||
			    !strcmp(out[k].name, cn))
				return shb_errf(err, errlen, "%s: outcomeSpaces.codes: "
						"code %s given twice", name, cn);
		out[i] = (struct shb_outcome_code){
			.code = (uint64_t)json_integer_value(code), .name = cn,
			.ok = json_is_true(json_object_get(c, "ok"))};
	}
	out[n] = (struct shb_outcome_code){0};
	return 0;
}

static int space_of(struct shb_merge14 *t, size_t i, const json_t *sp,
		    struct shb_outcome_code *codes, const char *name,
		    char *err, size_t errlen)
{
	const char *sn = json_string_value(json_object_get(sp, "name"));
	const json_t *num = json_object_get(sp, "number");
	if (!sn || !shb_outcome_name_ok(sn) || !json_is_integer(num) ||
	    json_integer_value(num) < SHB_APPSPACE_PRIVATE ||
	    json_integer_value(num) > UINT32_MAX)
		return bad(name, "outcomeSpaces", "a space without a name "
			   "[a-z0-9_]{1,31} or a number from 65536 to 2^32 - 1",
			   err, errlen);
	for (size_t k = 0; k < i; k++)
		if (t->spaces[k].space == (uint32_t)json_integer_value(num) ||
		    !strcmp(t->spaces[k].name, sn))
			return shb_errf(err, errlen, "%s: outcomeSpaces: space %s "
					"given twice", name, sn);
	t->spaces[i] = (struct shb_outcome_space){
		.space = (uint32_t)json_integer_value(num), .name = sn,
		.codes = codes};
	return codes_of(json_object_get(sp, "codes"), codes, name, err, errlen);
}

static int table_of(struct shb_merge14 *t, const char *name, const json_t *doc,
		    char *err, size_t errlen)
{
	const json_t *arr = json_object_get(doc, "outcomeSpaces"), *sp;
	size_t i, n = json_array_size(arr);
	if (!arr)
		return 0;
	if (!json_is_array(arr) || n > SHB_MERGE14_SPACES)
		return bad(name, "outcomeSpaces", "not an array of at most 16 "
			   "spaces", err, errlen);
	t->codes = calloc(n * (SHB_MERGE14_CODES + 1) + 1, sizeof(*t->codes));
	if (!t->codes)
		return shb_errf(err, errlen, "out of memory");
	json_array_foreach(arr, i, sp)
		if (space_of(t, i, sp, t->codes + i * (SHB_MERGE14_CODES + 1),
			     name, err, errlen) < 0)
			return -1;
	t->table = (struct shb_outcome_table){t->spaces, n};
	return 0;
}

/* --connect-to or --resolve as typed: strings, at most SHB_MERGE14_LIST. */
static int list_of(const char **out, size_t *count, const char *name,
		   const char *field, const json_t *arr, char *err, size_t errlen)
{
	size_t i;
	const json_t *v;
	if (!arr)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) > SHB_MERGE14_LIST)
		return bad(name, field, "not an array of at most 64 strings", err,
			   errlen);
	json_array_foreach(arr, i, v)
		if (!(out[i] = json_string_value(v)))
			return bad(name, field, "not an array of at most 64 strings",
				   err, errlen);
	*count = json_array_size(arr);
	return 0;
}

static int take(struct shb_merge14 *t, const char *name, const json_t *doc,
		char *err, size_t errlen)
{
	t->answered_all = 1;
	const json_t *rm = json_object_get(doc, "requestModel");
	if (rm && (!json_is_string(rm) || strcmp(json_string_value(rm), "none")))
		return bad(name, "requestModel", "not \"none\"", err, errlen);
	t->request_model = rm ? SHB_REQMODEL_NONE : SHB_REQMODEL_HTTP;
	t->success = json_string_value(json_object_get(doc, "success"));
	t->proxy = json_string_value(json_object_get(doc, "proxy"));
	t->source = json_string_value(json_object_get(doc, "source"));
	t->unix_socket = json_string_value(json_object_get(doc, "unixSocket"));
	if (list_of(t->connect_to, &t->connect_to_count, name, "connectTo",
		    json_object_get(doc, "connectTo"), err, errlen) < 0 ||
	    list_of(t->resolve, &t->resolve_count, name, "resolve",
		    json_object_get(doc, "resolve"), err, errlen) < 0)
		return -1;
	return table_of(t, name, doc, err, errlen);
}

int shb_merge14_take(struct shb_merge14 *t, const char *name, const json_t *doc,
		     char *err, size_t errlen)
{
	/* a first report refused after this leaves its table: the next one
	 * replaces it */
	shb_merge14_fini(t);
	if (take(t, name, doc, err, errlen) == 0)
		return 0;
	shb_merge14_fini(t); /* nothing half-read stays */
	return -1;
}

void shb_merge14_fini(struct shb_merge14 *t)
{
	free(t->codes);
	memset(t, 0, sizeof(*t));
}

int shb_merge14_counters(struct shb_merge14 *t, struct shb_stats *s,
			 const char *name, const json_t *doc, char *err,
			 size_t errlen)
{
	const json_t *ans = json_object_get(json_object_get(doc, "requests"),
					    "answered");
	if (!ans) {
		t->answered_all = 0;
		return 0;
	}
	uint64_t a = shb_mj_u64(ans);
	if (!json_is_integer(ans) || a < s->ok || a - s->ok > s->errors)
		return shb_errf(err, errlen, "%s: requests.answered is not between "
				"requests.ok and ok plus errors", name);
	s->error_replies = a - s->ok;
	if (shb_merge_histo_from(&s->latency_error_reply, name,
				 "latencyErrorReplyHistogram",
				 json_object_get(doc, "latencyErrorReplyHistogram"),
				 json_object_get(doc, "latencyErrorReplySeconds"),
				 err, errlen) < 0)
		return -1;
	if (s->latency_error_reply.total != s->error_replies)
		return shb_errf(err, errlen, "%s: latencyErrorReplyHistogram holds "
				"%llu values, requests.answered minus ok is %llu",
				name, (unsigned long long)s->latency_error_reply.total,
				(unsigned long long)s->error_replies);
	return 0;
}

void shb_merge14_info(const struct shb_merge14 *t, struct shb_run_info *info)
{
	info->request_model = t->request_model;
	info->outcome_spaces = t->table.count ? t->table.spaces : NULL;
	info->outcome_space_count = t->table.count;
	info->success = t->success;
	info->proxy = t->proxy;
	info->connect_to = t->connect_to_count ? t->connect_to : NULL;
	info->connect_to_count = t->connect_to_count;
	info->resolve = t->resolve_count ? t->resolve : NULL;
	info->resolve_count = t->resolve_count;
	info->source = t->source;
	info->unix_socket = t->unix_socket;
}
