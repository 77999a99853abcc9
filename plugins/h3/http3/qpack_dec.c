/* Streaming QPACK field section decoder: see qpack_dec.h. */
#include "qpack_dec.h"

#include <string.h>

#include "http_huffman.h"
#include "http_status.h"
#include "qpack_static.h"

enum state {
	ST_RIC,         /* first octet of Required Insert Count */
	ST_BASE,        /* first octet of Sign + Delta Base */
	ST_LINE,        /* first octet of a field line */
	ST_INT,         /* continuation octets of a prefixed integer */
	ST_NAME,        /* literal name octets */
	ST_VALUE_FIRST, /* first octet of a value string */
	ST_VALUE,       /* value octets */
};

/* What the integer being read is for. */
enum what {
	W_RIC,
	W_BASE,
	W_INDEXED,
	W_NAME_REF,
	W_NAME_LEN,
	W_VALUE_LEN,
};

enum flag {
	F_HUFFMAN = 1u << 0,   /* the current string is Huffman-coded */
	F_IS_STATUS = 1u << 1, /* the current line's name is :status */
};

static const char status_name[] = ":status";
#define STATUS_NAME_LEN (sizeof(status_name) - 1)

void shb_qpack_dec_begin(struct shb_qpack_dec *d, uint64_t section_len)
{
	memset(d, 0, sizeof(*d));
	d->left = section_len;
	d->state = ST_RIC;
}

static int fail(struct shb_qpack_dec *d, const char *why)
{
	d->detail = why;
	return SHB_QPACK_DEC_E_CONN;
}

static int malformed(struct shb_qpack_dec *d, const char *why)
{
	d->detail = why;
	return SHB_QPACK_DEC_E_MESSAGE;
}

static int set_status(struct shb_qpack_dec *d, int status)
{
	if (status < 0)
		return malformed(d, "invalid :status value");
	if (d->status)
		return malformed(d, "more than one :status");
	d->status = (uint16_t)status;
	return SHB_QPACK_DEC_MORE;
}

static int end_line(struct shb_qpack_dec *d)
{
	d->lines++;
	d->state = ST_LINE;
	d->flags = 0;
	return SHB_QPACK_DEC_MORE;
}

/* A name or value string of `len` octets starts; `next` is the state that
 * reads its octets. */
static int start_string(struct shb_qpack_dec *d, uint64_t len, uint8_t next)
{
	if (len > d->left)
		return fail(d, "field string runs past the field section");
	d->str_len = d->str_left = len;
	d->got = 0;
	d->state = next;
	return SHB_QPACK_DEC_MORE;
}

static int end_name(struct shb_qpack_dec *d)
{
	uint8_t plain[16];
	size_t n = d->got;
	const uint8_t *name = d->buf;

	d->state = ST_VALUE_FIRST;
	if (d->str_len != d->got)
		return SHB_QPACK_DEC_MORE; /* longer than buf: not :status */
	if (d->flags & F_HUFFMAN) {
		if (shb_huff_decode(d->buf, d->got, plain, sizeof(plain), &n) !=
		    SHB_HUFF_OK)
			return SHB_QPACK_DEC_MORE; /* skipped like any name */
		name = plain;
	}
	if (n == STATUS_NAME_LEN && memcmp(name, status_name, n) == 0)
		d->flags |= F_IS_STATUS;
	return SHB_QPACK_DEC_MORE;
}

static int end_value(struct shb_qpack_dec *d)
{
	int rc = SHB_QPACK_DEC_MORE;

	if (d->flags & F_IS_STATUS) {
		int st = -1;

		if (d->str_len == d->got)
			st = shb_http_status_decode(d->buf, d->got,
						    d->flags & F_HUFFMAN);
		rc = set_status(d, st);
	}
	if (rc != SHB_QPACK_DEC_MORE)
		return rc;
	return end_line(d);
}

static int static_index(struct shb_qpack_dec *d, uint64_t index)
{
	const struct shb_qpack_static_entry *e = shb_qpack_static_get(index);
	int rc;

	if (!e)
		return fail(d, "static table index out of range");
	if (d->what == W_NAME_REF) {
		if (shb_qpack_static_is_status(index))
			d->flags |= F_IS_STATUS;
		d->state = ST_VALUE_FIRST;
		return SHB_QPACK_DEC_MORE;
	}
	if (shb_qpack_static_is_status(index)) {
		rc = set_status(d, shb_http_status_digits(
					   (const uint8_t *)e->value,
					   e->value_len));
		if (rc != SHB_QPACK_DEC_MORE)
			return rc;
	}
	return end_line(d);
}

/* The integer in d->pi is complete. */
static int got_int(struct shb_qpack_dec *d)
{
	uint64_t v = d->pi.value;

	switch (d->what) {
	case W_RIC:
		/* With MaxEntries 0 the only valid encoding is 0. */
		if (v != 0)
			return fail(d, "Required Insert Count above 0 "
				       "with a zero-capacity table");
		d->state = ST_BASE;
		return SHB_QPACK_DEC_MORE;
	case W_BASE:
		d->state = ST_LINE;
		return SHB_QPACK_DEC_MORE;
	case W_INDEXED:
	case W_NAME_REF:
		return static_index(d, v);
	case W_NAME_LEN:
		return start_string(d, v, ST_NAME);
	default:
		return start_string(d, v, ST_VALUE);
	}
}

static int start_int(struct shb_qpack_dec *d, uint8_t octet,
		     unsigned prefix_bits, uint8_t what)
{
	d->what = what;
	if (shb_prefint_begin(&d->pi, octet, prefix_bits) == SHB_PREFINT_DONE)
		return got_int(d);
	d->state = ST_INT;
	return SHB_QPACK_DEC_MORE;
}

static int next_int(struct shb_qpack_dec *d, uint8_t octet)
{
	int rc = shb_prefint_next(&d->pi, octet);

	if (rc == SHB_PREFINT_E_RANGE)
		return fail(d, "QPACK integer too large");
	return rc == SHB_PREFINT_DONE ? got_int(d) : SHB_QPACK_DEC_MORE;
}

static int line_first(struct shb_qpack_dec *d, uint8_t o)
{
	if (o & 0x80) { /* 1 T index(6): Indexed Field Line */
		if (!(o & 0x40))
			return fail(d, "dynamic table reference");
		return start_int(d, o, 6, W_INDEXED);
	}
	if (o & 0x40) { /* 01 N T index(4): Literal with Name Reference */
		if (!(o & 0x10))
			return fail(d, "dynamic table name reference");
		return start_int(d, o, 4, W_NAME_REF);
	}
	if (o & 0x20) { /* 001 N H length(3): Literal with Literal Name */
		if (o & 0x08)
			d->flags |= F_HUFFMAN;
		return start_int(d, o, 3, W_NAME_LEN);
	}
	if (o & 0x10)
		return fail(d, "post-base indexed field line");
	return fail(d, "post-base name reference");
}

/* One octet of a non-string state. */
static int octet(struct shb_qpack_dec *d, uint8_t o)
{
	switch (d->state) {
	case ST_RIC:
		return start_int(d, o, 8, W_RIC);
	case ST_BASE:
		if (o & 0x80)
			return fail(d, "negative Base");
		return start_int(d, o, 7, W_BASE);
	case ST_LINE:
		return line_first(d, o);
	case ST_INT:
		return next_int(d, o);
	default: /* ST_VALUE_FIRST: H length(7) */
		d->flags = (uint8_t)((d->flags & ~F_HUFFMAN) |
				     ((o & 0x80) ? F_HUFFMAN : 0));
		return start_int(d, o, 7, W_VALUE_LEN);
	}
}

/* Skips string octets from in[len], keeping the first few. Returns the
 * octets used. */
static size_t string_octets(struct shb_qpack_dec *d, const uint8_t *in,
			    size_t len)
{
	size_t n = len < d->str_left ? len : (size_t)d->str_left;

	for (size_t i = 0; i < n && d->got < sizeof(d->buf); i++)
		d->buf[d->got++] = in[i];
	d->str_left -= n;
	return n;
}

/* A string whose octets were all consumed (possibly an empty one). */
static int string_done(struct shb_qpack_dec *d)
{
	return d->state == ST_NAME ? end_name(d) : end_value(d);
}

static int is_string_state(const struct shb_qpack_dec *d)
{
	return d->state == ST_NAME || d->state == ST_VALUE;
}

int shb_qpack_dec_feed(struct shb_qpack_dec *d, const uint8_t *in,
		       size_t len)
{
	size_t i = 0;
	int rc = SHB_QPACK_DEC_MORE;

	if (len > d->left)
		return fail(d, "input beyond the field section");
	while (rc == SHB_QPACK_DEC_MORE) {
		if (is_string_state(d)) {
			size_t n = string_octets(d, in + i, len - i);

			i += n;
			d->left -= n;
			if (d->str_left == 0)
				rc = string_done(d);
			else if (i == len)
				break;
			continue;
		}
		if (i == len)
			break;
		d->left--;
		rc = octet(d, in[i++]);
	}
	if (rc != SHB_QPACK_DEC_MORE)
		return rc;
	if (d->left > 0)
		return SHB_QPACK_DEC_MORE;
	if (d->state == ST_RIC || d->state == ST_BASE ||
	    (d->state == ST_INT && d->what <= W_BASE))
		return fail(d, "field section prefix truncated");
	if (d->state != ST_LINE)
		return fail(d, "field section ends inside a field line");
	return SHB_QPACK_DEC_DONE;
}
