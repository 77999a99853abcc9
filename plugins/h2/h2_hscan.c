/* Response header block scanner: see h2_hscan.h. */
#include "h2_hscan.h"

#include <string.h>

#include "h2_hpack.h"
#include "http_status.h"

enum {
	ST_FIELD,   /* expecting the first octet of a representation */
	ST_INT,     /* inside a multi-octet integer */
	ST_STR_LEN, /* expecting a string's first (length) octet */
	ST_STR,     /* inside a string's octets */
};

_Static_assert(ST_FIELD == SHB_H2_HSCAN_ST_FIELD,
	       "shb_h2_hscan_end knows the state between fields");

enum { T_INDEX, T_NAME_INDEX, T_SIZE_UPDATE, T_STR_LEN };
enum { P_NAME, P_VALUE };

static const char status_name[] = ":status";

_Static_assert(SHB_H2_HSCAN_MAX_LIST == 262144,
	       "shb_h2_hscan_strerror names the cap");

void shb_h2_hscan_begin(struct shb_h2_hscan *s, struct shb_h2_dtable *table)
{
	memset(s, 0, sizeof(*s));
	s->table = table;
}

void shb_h2_hscan_memo(struct shb_h2_hscan *s, struct shb_h2_hmemo *memo)
{
	s->memo = memo;
}

void shb_h2_hscan_collect(struct shb_h2_hscan *s, struct shb_h2_fields *fields)
{
	s->out = fields;
	shb_h2_fields_reset(fields);
}

/* Collecting: appends a dynamic entry's name, or name and value. */
static int collect_entry(struct shb_h2_hscan *s,
			 const struct shb_h2_dtable_entry *e, int with_value)
{
	size_t n = e->size - SHB_H2_DTABLE_OVERHEAD;
	uint8_t *d = shb_h2_fields_room(s->out, n);

	if (!d)
		return SHB_H2_HSCAN_E_NOMEM;
	shb_h2_dtable_copy(s->table, e, d);
	s->out->b.len += with_value ? n : e->name_len;
	return SHB_H2_HSCAN_OK;
}

static int collect_text(struct shb_h2_hscan *s, const char *text, size_t n)
{
	return shb_h2_fields_add(s->out, text, n) < 0
		       ? SHB_H2_HSCAN_E_NOMEM
		       : SHB_H2_HSCAN_OK;
}

static void set_malformed(struct shb_h2_hscan *s, uint8_t why)
{
	if (!s->malformed)
		s->malformed = why;
}

static void found_status(struct shb_h2_hscan *s, int code)
{
	if (s->status != 0) {
		s->multi_status = 1;
		set_malformed(s, SHB_H2_HSCAN_M_STATUS_DUP);
		return;
	}
	s->status = code > 0 ? code : -1;
	if (code <= 0)
		set_malformed(s, SHB_H2_HSCAN_M_STATUS_VALUE);
}

/* A field of this name kind is in the block: pseudo-headers come first,
 * and a response has only :status (RFC 9113 Section 8.3). */
static void name_seen(struct shb_h2_hscan *s, uint8_t kind)
{
	uint8_t k = kind & SHB_H2_NAME_KIND_MASK;

	if (kind & SHB_H2_NAME_UPPER)
		set_malformed(s, SHB_H2_HSCAN_M_UPPERCASE);
	if (k == SHB_H2_NAME_REGULAR) {
		s->regular_seen = 1;
		return;
	}
	s->pseudo_seen = 1;
	if (s->regular_seen)
		set_malformed(s, SHB_H2_HSCAN_M_PSEUDO_LATE);
	if (k == SHB_H2_NAME_PSEUDO)
		set_malformed(s, SHB_H2_HSCAN_M_PSEUDO);
}

/* The current field's name is known. */
static void name_known(struct shb_h2_hscan *s, uint8_t kind)
{
	s->name_kind = kind;
	s->is_status = (kind & SHB_H2_NAME_KIND_MASK) == SHB_H2_NAME_STATUS;
	name_seen(s, kind);
}

/* Static entries 1..7 are request pseudo-headers, 8..14 :status. The
 * caller checked 1 <= index <= SHB_HPACK_STATIC_COUNT. */
static uint8_t static_kind(uint64_t index)
{
	if (index >= SHB_HPACK_IDX_STATUS_200 && index <= SHB_HPACK_IDX_STATUS_500)
		return SHB_H2_NAME_STATUS;
	return shb_hpack_static_table[index - 1].name[0] == ':'
		       ? SHB_H2_NAME_PSEUDO
		       : SHB_H2_NAME_REGULAR;
}

static int name_is_status(const struct shb_h2_hscan *s)
{
	uint8_t plain[16];
	size_t n = 0;

	if (s->too_long)
		return 0;
	if (!s->huffman)
		return s->collected == sizeof(status_name) - 1 &&
		       memcmp(s->sbuf, status_name, s->collected) == 0;
	if (shb_huff_decode(s->sbuf, s->collected, plain, sizeof(plain), &n) !=
	    SHB_HUFF_OK)
		return 0;
	return n == sizeof(status_name) - 1 &&
	       memcmp(plain, status_name, n) == 0;
}

/* A literal name starts with ':' when its first octet does, or, Huffman
 * coded, when its first bits are the 7-bit code of ':'. */
static int name_starts_colon(const struct shb_h2_hscan *s)
{
	const struct shb_huff_code *colon = &shb_huff_codes[':'];

	if (s->collected == 0)
		return 0;
	if (!s->huffman)
		return s->sbuf[0] == ':';
	return (uint32_t)(s->sbuf[0] >> (8 - colon->len)) == colon->code;
}

static uint8_t literal_name_kind(const struct shb_h2_hscan *s)
{
	uint8_t kind = SHB_H2_NAME_REGULAR;

	if (name_starts_colon(s))
		kind = name_is_status(s) ? SHB_H2_NAME_STATUS : SHB_H2_NAME_PSEUDO;
	if (s->huffman ? s->hc.upper : s->upper)
		kind |= SHB_H2_NAME_UPPER;
	return kind;
}

/* Adds n decoded octets to the field being indexed. Past the table's
 * maximum the exact size no longer matters: the entry empties the table
 * (RFC 7541 Section 4.4). */
static void grow_entry(struct shb_h2_hscan *s, uint64_t n)
{
	s->ent_len += n;
	if (s->ent_len + SHB_H2_DTABLE_OVERHEAD > s->table->max)
		s->oversize = 1;
}

/* The field is complete: count it in the header list. */
static int field_done(struct shb_h2_hscan *s)
{
	if (s->out)
		shb_h2_fields_end(s->out);
	s->list_size += s->field_size + SHB_H2_DTABLE_OVERHEAD;
	s->field_count++;
	s->is_status = 0;
	s->indexing = 0;
	s->oversize = 0;
	s->ent_len = 0;
	s->name_len = 0;
	s->field_size = 0;
	s->name_kind = 0;
	s->state = ST_FIELD;
	return s->list_size > SHB_H2_HSCAN_MAX_LIST ? SHB_H2_HSCAN_E_LIST_SIZE
						    : SHB_H2_HSCAN_OK;
}

/* Notes a table insert for the block memo (struct shb_h2_hmemo). */
static void log_insert(struct shb_h2_hscan *s, uint64_t size, int code)
{
	if (s->n_ins < SHB_H2_BMEMO_INSERTS) {
		struct shb_h2_hins *in = &s->ins[s->n_ins];

		in->size = size;
		in->name_len = s->name_len;
		in->status = (int16_t)code;
		in->name_kind = s->name_kind;
	}
	if (s->n_ins != UINT8_MAX)
		s->n_ins++;
}

/* A whole name or value string has gone by. */
static int string_done(struct shb_h2_hscan *s)
{
	uint64_t len = s->str_len;
	int code = 0;

	if (s->huffman) {
		if (shb_huff_count_end(&s->hc) != SHB_HUFF_OK)
			return SHB_H2_HSCAN_E_HUFFMAN;
		len = s->hc.len;
	}
	if (s->out) {
		int rc = shb_h2_fields_str_end(s->out, s->huffman);

		if (rc < 0)
			return rc == -1 ? SHB_H2_HSCAN_E_NOMEM
					: SHB_H2_HSCAN_E_HUFFMAN;
	}
	s->field_size += len;
	if (s->indexing && !s->oversize)
		grow_entry(s, len);
	if (s->part == P_NAME) {
		name_known(s, literal_name_kind(s));
		s->name_len = (uint32_t)(s->oversize ? 0 : s->ent_len);
		if (s->out)
			shb_h2_fields_name_done(s->out);
		s->part = P_VALUE;
		s->state = ST_STR_LEN;
		return SHB_H2_HSCAN_OK;
	}
	if (s->is_status) {
		code = s->too_long ? -1
				   : shb_http_status_decode(s->sbuf, s->collected,
							    s->huffman);
		found_status(s, code);
	}
	/* The entry exists from the next representation on (Section 3.2). */
	if (s->indexing) {
		uint64_t size = s->oversize ? UINT64_MAX
					    : s->ent_len + SHB_H2_DTABLE_OVERHEAD;

		log_insert(s, size, code);
		shb_h2_dtable_insert(s->table, size, s->name_len, code,
				     s->name_kind);
		if (s->out)
			shb_h2_dtable_store(s->table,
					    s->out->b.p + s->out->rec +
						    SHB_H2_FIELDS_REC,
					    s->out->b.len - s->out->rec -
						    SHB_H2_FIELDS_REC);
	}
	return field_done(s);
}

/* The representation's index names a static entry or a dynamic one; sets
 * what the field inherits from it. */
static int name_ref(struct shb_h2_hscan *s, uint64_t v)
{
	const struct shb_h2_dtable_entry *e;
	uint64_t len;

	int rc = SHB_H2_HSCAN_OK;

	if (v <= SHB_HPACK_STATIC_COUNT) {
		const struct shb_hpack_static_entry *se =
			&shb_hpack_static_table[v - 1];

		len = se->name_len;
		name_known(s, static_kind(v));
		if (s->out)
			rc = collect_text(s, se->name, se->name_len);
	} else {
		s->dyn_read = 1;
		e = shb_h2_dtable_get(s->table, v - SHB_HPACK_STATIC_COUNT);
		if (!e)
			return SHB_H2_HSCAN_E_INDEX;
		len = e->name_len;
		name_known(s, e->name_kind);
		if (s->out)
			rc = collect_entry(s, e, 0);
	}
	if (rc != SHB_H2_HSCAN_OK)
		return rc;
	if (s->out)
		shb_h2_fields_name_done(s->out);
	s->field_size = len;
	if (s->indexing)
		grow_entry(s, len);
	s->name_len = (uint32_t)s->ent_len;
	return SHB_H2_HSCAN_OK;
}

static int indexed_field(struct shb_h2_hscan *s, uint64_t v)
{
	const struct shb_h2_dtable_entry *e;

	if (v <= SHB_HPACK_STATIC_COUNT) {
		const struct shb_hpack_static_entry *se =
			&shb_hpack_static_table[v - 1];
		uint8_t kind = static_kind(v);

		name_known(s, kind);
		if (kind == SHB_H2_NAME_STATUS)
			found_status(s, shb_hpack_static_status(v));
		s->field_size = (uint64_t)se->name_len + se->value_len;
		if (s->out) {
			if (collect_text(s, se->name, se->name_len) !=
			    SHB_H2_HSCAN_OK)
				return SHB_H2_HSCAN_E_NOMEM;
			shb_h2_fields_name_done(s->out);
			if (collect_text(s, se->value, se->value_len) !=
			    SHB_H2_HSCAN_OK)
				return SHB_H2_HSCAN_E_NOMEM;
		}
	} else {
		s->dyn_read = 1;
		e = shb_h2_dtable_get(s->table, v - SHB_HPACK_STATIC_COUNT);
		if (!e)
			return SHB_H2_HSCAN_E_INDEX;
		name_known(s, e->name_kind);
		if (e->status)
			found_status(s, e->status);
		s->field_size = e->size - SHB_H2_DTABLE_OVERHEAD;
		if (s->out) {
			if (collect_entry(s, e, 1) != SHB_H2_HSCAN_OK)
				return SHB_H2_HSCAN_E_NOMEM;
			s->out->name_len = e->name_len;
		}
	}
	return field_done(s);
}

static int string_len(struct shb_h2_hscan *s, uint64_t v)
{
	if (v > UINT32_MAX)
		return SHB_H2_HSCAN_E_INTEGER;
	s->left = v;
	s->str_len = v;
	s->collected = 0;
	s->upper = 0;
	s->too_long = v > sizeof(s->sbuf);
	s->state = ST_STR;
	if (s->out)
		shb_h2_fields_str_begin(s->out);
	/* Every Huffman string is measured, which also checks its EOS and
	 * padding rules; names for uppercase letters as well. */
	if (s->huffman) {
		shb_huff_count_begin(&s->hc);
		s->hc.check_upper = s->part == P_NAME;
	}
	return v == 0 ? string_done(s) : SHB_H2_HSCAN_OK;
}

/* An integer is complete: act on what it was. */
static int int_done(struct shb_h2_hscan *s)
{
	uint64_t v = s->num.value;

	switch (s->target) {
	case T_INDEX:
		if (v == 0)
			return SHB_H2_HSCAN_E_INDEX0;
		return indexed_field(s, v);
	case T_NAME_INDEX:
		s->part = v == 0 ? P_NAME : P_VALUE;
		s->state = ST_STR_LEN;
		return v == 0 ? SHB_H2_HSCAN_OK : name_ref(s, v);
	case T_SIZE_UPDATE:
		/* Updates belong at the start of a block (Section 4.2). */
		if (s->fields)
			return SHB_H2_HSCAN_E_SIZE_LATE;
		s->resized = 1;
		if (shb_h2_dtable_resize(s->table, v) < 0)
			return SHB_H2_HSCAN_E_SIZE_UPDATE;
		s->state = ST_FIELD;
		return SHB_H2_HSCAN_OK;
	default: /* T_STR_LEN */
		return string_len(s, v);
	}
}

static int begin_int(struct shb_h2_hscan *s, uint8_t b, unsigned prefix,
		     uint8_t target)
{
	uint8_t mask = (uint8_t)((1u << prefix) - 1);

	s->target = target;
	/* Most integers fit the prefix: no call for those. */
	if ((b & mask) != mask) {
		s->num.value = b & mask;
		return int_done(s);
	}
	if (shb_prefint_begin(&s->num, b, prefix) == SHB_PREFINT_DONE)
		return int_done(s);
	s->state = ST_INT;
	return SHB_H2_HSCAN_OK;
}

static int begin_field(struct shb_h2_hscan *s, uint8_t b)
{
	/* Every representation but a size update is a field. */
	if (s->out && ((b & 0xc0) || !(b & 0x20)) &&
	    shb_h2_fields_begin(s->out) < 0)
		return SHB_H2_HSCAN_E_NOMEM;
	if (b & 0x80) { /* indexed field */
		s->fields = 1;
		return begin_int(s, b, 7, T_INDEX);
	}
	if (b & 0x40) { /* literal with incremental indexing */
		s->fields = 1;
		s->indexing = 1;
		return begin_int(s, b, 6, T_NAME_INDEX);
	}
	if (b & 0x20) /* dynamic table size update */
		return begin_int(s, b, 5, T_SIZE_UPDATE);
	s->fields = 1; /* literal without indexing, or never indexed */
	return begin_int(s, b, 4, T_NAME_INDEX);
}

/* Takes string octets from p[n] and sets *used. Only a literal name or a
 * :status value is kept, and only its first octets; a Huffman string is
 * counted. */
static int take_string(struct shb_h2_hscan *s, const uint8_t *p, size_t n,
		       size_t *used)
{
	size_t take = n < s->left ? n : (size_t)s->left;

	/* A name's first octets (for ':' and :status), a :status value. */
	if (s->part == P_NAME || s->is_status) {
		size_t room = sizeof(s->sbuf) - s->collected;
		size_t k = take < room ? take : room;

		memcpy(s->sbuf + s->collected, p, k);
		s->collected = (uint8_t)(s->collected + k);
	}
	if (s->huffman) {
		if (shb_huff_count_feed(&s->hc, p, take) != SHB_HUFF_OK)
			return SHB_H2_HSCAN_E_HUFFMAN;
	} else if (s->part == P_NAME) {
		for (size_t i = 0; i < take; i++)
			if (p[i] >= 'A' && p[i] <= 'Z')
				s->upper = 1;
	}
	if (s->out && shb_h2_fields_add(s->out, p, take) < 0)
		return SHB_H2_HSCAN_E_NOMEM;
	*used = take;
	s->left -= take;
	return s->left == 0 ? string_done(s) : SHB_H2_HSCAN_OK;
}

/* The common case of a response a server indexes: a run of indexed
 * fields of one octet each (index 1..126) while nothing is collected.
 * Each is looked up and counted as indexed_field and field_done would,
 * without the state machine. Returns the octets taken; stops before
 * anything else, or after a field in error (then *rc is set). */
static size_t indexed_run(struct shb_h2_hscan *s, const uint8_t *p, size_t n,
			  int *rc)
{
	size_t i = 0;

	while (i < n && p[i] > 0x80 && p[i] != 0xff) {
		uint32_t v = p[i++] & 0x7fu;
		uint64_t size;

		s->fields = 1;
		if (v <= SHB_HPACK_STATIC_COUNT) {
			const struct shb_hpack_static_entry *se =
				&shb_hpack_static_table[v - 1];
			uint8_t kind = static_kind(v);

			name_seen(s, kind);
			if (kind == SHB_H2_NAME_STATUS)
				found_status(s, shb_hpack_static_status(v));
			size = (uint64_t)se->name_len + se->value_len;
		} else {
			const struct shb_h2_dtable_entry *e = shb_h2_dtable_get(
				s->table, v - SHB_HPACK_STATIC_COUNT);

			s->dyn_read = 1;
			if (!e) {
				*rc = SHB_H2_HSCAN_E_INDEX;
				return i;
			}
			name_seen(s, e->name_kind);
			if (e->status)
				found_status(s, e->status);
			size = e->size - SHB_H2_DTABLE_OVERHEAD;
		}
		s->list_size += size + SHB_H2_DTABLE_OVERHEAD;
		s->field_count++;
		if (s->list_size > SHB_H2_HSCAN_MAX_LIST) {
			*rc = SHB_H2_HSCAN_E_LIST_SIZE;
			return i;
		}
	}
	return i;
}

/* A prefixed integer wholly in p[n]: 1 with *v and *used set, else 0
 * (it goes on past p[n], or is out of range). */
static int whole_int(const uint8_t *p, size_t n, unsigned prefix, uint64_t *v,
		     size_t *used)
{
	uint8_t mask = (uint8_t)((1u << prefix) - 1);

	if ((p[0] & mask) != mask) {
		*v = p[0] & mask;
		*used = 1;
		return 1;
	}
	return shb_prefint_decode(p, n, prefix, v, used) == SHB_PREFINT_DONE;
}

/* The memo slot holding the Huffman string p[n], or -1. */
static int memo_find(const struct shb_h2_hmemo *m, const uint8_t *p, size_t n)
{
	for (unsigned i = 0; i < SHB_H2_HMEMO_SLOTS; i++)
		if (m->len[i] == n && memcmp(m->octets[i], p, n) == 0)
			return (int)i;
	return -1;
}

static void memo_put(struct shb_h2_hmemo *m, const uint8_t *p, size_t n,
		     uint64_t decoded)
{
	unsigned i = m->next;

	m->next = (uint8_t)((i + 1) % SHB_H2_HMEMO_SLOTS);
	m->len[i] = (uint8_t)n;
	m->dec[i] = (uint8_t)decoded;
	memcpy(m->octets[i], p, n);
}

/* A literal field's whole value p[len], its length read (string_len):
 * a Huffman value the memo holds is counted from it, any other is taken
 * by take_string and, valid and short, remembered. Not for :status,
 * whose value take_string keeps. */
static int whole_value(struct shb_h2_hscan *s, const uint8_t *p, size_t len)
{
	struct shb_h2_hmemo *m = s->memo;
	int memo = m && s->huffman && !s->is_status &&
		   len <= SHB_H2_HMEMO_MAX;
	int i = memo ? memo_find(m, p, len) : -1;
	size_t used;
	int rc;

	if (i >= 0) { /* a string counted before: its length, valid */
		s->hc.len = m->dec[i];
		s->left = 0;
		return string_done(s);
	}
	rc = take_string(s, p, len, &used);
	/* string_done ran; hc.len is still the decoded length. */
	if (memo && rc != SHB_H2_HSCAN_E_HUFFMAN)
		memo_put(m, p, len, s->hc.len);
	return rc;
}

/* The other common case: a literal field whose name is an index (what
 * servers send for a date or a length), wholly in p[n], while nothing
 * is collected. It takes the steps of the state machine in one go, with
 * the same functions: name_ref, string_len, take_string (through
 * whole_value, which knows repeated Huffman values) and through them
 * string_done and field_done. Returns the octets taken, 0 (and nothing
 * changed) for anything else: a literal name, a field that goes on past
 * p[n], an integer out of range. */
static size_t literal_field(struct shb_h2_hscan *s, const uint8_t *p, size_t n,
			    int *rc)
{
	uint8_t b = p[0];
	int indexing = (b & 0xc0) == 0x40;
	uint64_t name, len;
	size_t k, used;

	if ((b & 0x80) || (!indexing && (b & 0x20)))
		return 0; /* indexed field or size update */
	if (!whole_int(p, n, indexing ? 6 : 4, &name, &k) || name == 0 ||
	    k == n || !whole_int(p + k, n - k, 7, &len, &used) ||
	    len > n - k - used)
		return 0;
	s->fields = 1;
	s->indexing = (uint8_t)indexing;
	s->part = P_VALUE;
	s->state = ST_STR_LEN;
	*rc = name_ref(s, name);
	if (*rc != SHB_H2_HSCAN_OK)
		return k;
	s->huffman = (p[k] & 0x80) != 0;
	k += used;
	*rc = string_len(s, len);
	if (*rc != SHB_H2_HSCAN_OK || len == 0)
		return k;
	*rc = whole_value(s, p + k, (size_t)len);
	return k + (size_t)len;
}

/* The eight octets at p xor those at q. */
static uint64_t xor8(const uint8_t *p, const uint8_t *q)
{
	uint64_t x, y;

	memcpy(&x, p, 8);
	memcpy(&y, q, 8);
	return x ^ y;
}

/* Whether a[n] and b[n] are equal, n at most SHB_H2_BMEMO_MAX: sixteen
 * octets at a time, the last sixteen (or eight) overlapping the others.
 * Inline for block_hit, where a call to memcmp and its dispatch on the
 * length cost more than the compare of a head of a few dozen octets. */
static int same_octets(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint64_t d = 0;

	if (n < 8)
		return memcmp(a, b, n) == 0;
	if (n <= 16)
		return (xor8(a, b) | xor8(a + n - 8, b + n - 8)) == 0;
	for (size_t i = 0; i + 16 < n; i += 16)
		d |= xor8(a + i, b + i) | xor8(a + i + 8, b + i + 8);
	d |= xor8(a + n - 16, b + n - 16) | xor8(a + n - 8, b + n - 8);
	return d == 0;
}

/* A first piece equal to the memo's, on a table where it leaves the same
 * state (struct shb_h2_hmemo): takes that state and makes its inserts.
 * Returns 1, or 0 (and nothing changed) for any other piece. */
static inline __attribute__((always_inline)) int
block_hit(struct shb_h2_hscan *s, const uint8_t *p, size_t n)
{
	struct shb_h2_hmemo *m = s->memo;
	struct shb_h2_dtable *t = s->table;
	const struct shb_h2_hscan *a = &m->after;

	if (n != m->blen || m->bmax != t->max ||
	    (a->dyn_read && m->bgen != t->gen) || !same_octets(p, m->block, n))
		return 0;
	*s = *a;
	s->table = t;
	s->memo = m;
	for (unsigned k = 0; k < a->n_ins; k++)
		shb_h2_dtable_insert(t, a->ins[k].size, a->ins[k].name_len,
				     a->ins[k].status, a->ins[k].name_kind);
	m->bhits++;
	return 1;
}

/* After a first piece fed from the block's start: keeps it when another
 * equal piece may take its state (struct shb_h2_hmemo says which). */
static void block_put(struct shb_h2_hscan *s, const uint8_t *p, size_t n,
		      uint64_t gen0, uint32_t max0)
{
	struct shb_h2_hmemo *m = s->memo;

	if (s->state != ST_FIELD || s->resized || n > SHB_H2_BMEMO_MAX ||
	    s->n_ins > SHB_H2_BMEMO_INSERTS || s->table->octets)
		return;
	m->blen = (uint32_t)n;
	m->bgen = gen0;
	m->bmax = max0;
	memcpy(m->block, p, n);
	m->after = *s;
}

static int feed_all(struct shb_h2_hscan *s, const uint8_t *p, size_t n)
{
	size_t i = 0, used;
	int rc = SHB_H2_HSCAN_OK;

	while (i < n && rc == SHB_H2_HSCAN_OK) {
		switch (s->state) {
		case ST_FIELD:
			if (!s->out) {
				used = indexed_run(s, p + i, n - i, &rc);
				if (!used && rc == SHB_H2_HSCAN_OK)
					used = literal_field(s, p + i, n - i,
							     &rc);
				i += used;
				if (used)
					break;
			}
			rc = begin_field(s, p[i++]);
			break;
		case ST_INT: {
			int r = shb_prefint_next(&s->num, p[i++]);

			if (r == SHB_PREFINT_E_RANGE)
				return SHB_H2_HSCAN_E_INTEGER;
			if (r == SHB_PREFINT_DONE)
				rc = int_done(s);
			break;
		}
		case ST_STR_LEN:
			s->huffman = (p[i] & 0x80) != 0;
			rc = begin_int(s, p[i++], 7, T_STR_LEN);
			break;
		default: /* ST_STR */
			used = 0;
			rc = take_string(s, p + i, n - i, &used);
			i += used;
			break;
		}
	}
	return rc;
}

/* A piece the block memo did not take; a first one (`first`) is kept
 * in it when it may be. */
static int feed_scan(struct shb_h2_hscan *s, const uint8_t *p, size_t n,
		     int first)
{
	uint64_t gen0 = s->table->gen;
	uint32_t max0 = s->table->max;
	int rc = feed_all(s, p, n);

	if (first && rc == SHB_H2_HSCAN_OK)
		block_put(s, p, n, gen0, max0);
	return rc;
}

int shb_h2_hscan_feed(struct shb_h2_hscan *s, const uint8_t *p, size_t n)
{
	/* The block memo takes a first piece, never one collected. */
	int first = !s->fed && s->memo && !s->out && n;

	s->fed = 1;
	if (first && block_hit(s, p, n))
		return SHB_H2_HSCAN_OK;
	return feed_scan(s, p, n, first);
}

/* shb_h2_hscan_start for a piece the block memo did not take. Apart, so
 * that the registers the scan needs are not saved for every hit. */
static __attribute__((noinline)) int
start_scan(struct shb_h2_hscan *s, struct shb_h2_dtable *table,
	   struct shb_h2_hmemo *memo, const uint8_t *p, size_t n)
{
	shb_h2_hscan_begin(s, table);
	s->memo = memo;
	s->fed = 1;
	return feed_scan(s, p, n, n != 0);
}

int shb_h2_hscan_start(struct shb_h2_hscan *s, struct shb_h2_dtable *table,
		       struct shb_h2_hmemo *memo, const uint8_t *p, size_t n)
{
	/* block_hit reads only these two, and on a hit sets all of *s. */
	s->table = table;
	s->memo = memo;
	if (n && block_hit(s, p, n))
		return SHB_H2_HSCAN_OK;
	return start_scan(s, table, memo, p, n);
}

const char *shb_h2_hscan_malformed_text(unsigned why)
{
	switch (why) {
	case SHB_H2_HSCAN_M_NONE: return NULL;
	case SHB_H2_HSCAN_M_STATUS_VALUE:
		return "malformed :status (not three digits 100-999)";
	case SHB_H2_HSCAN_M_STATUS_DUP: return "more than one :status";
	case SHB_H2_HSCAN_M_PSEUDO:
		return "request or unknown pseudo-header field in a response";
	case SHB_H2_HSCAN_M_PSEUDO_LATE:
		return "pseudo-header field after a regular field";
	default: return "uppercase letter in a field name";
	}
}

const char *shb_h2_hscan_strerror(int err)
{
	switch (err) {
	case SHB_H2_HSCAN_OK: return "no error";
	case SHB_H2_HSCAN_E_INDEX0: return "HPACK index 0";
	case SHB_H2_HSCAN_E_INDEX:
		return "HPACK index beyond the dynamic table";
	case SHB_H2_HSCAN_E_SIZE_LATE:
		return "HPACK table size update after a field";
	case SHB_H2_HSCAN_E_SIZE_UPDATE:
		return "HPACK table size update above our SETTINGS_HEADER_TABLE_SIZE";
	case SHB_H2_HSCAN_E_INTEGER: return "HPACK integer out of range";
	case SHB_H2_HSCAN_E_TRUNCATED:
		return "HPACK header block ends inside a field";
	case SHB_H2_HSCAN_E_HUFFMAN:
		return "HPACK Huffman string with an EOS or bad padding";
	case SHB_H2_HSCAN_E_LIST_SIZE:
		return "response header list above 262144 octets (cap 262144)";
	case SHB_H2_HSCAN_E_NOMEM:
		return "out of memory decoding the header block for the observer";
	default: return "HPACK error";
	}
}
