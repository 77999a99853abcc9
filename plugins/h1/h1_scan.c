/* HTTP/1.x response boundary scanner; see h1_scan.h for the rules.
 *
 * Lines are found with memchr. Only the bytes that carry meaning (the first
 * 13 of a status line, the name and value of the three headers we need, a
 * chunk size) are looked at one by one; everything else is skipped in bulk,
 * so large headers and bodies cost one memchr or one subtraction. */
#include "h1_scan.h"

#include <string.h>

enum scan_state {
	S_STATUS = 0, /* a zeroed struct waits for a status line */
	S_HEADER,
	S_BODY_LEN,
	S_BODY_EOF,
	S_CHUNK_SIZE,
	S_CHUNK_DATA,
	S_CHUNK_END, /* the CRLF after chunk data */
	S_TRAILER,
	S_DONE,
	S_ERROR,
};

/* Header line grammar positions (sub). */
enum {
	H_START = 0,
	H_NAME,
	H_VALUE,
	H_SKIP,
};

/* Chunk-size line positions (sub). */
enum {
	C_DIGITS = 0,
	C_EXT, /* extensions or trailing whitespace: ignored */
};

/* The headers we look for; bit i of name_mask is names[i]. */
enum {
	F_CONTENT_LENGTH = 0,
	F_CONNECTION = 1,
	F_TRANSFER_ENCODING = 2,
	F_COUNT = 3,
};

static const char *const names[F_COUNT] = {
	"content-length",
	"connection",
	"transfer-encoding",
};
static const uint8_t name_lens[F_COUNT] = {14, 10, 17};

/* Facts from the current head (flags). */
enum {
	HF_HAS_CL = 1u << 0,
	HF_TE = 1u << 1,
	HF_TE_CHUNKED = 1u << 2, /* the last transfer coding seen is chunked */
	HF_CONN_CLOSE = 1u << 3,
	HF_CONN_KEEP_ALIVE = 1u << 4,
	HF_FIELD_LINE = 1u << 5, /* the last line was the value of s->field */
};

/* List token state (tok_flags). */
enum {
	TK_ENDED = 1u << 0, /* whitespace after the token's characters */
	TK_PARAM = 1u << 1, /* inside ";param", ignored up to the next comma */
	TK_BAD = 1u << 2,   /* the element cannot match any literal */
};

/* Literals of the token lists: bit 0 and bit 1 of tok_mask. */
static const char *const conn_tokens[2] = {"close", "keep-alive"};
static const char *const te_tokens[2] = {"chunked", NULL};

/* Leaves room for any sum of lengths a connection can see. */
#define MAX_CONTENT_LENGTH ((uint64_t)1 << 62)

static uint8_t ascii_lower(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + ('a' - 'A')) : c;
}

static int is_ows(uint8_t c)
{
	/* CR only ever appears before the LF, where it is whitespace too. */
	return c == ' ' || c == '\t' || c == '\r';
}

static void fail(struct shb_h1_scan *s, const char *reason)
{
	s->state = S_ERROR;
	s->reason = reason;
}

static void start_head(struct shb_h1_scan *s)
{
	if (s->keep) /* after a 1xx: the final head is the one kept */
		shb_buf_clear(&s->keep->head);
	s->state = S_STATUS;
	s->section_len = 0;
	s->flags = 0;
	s->status = 0;
	s->version_minor = 0;
	s->content_length = 0;
}

void shb_h1_scan_begin(struct shb_h1_scan *s, int head_request)
{
	shb_h1_scan_begin_keep(s, head_request, NULL);
}

void shb_h1_scan_begin_keep(struct shb_h1_scan *s, int head_request,
			    struct shb_h1_keep *keep)
{
	memset(s, 0, sizeof(*s));
	s->keep = keep;
	if (keep) {
		shb_buf_clear(&keep->body);
		keep->truncated = 0;
	}
	s->head_req = head_request != 0;
	start_head(s);
}

const char *shb_h1_framing_name(uint32_t framing)
{
	switch (framing) {
	case SHB_H1_FRAME_NONE:
		return "no body";
	case SHB_H1_FRAME_LENGTH:
		return "content-length";
	case SHB_H1_FRAME_CHUNKED:
		return "chunked";
	case SHB_H1_FRAME_EOF:
		return "close-delimited";
	default:
		return "unknown";
	}
}

/* ---- status line ------------------------------------------------------- */

static void status_byte(struct shb_h1_scan *s, uint64_t pos, uint8_t c)
{
	static const char prefix[] = "HTTP/1.";
	int ok;

	if (pos < 7)
		ok = c == (uint8_t)prefix[pos];
	else if (pos == 7)
		ok = c >= '0' && c <= '9';
	else if (pos == 8)
		ok = c == ' ';
	else if (pos == 9)
		ok = c >= '1' && c <= '9';
	else if (pos <= 11)
		ok = c >= '0' && c <= '9';
	else
		ok = c == ' ' || c == '\r';
	if (!ok) {
		fail(s, "bad status line");
		return;
	}
	if (pos == 7)
		s->version_minor = (uint8_t)(c - '0');
	else if (pos >= 9 && pos <= 11)
		s->status = (uint16_t)(s->status * 10 + (c - '0'));
}

static void status_segment(struct shb_h1_scan *s, const uint8_t *p, size_t n,
			   uint64_t pos)
{
	/* Only offsets 0..12 matter; the reason phrase is skipped. */
	for (size_t i = 0; i < n && pos + i <= 12; i++) {
		status_byte(s, pos + i, p[i]);
		if (s->state == S_ERROR)
			return;
	}
}

static void status_end(struct shb_h1_scan *s)
{
	if (s->line_len < 12) {
		fail(s, "bad status line");
		return;
	}
	s->state = S_HEADER;
}

/* ---- header values ----------------------------------------------------- */

static void cl_finish(struct shb_h1_scan *s)
{
	if (s->digits == 0) {
		fail(s, "bad Content-Length");
		return;
	}
	if ((s->flags & HF_HAS_CL) && s->content_length != s->num) {
		fail(s, "conflicting Content-Length values");
		return;
	}
	s->flags |= HF_HAS_CL;
	s->content_length = s->num;
	s->num = 0;
	s->digits = 0;
	s->tok_flags = 0;
}

/* Content-Length is a list of identical decimal numbers; TK_ENDED marks
 * whitespace after an element's digits. */
static void cl_byte(struct shb_h1_scan *s, uint8_t c)
{
	if (c >= '0' && c <= '9') {
		uint64_t d = (uint64_t)(c - '0');
		if (s->tok_flags & TK_ENDED) {
			fail(s, "bad Content-Length");
			return;
		}
		if (s->num > (MAX_CONTENT_LENGTH - d) / 10) {
			fail(s, "Content-Length too large");
			return;
		}
		s->num = s->num * 10 + d;
		s->digits++;
	} else if (is_ows(c)) {
		if (s->digits)
			s->tok_flags |= TK_ENDED;
	} else if (c == ',') {
		cl_finish(s);
	} else {
		fail(s, "bad Content-Length");
	}
}

static const char *const *field_tokens(uint32_t field)
{
	return field == F_CONNECTION ? conn_tokens : te_tokens;
}

static void token_reset(struct shb_h1_scan *s)
{
	s->tok_mask = 3;
	s->tok_pos = 0;
	s->tok_flags = 0;
}

/* Index of the literal the finished token equals, or -1. */
static int token_match(const struct shb_h1_scan *s)
{
	const char *const *lits = field_tokens(s->field);

	if (s->tok_flags & TK_BAD)
		return -1;
	for (int i = 0; i < 2; i++)
		if ((s->tok_mask & (1u << i)) && lits[i] &&
		    strlen(lits[i]) == s->tok_pos)
			return i;
	return -1;
}

static void token_finish(struct shb_h1_scan *s)
{
	if (s->tok_pos == 0) {
		token_reset(s); /* empty list element */
		return;
	}
	int m = token_match(s);
	if (s->field == F_CONNECTION) {
		if (m == 0)
			s->flags |= HF_CONN_CLOSE;
		else if (m == 1)
			s->flags |= HF_CONN_KEEP_ALIVE;
	} else {
		s->flags |= HF_TE;
		if (m == 0)
			s->flags |= HF_TE_CHUNKED;
		else
			s->flags &= (uint8_t)~HF_TE_CHUNKED;
	}
	token_reset(s);
}

static void token_char(struct shb_h1_scan *s, uint8_t c)
{
	const char *const *lits = field_tokens(s->field);

	c = ascii_lower(c);
	for (unsigned i = 0; i < 2; i++) {
		const char *lit = lits[i];
		if (!lit || s->tok_pos >= strlen(lit) ||
		    (uint8_t)lit[s->tok_pos] != c)
			s->tok_mask &= (uint8_t)~(1u << i);
	}
	if (s->tok_pos < UINT32_MAX)
		s->tok_pos++;
}

/* Connection and Transfer-Encoding: comma-separated tokens, each maybe with
 * ";parameters" that are ignored. */
static void token_byte(struct shb_h1_scan *s, uint8_t c)
{
	if (c == ',') {
		token_finish(s);
	} else if (s->tok_flags & TK_PARAM) {
		return;
	} else if (c == ';') {
		s->tok_flags |= TK_PARAM;
	} else if (is_ows(c)) {
		if (s->tok_pos)
			s->tok_flags |= TK_ENDED;
	} else if (s->tok_flags & TK_ENDED) {
		s->tok_flags |= TK_BAD; /* "clo se" */
	} else {
		token_char(s, c);
	}
}

static void value_start(struct shb_h1_scan *s, uint32_t field)
{
	s->sub = H_VALUE;
	s->field = (uint8_t)field;
	s->num = 0;
	s->digits = 0;
	token_reset(s);
}

static void value_byte(struct shb_h1_scan *s, uint8_t c)
{
	if (s->field == F_CONTENT_LENGTH)
		cl_byte(s, c);
	else
		token_byte(s, c);
}

static void value_end(struct shb_h1_scan *s)
{
	if (s->field == F_CONTENT_LENGTH)
		cl_finish(s);
	else
		token_finish(s);
}

/* ---- header names ------------------------------------------------------ */

/* An obs-fold (RFC 9112 §5.2): a line starting with SP or HTAB continues
 * the previous line's value, the fold read as a space. In Content-Length
 * ("2" then " 3" is "2 3") or Transfer-Encoding a fold leaves the framing
 * to whoever unfolds differently, so the response is invalid. Connection
 * reads on as more list elements; a fold of any other header, or one
 * right after the status line, is skipped unread. */
static void fold_start(struct shb_h1_scan *s)
{
	if (!(s->flags & HF_FIELD_LINE)) {
		s->sub = H_SKIP;
		return;
	}
	if (s->field == F_CONTENT_LENGTH) {
		fail(s, "obs-fold in Content-Length");
	} else if (s->field == F_TRANSFER_ENCODING) {
		fail(s, "obs-fold in Transfer-Encoding");
	} else {
		s->sub = H_VALUE;
		token_reset(s);
	}
}

static void name_first(struct shb_h1_scan *s, uint8_t c)
{
	if (c == ' ' || c == '\t') {
		fold_start(s);
		return;
	}
	c = ascii_lower(c);
	s->name_pos = 1;
	if (c == 'c')
		s->name_mask = (1u << F_CONTENT_LENGTH) | (1u << F_CONNECTION);
	else if (c == 't')
		s->name_mask = 1u << F_TRANSFER_ENCODING;
	else
		s->name_mask = 0;
	s->sub = s->name_mask ? H_NAME : H_SKIP;
}

static void name_colon(struct shb_h1_scan *s)
{
	for (uint32_t f = 0; f < F_COUNT; f++) {
		if ((s->name_mask & (1u << f)) && s->name_pos == name_lens[f]) {
			value_start(s, f);
			return;
		}
	}
	s->sub = H_SKIP;
}

static void name_byte(struct shb_h1_scan *s, uint8_t c)
{
	if (c == ':') {
		name_colon(s);
		return;
	}
	c = ascii_lower(c);
	for (uint32_t f = 0; f < F_COUNT; f++) {
		if (s->name_pos >= name_lens[f] ||
		    (uint8_t)names[f][s->name_pos] != c)
			s->name_mask &= (uint8_t)~(1u << f);
	}
	s->name_pos++;
	if (!s->name_mask)
		s->sub = H_SKIP; /* an uninteresting header: skip unread */
}

static void header_segment(struct shb_h1_scan *s, const uint8_t *p, size_t n,
			   uint64_t pos)
{
	size_t i = 0;

	if (pos == 0 && n > 0)
		name_first(s, p[i++]);
	for (; i < n && s->sub == H_NAME; i++)
		name_byte(s, p[i]);
	for (; i < n && s->sub == H_VALUE && s->state != S_ERROR; i++)
		value_byte(s, p[i]);
}

/* ---- end of a head ----------------------------------------------------- */

static int line_is_empty(const struct shb_h1_scan *s)
{
	return s->line_len == 0 || (s->line_len == 1 && s->line_first == '\r');
}

static void decide_framing(struct shb_h1_scan *s)
{
	if (s->head_req || s->status == 204 || s->status == 304)
		s->framing = SHB_H1_FRAME_NONE;
	else if (s->flags & HF_TE)
		s->framing = (s->flags & HF_TE_CHUNKED) ? SHB_H1_FRAME_CHUNKED
							: SHB_H1_FRAME_EOF;
	else if (s->flags & HF_HAS_CL)
		s->framing = SHB_H1_FRAME_LENGTH;
	else
		s->framing = SHB_H1_FRAME_EOF;
}

static void decide_keep_alive(struct shb_h1_scan *s)
{
	int ka = s->framing != SHB_H1_FRAME_EOF &&
		 !(s->flags & HF_CONN_CLOSE);
	if (s->version_minor == 0)
		ka = ka && (s->flags & HF_CONN_KEEP_ALIVE) &&
		     !(s->flags & HF_TE);
	s->keep_alive = (uint8_t)(ka != 0);
}

static void head_end(struct shb_h1_scan *s)
{
	if (s->status < 200) {
		if (s->status == 101) {
			fail(s, "101 Switching Protocols is not supported");
			return;
		}
		if (s->interim >= SHB_H1_MAX_INTERIM) {
			fail(s, "more than 16 interim (1xx) responses (cap 16)");
			return;
		}
		s->interim++;
		start_head(s);
		return;
	}
	decide_framing(s);
	decide_keep_alive(s);
	switch (s->framing) {
	case SHB_H1_FRAME_LENGTH:
		s->remaining = s->content_length;
		s->state = s->remaining ? S_BODY_LEN : S_DONE;
		break;
	case SHB_H1_FRAME_CHUNKED:
		s->num = 0;
		s->digits = 0;
		s->state = S_CHUNK_SIZE;
		break;
	case SHB_H1_FRAME_EOF:
		s->state = S_BODY_EOF;
		break;
	default:
		s->state = S_DONE;
		break;
	}
}

static void header_end(struct shb_h1_scan *s)
{
	s->flags &= (uint8_t)~HF_FIELD_LINE;
	if (line_is_empty(s)) {
		head_end(s);
	} else if (s->sub == H_VALUE) {
		value_end(s);
		s->flags |= HF_FIELD_LINE; /* a fold may continue it */
	}
	/* A line without a colon tells us nothing about framing: ignored
	 * like any other header. */
}

/* ---- chunked framing --------------------------------------------------- */

static int hex_value(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = ascii_lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void chunk_size_segment(struct shb_h1_scan *s, const uint8_t *p,
			       size_t n)
{
	for (size_t i = 0; i < n && s->sub == C_DIGITS; i++) {
		int h = hex_value(p[i]);
		if (h >= 0) {
			if (s->num > (MAX_CONTENT_LENGTH >> 4)) {
				fail(s, "chunk size too large");
				return;
			}
			s->num = (s->num << 4) | (uint64_t)h;
			s->digits++;
		} else if (s->digits && (p[i] == ';' || is_ows(p[i]))) {
			s->sub = C_EXT;
		} else {
			fail(s, "bad chunk size");
			return;
		}
	}
}

static void chunk_size_end(struct shb_h1_scan *s)
{
	if (s->digits == 0) {
		fail(s, "bad chunk size");
		return;
	}
	if (s->num == 0) {
		s->state = S_TRAILER;
		s->section_len = 0;
		return;
	}
	s->remaining = s->num;
	s->state = S_CHUNK_DATA;
}

static void chunk_end_segment(struct shb_h1_scan *s, const uint8_t *p,
			      size_t n, uint64_t pos)
{
	/* Only "\r" may precede the LF that closes chunk data. */
	if (n > 1 || (n == 1 && (pos != 0 || p[0] != '\r')))
		fail(s, "missing CRLF after chunk data");
}

static void chunk_end_end(struct shb_h1_scan *s)
{
	s->num = 0;
	s->digits = 0;
	s->state = S_CHUNK_SIZE;
}

static void trailer_end(struct shb_h1_scan *s)
{
	if (line_is_empty(s))
		s->state = S_DONE;
}

/* ---- lines and bodies -------------------------------------------------- */

static void line_segment(struct shb_h1_scan *s, const uint8_t *p, size_t n)
{
	switch (s->state) {
	case S_STATUS:
		status_segment(s, p, n, s->line_len);
		break;
	case S_HEADER:
		header_segment(s, p, n, s->line_len);
		break;
	case S_CHUNK_SIZE:
		chunk_size_segment(s, p, n);
		break;
	case S_CHUNK_END:
		chunk_end_segment(s, p, n, s->line_len);
		break;
	default: /* S_TRAILER: content is irrelevant */
		break;
	}
}

static void line_end(struct shb_h1_scan *s)
{
	switch (s->state) {
	case S_STATUS:
		status_end(s);
		break;
	case S_HEADER:
		header_end(s);
		break;
	case S_CHUNK_SIZE:
		chunk_size_end(s);
		break;
	case S_CHUNK_END:
		chunk_end_end(s);
		break;
	default:
		trailer_end(s);
		break;
	}
	s->line_len = 0;
	s->sub = 0;
}

/* The body's payload p[n], kept up to body_max bytes. */
static void keep_body(struct shb_h1_scan *s, const uint8_t *p, uint64_t n)
{
	struct shb_h1_keep *k = s->keep;
	uint64_t room = k->body_max > k->body.len ? k->body_max - k->body.len : 0;

	if (n > room)
		k->truncated = 1;
	if (room && shb_buf_put(&k->body, p, (size_t)(n < room ? n : room)) < 0)
		k->truncated = 1; /* out of memory: what is kept is a prefix */
}

static const uint8_t *take_line(struct shb_h1_scan *s, const uint8_t *p,
				const uint8_t *end)
{
	const uint8_t *lf = memchr(p, '\n', (size_t)(end - p));
	size_t n = (size_t)((lf ? lf : end) - p);

	if (n > SHB_H1_MAX_LINE - s->line_len) {
		fail(s, "header line over 1 MiB");
		return end;
	}
	if (s->state == S_STATUS || s->state == S_HEADER || s->state == S_TRAILER) {
		s->section_len += n + (lf != NULL);
		if (s->section_len > SHB_H1_MAX_SECTION) {
			fail(s, s->state == S_TRAILER ? "trailer section over 2 MiB (cap)"
						       : "response head over 2 MiB (cap)");
			return end;
		}
	}
	if (s->line_len == 0 && n > 0)
		s->line_first = p[0];
	/* Within the cap just checked; an allocation failure shows as a
	 * head cut short, which the connection reports as an error. */
	if (s->keep && (s->state == S_STATUS || s->state == S_HEADER))
		shb_buf_put(&s->keep->head, p, n + (lf != NULL));
	line_segment(s, p, n);
	s->line_len += n;
	s->header_bytes += n + (lf != NULL);
	if (s->state == S_ERROR || !lf)
		return end;
	line_end(s);
	return lf + 1;
}

static const uint8_t *take_body(struct shb_h1_scan *s, const uint8_t *p,
				const uint8_t *end)
{
	uint64_t avail = (uint64_t)(end - p);
	uint64_t n = avail < s->remaining ? avail : s->remaining;

	if (s->keep)
		keep_body(s, p, n);
	s->remaining -= n;
	s->body_bytes += n;
	if (s->remaining == 0)
		s->state = s->state == S_BODY_LEN ? S_DONE : S_CHUNK_END;
	return p + n;
}

static int scan_rc(const struct shb_h1_scan *s)
{
	if (s->state == S_DONE)
		return SHB_H1_SCAN_DONE;
	return s->state == S_ERROR ? SHB_H1_SCAN_ERROR : SHB_H1_SCAN_MORE;
}

int shb_h1_scan_feed(struct shb_h1_scan *s, const uint8_t *data, size_t len,
		     size_t *used)
{
	const uint8_t *p, *end;

	*used = 0;
	if (len == 0)
		return scan_rc(s);
	p = data;
	end = data + len;
	while (p < end && s->state < S_DONE) {
		switch (s->state) {
		case S_BODY_LEN:
		case S_CHUNK_DATA:
			p = take_body(s, p, end);
			break;
		case S_BODY_EOF:
			if (s->keep)
				keep_body(s, p, (uint64_t)(end - p));
			s->body_bytes += (uint64_t)(end - p);
			p = end;
			break;
		default:
			p = take_line(s, p, end);
			break;
		}
	}
	*used = (size_t)(p - data);
	return scan_rc(s);
}

int shb_h1_scan_eof(struct shb_h1_scan *s)
{
	if (s->state == S_BODY_EOF)
		s->state = S_DONE;
	else if (s->state < S_DONE)
		fail(s, shb_h1_scan_started(s)
				? "connection closed mid-response"
				: "connection closed before the response");
	return scan_rc(s);
}
