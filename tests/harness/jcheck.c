/* shb-jcheck: assertions on a JSON document for shell tests.
 *
 *   shb-jcheck FILE 'requests.ok == 1000' 'errors.timeout >= 1' ...
 *   shb-jcheck --get FILE requests.ok        prints the value (compact JSON)
 *
 * Paths are dotted object keys or array indices (a literal dot in a key is
 * written "\."); FILE "-" is standard input. Exit 0 when every check
 * holds, 1 when one fails (each failure is printed with the actual value),
 * 2 on bad usage or unreadable JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

enum op { OP_EQ, OP_NE, OP_GT, OP_GE, OP_LT, OP_LE };

static const char *const op_text[] = { "==", "!=", ">", ">=", "<", "<=" };

struct check {
	char *path;
	enum op op;
	json_t *want; /* the expected value */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: shb-jcheck FILE 'PATH OP VALUE'...\n"
		"       shb-jcheck --get FILE PATH\n"
		"OP: == != > >= < <=; VALUE: number, \"string\", bare word, "
		"null, true, false\n");
}

static json_t *load(const char *file)
{
	json_error_t e;
	json_t *doc = strcmp(file, "-") == 0
		? json_loadf(stdin, JSON_DECODE_ANY, &e)
		: json_load_file(file, JSON_DECODE_ANY, &e);
	if (!doc)
		fprintf(stderr, "shb-jcheck: %s: line %d: %s\n", file, e.line,
			e.text);
	return doc;
}

/* Walks a dotted path. Returns NULL when some part is missing. */
static json_t *lookup(json_t *doc, const char *path)
{
	size_t n = strlen(path);
	char *seg = malloc(n + 1);
	json_t *cur = doc;
	size_t i = 0;
	if (!seg)
		return NULL;
	while (cur && i < n) {
		size_t k = 0;
		while (i < n && path[i] != '.') {
			if (path[i] == '\\' && i + 1 < n)
				i++;
			seg[k++] = path[i++];
		}
		seg[k] = '\0';
		i++; /* the dot */
		if (json_is_object(cur)) {
			cur = json_object_get(cur, seg);
		} else if (json_is_array(cur) && k > 0 &&
			   strspn(seg, "0123456789") == k) {
			cur = json_array_get(cur, strtoul(seg, NULL, 10));
		} else {
			cur = NULL;
		}
	}
	free(seg);
	return cur;
}

static char *trimmed(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return strndup(s, n);
}

/* A value as written on the command line. */
static json_t *parse_value(const char *v)
{
	size_t n = strlen(v);
	char *end;
	if (strcmp(v, "null") == 0)
		return json_null();
	if (strcmp(v, "true") == 0)
		return json_true();
	if (strcmp(v, "false") == 0)
		return json_false();
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
		return json_stringn(v + 1, n - 2);
	if (n) {
		errno = 0;
		long long i = strtoll(v, &end, 10);
		if (!*end && !errno)
			return json_integer(i);
		double d = strtod(v, &end);
		if (!*end && isfinite(d))
			return json_real(d);
	}
	return json_string(v);
}

/* Splits "PATH OP VALUE" at its first operator. */
static int parse_check(const char *expr, struct check *c)
{
	for (const char *p = expr; *p; p++) {
		int len = 0;
		if ((p[0] == '=' || p[0] == '!') && p[1] == '=') {
			c->op = p[0] == '=' ? OP_EQ : OP_NE;
			len = 2;
		} else if (p[0] == '>' || p[0] == '<') {
			len = p[1] == '=' ? 2 : 1;
			c->op = p[0] == '>' ? (len == 2 ? OP_GE : OP_GT)
					    : (len == 2 ? OP_LE : OP_LT);
		}
		if (!len)
			continue;
		c->path = trimmed(expr, (size_t)(p - expr));
		char *v = trimmed(p + len, strlen(p + len));
		c->want = v && *v ? parse_value(v) : NULL;
		free(v);
		if (!c->path || !c->want)
			return -1;
		/* Ordering is defined for numbers and strings only. */
		if (c->op >= OP_GT && !json_is_number(c->want) &&
		    !json_is_string(c->want))
			return -1;
		return 0;
	}
	return -1;
}

static int order(int cmp, enum op op)
{
	switch (op) {
	case OP_EQ: return cmp == 0;
	case OP_NE: return cmp != 0;
	case OP_GT: return cmp > 0;
	case OP_GE: return cmp >= 0;
	case OP_LT: return cmp < 0;
	case OP_LE: return cmp <= 0;
	}
	return 0;
}

/* Returns 1 when the check holds. Values of different types are only ever
 * unequal. */
static int holds(const json_t *have, const struct check *c)
{
	const json_t *w = c->want;
	if (!have)
		return 0;
	if (json_is_integer(have) && json_is_integer(w)) {
		json_int_t a = json_integer_value(have), b = json_integer_value(w);
		return order((a > b) - (a < b), c->op);
	}
	if (json_is_number(have) && json_is_number(w)) {
		double a = json_number_value(have), b = json_number_value(w);
		return order((a > b) - (a < b), c->op);
	}
	if (json_is_string(have) && json_is_string(w))
		return order(strcmp(json_string_value(have),
				    json_string_value(w)), c->op);
	if (c->op == OP_EQ || c->op == OP_NE)
		return json_equal((json_t *)have, (json_t *)w) == (c->op == OP_EQ);
	return 0;
}

static void print_value(FILE *out, const json_t *v)
{
	char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT |
				      JSON_REAL_PRECISION(15)) : NULL;
	fputs(s ? s : "(missing)", out);
	free(s);
}

static int cmd_get(const char *file, const char *path)
{
	json_t *doc = load(file);
	if (!doc)
		return 2;
	json_t *v = lookup(doc, path);
	int rc = v ? 0 : 1;
	if (v) {
		/* Bare strings so shells can use them directly. */
		if (json_is_string(v))
			fputs(json_string_value(v), stdout);
		else
			print_value(stdout, v);
		putchar('\n');
	} else {
		fprintf(stderr, "shb-jcheck: %s: no value at '%s'\n", file, path);
	}
	json_decref(doc);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--get") == 0)
		return cmd_get(argv[2], argv[3]);
	if (argc < 3 || strncmp(argv[1], "--", 2) == 0) {
		usage();
		return 2;
	}
	int n = argc - 2;
	struct check *checks = calloc((size_t)n, sizeof(*checks));
	int rc = 0;
	if (!checks)
		return 2;
	for (int i = 0; i < n; i++) {
		if (parse_check(argv[i + 2], &checks[i]) < 0) {
			fprintf(stderr, "shb-jcheck: bad check '%s'\n", argv[i + 2]);
			rc = 2;
		}
	}
	json_t *doc = rc ? NULL : load(argv[1]);
	if (!rc && !doc)
		rc = 2;
	int failed = 0;
	for (int i = 0; !rc && i < n; i++) {
		const struct check *c = &checks[i];
		const json_t *have = lookup(doc, c->path);
		if (holds(have, c))
			continue;
		printf("FAIL %s %s ", c->path, op_text[c->op]);
		print_value(stdout, c->want);
		printf(" (actual: ");
		print_value(stdout, have);
		printf(")\n");
		failed = 1;
	}
	if (!rc && failed)
		rc = 1;
	for (int i = 0; i < n; i++) {
		free(checks[i].path);
		json_decref(checks[i].want);
	}
	free(checks);
	json_decref(doc);
	fflush(stdout);
	return rc;
}
