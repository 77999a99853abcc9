/* DNS queries and replies (dns_msg.h). A reply is read in one pass with
 * every offset checked against the datagram's length; a name's
 * compression pointers may only point before the pointer itself, so that
 * no chain of them loops, and are counted besides. */
#include <stdio.h>
#include <string.h>

#include "dns_msg.h"

static const struct {
	const char *name;
	uint16_t v;
} types[] = {
	{"A", 1}, {"NS", 2}, {"CNAME", 5}, {"SOA", 6}, {"PTR", 12},
	{"MX", 15}, {"TXT", 16}, {"AAAA", 28}, {"SRV", 33}, {"NAPTR", 35},
	{"DS", 43}, {"DNSKEY", 48}, {"SVCB", 64}, {"HTTPS", 65},
	{"CAA", 257}, {"ANY", 255},
}, classes[] = {
	{"IN", 1}, {"CH", 3}, {"HS", 4}, {"ANY", 255},
};

static int ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'a' && *a <= 'z' ? (char)(*a - 32) : *a;
		if (x != *b)
			return 0;
	}
	return *a == *b;
}

static int parse_u16(const char *s, uint16_t *out)
{
	uint32_t n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || (n = n * 10 + (uint32_t)(*s - '0')) > 65535)
			return -1;
	}
	*out = (uint16_t)n;
	return 0;
}

int dns_type_parse(const char *s, uint16_t *out)
{
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (ieq(s, types[i].name)) {
			*out = types[i].v;
			return 0;
		}
	return parse_u16(s, out);
}

int dns_class_parse(const char *s, uint16_t *out)
{
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (ieq(s, classes[i].name)) {
			*out = classes[i].v;
			return 0;
		}
	return parse_u16(s, out);
}

/* ---- queries ----------------------------------------------------------------- */

static size_t put_u64(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* The name's text with its placeholders replaced; NUL-terminated in
 * out[DNS_TEXT_MAX + 20 * DNS_PH_MAX + 1]. */
static void expand(const char *text, char *out, uint64_t seq, uint64_t rnd)
{
	size_t o = 0;

	while (*text) {
		if (strncmp(text, "{seq}", 5) == 0) {
			o += put_u64(out + o, seq);
			text += 5;
		} else if (strncmp(text, "{rand}", 6) == 0) {
			o += put_u64(out + o, rnd);
			text += 6;
		} else {
			out[o++] = *text++;
		}
	}
	out[o] = 0;
}

#define EXPANDED_MAX (DNS_TEXT_MAX + 20u * DNS_PH_MAX + 1u)

/* Dotted text to wire labels in out[DNS_NAME_MAX]: its length, or 0 with
 * a reason (an empty label, one over 63 bytes, a name over 255). */
static size_t to_wire(const char *s, uint8_t *out, const char **why)
{
	size_t o = 0;

	if (strcmp(s, ".") == 0) {
		out[0] = 0;
		return 1;
	}
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t len = dot ? (size_t)(dot - s) : strlen(s);

		if (len == 0 || len > DNS_LABEL_MAX) {
			*why = len ? "a label is over 63 bytes" : "an empty label";
			return 0;
		}
		if (o + 1 + len + 1 > DNS_NAME_MAX) {
			*why = "the name is over 255 bytes";
			return 0;
		}
		out[o++] = (uint8_t)len;
		memcpy(out + o, s, len);
		o += len;
		s += len + (dot ? 1 : 0);
	}
	out[o++] = 0;
	return o;
}

static int check_text(const char *name, uint32_t *vars, char *err, size_t errlen)
{
	uint32_t n = 0;

	if (!name[0] || strlen(name) > DNS_TEXT_MAX) {
		snprintf(err, errlen, "name must be 1 to %u bytes", DNS_TEXT_MAX);
		return -1;
	}
	for (const char *p = name; *p; p++) {
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
			snprintf(err, errlen, "name must be printable ASCII without "
				 "spaces (byte %u is not)", (unsigned)(p - name));
			return -1;
		}
		n += strncmp(p, "{seq}", 5) == 0 || strncmp(p, "{rand}", 6) == 0;
	}
	if (n > DNS_PH_MAX) {
		snprintf(err, errlen, "name has %u placeholders, at most %u", n,
			 DNS_PH_MAX);
		return -1;
	}
	*vars = n;
	return 0;
}

int dns_query_build(struct dns_query *q, const char *name, uint16_t type,
		    uint16_t qclass, uint16_t edns, int rd, uint32_t range,
		    char *err, size_t errlen)
{
	char longest[EXPANDED_MAX];
	uint8_t wire[DNS_NAME_MAX];
	const char *why = "";
	uint32_t vars;

	memset(q, 0, sizeof *q);
	if (check_text(name, &vars, err, errlen))
		return -1;
	/* With its widest numbers ({seq} can reach 20 digits, {rand} those
	 * of range - 1), every expansion is a valid name. */
	expand(name, longest, UINT64_MAX, range ? range - 1 : 0);
	if (!to_wire(longest, wire, &why)) {
		snprintf(err, errlen, "name%s: %s",
			 vars ? " with its placeholders at their widest" : "", why);
		return -1;
	}
	memcpy(q->text, name, strlen(name) + 1);
	q->type = type;
	q->qclass = qclass;
	q->edns = edns;
	q->rd = rd ? 1 : 0;
	q->vars = vars ? 1 : 0;
	q->range = range;
	return 0;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

size_t dns_query_encode(const struct dns_query *q, uint8_t *out, uint16_t id,
			uint64_t seq, uint64_t rnd, uint64_t *qhash)
{
	char text[EXPANDED_MAX];
	const char *why;
	size_t o = DNS_HEADER, nl;

	expand(q->text, text, seq, rnd);
	nl = to_wire(text, out + DNS_HEADER, &why);
	if (!nl)
		return 0;
	put16(out, id);
	out[2] = q->rd; /* QR 0, opcode QUERY, RD */
	out[3] = 0;
	put16(out + 4, 1); /* QDCOUNT */
	put16(out + 6, 0);
	put16(out + 8, 0);
	put16(out + 10, q->edns ? 1 : 0); /* ARCOUNT */
	o += nl;
	put16(out + o, q->type);
	put16(out + o + 2, q->qclass);
	*qhash = dns_question_hash(out + DNS_HEADER, nl, q->type, q->qclass);
	o += 4;
	if (q->edns) { /* RFC 6891: root name, OPT, payload size, no flags */
		static const uint8_t opt[DNS_OPT_RR] = {0, 0, 41};

		memcpy(out + o, opt, sizeof opt);
		put16(out + o + 3, q->edns);
		o += sizeof opt;
	}
	return o;
}

/* ---- replies ----------------------------------------------------------------- */

uint64_t dns_question_hash(const uint8_t *name, size_t name_len, uint16_t type,
			   uint16_t qclass)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < name_len; i++) {
		uint8_t c = name[i];

		/* Length bytes are below 64, so lower-casing never hits one. */
		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c + 32);
		h = (h ^ c) * 0x100000001b3ull;
	}
	h = (h ^ type) * 0x100000001b3ull;
	h = (h ^ qclass) * 0x100000001b3ull;
	return h ? h : 1;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Reads the name at *off: copies its uncompressed labels into
 * out[DNS_NAME_MAX] when out is not NULL, sets *len to its wire length
 * uncompressed and *off past it where it sits. 0, or -1 with *why. */
static int read_name(const uint8_t *p, size_t n, size_t *off, uint8_t *out,
		     size_t *len, const char **why)
{
	size_t at = *off, o = 0, end = 0, floor = *off;
	unsigned jumps = 0;

	for (;;) {
		if (at >= n)
			goto cut;
		uint8_t l = p[at];

		if ((l & 0xc0) == 0xc0) {
			if (at + 1 >= n)
				goto cut;
			size_t to = (size_t)(l & 0x3f) << 8 | p[at + 1];

			if (!end)
				end = at + 2;
			/* Only before where this name's labels so far
			 * started: every jump lands lower than the last, so
			 * no chain loops (and a chain is bounded besides). */
			if (to >= floor || ++jumps > DNS_JUMPS_MAX) {
				*why = to >= floor ? "a compression pointer that does "
					"not point back" : "too many compression pointers";
				return -1;
			}
			at = floor = to;
			continue;
		}
		if (l & 0xc0) {
			*why = "a label type other than 0 or a pointer";
			return -1;
		}
		if (o + 1 + l > DNS_NAME_MAX) {
			*why = "a name over 255 bytes";
			return -1;
		}
		if (at + 1 + l > n)
			goto cut;
		if (out)
			memcpy(out + o, p + at, 1u + l);
		o += 1u + l;
		at += 1u + l;
		if (!l)
			break;
	}
	*off = end ? end : at;
	*len = o;
	return 0;
cut:
	*why = "a name that runs past the datagram";
	return -1;
}

/* Skips `count` resource records from *off. */
static int skip_records(const uint8_t *p, size_t n, size_t *off, uint32_t count,
			const char **why)
{
	for (uint32_t i = 0; i < count; i++) {
		size_t len;

		if (read_name(p, n, off, NULL, &len, why))
			return -1;
		if (*off + 10 > n || *off + 10 + get16(p + *off + 8) > n) {
			*why = "a record that runs past the datagram";
			return -1;
		}
		*off += 10u + get16(p + *off + 8);
	}
	return 0;
}

static int read_question(const uint8_t *p, size_t n, size_t *off,
			 struct dns_reply *r)
{
	uint8_t name[DNS_NAME_MAX];
	size_t len;

	if (read_name(p, n, off, name, &len, &r->err))
		return -1;
	if (*off + 4 > n) {
		r->err = "a question that runs past the datagram";
		return -1;
	}
	r->qhash = dns_question_hash(name, len, get16(p + *off), get16(p + *off + 2));
	*off += 4;
	return 0;
}

int dns_reply_read(const uint8_t *p, size_t n, struct dns_reply *r)
{
	size_t off = DNS_HEADER;
	uint32_t rest;

	memset(r, 0, sizeof *r);
	if (n < DNS_HEADER || !(p[2] & 0x80))
		return 1;
	r->id = get16(p);
	r->tc = (p[2] & 0x02) != 0;
	r->rcode = p[3] & 0x0f;
	r->qdcount = get16(p + 4);
	r->ancount = get16(p + 6);
	rest = (uint32_t)get16(p + 6) + get16(p + 8) + get16(p + 10);
	if (r->qdcount > 1) {
		r->err = "a reply with more than one question";
		return -1;
	}
	if (r->qdcount && read_question(p, n, &off, r))
		return -1;
	r->outcome = r->tc ? DNS_TRUNCATED : r->rcode;
	if (r->tc) /* cut anywhere after its question (RFC 2181 9) */
		return 0;
	if (skip_records(p, n, &off, rest, &r->err))
		return -1;
	if (off != n) {
		r->err = "bytes after the last record";
		return -1;
	}
	if (r->rcode == DNS_NOERROR && !r->ancount)
		r->outcome = DNS_NODATA;
	return 0;
}
