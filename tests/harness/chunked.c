/* A byte-at-a-time state machine except for chunk data, which is skipped in
 * bulk: decoding cost is per chunk, not per byte. */
#include "chunked.h"

enum {
	CH_SIZE,      /* hex digits of the chunk size */
	CH_EXT,       /* after the size: blanks, extensions, up to CR */
	CH_SIZE_LF,   /* LF ending the size line */
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER,   /* at the start of a trailer line or the final CRLF */
	CH_TRAILER_LINE,
	CH_TRAILER_LF,
	CH_END_LF,
	CH_DONE,
};

/* Extension and trailer lines are bounded so a peer cannot make us scan
 * forever without progress. */
#define LINE_MAX_BYTES 4096

void shb_hchunked_init(struct shb_hchunked *c)
{
	c->state = CH_SIZE;
	c->digits = 0;
	c->left = 0;
	c->body = 0;
	c->line = 0;
}

static int hexval(uint8_t ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* One byte of everything but data. Returns 0, or -1 when malformed. */
static int step(struct shb_hchunked *c, uint8_t ch)
{
	switch (c->state) {
	case CH_SIZE: {
		int v = hexval(ch);
		if (v >= 0) {
			if (++c->digits > 15)
				return -1;
			c->left = c->left * 16 + (uint64_t)v;
			return 0;
		}
		if (c->digits == 0 ||
		    (ch != ';' && ch != ' ' && ch != '\t' && ch != '\r'))
			return -1;
		c->line = 0;
		c->state = CH_EXT;
	}
		/* fall through */
	case CH_EXT:
		if (ch == '\r')
			c->state = CH_SIZE_LF;
		else if (ch == '\n' || ++c->line > LINE_MAX_BYTES)
			return -1;
		return 0;
	case CH_SIZE_LF:
		if (ch != '\n')
			return -1;
		c->state = c->left ? CH_DATA : CH_TRAILER;
		return 0;
	case CH_DATA_CR:
		if (ch != '\r')
			return -1;
		c->state = CH_DATA_LF;
		return 0;
	case CH_DATA_LF:
		if (ch != '\n')
			return -1;
		c->state = CH_SIZE;
		c->digits = 0;
		c->left = 0;
		return 0;
	case CH_TRAILER:
		if (ch == '\r') {
			c->state = CH_END_LF;
			return 0;
		}
		c->line = 0;
		c->state = CH_TRAILER_LINE;
		/* fall through */
	case CH_TRAILER_LINE:
		if (ch == '\r')
			c->state = CH_TRAILER_LF;
		else if (ch == '\n' || ++c->line > LINE_MAX_BYTES)
			return -1;
		return 0;
	case CH_TRAILER_LF:
		if (ch != '\n')
			return -1;
		c->state = CH_TRAILER;
		return 0;
	case CH_END_LF:
		if (ch != '\n')
			return -1;
		c->state = CH_DONE;
		return 0;
	default:
		return -1;
	}
}

ssize_t shb_hchunked_feed(struct shb_hchunked *c, const uint8_t *data,
			  size_t len, int *done)
{
	size_t i = 0;
	*done = c->state == CH_DONE;
	while (i < len && c->state != CH_DONE) {
		if (c->state == CH_DATA) {
			uint64_t n = len - i;
			if (n > c->left)
				n = c->left;
			i += n;
			c->left -= n;
			c->body += n;
			if (c->left == 0)
				c->state = CH_DATA_CR;
			continue;
		}
		if (step(c, data[i++]) < 0)
			return -1;
	}
	*done = c->state == CH_DONE;
	return (ssize_t)i;
}
