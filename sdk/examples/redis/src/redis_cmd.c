/* Commands in RESP2: "*<argc>\r\n" then "$<len>\r\n<bytes>\r\n" per
 * argument (binary-safe, so a key or value may hold any byte). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis_cmd.h"

#define SEQ_TOKEN "{seq}"
#define RAND_TOKEN "{rand}"

int redis_buf_put(struct redis_buf *b, const void *p, size_t n)
{
	if (n > REDIS_BUF_MAX - b->len)
		return -1;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

void redis_buf_free(struct redis_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

static size_t count_of(const char *s, size_t len, const char *token)
{
	size_t n = 0, t = strlen(token);

	for (size_t i = 0; i + t <= len; i++)
		if (memcmp(s + i, token, t) == 0)
			n++;
	return n;
}

static int add_arg(struct redis_cmd *c, const char *s, size_t len, int vars)
{
	struct redis_arg *a = &c->argv[c->argc];

	a->text = malloc(len + 1);
	if (!a->text)
		return -1;
	memcpy(a->text, s, len);
	a->text[len] = '\0';
	a->len = len;
	if (vars) {
		a->seq = (uint32_t)count_of(s, len, SEQ_TOKEN);
		a->rand = (uint32_t)count_of(s, len, RAND_TOKEN);
	}
	c->argc++;
	return 0;
}

/* The command option's words, split on spaces. */
static int add_words(struct redis_cmd *c, const char *command, char *err,
		     size_t errlen)
{
	const char *s = command;

	if (strlen(command) > REDIS_COMMAND_MAX) {
		snprintf(err, errlen, "command is longer than %u bytes", REDIS_COMMAND_MAX);
		return -1;
	}
	while (*s) {
		size_t n = strcspn(s, " ");

		if (n && c->argc == REDIS_WORDS_MAX) {
			snprintf(err, errlen, "command has more than %u words", REDIS_WORDS_MAX);
			return -1;
		}
		if (n && add_arg(c, s, n, 0)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		s += n + (s[n] == ' ');
	}
	if (!c->argc) {
		snprintf(err, errlen, "command must name a Redis command, e.g. command=GET");
		return -1;
	}
	return 0;
}

/* key or value: bounded, with at most REDIS_PH_MAX placeholders. */
static int add_option(struct redis_cmd *c, const char *name, const char *v,
		      size_t max, char *err, size_t errlen)
{
	struct redis_arg *a;

	if (!v)
		return 0;
	if (strlen(v) > max) {
		snprintf(err, errlen, "%s is longer than %zu bytes", name, max);
		return -1;
	}
	if (add_arg(c, v, strlen(v), 1)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	a = &c->argv[c->argc - 1];
	if (a->seq + a->rand > REDIS_PH_MAX) {
		snprintf(err, errlen, "%s has more than %u {seq} and {rand}", name,
			 REDIS_PH_MAX);
		return -1;
	}
	c->vars |= a->seq + a->rand != 0;
	return 0;
}

static int put_header(struct redis_buf *out, char type, uint64_t n)
{
	char h[32];
	int k = snprintf(h, sizeof h, "%c%llu\r\n", type, (unsigned long long)n);

	return redis_buf_put(out, h, (size_t)k);
}

static size_t digits(uint64_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* One argument as a bulk string, placeholders replaced. */
static int put_arg(struct redis_buf *out, const struct redis_arg *a,
		   uint64_t seq, uint64_t rnd)
{
	char sv[24], rv[24];
	size_t sl = (size_t)snprintf(sv, sizeof sv, "%llu", (unsigned long long)seq);
	size_t rl = (size_t)snprintf(rv, sizeof rv, "%llu", (unsigned long long)rnd);
	size_t len = a->len - a->seq * (sizeof SEQ_TOKEN - 1) -
		     a->rand * (sizeof RAND_TOKEN - 1) + a->seq * sl + a->rand * rl;
	size_t i = 0;
	int rc = put_header(out, '$', len);

	while (!rc && i < a->len) {
		size_t rest = a->len - i;

		if (a->seq && rest >= sizeof SEQ_TOKEN - 1 &&
		    memcmp(a->text + i, SEQ_TOKEN, sizeof SEQ_TOKEN - 1) == 0) {
			rc = redis_buf_put(out, sv, sl);
			i += sizeof SEQ_TOKEN - 1;
		} else if (a->rand && rest >= sizeof RAND_TOKEN - 1 &&
			   memcmp(a->text + i, RAND_TOKEN, sizeof RAND_TOKEN - 1) == 0) {
			rc = redis_buf_put(out, rv, rl);
			i += sizeof RAND_TOKEN - 1;
		} else {
			rc = redis_buf_put(out, a->text + i, 1);
			i++;
		}
	}
	return rc || redis_buf_put(out, "\r\n", 2) ? -1 : 0;
}

int redis_cmd_encode(const struct redis_cmd *c, struct redis_buf *out,
		     uint64_t seq, uint64_t rnd)
{
	if (!c->vars)
		return redis_buf_put(out, c->fixed.p, c->fixed.len);
	if (put_header(out, '*', c->argc))
		return -1;
	for (uint32_t i = 0; i < c->argc; i++) {
		const struct redis_arg *a = &c->argv[i];

		if (a->seq + a->rand ? put_arg(out, a, seq, rnd)
				     : put_header(out, '$', a->len) ||
					       redis_buf_put(out, a->text, a->len) ||
					       redis_buf_put(out, "\r\n", 2))
			return -1;
	}
	return 0;
}

int redis_cmd_literal(struct redis_buf *out, const char *const *argv,
		      size_t argc)
{
	if (put_header(out, '*', argc))
		return -1;
	for (size_t i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (put_header(out, '$', n) || redis_buf_put(out, argv[i], n) ||
		    redis_buf_put(out, "\r\n", 2))
			return -1;
	}
	return 0;
}

/* The longest encoding: every placeholder 20 digits (UINT64_MAX). */
static size_t longest(const struct redis_cmd *c)
{
	size_t n = 1 + digits(c->argc) + 2;

	for (uint32_t i = 0; i < c->argc; i++) {
		size_t len = c->argv[i].len + (c->argv[i].seq + c->argv[i].rand) * 20;

		n += 1 + digits(len) + 2 + len + 2;
	}
	return n;
}

int redis_cmd_build(struct redis_cmd *c, const char *command, const char *key,
		    const char *value, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (add_words(c, command, err, errlen) ||
	    add_option(c, "key", key, REDIS_KEY_MAX, err, errlen) ||
	    add_option(c, "value", value, REDIS_VALUE_MAX, err, errlen))
		goto fail;
	c->max_len = longest(c);
	if (!c->vars) {
		c->vars = 1; /* encode through the general path once */
		if (redis_cmd_encode(c, &c->fixed, 0, 0)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		c->vars = 0;
	}
	return 0;
fail:
	redis_cmd_free(c);
	return -1;
}

void redis_cmd_free(struct redis_cmd *c)
{
	for (uint32_t i = 0; i < c->argc; i++)
		free(c->argv[i].text);
	redis_buf_free(&c->fixed);
	memset(c, 0, sizeof *c);
}
