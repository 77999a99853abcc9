/* Script builders: validate and copy, nothing else. */
#include "script_internal.h"

#include <stdlib.h>
#include <string.h>

struct shb_hscript *shb_hscript_new(void)
{
	return calloc(1, sizeof(struct shb_hscript));
}

void shb_hscript_free(struct shb_hscript *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->count; i++)
		free(s->steps[i].data);
	free(s->steps);
	free(s);
}

int shb_hscript_ok(const struct shb_hscript *s)
{
	return s && !s->broken;
}

size_t shb_hscript_steps(const struct shb_hscript *s)
{
	return s ? s->count : 0;
}

static int fail(struct shb_hscript *s)
{
	if (s)
		s->broken = 1;
	return -1;
}

/* Appends a step, taking a copy of data[0..len) when data is given. */
static int add(struct shb_hscript *s, struct shb_hstep st, const void *data,
	       size_t len)
{
	if (!s)
		return -1;
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct shb_hstep *n = realloc(s->steps, cap * sizeof(*n));
		if (!n)
			return fail(s);
		s->steps = n;
		s->cap = cap;
	}
	if (data) {
		st.data = malloc(len ? len : 1);
		if (!st.data)
			return fail(s);
		memcpy(st.data, data, len);
		st.len = len;
	}
	s->steps[s->count] = st;
	return (int)s->count++;
}

static int add_kind(struct shb_hscript *s, enum shb_hstep_kind kind)
{
	return add(s, (struct shb_hstep){ .kind = kind }, NULL, 0);
}

int shb_hscript_expect_bytes(struct shb_hscript *s, uint64_t n)
{
	if (n == 0)
		return fail(s);
	return add(s, (struct shb_hstep){ .kind = HSTEP_EXPECT_BYTES, .n = n },
		   NULL, 0);
}

int shb_hscript_expect_exact(struct shb_hscript *s, const void *data,
			     size_t len)
{
	if (!data || len == 0)
		return fail(s);
	return add(s, (struct shb_hstep){ .kind = HSTEP_EXPECT_EXACT }, data,
		   len);
}

int shb_hscript_expect_until(struct shb_hscript *s, const void *pat,
			     size_t patlen, size_t max)
{
	if (!pat || patlen == 0 || max < patlen)
		return fail(s);
	return add(s, (struct shb_hstep){ .kind = HSTEP_EXPECT_UNTIL, .n = max },
		   pat, patlen);
}

int shb_hscript_expect_head(struct shb_hscript *s)
{
	return add_kind(s, HSTEP_EXPECT_HEAD);
}

int shb_hscript_expect_body(struct shb_hscript *s)
{
	return add_kind(s, HSTEP_EXPECT_BODY);
}

int shb_hscript_expect_request(struct shb_hscript *s)
{
	return add_kind(s, HSTEP_EXPECT_REQUEST);
}

int shb_hscript_send(struct shb_hscript *s, const void *data, size_t len)
{
	if (!data && len)
		return fail(s);
	return add(s, (struct shb_hstep){ .kind = HSTEP_SEND }, data ? data : "",
		   len);
}

int shb_hscript_send_str(struct shb_hscript *s, const char *str)
{
	if (!str)
		return fail(s);
	return shb_hscript_send(s, str, strlen(str));
}

int shb_hscript_delay(struct shb_hscript *s, uint32_t ms)
{
	return add(s, (struct shb_hstep){ .kind = HSTEP_DELAY, .n = ms }, NULL,
		   0);
}

int shb_hscript_stall(struct shb_hscript *s)
{
	return add_kind(s, HSTEP_STALL);
}

int shb_hscript_close(struct shb_hscript *s)
{
	return add_kind(s, HSTEP_CLOSE);
}

int shb_hscript_reset(struct shb_hscript *s)
{
	return add_kind(s, HSTEP_RESET);
}

int shb_hscript_close_if_asked(struct shb_hscript *s)
{
	return add_kind(s, HSTEP_CLOSE_IF_ASKED);
}

int shb_hscript_repeat(struct shb_hscript *s, int step, uint32_t times)
{
	if (!s || step < 0 || (size_t)step >= s->count)
		return fail(s);
	return add(s, (struct shb_hstep){ .kind = HSTEP_REPEAT, .n = times,
					  .target = (size_t)step }, NULL, 0);
}

int shb_hscript_call(struct shb_hscript *s, shb_hscript_fn fn, void *arg)
{
	if (!fn)
		return fail(s);
	return add(s, (struct shb_hstep){ .kind = HSTEP_CALL, .fn = fn,
					  .arg = arg }, NULL, 0);
}
