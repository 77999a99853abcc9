/* A RESP2 reply reader (the Redis serialization protocol, version 2),
 * Sans-I/O and incremental: fed whatever bytes arrived, it says where one
 * whole reply ends and what kind it was, however the bytes were cut.
 *
 * It keeps no reply: bulk strings are skipped, arrays are counted, and
 * only the first word of a top-level error reply ("ERR", "WRONGTYPE") is
 * copied. Its memory is this struct, whatever the peer sends: nesting is
 * at most RESP_DEPTH_MAX arrays, an array at most RESP_ARRAY_MAX
 * elements, a bulk string at most `max_bulk` bytes, a status or error
 * line at most RESP_LINE_MAX bytes; beyond any of these the reply is
 * malformed (the connection ends with a protocol error).
 *
 * Thread: a parser belongs to one connection ([conn]); no globals. */
#ifndef REDIS_RESP_H
#define REDIS_RESP_H

#include <stddef.h>
#include <stdint.h>

#define RESP_DEPTH_MAX 16u           /* arrays inside arrays */
#define RESP_ARRAY_MAX (1u << 20)    /* elements of one array */
#define RESP_LINE_MAX 65536u         /* a +status or -error line */
#define RESP_BULK_DEFAULT (1u << 20) /* max-bulk's default: 1 MiB */
#define RESP_BULK_LIMIT (512u << 20) /* max-bulk's limit: Redis's own */
#define RESP_WORD_MAX 32u            /* error word kept, NUL included */

/* What a whole top-level reply was. */
enum resp_kind {
	RESP_OK = 0,    /* +status, :integer, a bulk string, an array */
	RESP_NIL = 1,   /* $-1 or *-1 */
	RESP_ERROR = 2, /* -error */
};

struct resp_reply {
	uint32_t kind;          /* enum resp_kind */
	uint32_t reserved;
	uint64_t bytes;         /* the reply's bytes, framing included */
	int64_t integer;        /* a top-level :integer's value, else 0 */
	char word[RESP_WORD_MAX]; /* an error's first word, "" otherwise */
};

struct resp_parser {
	uint64_t max_bulk;
	uint32_t state;   /* where in an element (resp.c) */
	uint32_t depth;   /* open arrays */
	uint64_t remain[RESP_DEPTH_MAX]; /* elements left in each */
	uint8_t type;     /* the element's type byte */
	uint8_t neg;      /* its number had a '-' */
	uint8_t word_done;
	uint8_t top;      /* the element is the reply itself */
	uint32_t line_len;
	uint32_t digits;
	uint64_t num;
	uint64_t bulk_left;
	struct resp_reply cur; /* the reply being read */
	const char *err;  /* why the input is malformed (static text) */
};

/* A parser for replies whose bulk strings are at most max_bulk bytes. */
void resp_init(struct resp_parser *p, uint64_t max_bulk);

/* Reads data[len] up to the end of the first reply that completes in it.
 * Returns the bytes consumed: with *done 1, the reply is in *out and the
 * rest of the input belongs to the next reply; with *done 0, all of
 * data[len] was consumed and the reply goes on. Returns -1 when the input
 * is malformed (the reason in p->err); the parser is then unusable. */
ptrdiff_t resp_parse(struct resp_parser *p, const uint8_t *data, size_t len,
		     struct resp_reply *out, int *done);

/* 1 while a reply has begun and not ended. */
int resp_in_reply(const struct resp_parser *p);

#endif
