/* HdrHistogram V2 compressed encoding (see hdrv2.h), written from the
 * published description of the format. */
#include "common/hdrv2.h"
#include "common/quote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HALF (1 << SHB_HDR_SUB_HALF_MAG)
#define V2_COOKIE 0x1c849313u       /* V2 base 0x1c849303, word size 0x10 */
#define V2_ZCOOKIE 0x1c849314u      /* compressed base 0x1c849304 */
#define COOKIE_BASE(c) ((c) & ~0xf0u)
#define V2_HEADER 40
#define LEB_MAX 9                   /* bytes per ZigZag LEB128 word */
#define STORED_MAX 65535u           /* bytes per stored deflate block */

int shb_hdr_counts_init(struct shb_hdr_counts *c)
{
	c->counts = calloc(SHB_HDR_COUNTS, sizeof(*c->counts));
	c->total = 0;
	c->max_index = -1;
	return c->counts ? 0 : -1;
}

void shb_hdr_counts_free(struct shb_hdr_counts *c)
{
	free(c->counts);
	c->counts = NULL;
}

/* Bucket 0 holds every value below 2 * HALF at width 1; bucket b >= 1 the
 * upper half of its sub-buckets, 2^b wide. */
int32_t shb_hdr_index(uint64_t v)
{
	uint64_t mask = 2 * HALF - 1;
	int32_t b = (64 - __builtin_clzll(v | mask)) - (SHB_HDR_SUB_HALF_MAG + 1);
	int32_t sub = (int32_t)(v >> b);
	return ((b + 1) << SHB_HDR_SUB_HALF_MAG) + (sub - HALF);
}

void shb_hdr_bounds(int32_t i, uint64_t *lo, uint64_t *hi)
{
	int32_t b = (i >> SHB_HDR_SUB_HALF_MAG) - 1;
	int32_t sub = (i & (HALF - 1)) + HALF;
	if (b < 0) {
		sub -= HALF;
		b = 0;
	}
	*lo = (uint64_t)sub << b;
	*hi = *lo + ((uint64_t)1 << b) - 1;
}

int shb_hdr_add_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	struct shb_hdr_counts *c = user;
	if (lo < SHB_HDR_LOWEST || lo > SHB_HDR_HIGHEST)
		return -1;
	int32_t i = shb_hdr_index(lo);
	uint64_t blo, bhi;
	shb_hdr_bounds(i, &blo, &bhi);
	if (blo != lo || bhi != hi || i >= SHB_HDR_COUNTS)
		return -1;
	c->counts[i] += count;
	c->total += count;
	if (count && i > c->max_index)
		c->max_index = i;
	return 0;
}

/* ---- encoding -------------------------------------------------------------- */

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		*p++ = (uint8_t)(v >> s);
	return p;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	p = put32(p, (uint32_t)(v >> 32));
	return put32(p, (uint32_t)v);
}

/* ZigZag, then LEB128 of at most 9 bytes: eight 7-bit groups, the ninth
 * byte whole. */
static uint8_t *put_zz(uint8_t *p, int64_t sv)
{
	uint64_t v = ((uint64_t)sv << 1) ^ (uint64_t)(sv >> 63);
	for (int i = 0; i < 8; i++) {
		if (v < 0x80) {
			*p++ = (uint8_t)v;
			return p;
		}
		*p++ = (uint8_t)((v & 0x7f) | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* The V2 (uncompressed) encoding; returns its length. */
static size_t encode_v2(const struct shb_hdr_counts *c, uint8_t *buf)
{
	uint8_t *p = buf + V2_HEADER;
	int32_t limit = c->max_index + 1;
	for (int32_t i = 0; i < limit;) {
		uint64_t n = c->counts[i++];
		int64_t zeros = 0;
		if (n == 0) {
			zeros = 1;
			while (i < limit && c->counts[i] == 0) {
				zeros++;
				i++;
			}
		}
		/* counts above INT64_MAX cannot happen: they are events */
		p = put_zz(p, zeros > 1 ? -zeros : (int64_t)n);
	}
	uint32_t payload = (uint32_t)(p - buf - V2_HEADER);
	uint8_t *h = put32(buf, V2_COOKIE);
	h = put32(h, payload);
	h = put32(h, 0); /* normalizing index offset */
	h = put32(h, SHB_HDR_SIGFIGS);
	h = put64(h, SHB_HDR_LOWEST);
	h = put64(h, SHB_HDR_HIGHEST);
	double one = 1.0;
	uint64_t bits;
	memcpy(&bits, &one, sizeof(bits));
	put64(h, bits);
	return (size_t)(p - buf);
}

static uint32_t adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521u;
		b = (b + a) % 65521u;
	}
	return (b << 16) | a;
}

/* zlib stream of stored blocks; returns its length. out holds n + 5 per
 * block + 6. */
static size_t zlib_stored(const uint8_t *in, size_t n, uint8_t *out)
{
	uint8_t *p = out;
	*p++ = 0x78; /* deflate, 32 KiB window */
	*p++ = 0x01; /* no dictionary, (0x78 << 8 | 0x01) % 31 == 0 */
	size_t off = 0;
	do {
		size_t len = n - off > STORED_MAX ? STORED_MAX : n - off;
		*p++ = off + len == n ? 1 : 0; /* BFINAL, BTYPE 00 */
		*p++ = (uint8_t)len;
		*p++ = (uint8_t)(len >> 8);
		*p++ = (uint8_t)~len;
		*p++ = (uint8_t)(~len >> 8);
		memcpy(p, in + off, len);
		p += len;
		off += len;
	} while (off < n);
	return (size_t)(put32(p, adler32(in, n)) - out);
}

static const char b64chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(const uint8_t *in, size_t n)
{
	char *out = malloc((n + 2) / 3 * 4 + 1);
	if (!out)
		return NULL;
	char *o = out;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		*o++ = b64chars[v >> 18];
		*o++ = b64chars[(v >> 12) & 63];
		*o++ = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
		*o++ = i + 2 < n ? b64chars[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

char *shb_hdr_encode(const struct shb_hdr_counts *c)
{
	size_t cap = V2_HEADER + (size_t)(c->max_index + 1) * LEB_MAX;
	size_t zcap = 8 + cap + 5 * (cap / STORED_MAX + 1) + 6;
	uint8_t *raw = malloc(cap), *z = malloc(zcap);
	char *out = NULL;
	if (raw && z) {
		size_t n = encode_v2(c, raw);
		size_t zn = zlib_stored(raw, n, z + 8);
		put32(z, V2_ZCOOKIE);
		put32(z + 4, (uint32_t)zn);
		out = base64(z, zn + 8);
	}
	free(raw);
	free(z);
	return out;
}

/* ---- decoding -------------------------------------------------------------- */

static int b64val(int ch)
{
	const char *p = ch ? strchr(b64chars, ch) : NULL;
	return p ? (int)(p - b64chars) : -1;
}

/* Returns the length, or -1 for a character outside base64. */
static long unbase64(const char *s, uint8_t *out)
{
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (; *s && *s != '='; s++) {
		int v = b64val((unsigned char)*s);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	for (; *s == '='; s++)
		;
	return *s ? -1 : (long)n;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* The stored blocks of a zlib stream into out (cap bytes). Returns the
 * length, or -1 with err set. */
static long unzlib(const uint8_t *z, size_t n, uint8_t *out, size_t cap,
		   char *err, size_t errlen)
{
	if (n < 6 || (z[0] & 0x0f) != 8 || ((z[0] << 8) | z[1]) % 31 || (z[1] & 0x20))
		return shb_errf(err, errlen, "not a zlib stream");
	size_t i = 2, o = 0;
	for (int final = 0; !final;) {
		if (i + 5 > n)
			return shb_errf(err, errlen, "zlib stream cut short");
		final = z[i] & 1;
		if ((z[i] >> 1) & 3)
			return shb_errf(err, errlen, "compressed deflate blocks: shb "
				    "reads the stored blocks it writes");
		size_t len = z[i + 1] | (size_t)z[i + 2] << 8;
		size_t nlen = z[i + 3] | (size_t)z[i + 4] << 8;
		i += 5;
		if ((len ^ nlen) != 0xffff || i + len > n || o + len > cap)
			return shb_errf(err, errlen, "bad stored deflate block");
		memcpy(out + o, z + i, len);
		i += len;
		o += len;
	}
	if (i + 4 > n || get32(z + i) != adler32(out, o))
		return shb_errf(err, errlen, "zlib Adler-32 mismatch");
	return (long)o;
}

/* One ZigZag LEB128 word from p[*i]: eight 7-bit groups, the ninth byte
 * whole. Returns -1 when the counts end inside it. */
static int get_zz(const uint8_t *p, size_t n, size_t *i, int64_t *out)
{
	uint64_t v = 0;
	for (int k = 0;; k++) {
		if (*i >= n)
			return -1;
		uint8_t b = p[(*i)++];
		if (k == 8) {
			v |= (uint64_t)b << 56;
			break;
		}
		v |= (uint64_t)(b & 0x7f) << (7 * k);
		if (!(b & 0x80))
			break;
	}
	*out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
	return 0;
}

/* Walks the counts: checks every run, index and sum when !apply, adds the
 * counts to c when apply. The index stays within [0, SHB_HDR_COUNTS] and
 * the sums within 64 bits whatever the words say. */
static int walk_counts(const uint8_t *p, size_t n, struct shb_hdr_counts *c,
		       int apply, char *err, size_t errlen)
{
	size_t i = 0;
	uint32_t idx = 0;
	uint64_t total = c->total;
	while (i < n) {
		int64_t sv;
		if (get_zz(p, n, &i, &sv) < 0)
			return shb_errf(err, errlen, "counts cut short");
		if (sv < 0) {
			/* a run of empty buckets; -INT64_MIN computed unsigned */
			uint64_t run = (uint64_t)0 - (uint64_t)sv;
			if (run > SHB_HDR_COUNTS - idx)
				return shb_errf(err, errlen, "a run of %llu empty "
					    "buckets past the last bucket",
					    (unsigned long long)run);
			idx += (uint32_t)run;
			continue;
		}
		if (idx >= SHB_HDR_COUNTS)
			return shb_errf(err, errlen, "a count beyond the highest "
				    "trackable value");
		uint64_t v = (uint64_t)sv;
		if (!apply && (v > UINT64_MAX - c->counts[idx] ||
			       v > UINT64_MAX - total))
			return shb_errf(err, errlen, "counts whose sum overflows "
				    "64 bits");
		total += v;
		if (apply && v) {
			c->counts[idx] += v;
			c->total += v;
			if ((int32_t)idx > c->max_index)
				c->max_index = (int32_t)idx;
		}
		idx++;
	}
	return 0;
}

/* Checked in full before anything is added: a histogram refused leaves c
 * as it was (merge decodes several into one). */
static int read_counts(const uint8_t *p, size_t n, struct shb_hdr_counts *c,
		       char *err, size_t errlen)
{
	if (walk_counts(p, n, c, 0, err, errlen) < 0)
		return -1;
	return walk_counts(p, n, c, 1, err, errlen);
}

int shb_hdr_decode(const char *b64, struct shb_hdr_counts *c, char *err,
		   size_t errlen)
{
	size_t len = strlen(b64);
	size_t cap = V2_HEADER + (size_t)SHB_HDR_COUNTS * LEB_MAX;
	uint8_t *z = malloc(len / 4 * 3 + 3), *raw = NULL;
	int rc = -1;
	if (!z) {
		shb_errf(err, errlen, "out of memory");
		goto out;
	}
	long zn = unbase64(b64, z);
	if (zn < 0) {
		shb_errf(err, errlen, "not base64");
		goto out;
	}
	if (zn < 8 || COOKIE_BASE(get32(z)) != COOKIE_BASE(V2_ZCOOKIE)) {
		shb_errf(err, errlen, "not an HdrHistogram V2 compressed histogram");
		goto out;
	}
	if (get32(z + 4) > (uint64_t)zn - 8) {
		shb_errf(err, errlen, "compressed length beyond the data");
		goto out;
	}
	/* Stored blocks never inflate: what they hold fits in their length. */
	if (cap > get32(z + 4))
		cap = get32(z + 4);
	if (!(raw = malloc(cap ? cap : 1))) {
		shb_errf(err, errlen, "out of memory");
		goto out;
	}
	long n = unzlib(z + 8, get32(z + 4), raw, cap, err, errlen);
	if (n < 0)
		goto out;
	if (n < V2_HEADER || COOKIE_BASE(get32(raw)) != COOKIE_BASE(V2_COOKIE)) {
		shb_errf(err, errlen, "not an HdrHistogram V2 encoding");
		goto out;
	}
	if (get32(raw + 4) > (uint64_t)n - V2_HEADER || get32(raw + 8) != 0) {
		shb_errf(err, errlen, "bad payload length or normalizing offset");
		goto out;
	}
	/* The layout is what the counts' indexes mean; the highest trackable
	 * value only bounds them, and read_counts checks every index. */
	if (get32(raw + 12) != SHB_HDR_SIGFIGS || get64(raw + 16) != SHB_HDR_LOWEST) {
		shb_errf(err, errlen, "layout %u significant digits, lowest %llu: "
		     "shb's is %d digits, lowest %u", get32(raw + 12),
		     (unsigned long long)get64(raw + 16), SHB_HDR_SIGFIGS,
		     SHB_HDR_LOWEST);
		goto out;
	}
	rc = read_counts(raw + V2_HEADER, get32(raw + 4), c, err, errlen);
out:
	free(z);
	free(raw);
	return rc;
}
