/* Redis commands as RESP2 arrays of bulk strings: the one a run sends
 * (the words of `command`, then `key`, then `value`, with {seq} and
 * {rand} in key and value replaced per request) and the fixed ones a
 * connection opens with (AUTH, SELECT).
 *
 * Thread: a struct redis_cmd is built [main] and read-only after, read
 * by every worker; a struct redis_buf belongs to its connection. */
#ifndef REDIS_CMD_H
#define REDIS_CMD_H

#include <stddef.h>
#include <stdint.h>

#define REDIS_WORDS_MAX 16u     /* words of the command option */
#define REDIS_COMMAND_MAX 256u  /* bytes of the command option */
#define REDIS_KEY_MAX 1024u     /* bytes of the key option */
#define REDIS_VALUE_MAX 65536u  /* bytes of the value option */
#define REDIS_PH_MAX 8u         /* {seq} and {rand} in one key or value */
#define REDIS_BUF_MAX (64u << 20) /* what one connection may queue */

/* A growable byte buffer, at most REDIS_BUF_MAX bytes. */
struct redis_buf {
	uint8_t *p;
	size_t len, cap;
};

int redis_buf_put(struct redis_buf *b, const void *p, size_t n);
void redis_buf_free(struct redis_buf *b);

/* One argument as given, and how many placeholders it holds. */
struct redis_arg {
	char *text;
	size_t len;
	uint32_t seq, rand;
};

struct redis_cmd {
	uint32_t argc;
	uint32_t vars; /* 1: an argument has a placeholder */
	struct redis_arg argv[REDIS_WORDS_MAX + 2];
	struct redis_buf fixed; /* the whole command when vars is 0 */
	size_t max_len;         /* the longest encoding of it */
};

/* Builds the command: the space-separated words of `command` (1 to
 * REDIS_WORDS_MAX), then `key` and `value` when not NULL. 0, or -1 with
 * one line in err[errlen] (which never quotes `value`). */
int redis_cmd_build(struct redis_cmd *c, const char *command, const char *key,
		    const char *value, char *err, size_t errlen);
void redis_cmd_free(struct redis_cmd *c);

/* Appends the command to `out` with {seq} as `seq` and {rand} as `rnd`
 * (the same values everywhere in it). 0, or -1 when out is full. */
int redis_cmd_encode(const struct redis_cmd *c, struct redis_buf *out,
		     uint64_t seq, uint64_t rnd);

/* Appends the array of argv[argc] (NUL-terminated strings) to `out`. */
int redis_cmd_literal(struct redis_buf *out, const char *const *argv,
		      size_t argc);

#endif
