/* Streaming QPACK field section decoder: see qpack_dec.h. */
#include "qpack_dec.h"

#include <string.h>

#include "http_huffman.h"
#include "http_status.h"
#include "qpack_static.h"
#include "qpack_table.h"

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
	W_INDEXED_DYN,  /* relative to Base */
	W_NAME_REF_DYN,
	W_INDEXED_POST, /* post-base */
	W_NAME_REF_POST,
};

enum flag {
	F_HUFFMAN = 1u << 0,   /* the current string is Huffman-coded */
	F_IS_STATUS = 1u << 1, /* the current line's name is :status */
	F_UPPER = 1u << 2,     /* the current plain name has an 'A'..'Z' */
	F_BASE_NEG = 1u << 3,  /* the Delta Base's sign bit */
};

/* What a field name is (RFC 9114 Section 4.3). */
enum kind {
	K_REGULAR,
	K_STATUS,
	K_PSEUDO, /* any other pseudo-header: never in a response */
};

enum seen {
	S_REGULAR = 1u << 0, /* a regular field line */
	S_STATUS = 1u << 1,  /* a :status line, valid or not */
};

static const char status_name[] = ":status";
#define STATUS_NAME_LEN (sizeof(status_name) - 1)

_Static_assert(SHB_QPACK_DEC_MAX_SECTION == 262144,
	       "end_line names the cap");

void shb_qpack_dec_begin(struct shb_qpack_dec *d, uint64_t section_len)
{
	memset(d, 0, sizeof(*d));
	d->left = section_len;
	d->state = ST_RIC;
}

void shb_qpack_dec_begin_table(struct shb_qpack_dec *d, uint64_t section_len,
			       const struct shb_qpack_table *t)
{
	shb_qpack_dec_begin(d, section_len);
	d->table = t;
}

static int fail(struct shb_qpack_dec *d, const char *why)
{
	d->detail = why;
	return SHB_QPACK_DEC_E_CONN;
}

/* The section goes on being decoded; the first reason is kept. */
static void malformed(struct shb_qpack_dec *d, const char *why)
{
	if (!d->malformed)
		d->malformed = why;
}

static void set_status(struct shb_qpack_dec *d, int status)
{
	if (d->seen & S_STATUS) {
		malformed(d, "more than one :status");
		return;
	}
	d->seen |= S_STATUS;
	if (status < 0)
		malformed(d, "invalid :status value");
	else
		d->status = (uint16_t)status;
}

/* The current line's name is known: pseudo-headers come first, and a
 * response has only :status. */
static void name_known(struct shb_qpack_dec *d, uint8_t kind, int upper)
{
	if (upper)
		malformed(d, "uppercase letter in a field name");
	if (kind == K_REGULAR) {
		d->seen |= S_REGULAR;
		return;
	}
	d->pseudo = 1;
	if (d->seen & S_REGULAR)
		malformed(d, "pseudo-header field after a regular field");
	if (kind == K_STATUS)
		d->flags |= F_IS_STATUS;
	else
		malformed(d, "request or unknown pseudo-header field in a "
			     "response");
}

/* A line of value_len decoded value octets ends: count its size. */
static int end_line(struct shb_qpack_dec *d, uint64_t value_len)
{
	d->size += d->name_len + value_len + SHB_QPACK_DEC_LINE_OVERHEAD;
	d->lines++;
	d->state = ST_LINE;
	d->flags = 0;
	d->name_len = 0;
	if (d->size > SHB_QPACK_DEC_MAX_SECTION) {
		d->detail = "decoded field section above 262144 octets "
			    "(cap 262144)";
		return SHB_QPACK_DEC_E_SIZE;
	}
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
	if (d->flags & F_HUFFMAN) {
		shb_huff_count_begin(&d->hc);
		d->hc.check_upper = next == ST_NAME;
	}
	return SHB_QPACK_DEC_MORE;
}

/* The string that just ended: its decoded length into *len. */
static int string_end(struct shb_qpack_dec *d, uint64_t *len)
{
	*len = d->str_len;
	if (!(d->flags & F_HUFFMAN))
		return SHB_QPACK_DEC_MORE;
	if (shb_huff_count_end(&d->hc) != SHB_HUFF_OK)
		return fail(d, "Huffman string with bad padding");
	*len = d->hc.len;
	return SHB_QPACK_DEC_MORE;
}

/* A literal name starts with ':' when its first octet does, or, Huffman
 * coded, when its first bits are the 7-bit code of ':'. */
static int starts_colon(const struct shb_qpack_dec *d)
{
	const struct shb_huff_code *colon = &shb_huff_codes[':'];

	if (d->got == 0)
		return 0;
	if (!(d->flags & F_HUFFMAN))
		return d->buf[0] == ':';
	return (uint32_t)(d->buf[0] >> (8 - colon->len)) == colon->code;
}

static uint8_t literal_kind(const struct shb_qpack_dec *d)
{
	uint8_t plain[16];
	size_t n = d->got;
	const uint8_t *name = d->buf;

	if (!starts_colon(d))
		return K_REGULAR;
	if (d->str_len != d->got)
		return K_PSEUDO; /* longer than buf: not :status */
	if (d->flags & F_HUFFMAN) {
		if (shb_huff_decode(d->buf, d->got, plain, sizeof(plain), &n) !=
		    SHB_HUFF_OK)
			return K_PSEUDO;
		name = plain;
	}
	if (n == STATUS_NAME_LEN && memcmp(name, status_name, n) == 0)
		return K_STATUS;
	return K_PSEUDO;
}

static int end_name(struct shb_qpack_dec *d)
{
	int rc = string_end(d, &d->name_len);
	int upper = (d->flags & F_HUFFMAN) ? d->hc.upper
					   : (d->flags & F_UPPER) != 0;

	if (rc != SHB_QPACK_DEC_MORE)
		return rc;
	d->state = ST_VALUE_FIRST;
	name_known(d, literal_kind(d), upper);
	return SHB_QPACK_DEC_MORE;
}

static int end_value(struct shb_qpack_dec *d)
{
	uint64_t len;
	int rc = string_end(d, &len);

	if (rc != SHB_QPACK_DEC_MORE)
		return rc;
	if (d->flags & F_IS_STATUS) {
		int st = -1;

		if (d->str_len == d->got)
			st = shb_http_status_decode(d->buf, d->got,
						    d->flags & F_HUFFMAN);
		set_status(d, st);
	}
	return end_line(d, len);
}

static uint8_t static_kind(uint64_t index,
			   const struct shb_qpack_static_entry *e)
{
	if (shb_qpack_static_is_status(index))
		return K_STATUS;
	return e->name[0] == ':' ? K_PSEUDO : K_REGULAR;
}

static int static_index(struct shb_qpack_dec *d, uint64_t index)
{
	const struct shb_qpack_static_entry *e = shb_qpack_static_get(index);
	uint8_t kind;

	if (!e)
		return fail(d, "static table index out of range");
	kind = static_kind(index, e);
	name_known(d, kind, 0);
	d->name_len = e->name_len;
	if (d->what == W_NAME_REF) {
		d->state = ST_VALUE_FIRST;
		return SHB_QPACK_DEC_MORE;
	}
	if (kind == K_STATUS)
		set_status(d, shb_http_status_digits((const uint8_t *)e->value,
						     e->value_len));
	return end_line(d, e->value_len);
}

_Static_assert((int)K_REGULAR == (int)SHB_QPACK_NAME_REGULAR &&
		       (int)K_STATUS == (int)SHB_QPACK_NAME_STATUS &&
		       (int)K_PSEUDO == (int)SHB_QPACK_NAME_PSEUDO,
	       "table entries carry the decoder's name kinds");

/* A dynamic reference: index v relative to Base, or post-base. Kept out
 * of got_int, so that the static-only path stays as lean as it was. */
__attribute__((noinline)) static int dynamic_index(struct shb_qpack_dec *d,
						   uint64_t v)
{
	const struct shb_qpack_entry *e;
	uint64_t abs;
	int post = d->what == W_INDEXED_POST || d->what == W_NAME_REF_POST;

	if (post) {
		abs = d->base + v;
	} else {
		if (v >= d->base)
			return fail(d, "dynamic reference below entry 0");
		abs = d->base - 1 - v;
	}
	if (abs >= d->ric)
		return fail(d, "dynamic reference at or above the Required "
			       "Insert Count");
	e = shb_qpack_table_get(d->table, abs);
	if (!e)
		return fail(d, "dynamic reference to an evicted entry");
	name_known(d, e->kind, e->upper);
	d->name_len = e->name_len;
	if (d->what == W_NAME_REF_DYN || d->what == W_NAME_REF_POST) {
		d->state = ST_VALUE_FIRST;
		return SHB_QPACK_DEC_MORE;
	}
	if (e->kind == K_STATUS)
		set_status(d, e->status);
	return end_line(d, e->value_len);
}

__attribute__((noinline)) static int table_ric(struct shb_qpack_dec *d,
					       uint64_t v)
{
	if (shb_qpack_ric_decode(d->table, v, &d->ric) < 0)
		return fail(d, "invalid Required Insert Count");
	if (d->ric > d->table->inserted) {
		d->blocked = 1;
		return SHB_QPACK_DEC_BLOCKED;
	}
	return SHB_QPACK_DEC_MORE;
}

static int got_ric(struct shb_qpack_dec *d, uint64_t v)
{
	d->state = ST_BASE;
	if (d->table)
		return table_ric(d, v);
	/* With MaxEntries 0 the only valid encoding is 0. */
	if (v != 0)
		return fail(d, "Required Insert Count above 0 with a "
			       "zero-capacity table");
	return SHB_QPACK_DEC_MORE;
}

static int got_base(struct shb_qpack_dec *d, uint64_t delta)
{
	if (d->flags & F_BASE_NEG) {
		if (delta >= d->ric)
			return fail(d, "negative Base");
		d->base = d->ric - delta - 1;
		d->flags = 0;
	} else {
		d->base = d->ric + delta;
	}
	d->state = ST_LINE;
	return SHB_QPACK_DEC_MORE;
}

/* The integer in d->pi is complete; not a dynamic reference (those go to
 * dynamic_index, so that this switch keeps the shape, a jump table, it
 * has for the static-only decoder). */
static int got_int(struct shb_qpack_dec *d)
{
	uint64_t v = d->pi.value;

	switch (d->what) {
	case W_RIC:
		return got_ric(d, v);
	case W_BASE:
		return got_base(d, v);
	case W_INDEXED:
	case W_NAME_REF:
		return static_index(d, v);
	case W_NAME_LEN:
		return start_string(d, v, ST_NAME);
	default: /* W_VALUE_LEN */
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

/* The same for a dynamic reference's index (out of line: see
 * dynamic_index). */
__attribute__((noinline)) static int start_dyn(struct shb_qpack_dec *d,
					       uint8_t octet,
					       unsigned prefix_bits,
					       uint8_t what)
{
	d->what = what;
	if (shb_prefint_begin(&d->pi, octet, prefix_bits) == SHB_PREFINT_DONE)
		return dynamic_index(d, d->pi.value);
	d->state = ST_INT;
	return SHB_QPACK_DEC_MORE;
}

static int next_int(struct shb_qpack_dec *d, uint8_t octet)
{
	int rc = shb_prefint_next(&d->pi, octet);

	if (rc == SHB_PREFINT_E_RANGE)
		return fail(d, "QPACK integer too large");
	if (rc != SHB_PREFINT_DONE)
		return SHB_QPACK_DEC_MORE;
	if (d->what >= W_INDEXED_DYN)
		return dynamic_index(d, d->pi.value);
	return got_int(d);
}

static int line_first(struct shb_qpack_dec *d, uint8_t o)
{
	if (o & 0x80) { /* 1 T index(6): Indexed Field Line */
		if (o & 0x40)
			return start_int(d, o, 6, W_INDEXED);
		if (!d->table)
			return fail(d, "dynamic table reference");
		return start_dyn(d, o, 6, W_INDEXED_DYN);
	}
	if (o & 0x40) { /* 01 N T index(4): Literal with Name Reference */
		if (o & 0x10)
			return start_int(d, o, 4, W_NAME_REF);
		if (!d->table)
			return fail(d, "dynamic table name reference");
		return start_dyn(d, o, 4, W_NAME_REF_DYN);
	}
	if (o & 0x20) { /* 001 N H length(3): Literal with Literal Name */
		if (o & 0x08)
			d->flags |= F_HUFFMAN;
		return start_int(d, o, 3, W_NAME_LEN);
	}
	if (o & 0x10) { /* 0001 index(4): Indexed Field Line, post-base */
		if (!d->table)
			return fail(d, "post-base indexed field line");
		return start_dyn(d, o, 4, W_INDEXED_POST);
	}
	if (!d->table) /* 0000 N index(3): Literal, post-base name */
		return fail(d, "post-base name reference");
	return start_dyn(d, o, 3, W_NAME_REF_POST);
}

/* One octet of a non-string state. */
static int octet(struct shb_qpack_dec *d, uint8_t o)
{
	switch (d->state) {
	case ST_RIC:
		return start_int(d, o, 8, W_RIC);
	case ST_BASE:
		if (o & 0x80)
			d->flags |= F_BASE_NEG;
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

static int has_upper(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] >= 'A' && p[i] <= 'Z')
			return 1;
	return 0;
}

/* Skips string octets from in[len], keeping the first few, counting a
 * Huffman string and looking for uppercase in a plain name. The octets
 * used go to *used. */
static int string_octets(struct shb_qpack_dec *d, const uint8_t *in,
			 size_t len, size_t *used)
{
	size_t n = len < d->str_left ? len : (size_t)d->str_left;
	size_t keep = sizeof(d->buf) - d->got;

	/* One copy, not an octet at a time: every string passes here. */
	if (keep > n)
		keep = n;
	if (keep) {
		memcpy(d->buf + d->got, in, keep);
		d->got = (uint8_t)(d->got + keep);
	}
	d->str_left -= n;
	*used = n;
	if (d->flags & F_HUFFMAN) {
		if (shb_huff_count_feed(&d->hc, in, n) != SHB_HUFF_OK)
			return fail(d, "EOS symbol inside a Huffman string");
	} else if (d->state == ST_NAME && has_upper(in, n)) {
		d->flags |= F_UPPER;
	}
	return SHB_QPACK_DEC_MORE;
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
	static const uint8_t none[1];
	size_t i = 0;
	int rc = SHB_QPACK_DEC_MORE;

	/* No octets may come as (NULL, 0): never read through it. */
	if (!in) {
		if (len)
			return fail(d, "no input for a non-empty field section");
		in = none;
	}
	if (len > d->left)
		return fail(d, "input beyond the field section");
	while (rc == SHB_QPACK_DEC_MORE) {
		if (is_string_state(d)) {
			size_t n = 0;

			rc = string_octets(d, in + i, len - i, &n);
			i += n;
			d->left -= n;
			if (rc != SHB_QPACK_DEC_MORE)
				break;
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
	if (rc != SHB_QPACK_DEC_MORE) {
		d->used = i;
		return rc;
	}
	if (d->left > 0)
		return SHB_QPACK_DEC_MORE;
	if (d->state == ST_RIC || d->state == ST_BASE ||
	    (d->state == ST_INT && d->what <= W_BASE))
		return fail(d, "field section prefix truncated");
	if (d->state != ST_LINE)
		return fail(d, "field section ends inside a field line");
	if (d->malformed) {
		d->detail = d->malformed;
		return SHB_QPACK_DEC_E_MESSAGE;
	}
	return SHB_QPACK_DEC_DONE;
}

int shb_qpack_dec_resume(struct shb_qpack_dec *d)
{
	d->used = 0;
	if (d->table->inserted < d->ric)
		return SHB_QPACK_DEC_BLOCKED;
	d->blocked = 0;
	/* A section whose octets all came before it blocked ends here. */
	return shb_qpack_dec_feed(d, NULL, 0);
}
