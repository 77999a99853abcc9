/* Request options: -m/-X (the method), -H (headers, Host apart),
 * -d/--data-binary (the body, literal or read from a file or stdin,
 * capped at SHB_MAX_BODY) and --priority (sent as a header). */
#include "common/quote.h"
#include "cli/cli.h"
#include "cli/cli_hints.h"
#include "cli/cli_request.h"
#include "cli/priority.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Reads a descriptor to its end, any bytes, but never more than max + 1
 * of them: /dev/zero, an endless pipe or a huge file must not exhaust
 * memory. Returns 0, 1 when there is more than max, or -1 with errno. */
static int read_capped(int fd, size_t max, uint8_t **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	uint8_t *b = malloc(cap);

	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			if (n > max) {
				free(b);
				return 1;
			}
			size_t ncap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			uint8_t *nb = realloc(b, ncap);
			if (!nb) {
				free(b);
				errno = ENOMEM;
				return -1;
			}
			b = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(b);
		return 1;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Character and block devices never end (/dev/zero, /dev/urandom) or are
 * not bodies (a disk), and a directory cannot be read: refused by name.
 * Regular files, FIFOs and stdin (whatever it is) are read, capped; so is
 * /dev/null (Linux device 1:3), the usual way to say "an empty body". */
static const char *unreadable_kind(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return NULL; /* read() will say what is wrong */
	if (S_ISCHR(st.st_mode) && st.st_rdev != makedev(1, 3))
		return "a character device";
	if (S_ISBLK(st.st_mode))
		return "a block device";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	return NULL;
}

static int read_source(struct cli *c, const char *name, const char *v,
		       size_t max, uint8_t **buf, size_t *len)
{
	const char *path = v + 1;
	int is_stdin = strcmp(path, "-") == 0;
	int fd = STDIN_FILENO, rc;

	if (!is_stdin) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(c, "%s: cannot read %s: %s", name,
				    shb_quote(v).s, strerror(errno));
		const char *kind = unreadable_kind(fd);
		if (kind) {
			close(fd);
			return fail(c, "%s: cannot read %s: %s, not a file "
				       "(use a regular file, a pipe or @-)",
				    name, shb_quote(v).s, kind);
		}
	}
	rc = read_capped(fd, max, buf, len);
	int e = errno;
	if (!is_stdin)
		close(fd);
	if (rc < 0)
		return fail(c, "%s: cannot read %s: %s", name, shb_quote(v).s,
			    strerror(e));
	if (rc > 0)
		return fail(c, "%s: body from %s exceeds %s%s", name,
			    is_stdin ? "stdin" : shb_quote(path).s,
			    SHB_MAX_BODY_TEXT,
			    c->cfg->has_body ? " (with the parts before it)"
					     : "");
	return 0;
}

/* Several -d/--data-binary are joined with '&', as curl does. */
static int append_body(struct cli *c, const uint8_t *p, size_t n)
{
	struct shb_config *cfg = c->cfg;
	size_t sep = cfg->has_body ? 1 : 0;
	uint8_t *b = realloc(cfg->body, cfg->body_len + sep + n + 1);

	if (!b)
		return fail(c, "out of memory");
	if (sep)
		b[cfg->body_len] = '&';
	if (n)
		memcpy(b + cfg->body_len + sep, p, n);
	cfg->body = b;
	cfg->body_len += sep + n;
	b[cfg->body_len] = '\0'; /* convenience only: the body may hold NULs */
	cfg->has_body = 1;
	return 0;
}

/* -d strips CR and LF from @ sources (so a text file becomes one line),
 * --data-binary keeps every byte; literals are always kept. */
int shb_cli_data_opt(struct cli *c, const char *name, const char *v,
		     int strip)
{
	const struct shb_config *cfg = c->cfg;
	/* The body so far, with the '&' that would join this part to it. */
	size_t used = cfg->body_len + (cfg->has_body ? 1 : 0);
	uint8_t *buf;
	size_t len;

	if (used > SHB_MAX_BODY ||
	    (v[0] != '@' && strlen(v) > SHB_MAX_BODY - used))
		return fail(c, "%s: the body exceeds %s", name,
			    SHB_MAX_BODY_TEXT);
	size_t room = SHB_MAX_BODY - used;
	c->cfg->body_verbatim |= !strip; /* --data-binary: never a template */
	if (v[0] != '@')
		return append_body(c, (const uint8_t *)v, strlen(v));
	if (read_source(c, name, v, room, &buf, &len) < 0)
		return -1;
	if (strip) {
		size_t o = 0;
		for (size_t i = 0; i < len; i++)
			if (buf[i] != '\r' && buf[i] != '\n')
				buf[o++] = buf[i];
		len = o;
	}
	int rc = append_body(c, buf, len);
	free(buf);
	return rc;
}

/* RFC 9110 tchar. */
static int is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static int is_token(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!is_tchar((unsigned char)*s))
			return 0;
	return 1;
}

int shb_cli_method_opt(struct cli *c, const char *name, const char *v)
{
	if (shb_cli_hint_method(name, v, c->err, c->errlen) < 0)
		return -1;
	if (!is_token(v))
		return fail(c, "%s: invalid method \"%s\" (letters, digits "
			       "and !#$%%&'*+-.^_`|~ only)",
			    name, shb_quote(v).s);
	return set_string(c, &c->cfg->method, v);
}

int shb_cli_add_header(struct cli *c, const char *nm, size_t nlen,
		       const char *val, size_t vlen)
{
	struct shb_config *cfg = c->cfg;
	struct shb_header *h = realloc(cfg->headers, (cfg->header_count + 1) *
							     sizeof(*h));
	if (!h)
		return fail(c, "out of memory");
	cfg->headers = h;
	h += cfg->header_count;
	h->name = strndup(nm, nlen);
	h->value = strndup(val, vlen);
	if (!h->name || !h->value) {
		free(h->name);
		free(h->value);
		return fail(c, "out of memory");
	}
	cfg->header_count++;
	return 0;
}

int shb_cli_header_opt(struct cli *c, const char *name, const char *v)
{
	const char *colon = strchr(v, ':');

	if (!colon)
		return fail(c, "%s: expected \"Name: Value\", got \"%s\"", name,
			    shb_quote(v).s);
	size_t nlen = (size_t)(colon - v);
	for (size_t i = 0; i < nlen; i++)
		if (!is_tchar((unsigned char)v[i]))
			goto bad_name;
	if (nlen == 0)
		goto bad_name;
	const char *val = colon + 1;
	const char *end = val + strlen(val);
	while (*val == ' ' || *val == '\t')
		val++;
	while (end > val && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (const char *p = val; p < end; p++) {
		unsigned char ch = (unsigned char)*p;
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return fail(c, "%s: value of header \"%s\" contains "
				       "CR, LF or another control character",
				    name, shb_quote_n(v, nlen).s);
	}
	if (nlen == 4 && strncasecmp(v, "host", 4) == 0) {
		if (end == val)
			return fail(c, "%s: the Host header needs a value",
				    name);
		char *d = strndup(val, (size_t)(end - val));
		if (!d)
			return fail(c, "out of memory");
		free(c->cfg->host_header);
		c->cfg->host_header = d;
		return 0;
	}
	return shb_cli_add_header(c, v, nlen, val, (size_t)(end - val));
bad_name:
	return fail(c, "%s: invalid header name in \"%s\" (letters, digits "
		       "and !#$%%&'*+-.^_`|~ only)",
		    name, shb_quote(v).s);
}

/* --priority: checked, then sent as the Priority header (RFC 9218). */
int shb_cli_priority_opt(struct cli *c, const char *name, const char *v)
{
	if (c->cfg->priority)
		return fail(c, "%s given twice", name);
	if (shb_priority_check(name, v, c->err, c->errlen) < 0 ||
	    set_string(c, &c->cfg->priority, v) < 0)
		return -1;
	return shb_cli_add_header(c, "Priority", 8, v, strlen(v));
}
