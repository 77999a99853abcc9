/* The RESP2 reply reader: a byte-at-a-time state machine for the framing
 * (type byte, header line, CRLF), bulk payloads skipped in one step. Each
 * element's type byte starts it; a +status, -error or :integer ends at
 * its line's CRLF, a bulk string after its payload and CRLF, an array
 * after its last element. A reply ends with its outermost element. */
#include <string.h>

#include "resp.h"

enum resp_state {
	RS_TYPE = 0, /* the next element's type byte */
	RS_LINE,     /* its header line, up to CR */
	RS_LF,       /* the LF after that CR */
	RS_BULK,     /* a bulk string's payload */
	RS_BULK_CR,  /* the CR after it */
	RS_BULK_LF,  /* the LF after that */
};

/* A number in a header line: at most 19 digits, so it fits an int64. */
#define RESP_DIGITS_MAX 19u

void resp_init(struct resp_parser *p, uint64_t max_bulk)
{
	memset(p, 0, sizeof *p);
	p->max_bulk = max_bulk;
}

int resp_in_reply(const struct resp_parser *p)
{
	return p->cur.bytes != 0 || p->state != RS_TYPE || p->depth != 0;
}

static int fail(struct resp_parser *p, const char *why)
{
	p->err = why;
	return -1;
}

/* An element ended: count it against the arrays it is in. 1 when that
 * ended the reply. */
static int element_done(struct resp_parser *p)
{
	p->state = RS_TYPE;
	while (p->depth) {
		if (--p->remain[p->depth - 1])
			return 0;
		p->depth--;
	}
	return 1;
}

static int start_element(struct resp_parser *p, uint8_t b)
{
	if (!memchr("+-:$*", b, 5))
		return fail(p, "a byte that starts no RESP2 reply");
	p->type = b;
	p->neg = 0;
	p->word_done = 0;
	p->top = p->depth == 0;
	p->line_len = 0;
	p->digits = 0;
	p->num = 0;
	if (p->top)
		p->cur.kind = b == '-' ? RESP_ERROR : RESP_OK;
	p->state = RS_LINE;
	return 0;
}

/* A byte of a +status or -error line: only a top-level error's first word
 * (printable ASCII up to a space, cut to fit) is kept. */
static int text_byte(struct resp_parser *p, uint8_t b)
{
	if (++p->line_len > RESP_LINE_MAX)
		return fail(p, "a status or error line longer than 65536 bytes");
	if (p->type != '-' || !p->top || p->word_done)
		return 0;
	if (b > 0x20 && b < 0x7f && p->digits < RESP_WORD_MAX - 1) {
		p->cur.word[p->digits++] = (char)b;
		return 0;
	}
	p->word_done = 1;
	return 0;
}

/* A byte of a :integer, $length or *count line: [-]digits. */
static int number_byte(struct resp_parser *p, uint8_t b)
{
	if (b == '-' && !p->neg && !p->digits) {
		p->neg = 1;
		return 0;
	}
	if (b < '0' || b > '9' || p->digits == RESP_DIGITS_MAX)
		return fail(p, "a malformed number in a reply");
	p->digits++;
	p->num = p->num * 10 + (uint64_t)(b - '0');
	return 0;
}

static int line_byte(struct resp_parser *p, uint8_t b)
{
	if (b == '\r') {
		p->state = RS_LF;
		return 0;
	}
	if (b == '\n')
		return fail(p, "a line feed without a carriage return");
	if (p->type == '+' || p->type == '-')
		return text_byte(p, b);
	return number_byte(p, b);
}

/* $-1 and *-1 are nil; no other negative length exists. */
static int null_element(struct resp_parser *p)
{
	if (p->num != 1)
		return fail(p, "a negative length other than -1");
	if (p->top)
		p->cur.kind = RESP_NIL;
	return element_done(p);
}

static int length_line(struct resp_parser *p)
{
	if (p->neg)
		return null_element(p);
	if (p->type == '$') {
		if (p->num > p->max_bulk)
			return fail(p, "a bulk string longer than max-bulk");
		p->bulk_left = p->num;
		p->state = p->num ? RS_BULK : RS_BULK_CR;
		return 0;
	}
	if (p->num == 0)
		return element_done(p);
	if (p->num > RESP_ARRAY_MAX)
		return fail(p, "an array of more than 1048576 elements");
	if (p->depth == RESP_DEPTH_MAX)
		return fail(p, "arrays nested more than 16 deep");
	p->remain[p->depth++] = p->num;
	p->state = RS_TYPE;
	return 0;
}

/* The header line's CRLF: what the line said decides what follows. */
static int line_end(struct resp_parser *p)
{
	if (p->type == '+' || p->type == '-')
		return element_done(p);
	if (!p->digits)
		return fail(p, "a malformed number in a reply");
	if (p->type == '$' || p->type == '*')
		return length_line(p);
	if (p->top)
		p->cur.integer = p->neg ? -(int64_t)p->num : (int64_t)p->num;
	return element_done(p);
}

/* One framing byte; 1 when it ended the reply, -1 when malformed. */
static int step(struct resp_parser *p, uint8_t b)
{
	switch (p->state) {
	case RS_TYPE:
		return start_element(p, b);
	case RS_LINE:
		return line_byte(p, b);
	case RS_LF:
		if (b != '\n')
			return fail(p, "a carriage return without a line feed");
		return line_end(p);
	case RS_BULK_CR:
		if (b != '\r')
			return fail(p, "a bulk string longer than its length");
		p->state = RS_BULK_LF;
		return 0;
	default: /* RS_BULK_LF */
		if (b != '\n')
			return fail(p, "a bulk string longer than its length");
		return element_done(p);
	}
}

ptrdiff_t resp_parse(struct resp_parser *p, const uint8_t *data, size_t len,
		     struct resp_reply *out, int *done)
{
	size_t i = 0;

	*done = 0;
	if (p->err)
		return -1;
	while (i < len) {
		int r;

		if (p->state == RS_BULK) {
			size_t n = len - i;

			if (n > p->bulk_left)
				n = (size_t)p->bulk_left;
			i += n;
			p->bulk_left -= n;
			if (!p->bulk_left)
				p->state = RS_BULK_CR;
			continue;
		}
		r = step(p, data[i++]);
		if (r < 0)
			return -1;
		if (r > 0) {
			p->cur.bytes += i;
			*out = p->cur;
			memset(&p->cur, 0, sizeof p->cur);
			*done = 1;
			return (ptrdiff_t)i;
		}
	}
	p->cur.bytes += len;
	return (ptrdiff_t)len;
}
