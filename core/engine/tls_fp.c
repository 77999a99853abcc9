#include "engine/tls_fp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

/* ---- a bounded reader ----------------------------------------------------- */

struct rd {
	const uint8_t *p;
	size_t len, off;
	int bad; /* a read went past the end: every later read fails too */
};

static int need(struct rd *r, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static uint32_t u8(struct rd *r)
{
	return need(r, 1) ? r->p[r->off++] : 0;
}

static uint32_t u16(struct rd *r)
{
	if (!need(r, 2))
		return 0;
	uint32_t v = (uint32_t)r->p[r->off] << 8 | r->p[r->off + 1];
	r->off += 2;
	return v;
}

/* A sub-reader over the next n bytes, which r skips. */
static struct rd sub(struct rd *r, size_t n)
{
	struct rd s = {0};
	if (!need(r, n)) {
		s.bad = 1;
		return s;
	}
	s.p = r->p + r->off;
	s.len = n;
	r->off += n;
	return s;
}

/* RFC 8701: 0x0a0a, 0x1a1a, ... 0xfafa. */
static int grease(uint32_t v)
{
	return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff);
}

/* A list of 16-bit values without GREASE into out (cap entries); the
 * whole reader must be consumed. Returns the count, or -1. */
static long u16_list(struct rd *r, uint16_t *out, size_t cap)
{
	size_t n = 0;
	if ((r->len - r->off) % 2)
		return -1;
	while (!r->bad && r->off < r->len) {
		uint32_t v = u16(r);
		if (grease(v))
			continue;
		if (n == cap)
			return -1;
		out[n++] = (uint16_t)v;
	}
	return r->bad ? -1 : (long)n;
}

/* ---- the ClientHello ------------------------------------------------------ */

static int ext_body(struct shb_client_hello *ch, uint32_t type, struct rd *e)
{
	struct rd l;
	long n;

	switch (type) {
	case 0x0000: /* server_name */
		ch->has_sni = 1;
		return 0;
	case 0x000a: /* supported_groups */
		l = sub(e, u16(e));
		n = u16_list(&l, ch->groups, SHB_FP_MAX_GROUPS);
		ch->n_groups = n < 0 ? 0 : (size_t)n;
		return n < 0 ? -1 : 0;
	case 0x000b: /* ec_point_formats */
		l = sub(e, u8(e));
		if (l.bad || l.len > SHB_FP_MAX_POINT_FORMATS)
			return -1;
		memcpy(ch->pf, l.p, l.len);
		ch->n_pf = l.len;
		return 0;
	case 0x000d: /* signature_algorithms */
		l = sub(e, u16(e));
		n = u16_list(&l, ch->sigalgs, SHB_FP_MAX_SIGALGS);
		ch->n_sigalgs = n < 0 ? 0 : (size_t)n;
		return n < 0 ? -1 : 0;
	case 0x0010: /* ALPN: the first protocol name */
		l = sub(e, u16(e));
		if (!l.bad && l.len == 0)
			return 0; /* no value: "00" */
		ch->alpn_len = u8(&l);
		ch->alpn = l.bad || ch->alpn_len > l.len - l.off ? NULL : l.p + l.off;
		return ch->alpn ? 0 : -1;
	case 0x002b: { /* supported_versions: the highest, GREASE left out */
		uint16_t v[128];
		l = sub(e, u8(e));
		n = u16_list(&l, v, 128);
		if (n < 0)
			return -1;
		for (long i = 0; i < n; i++)
			if (v[i] > ch->version)
				ch->version = v[i];
		return 0;
	}
	default:
		return 0;
	}
}

static int extensions(struct shb_client_hello *ch, struct rd *r)
{
	while (r->off < r->len) {
		uint32_t type = u16(r);
		struct rd e = sub(r, u16(r));
		if (r->bad)
			return -1;
		if (grease(type))
			continue;
		if (ch->n_exts == SHB_FP_MAX_EXTS)
			return -1;
		ch->exts[ch->n_exts++] = (uint16_t)type;
		if (ext_body(ch, type, &e) < 0)
			return -1;
	}
	return 0;
}

int shb_client_hello_parse(const uint8_t *msg, size_t len,
			   struct shb_client_hello *ch)
{
	struct rd r = {.p = msg, .len = len};

	memset(ch, 0, sizeof(*ch));
	if (u8(&r) != 1) /* client_hello */
		return -1;
	uint32_t body = u8(&r) << 16;
	body |= u16(&r);
	struct rd m = sub(&r, body);
	if (r.bad || r.off != len)
		return -1;
	ch->legacy_version = (uint16_t)u16(&m);
	(void)sub(&m, 32);          /* random */
	(void)sub(&m, u8(&m));      /* legacy_session_id */
	struct rd cs = sub(&m, u16(&m));
	long n = m.bad ? -1 : u16_list(&cs, ch->ciphers, SHB_FP_MAX_CIPHERS);
	if (n < 0)
		return -1;
	ch->n_ciphers = (size_t)n;
	(void)sub(&m, u8(&m));      /* legacy_compression_methods */
	if (m.bad)
		return -1;
	if (m.off < m.len) {        /* extensions are optional before 1.3 */
		struct rd ex = sub(&m, u16(&m));
		if (m.bad || m.off != m.len || extensions(ch, &ex) < 0)
			return -1;
	}
	if (!ch->version)
		ch->version = ch->legacy_version;
	return 0;
}

/* ---- hashing -------------------------------------------------------------- */

static void hex(const uint8_t *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = 0;
}

/* Feeds "a<sep>b<sep>c" of values in decimal (JA3, sep '-') or 4-digit
 * hex (JA4, sep ','). */
static void put_list(gnutls_hash_hd_t h, const uint16_t *v, size_t n,
		     char sep)
{
	char s[8];
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(s, sizeof(s), sep == ',' ? "%04x" : "%u", v[i]);
		if (i)
			gnutls_hash(h, &sep, 1);
		gnutls_hash(h, s, (size_t)k);
	}
}

int shb_ja3(const struct shb_client_hello *ch, char out[SHB_JA3_LEN])
{
	gnutls_hash_hd_t h;
	uint8_t d[16];
	uint16_t pf[SHB_FP_MAX_POINT_FORMATS];
	char v[8];

	if (gnutls_hash_init(&h, GNUTLS_DIG_MD5) < 0)
		return -1;
	int k = snprintf(v, sizeof(v), "%u,", ch->legacy_version);
	gnutls_hash(h, v, (size_t)k);
	put_list(h, ch->ciphers, ch->n_ciphers, '-');
	gnutls_hash(h, ",", 1);
	put_list(h, ch->exts, ch->n_exts, '-');
	gnutls_hash(h, ",", 1);
	put_list(h, ch->groups, ch->n_groups, '-');
	gnutls_hash(h, ",", 1);
	for (size_t i = 0; i < ch->n_pf; i++)
		pf[i] = ch->pf[i];
	put_list(h, pf, ch->n_pf, '-');
	gnutls_hash_deinit(h, d);
	hex(d, sizeof(d), out);
	return 0;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* The first 12 hex digits of a SHA-256 that put_list and the caller fed. */
static void sha12(gnutls_hash_hd_t h, char *out)
{
	uint8_t d[32];
	gnutls_hash_deinit(h, d);
	hex(d, 6, out);
}

static int isalnum_ascii(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	       (c >= 'a' && c <= 'z');
}

/* The first and last characters of the first ALPN value; "00" without;
 * for a non-alphanumeric end, the first hex digit of the first byte and
 * the last hex digit of the last byte. */
static void alpn_chars(const struct shb_client_hello *ch, char out[3])
{
	static const char digits[] = "0123456789abcdef";
	strcpy(out, "00");
	if (!ch->alpn || !ch->alpn_len)
		return;
	uint8_t a = ch->alpn[0], z = ch->alpn[ch->alpn_len - 1];
	if (isalnum_ascii(a) && isalnum_ascii(z)) {
		out[0] = (char)a;
		out[1] = (char)z;
	} else {
		out[0] = digits[a >> 4];
		out[1] = digits[z & 15];
	}
}

static const char *version_code(uint16_t v)
{
	switch (v) {
	case 0x0304: return "13";
	case 0x0303: return "12";
	case 0x0302: return "11";
	case 0x0301: return "10";
	case 0x0300: return "s3";
	case 0x0002: return "s2";
	case 0xfeff: return "d1";
	case 0xfefd: return "d2";
	case 0xfefc: return "d3";
	default: return "00";
	}
}

int shb_ja4(const struct shb_client_hello *ch, int quic, char out[SHB_JA4_LEN])
{
	uint16_t c[SHB_FP_MAX_CIPHERS], e[SHB_FP_MAX_EXTS];
	size_t ne = 0;
	char alpn[3], b[13] = "000000000000", x[13] = "000000000000";
	gnutls_hash_hd_t h;

	memcpy(c, ch->ciphers, ch->n_ciphers * sizeof(c[0]));
	qsort(c, ch->n_ciphers, sizeof(c[0]), cmp_u16);
	for (size_t i = 0; i < ch->n_exts; i++)
		if (ch->exts[i] != 0x0000 && ch->exts[i] != 0x0010)
			e[ne++] = ch->exts[i];
	qsort(e, ne, sizeof(e[0]), cmp_u16);
	if (ch->n_ciphers) {
		if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
			return -1;
		put_list(h, c, ch->n_ciphers, ',');
		sha12(h, b);
	}
	if (ne) {
		if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
			return -1;
		put_list(h, e, ne, ',');
		if (ch->n_sigalgs) {
			gnutls_hash(h, "_", 1);
			put_list(h, ch->sigalgs, ch->n_sigalgs, ',');
		}
		sha12(h, x);
	}
	alpn_chars(ch, alpn);
	snprintf(out, SHB_JA4_LEN, "%c%s%c%02zu%02zu%s_%s_%s", quic ? 'q' : 't',
		 version_code(ch->version), ch->has_sni ? 'd' : 'i',
		 ch->n_ciphers > 99 ? 99 : ch->n_ciphers,
		 ch->n_exts > 99 ? 99 : ch->n_exts, alpn, b, x);
	return 0;
}

/* ---- capture -------------------------------------------------------------- */

size_t shb_hello_from_records(const uint8_t *rec, size_t len, uint8_t *out,
			      size_t cap)
{
	struct rd r = {.p = rec, .len = len};
	size_t got = 0, want = 0;

	while (!r.bad && r.off < r.len) {
		if (u8(&r) != 22) /* handshake */
			return 0;
		(void)u16(&r);    /* legacy_record_version */
		struct rd f = sub(&r, u16(&r));
		if (r.bad || f.len > cap - got)
			return 0;
		memcpy(out + got, f.p, f.len);
		got += f.len;
		if (!want && got >= 4)
			want = 4 + ((size_t)out[1] << 16 | (size_t)out[2] << 8 | out[3]);
		if (want && got >= want)
			return out[0] == 1 && want <= cap ? want : 0;
	}
	return 0;
}

void shb_hello_keep(struct shb_hello *h, const uint8_t *msg, size_t len,
		    int quic)
{
	int empty = 0;
	if (atomic_load_explicit(&h->state, memory_order_relaxed) != 0 ||
	    len > SHB_HELLO_MAX || len == 0 ||
	    !atomic_compare_exchange_strong(&h->state, &empty, 1))
		return;
	memcpy(h->msg, msg, len);
	h->len = len;
	h->quic = quic;
	atomic_store_explicit(&h->state, 2, memory_order_release);
}

void shb_hello_fingerprints(struct shb_hello *h, const char **ja3,
			    const char **ja4)
{
	*ja3 = *ja4 = NULL;
	if (atomic_load_explicit(&h->state, memory_order_acquire) != 2)
		return;
	if (!h->done) {
		struct shb_client_hello *ch = malloc(sizeof(*ch));
		h->done = -1;
		if (ch && shb_client_hello_parse(h->msg, h->len, ch) == 0 &&
		    shb_ja3(ch, h->ja3) == 0 && shb_ja4(ch, h->quic, h->ja4) == 0)
			h->done = 1;
		free(ch);
	}
	if (h->done == 1) {
		*ja3 = h->ja3;
		*ja4 = h->ja4;
	}
}
