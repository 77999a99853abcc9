/* Request templates: see template.h. Parsing and file reading run once on
 * the main thread, so they favour plain code; expansion runs per request
 * and only copies and formats into the worker's scratch buffer. */
#include "cli/template.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/config.h"
#include "common/quote.h"

/* Where a string goes: what a line file's bytes must fit. */
enum use { USE_BODY, USE_URL, USE_HEADER };

enum piece_kind { P_LIT, P_SEQ, P_WORKER, P_CONN, P_RAND, P_UUID, P_LINE };

#define UUID_LEN 36
#define U64_DIGITS 20
#define U32_DIGITS 10
/* {{rand:N}}: N up to 2^63, so that N - 1 and the bound fit comfortably. */
#define RAND_MAX_N ((uint64_t)1 << 63)

struct piece {
	uint32_t kind;
	uint32_t file; /* P_LINE: index into t->files */
	uint64_t n;    /* P_RAND: N; P_LIT: offset into the string's text */
	size_t len;    /* P_LIT: bytes */
};

/* One templated string: pieces in order, literal bytes in `text`. */
struct tstr {
	struct piece *p;
	size_t np;
	char *text;
	size_t max; /* the longest expansion */
};

/* A file of lines, read once, shared read-only by every worker. Line i is
 * data[off[i] .. off[i + 1] - 1): every line ends with LF in data (one is
 * added after a last line without). */
struct lines {
	char *path;
	char *data;
	uint32_t *off; /* n + 1 entries */
	uint32_t n;
	uint32_t url_bad; /* 1-based first line unfit for a URL, 0: none */
	uint32_t hdr_bad; /* ... for a header value (a control byte) */
	size_t max;       /* longest line */
};

struct vhdr {
	uint32_t index;
	struct tstr s;
};

struct shb_tmpl {
	uint32_t flags; /* SHB_VAR_* */
	struct tstr path;
	struct vhdr *hdr;
	size_t nhdr;
	struct tstr body;
	int body_templated;
	/* --body-lines: its index in files (an index, since files may
	 * move while later files are loaded), or -1. */
	long body_lines;
	struct lines *files;
	size_t nfiles;
	size_t scratch;
};

static void errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- line files ------------------------------------------------------------ */

static int read_all(const char *path, char **out, size_t *len, char *err,
		    size_t errlen, const char *what)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errf(err, errlen, "%s: cannot open \"%s\": %s", what,
		     shb_quote(path).s, strerror(errno));
		return -1;
	}
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf) {
			close(fd);
			errf(err, errlen, "out of memory");
			return -1;
		}
		if (n == cap) {
			if (cap > SHB_MAX_BODY) { /* read one byte past the cap */
				free(buf);
				close(fd);
				errf(err, errlen, "%s: \"%s\" is larger than %s", what,
				     shb_quote(path).s, SHB_MAX_BODY_TEXT);
				return -1;
			}
			cap = cap * 2 > SHB_MAX_BODY ? SHB_MAX_BODY + 1 : cap * 2;
			char *nb = realloc(buf, cap + 1);
			if (!nb)
				free(buf);
			buf = nb;
			continue;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			errf(err, errlen, "%s: cannot read \"%s\": %s", what,
			     shb_quote(path).s, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > SHB_MAX_BODY) {
		free(buf);
		errf(err, errlen, "%s: \"%s\" is larger than %s", what,
		     shb_quote(path).s, SHB_MAX_BODY_TEXT);
		return -1;
	}
	*out = buf;
	*len = n;
	return 0;
}

static int url_byte(unsigned char ch)
{
	return ch > 0x20 && ch < 0x7f;
}

/* Splits l->data[0..len) into lines (the buffer has room for one more
 * byte: a final LF). */
static int split_lines(struct lines *l, size_t len, char *err, size_t errlen,
		       const char *what)
{
	if (len == 0) {
		errf(err, errlen, "%s: \"%s\" is empty", what, shb_quote(l->path).s);
		return -1;
	}
	if (l->data[len - 1] != '\n')
		l->data[len++] = '\n';
	uint32_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += l->data[i] == '\n';
	l->off = malloc(((size_t)n + 1) * sizeof(*l->off));
	if (!l->off) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	uint32_t k = 0, start = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)l->data[i];
		if (ch == '\r' || ch == '\0') {
			errf(err, errlen, "%s: \"%s\" line %u has a %s byte%s", what,
			     shb_quote(l->path).s, k + 1, ch ? "CR" : "NUL",
			     ch ? " (convert CRLF line ends to LF)" : "");
			return -1;
		}
		if (ch != '\n') {
			if (!url_byte(ch) && !l->url_bad)
				l->url_bad = k + 1;
			if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
				l->hdr_bad = l->hdr_bad ? l->hdr_bad : k + 1;
			continue;
		}
		l->off[k++] = start;
		if (i - start > l->max)
			l->max = i - start;
		start = (uint32_t)i + 1;
	}
	l->off[k] = start;
	l->n = n;
	return 0;
}

static struct lines *load_lines(struct shb_tmpl *t, const char *path,
				char *err, size_t errlen, const char *what)
{
	for (size_t i = 0; i < t->nfiles; i++)
		if (strcmp(t->files[i].path, path) == 0)
			return &t->files[i];
	struct lines *f = realloc(t->files, (t->nfiles + 1) * sizeof(*f));
	if (!f) {
		errf(err, errlen, "out of memory");
		return NULL;
	}
	t->files = f;
	struct lines *l = &f[t->nfiles];
	memset(l, 0, sizeof(*l));
	l->path = strdup(path);
	size_t len;
	if (!l->path) {
		errf(err, errlen, "out of memory");
		return NULL;
	}
	t->nfiles++; /* freed with the template from here on */
	if (read_all(path, &l->data, &len, err, errlen, what) < 0 ||
	    split_lines(l, len, err, errlen, what) < 0)
		return NULL;
	return l;
}

/* ---- parsing ---------------------------------------------------------------- */

static size_t digits(uint64_t v)
{
	size_t d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static int add_piece(struct tstr *s, struct piece pc, size_t max, char *err,
		     size_t errlen)
{
	struct piece *p = realloc(s->p, (s->np + 1) * sizeof(*p));
	if (!p) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	s->p = p;
	p[s->np++] = pc;
	s->max += max;
	return 0;
}

static int parse_rand(const char *arg, size_t alen, uint64_t *n)
{
	uint64_t v = 0;
	if (alen == 0 || alen > 19)
		return -1;
	for (size_t i = 0; i < alen; i++) {
		if (arg[i] < '0' || arg[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(arg[i] - '0');
	}
	if (v == 0 || v > RAND_MAX_N)
		return -1;
	*n = v;
	return 0;
}

/* One placeholder name[0..len) found at offset `at` of a string. */
static int placeholder(struct shb_tmpl *t, struct tstr *s, const char *name,
		       size_t len, size_t at, enum use use, const char *what,
		       char *err, size_t errlen)
{
	struct piece pc = {0};
	size_t max;

	if (len == 3 && !memcmp(name, "seq", 3)) {
		pc.kind = P_SEQ;
		max = U64_DIGITS;
	} else if (len == 6 && !memcmp(name, "worker", 6)) {
		pc.kind = P_WORKER;
		max = U32_DIGITS;
	} else if (len == 4 && !memcmp(name, "conn", 4)) {
		pc.kind = P_CONN;
		max = U32_DIGITS;
	} else if (len == 4 && !memcmp(name, "uuid", 4)) {
		pc.kind = P_UUID;
		max = UUID_LEN;
	} else if (len >= 5 && !memcmp(name, "rand:", 5)) {
		pc.kind = P_RAND;
		if (parse_rand(name + 5, len - 5, &pc.n) < 0) {
			errf(err, errlen, "%s: bad N in \"{{%s}}\" at offset "
			     "%zu (a whole number from 1 to 2^63)", what,
			     shb_quote_n(name, len > 60 ? 60 : len).s, at);
			return -1;
		}
		max = digits(pc.n - 1);
	} else if (len >= 5 && !memcmp(name, "line:", 5)) {
		char *path = strndup(name + 5, len - 5);
		if (!path) {
			errf(err, errlen, "out of memory");
			return -1;
		}
		if (!path[0]) {
			free(path);
			errf(err, errlen, "%s: \"{{line:}}\" at offset %zu needs "
			     "a file name", what, at);
			return -1;
		}
		struct lines *l = load_lines(t, path, err, errlen, what);
		free(path);
		if (!l)
			return -1;
		if (use == USE_HEADER && l->hdr_bad) {
			errf(err, errlen, "%s: \"%s\" line %u has a control byte, "
			     "which a header value cannot carry", what,
			     shb_quote(l->path).s, l->hdr_bad);
			return -1;
		}
		if (use == USE_URL && l->url_bad) {
			errf(err, errlen, "%s: \"%s\" line %u has a space, control "
			     "or non-ASCII byte, which a URL cannot carry "
			     "(percent-encode it)", what, shb_quote(l->path).s,
			     l->url_bad);
			return -1;
		}
		pc.kind = P_LINE;
		pc.file = (uint32_t)(l - t->files);
		max = l->max;
	} else {
		errf(err, errlen, "%s: unknown placeholder \"{{%s}}\" at "
		     "offset %zu (known: seq, worker, conn, rand:N, uuid, "
		     "line:FILE; \\{{ for a literal {{)", what,
		     shb_quote_n(name, len > 60 ? 60 : len).s, at);
		return -1;
	}
	return add_piece(s, pc, max, err, errlen);
}

static int flush_lit(struct tstr *s, size_t *lit_start, size_t tlen,
		     char *err, size_t errlen)
{
	if (tlen == *lit_start)
		return 0;
	struct piece pc = {.kind = P_LIT, .n = *lit_start,
			   .len = tlen - *lit_start};
	*lit_start = tlen;
	return add_piece(s, pc, pc.len, err, errlen);
}

/* Parses str[0..len). Returns 1 when it has placeholders or escapes (it
 * varies), 0 when it is plain text (s left empty), -1 on error. */
static int parse_str(struct shb_tmpl *t, struct tstr *s, const char *str,
		     size_t len, enum use use, const char *what, char *err,
		     size_t errlen)
{
	int special = 0;
	for (size_t i = 0; i + 1 < len; i++)
		if (str[i] == '{' && str[i + 1] == '{')
			special = 1;
	if (!special)
		return 0;
	s->text = malloc(len ? len : 1);
	if (!s->text) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	size_t tlen = 0, lit = 0;
	for (size_t i = 0; i < len;) {
		if (str[i] == '\\' && i + 2 < len && str[i + 1] == '{' &&
		    str[i + 2] == '{') {
			memcpy(s->text + tlen, "{{", 2);
			tlen += 2;
			i += 3;
			continue;
		}
		if (str[i] != '{' || i + 1 >= len || str[i + 1] != '{') {
			s->text[tlen++] = str[i++];
			continue;
		}
		const char *name = str + i + 2;
		const char *end = NULL;
		for (size_t k = i + 2; k + 1 < len; k++)
			if (str[k] == '}' && str[k + 1] == '}') {
				end = str + k;
				break;
			}
		if (!end) {
			errf(err, errlen, "%s: unterminated \"{{\" at offset %zu "
			     "(no \"}}\" after it; \\{{ for a literal {{)",
			     what, i);
			return -1;
		}
		if (flush_lit(s, &lit, tlen, err, errlen) < 0 ||
		    placeholder(t, s, name, (size_t)(end - name), i, use,
				what, err, errlen) < 0)
			return -1;
		i = (size_t)(end - str) + 2;
	}
	return flush_lit(s, &lit, tlen, err, errlen) < 0 ? -1 : 1;
}

static void tstr_free(struct tstr *s)
{
	free(s->p);
	free(s->text);
}

void shb_tmpl_free(struct shb_tmpl *t)
{
	if (!t)
		return;
	tstr_free(&t->path);
	for (size_t i = 0; i < t->nhdr; i++)
		tstr_free(&t->hdr[i].s);
	free(t->hdr);
	tstr_free(&t->body);
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		free(t->files[i].data);
		free(t->files[i].off);
	}
	free(t->files);
	free(t);
}

static int parse_headers(struct shb_tmpl *t, const struct shb_tmpl_src *src,
			 char *err, size_t errlen)
{
	for (size_t i = 0; i < src->header_count; i++) {
		char what[96];
		struct tstr s = {0};
		const char *v = src->header_values[i];
		snprintf(what, sizeof(what), "template in header \"%.60s\"",
			 src->header_names[i]);
		int r = parse_str(t, &s, v, strlen(v), USE_HEADER, what, err,
				 errlen);
		if (r <= 0) {
			tstr_free(&s);
			if (r < 0)
				return -1;
			continue;
		}
		struct vhdr *h = realloc(t->hdr, (t->nhdr + 1) * sizeof(*h));
		if (!h) {
			tstr_free(&s);
			errf(err, errlen, "out of memory");
			return -1;
		}
		t->hdr = h;
		h[t->nhdr].index = (uint32_t)i;
		h[t->nhdr++].s = s;
		t->flags |= SHB_VAR_HEADERS;
	}
	return 0;
}

static int parse_body(struct shb_tmpl *t, const struct shb_tmpl_src *src,
		      char *err, size_t errlen)
{
	if (src->body_lines) {
		if (src->body) {
			errf(err, errlen, "--body-lines and -d/--data-binary: "
			     "give one of them");
			return -1;
		}
		struct lines *l = load_lines(t, src->body_lines, err, errlen,
					     "--body-lines");
		if (!l)
			return -1;
		t->body_lines = l - t->files;
		t->flags |= SHB_VAR_BODY;
		return 0;
	}
	if (!src->body)
		return 0;
	int r = parse_str(t, &t->body, (const char *)src->body, src->body_len, USE_BODY,
			  "template in the body", err, errlen);
	if (r < 0)
		return -1;
	if (r > 0) {
		t->body_templated = 1;
		t->flags |= SHB_VAR_BODY;
	}
	return 0;
}

/* The scratch buffer holds the path, the header values and a templated
 * body (body lines are not copied): bounded before any traffic. */
static int size_scratch(struct shb_tmpl *t, char *err, size_t errlen)
{
	size_t head = t->path.max;
	for (size_t i = 0; i < t->nhdr; i++)
		head += t->hdr[i].s.max;
	if (head > SHB_TMPL_MAX_HEAD) {
		errf(err, errlen, "templates: the URL path and header values "
		     "may expand to %zu bytes, more than %s", head,
		     SHB_TMPL_MAX_HEAD_TEXT);
		return -1;
	}
	size_t body = t->body_templated ? t->body.max : 0;
	if (body > SHB_MAX_BODY) {
		errf(err, errlen, "template in the body: may expand to %zu "
		     "bytes, more than %s", body, SHB_MAX_BODY_TEXT);
		return -1;
	}
	t->scratch = head + body;
	return 0;
}

struct shb_tmpl *shb_tmpl_compile(const struct shb_tmpl_src *src, char *err,
				  size_t errlen)
{
	struct shb_tmpl *t = calloc(1, sizeof(*t));
	err[0] = '\0';
	if (!t) {
		errf(err, errlen, "out of memory");
		return NULL;
	}
	t->body_lines = -1;
	int r = parse_str(t, &t->path, src->path, strlen(src->path), USE_URL,
			  "template in the URL", err, errlen);
	if (r < 0)
		goto fail;
	if (r > 0)
		t->flags |= SHB_VAR_PATH;
	if (parse_headers(t, src, err, errlen) < 0 ||
	    parse_body(t, src, err, errlen) < 0 ||
	    size_scratch(t, err, errlen) < 0)
		goto fail;
	if (!t->flags)
		goto fail; /* nothing varies: err stays empty */
	return t;
fail:
	shb_tmpl_free(t);
	return NULL;
}

size_t shb_tmpl_scratch_size(const struct shb_tmpl *t)
{
	return t->scratch;
}

size_t shb_tmpl_var_headers(const struct shb_tmpl *t)
{
	return t->nhdr;
}

int shb_tmpl_has_body(const struct shb_tmpl *t)
{
	return (t->flags & SHB_VAR_BODY) != 0;
}

/* ---- expansion ---------------------------------------------------------------- */

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t shb_tmpl_rng_next(struct shb_tmpl_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

void shb_tmpl_rng_seed(struct shb_tmpl_rng *r, const uint8_t seed[32])
{
	memcpy(r->s, seed, sizeof(r->s));
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 0x9e3779b97f4a7c15ull; /* all-zero is a fixed point */
}

/* Uniform in 0..n-1 without modulo bias (Lemire's multiply and reject). */
static uint64_t rand_below(struct shb_tmpl_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)shb_tmpl_rng_next(r) * n;
	uint64_t lo = (uint64_t)m;
	if (lo < n) {
		uint64_t floor = -n % n;
		while (lo < floor) {
			m = (unsigned __int128)shb_tmpl_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

static uint8_t *put_u64(uint8_t *o, uint64_t v)
{
	uint8_t tmp[U64_DIGITS];
	size_t k = sizeof(tmp);
	do {
		tmp[--k] = (uint8_t)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(o, tmp + k, sizeof(tmp) - k);
	return o + sizeof(tmp) - k;
}

static uint8_t *put_uuid(uint8_t *o, struct shb_tmpl_rng *r)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t b[16];
	uint64_t a = shb_tmpl_rng_next(r), c = shb_tmpl_rng_next(r);
	memcpy(b, &a, 8);
	memcpy(b + 8, &c, 8);
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 9562 variant */
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = (uint8_t)hex[b[i] >> 4];
		*o++ = (uint8_t)hex[b[i] & 15];
	}
	return o;
}

static const struct lines *line_of(const struct lines *l, uint64_t seq,
				   const char **p, size_t *len)
{
	uint32_t i = (uint32_t)(seq % l->n);
	*p = l->data + l->off[i];
	*len = l->off[i + 1] - l->off[i] - 1;
	return l;
}

static uint8_t *expand_str(const struct shb_tmpl *t, const struct tstr *s,
			   const struct shb_tmpl_ctx *ctx, uint8_t *o)
{
	for (size_t i = 0; i < s->np; i++) {
		const struct piece *pc = &s->p[i];
		const char *lp;
		size_t ll;
		switch (pc->kind) {
		case P_LIT:
			memcpy(o, s->text + pc->n, pc->len);
			o += pc->len;
			break;
		case P_SEQ:
			o = put_u64(o, ctx->seq);
			break;
		case P_WORKER:
			o = put_u64(o, ctx->worker);
			break;
		case P_CONN:
			o = put_u64(o, ctx->conn);
			break;
		case P_RAND:
			o = put_u64(o, rand_below(ctx->rng, pc->n));
			break;
		case P_UUID:
			o = put_uuid(o, ctx->rng);
			break;
		case P_LINE:
			line_of(&t->files[pc->file], ctx->seq, &lp, &ll);
			memcpy(o, lp, ll);
			o += ll;
			break;
		}
	}
	return o;
}

void shb_tmpl_expand(const struct shb_tmpl *t, const struct shb_tmpl_ctx *ctx,
		     uint8_t *scratch, struct shb_var_header *hv,
		     struct shb_request_var *var)
{
	uint8_t *o = scratch, *e;

	memset(var, 0, sizeof(*var));
	var->struct_size = sizeof(*var);
	var->flags = t->flags;
	if (t->flags & SHB_VAR_PATH) {
		e = expand_str(t, &t->path, ctx, o);
		var->path = (const char *)o;
		var->path_len = (size_t)(e - o);
		o = e;
	}
	for (size_t i = 0; i < t->nhdr; i++) {
		e = expand_str(t, &t->hdr[i].s, ctx, o);
		hv[i].index = t->hdr[i].index;
		hv[i].reserved0 = 0;
		hv[i].value = (const char *)o;
		hv[i].value_len = (size_t)(e - o);
		o = e;
	}
	var->headers = t->nhdr ? hv : NULL;
	var->header_count = t->nhdr;
	if (t->body_lines >= 0) {
		const char *lp;
		size_t ll;
		line_of(&t->files[t->body_lines], ctx->seq, &lp, &ll);
		var->body = (const uint8_t *)lp;
		var->body_len = ll;
	} else if (t->body_templated) {
		e = expand_str(t, &t->body, ctx, o);
		var->body = o;
		var->body_len = (size_t)(e - o);
	}
}
