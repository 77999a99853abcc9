/* Command-line parsing into struct shb_config.
 *
 * A hand-written scanner rather than getopt_long: getopt prints its own
 * messages, keeps global state and cannot name the option in the words we
 * want. Rules: options and the URL may come in any order; "--" ends
 * options; long options take "--opt value" or "--opt=value"; short options
 * cluster ("-qj") and take attached values ("-c10"). Every error is one
 * line that names the option as the user typed it. */
#include "common/quote.h"
#include "cli/cli_hints.h"
#include "cli/cli_scheme.h"
#include "cli/parse_num.h"
#include "cli/compare.h"
#include "cli/config.h"
#include "cli/plugin_opts.h"
#include "cli/schedule.h"
#include "cli/shard.h"
#include "cli/start_at.h"
#include "cli/targets.h"
#include "cli/priority.h"
#include "cli/source.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define SHB_MAX_CONNECTIONS 1000000u
#define SHB_MAX_PARALLEL 1024u
#define SHB_MAX_REQUESTS 1000000000000000ull
#define SHB_MAX_BATCH 4096u
#define SHB_MAX_LINGER_US 1000000u
#define SHB_DEFAULT_REQUESTS 200u
#define SHB_DEFAULT_CONNECT_TIMEOUT_NS 5000000000ull

enum opt_id {
	O_PROTO, O_HTTP2, O_HTTP3, O_REPORT, O_JSON, O_CONNECTIONS,
	O_PARALLEL, O_REQUESTS, O_DURATION, O_THREADS, O_METHOD, O_HEADER,
	O_DATA, O_DATA_BINARY, O_CONNECT_TIMEOUT, O_TIMEOUT, O_NO_KEEPALIVE,
	O_BATCH_SIZE, O_BATCH_LINGER, O_PLUGIN_DIR, O_LIST_PLUGINS, O_VERIFY,
	O_CACERT, O_QUIET, O_HELP, O_VERSION, O_SLO, O_WARMUP, O_INTERVAL,
	O_CONNECT_TO, O_RESOLVE, O_SNI, O_IPV4, O_IPV6, O_INSECURE,
	O_CERT, O_KEY, O_TLS_VERSION, O_CIPHERS,
	O_PROTO_OPT, O_REPORT_OPT, O_PERCENTILES, O_SUCCESS, O_RATE, O_STAGES,
	O_SHARD, O_START_AT, O_TLS_RESUME,
	O_UNIX_SOCKET, O_PROXY, O_NOPROXY, O_PRIORITY, O_TUI,
	O_BODY_LINES, O_URLS, O_MIX, O_SOURCE,
};

struct opt_def {
	const char *lng; /* NULL for a short-only alias */
	char shrt;       /* 0 for long-only */
	int has_arg;
	enum opt_id id;
};

static const struct opt_def opts[] = {
	{"proto", 0, 1, O_PROTO},
	{"proto-opt", 0, 1, O_PROTO_OPT},
	{"http2", 0, 0, O_HTTP2},
	{"http3", 0, 0, O_HTTP3},
	{"report", 0, 1, O_REPORT},
	{"report-opt", 0, 1, O_REPORT_OPT},
	{"json", 'j', 0, O_JSON},
	{"connections", 'c', 1, O_CONNECTIONS},
	{"parallel", 'p', 1, O_PARALLEL},
	{"requests", 'n', 1, O_REQUESTS},
	{"duration", 'z', 1, O_DURATION},
	{"warmup", 0, 1, O_WARMUP},
	{"interval", 0, 1, O_INTERVAL},
	{"rate", 'R', 1, O_RATE},
	{"stages", 0, 1, O_STAGES},
	{"threads", 't', 1, O_THREADS},
	{"shard", 0, 1, O_SHARD},
	{"start-at", 0, 1, O_START_AT},
	{"method", 'm', 1, O_METHOD},
	{NULL, 'X', 1, O_METHOD},
	{"header", 'H', 1, O_HEADER},
	{"data", 'd', 1, O_DATA},
	{"data-binary", 0, 1, O_DATA_BINARY},
	{"body-lines", 0, 1, O_BODY_LINES},
	{"urls", 0, 1, O_URLS},
	{"mix", 0, 0, O_MIX},
	{"connect-timeout", 0, 1, O_CONNECT_TIMEOUT},
	{"timeout", 0, 1, O_TIMEOUT},
	{"disable-keepalive", 0, 0, O_NO_KEEPALIVE},
	{"batch-size", 0, 1, O_BATCH_SIZE},
	{"batch-linger", 0, 1, O_BATCH_LINGER},
	{"plugin-dir", 0, 1, O_PLUGIN_DIR},
	{"list-plugins", 0, 0, O_LIST_PLUGINS},
	{"verify", 0, 0, O_VERIFY},
	{"cacert", 0, 1, O_CACERT},
	{"insecure", 'k', 0, O_INSECURE},
	{"tls-resume", 0, 0, O_TLS_RESUME},
	{"cert", 0, 1, O_CERT},
	{"key", 0, 1, O_KEY},
	{"tls-version", 0, 1, O_TLS_VERSION},
	{"ciphers", 0, 1, O_CIPHERS},
	{"sni", 0, 1, O_SNI},
	{"connect-to", 0, 1, O_CONNECT_TO},
	{"resolve", 0, 1, O_RESOLVE},
	{"ipv4", '4', 0, O_IPV4},
	{"ipv6", '6', 0, O_IPV6},
	{"source", 0, 1, O_SOURCE},
	{"unix-socket", 0, 1, O_UNIX_SOCKET},
	{"proxy", 'x', 1, O_PROXY},
	{"noproxy", 0, 1, O_NOPROXY},
	{"priority", 0, 1, O_PRIORITY},
	{"quiet", 'q', 0, O_QUIET},
	{"tui", 0, 0, O_TUI},
	{"slo", 0, 1, O_SLO},
	{"percentiles", 0, 1, O_PERCENTILES},
	{"success", 0, 1, O_SUCCESS},
	{"help", 'h', 0, O_HELP},
	{"version", 'V', 0, O_VERSION},
};

/* What the scan remembers beyond the config itself. */
struct cli {
	struct shb_config *cfg;
	char *err;
	size_t errlen;
	const char *url;
	int json;
	int requests_given;
	int duration_given;
	/* -R as typed: the option's name, a constant rate or a ramp */
	char rate_name[8];
	char rate_text[48];
	uint64_t rate_from, rate_to;
	int rate_ramp;
};

static int fail(struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct cli *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}


static char *dup_or_fail(struct cli *c, const char *s)
{
	char *d = strdup(s);
	if (!d)
		fail(c, "out of memory");
	return d;
}

/* Replaces *slot with a copy of s. */
static int set_string(struct cli *c, char **slot, const char *s)
{
	char *d = dup_or_fail(c, s);
	if (!d)
		return -1;
	free(*slot);
	*slot = d;
	return 0;
}

static int number_opt(struct cli *c, const char *name, const char *v,
		      uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;

	if (shb_parse_u64(v, &x) < 0 || x < min || x > max)
		return fail(c,
			    "%s: expected a whole number from %llu to %llu, "
			    "got \"%s\"",
			    name, (unsigned long long)min,
			    (unsigned long long)max, shb_quote(v).s);
	*out = x;
	return 0;
}

static int number_opt32(struct cli *c, const char *name, const char *v,
			uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t x = 0;

	if (number_opt(c, name, v, min, max, &x) < 0)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

static int duration_opt(struct cli *c, const char *name, const char *v,
			int allow_zero, uint64_t *out)
{
	if (shb_parse_duration(v, out) < 0)
		return fail(c,
			    "%s: expected a duration like 10s, 1m30s, 500ms "
			    "or 1.5s, got \"%s\"",
			    name, shb_quote(v).s);
	if (*out == 0 && !allow_zero)
		return fail(c, "%s: duration must be greater than 0, got "
			       "\"%s\"",
			    name, shb_quote(v).s);
	return 0;
}

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
static int data_opt(struct cli *c, const char *name, const char *v,
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

static int method_opt(struct cli *c, const char *name, const char *v)
{
	if (shb_cli_hint_method(name, v, c->err, c->errlen) < 0)
		return -1;
	if (!is_token(v))
		return fail(c, "%s: invalid method \"%s\" (letters, digits "
			       "and !#$%%&'*+-.^_`|~ only)",
			    name, shb_quote(v).s);
	return set_string(c, &c->cfg->method, v);
}

static int add_header(struct cli *c, const char *nm, size_t nlen,
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

static int header_opt(struct cli *c, const char *name, const char *v)
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
	return add_header(c, v, nlen, val, (size_t)(end - val));
bad_name:
	return fail(c, "%s: invalid header name in \"%s\" (letters, digits "
		       "and !#$%%&'*+-.^_`|~ only)",
		    name, shb_quote(v).s);
}

static int add_report(struct cli *c, const char *nm, size_t nlen,
		      const char *path, size_t plen)
{
	struct shb_config *cfg = c->cfg;
	struct shb_report_spec *r = realloc(cfg->reports,
					    (cfg->report_count + 1) *
						    sizeof(*r));
	if (!r)
		return fail(c, "out of memory");
	cfg->reports = r;
	r += cfg->report_count;
	r->name = strndup(nm, nlen);
	r->path = path ? strndup(path, plen) : NULL;
	if (!r->name || (path && !r->path)) {
		free(r->name);
		free(r->path);
		return fail(c, "out of memory");
	}
	cfg->report_count++;
	return 0;
}

/* "name[:FILE],name[:FILE],..."; repeated --report options add up. */
static int report_opt(struct cli *c, const char *name, const char *v)
{
	const char *p = v;

	for (;;) {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);
		size_t nlen = colon ? (size_t)(colon - p) : n;
		if (nlen == 0)
			return fail(c, "%s: empty reporter name in \"%s\"",
				    name, shb_quote(v).s);
		if (colon && colon + 1 == p + n)
			return fail(c, "%s: empty file name after \"%s:\" "
				       "in \"%s\"",
				    name, shb_quote_n(p, nlen).s, shb_quote(v).s);
		if (add_report(c, p, nlen, colon ? colon + 1 : NULL,
			       colon ? n - nlen - 1 : 0) < 0)
			return -1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int plugin_dir_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;

	if (!*v)
		return fail(c, "%s: empty directory name", name);
	char **d = realloc(cfg->plugin_dirs,
			   (cfg->plugin_dir_count + 1) * sizeof(*d));
	if (!d)
		return fail(c, "out of memory");
	cfg->plugin_dirs = d;
	d[cfg->plugin_dir_count] = dup_or_fail(c, v);
	if (!d[cfg->plugin_dir_count])
		return -1;
	cfg->plugin_dir_count++;
	return 0;
}

/* The file is read later by GnuTLS; checking now turns a typo into a
 * usage error before any load is sent. */
static int cacert_opt(struct cli *c, const char *name, const char *v)
{
	int fd = open(v, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		fd = -1;
		errno = EISDIR;
	}
	if (fd < 0)
		return fail(c, "%s: cannot read %s: %s", name, shb_quote(v).s,
			    strerror(errno));
	close(fd);
	c->cfg->verify = 1;
	return set_string(c, &c->cfg->cacert, v);
}

static int proto_opt(struct cli *c, const char *name, const char *v)
{
	if (!*v)
		return fail(c, "%s: empty protocol name", name);
	c->cfg->proto_given = 1;
	return set_string(c, &c->cfg->proto, v);
}

/* --proto-opt and --report-opt: repeatable, kept in order. The keys are
 * checked against the plugin once it is loaded. */
static int plugin_opt(struct cli *c, const char *name, const char *v,
		      int reporter)
{
	struct shb_config *cfg = c->cfg;
	struct shb_plugin_opt o;
	struct shb_plugin_opt **list = reporter ? &cfg->report_opts
						: &cfg->proto_opts;
	size_t *count = reporter ? &cfg->report_opt_count
				 : &cfg->proto_opt_count;

	if (shb_plugin_opt_parse(name, v, reporter, &o, c->err, c->errlen) < 0)
		return -1;
	struct shb_plugin_opt *a = realloc(*list, (*count + 1) * sizeof(*a));
	if (!a) {
		shb_plugin_opt_free(&o);
		return fail(c, "out of memory");
	}
	*list = a;
	a[(*count)++] = o;
	return 0;
}

/* Repeatable; every gate must hold. */
static int slo_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_slo slo;
	char err[256];

	if (shb_slo_parse(v, &slo, err, sizeof(err)) < 0)
		return fail(c, "%s %s", name, err);
	struct shb_slo *s = realloc(cfg->slos, (cfg->slo_count + 1) * sizeof(*s));
	if (!s)
		return fail(c, "out of memory");
	cfg->slos = s;
	s[cfg->slo_count++] = slo;
	return 0;
}

#define RATE_LIKE "like 1000 or 0.5 (requests per second, at most 3 " \
		  "decimals, at most 1000000000)"

/* -R N or -R A:B; whether a ramp has its -z is known only at the end. */
static int rate_opt(struct cli *c, const char *name, const char *v)
{
	const char *colon = strchr(v, ':');
	const char *end = v + strlen(v);

	snprintf(c->rate_name, sizeof(c->rate_name), "%s", name);
	snprintf(c->rate_text, sizeof(c->rate_text), "%s", v);
	c->rate_ramp = colon != NULL;
	if (shb_parse_rate(v, colon ? colon : end, &c->rate_from) < 0 ||
	    (colon && shb_parse_rate(colon + 1, end, &c->rate_to) < 0))
		return fail(c, "%s: expected a rate %s, or a ramp FROM:TO like "
			       "1000:5000, got \"%s\"",
			    name, RATE_LIKE, shb_quote(v).s);
	if (!colon)
		c->rate_to = c->rate_from;
	if (!c->rate_from && !c->rate_to)
		return fail(c, "%s %s: the rate must be greater than 0", name,
			    shb_quote(v).s);
	return 0;
}

/* One "DURATION:RATE" of --stages, item n (1-based) of `len` bytes. */
static int stage_item(struct cli *c, const char *name, unsigned n,
		      const char *item, size_t len, struct shb_stage *st)
{
	char buf[96];
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, item, len);
	buf[len] = '\0';
	char *colon = strrchr(buf, ':');
	if (!colon)
		return fail(c, "%s: stage %u \"%s\": expected DURATION:RATE "
			       "like 30s:5000", name, n, shb_quote(buf).s);
	*colon = '\0';
	if (shb_parse_duration(buf, &st->duration_ns) < 0 || !st->duration_ns)
		return fail(c, "%s: stage %u: expected a duration greater than 0 "
			       "like 10s, 1m30s, 500ms or 1.5s before ':', got "
			       "\"%s\"", name, n, shb_quote(buf).s);
	if (shb_parse_rate(colon + 1, colon + 1 + strlen(colon + 1),
			   &st->rate_to_milli) < 0)
		return fail(c, "%s: stage %u: expected a rate %s after ':', got "
			       "\"%s\"", name, n, RATE_LIKE, shb_quote(colon + 1).s);
	return 0;
}

/* --stages D:R,D:R,...: each stage goes linearly from the rate the one
 * before ended at (0 for the first) to its own, over its duration. */
static int stages_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_stage st[SHB_SCHED_MAX_STAGES];
	unsigned n = 0;
	uint64_t total = 0, prev = 0, any = 0;

	for (const char *p = v;; p++) {
		size_t len = strcspn(p, ",");
		if (n == SHB_SCHED_MAX_STAGES)
			return fail(c, "%s: at most %d stages", name,
				    SHB_SCHED_MAX_STAGES);
		if (stage_item(c, name, n + 1, p, len, &st[n]) < 0)
			return -1;
		st[n].rate_from_milli = prev;
		prev = st[n].rate_to_milli;
		any |= st[n].rate_from_milli | st[n].rate_to_milli;
		if (total > UINT64_MAX / 2 - st[n].duration_ns)
			return fail(c, "%s: the stages add up to more than "
				       "shb can time", name);
		total += st[n].duration_ns;
		n++;
		p += len;
		if (!*p)
			break;
	}
	if (!any)
		return fail(c, "%s %s: every rate is 0, nothing would be sent",
			    name, shb_quote(v).s);
	struct shb_stage *a = malloc(n * sizeof(*a));
	if (!a)
		return fail(c, "out of memory");
	memcpy(a, st, n * sizeof(*a));
	free(cfg->stages);
	cfg->stages = a;
	cfg->stage_count = n;
	return 0;
}

/* After the scan: -R and --stages against -n and -z, and the schedule
 * they make. */
static int finish_open_loop(struct cli *c)
{
	struct shb_config *cfg = c->cfg;

	if (c->rate_name[0] && cfg->stages)
		return fail(c, "%s and --stages cannot be combined: give a rate "
			       "or a ramp with -R, or stages", c->rate_name);
	if (cfg->stages) {
		if (c->duration_given || c->requests_given)
			return fail(c, "--stages and %s cannot be combined: the "
				       "run lasts as long as the stages",
				    c->duration_given ? "-z/--duration" :
							"-n/--requests");
		for (size_t i = 0; i < cfg->stage_count; i++)
			cfg->duration_ns += cfg->stages[i].duration_ns;
		c->duration_given = 1;
		return 0;
	}
	if (!c->rate_name[0])
		return 0;
	if (!c->rate_ramp || c->rate_from == c->rate_to) {
		cfg->rate_milli = c->rate_from;
		return 0;
	}
	if (!c->duration_given)
		return fail(c, "%s %s: a ramp runs over the run's duration: "
			       "give -z/--duration", c->rate_name, c->rate_text);
	cfg->stages = malloc(sizeof(*cfg->stages));
	if (!cfg->stages)
		return fail(c, "out of memory");
	cfg->stages[0] = (struct shb_stage){.duration_ns = cfg->duration_ns,
		.rate_from_milli = c->rate_from, .rate_to_milli = c->rate_to};
	cfg->stage_count = 1;
	return 0;
}

/* The versions shb speaks: GnuTLS still has 1.0 and 1.1, but servers
 * worth load-testing have dropped them (RFC 8996). */
static int tls_version_opt(struct cli *c, const char *name, const char *v)
{
	if (strcmp(v, "1.2") == 0)
		c->cfg->tls_version = 0x0303;
	else if (strcmp(v, "1.3") == 0)
		c->cfg->tls_version = 0x0304;
	else
		return fail(c, "%s %s: give 1.2 or 1.3", name, shb_quote(v).s);
	return 0;
}

/* Checked against GnuTLS at start (shb_tls_priority); here only that
 * there is something to check. */
static int ciphers_opt(struct cli *c, const char *name, const char *v)
{
	if (!v[0])
		return fail(c, "%s: empty priority string (e.g. "
			       "NORMAL:-CIPHER-ALL:+AES-256-GCM)", name);
	return set_string(c, &c->cfg->ciphers, v);
}

/* SNI carries a DNS name only (RFC 6066 3): an address is refused. */
static int sni_opt(struct cli *c, const char *name, const char *v)
{
	unsigned char a[16];
	size_t n = strlen(v);

	if (n == 0)
		return fail(c, "%s: empty name", name);
	if (n > 253)
		return fail(c, "%s: a name is at most 253 characters, got %zu",
			    name, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
		      ch == '_'))
			return fail(c, "%s \"%s\": a host name holds only "
				       "letters, digits, '-', '.' and '_'",
				    name, shb_quote(v).s);
	}
	if (inet_pton(AF_INET, v, a) == 1)
		return fail(c, "%s %s: SNI holds a host name, never an "
			       "address (RFC 6066)", name, v);
	return set_string(c, &c->cfg->sni, v);
}

static int connect_to_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_connect_to ct;

	if (shb_connect_to_parse(name, v, &ct, c->err, c->errlen) < 0)
		return -1;
	struct shb_connect_to *a = realloc(cfg->connect_to,
					   (cfg->connect_to_count + 1) * sizeof(*a));
	if (!a) {
		shb_connect_to_free(&ct);
		return fail(c, "out of memory");
	}
	cfg->connect_to = a;
	a[cfg->connect_to_count++] = ct;
	return 0;
}

static int resolve_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_resolve r;

	if (shb_resolve_parse(name, v, &r, c->err, c->errlen) < 0)
		return -1;
	struct shb_resolve *a = realloc(cfg->resolve,
					(cfg->resolve_count + 1) * sizeof(*a));
	if (!a) {
		shb_resolve_free(&r);
		return fail(c, "out of memory");
	}
	cfg->resolve = a;
	a[cfg->resolve_count++] = r;
	return 0;
}

/* A socket path fits sun_path with its NUL (108 bytes on Linux). */
static int unix_socket_opt(struct cli *c, const char *name, const char *v)
{
	struct sockaddr_un sun;
	if (!*v)
		return fail(c, "%s: empty path", name);
	if (strlen(v) >= sizeof(sun.sun_path))
		return fail(c, "%s: a socket path is at most %zu bytes, got %zu",
			    name, sizeof(sun.sun_path) - 1, strlen(v));
	return set_string(c, &c->cfg->unix_socket, v);
}

/* --priority: checked, then sent as the Priority header (RFC 9218). */
static int priority_opt(struct cli *c, const char *name, const char *v)
{
	if (c->cfg->priority)
		return fail(c, "%s given twice", name);
	if (shb_priority_check(name, v, c->err, c->errlen) < 0 ||
	    set_string(c, &c->cfg->priority, v) < 0)
		return -1;
	return add_header(c, "Priority", 8, v, strlen(v));
}

/* --source: parsed and each address checked to be this machine's before
 * any traffic (source.h). */
static int source_opt(struct cli *c, const char *name, const char *v)
{
	if (c->cfg->source)
		return fail(c, "%s given twice: list the addresses in one "
			       "(ADDR-ADDR or ADDR,ADDR)", name);
	c->cfg->source = shb_source_parse(v, c->err, c->errlen);
	if (!c->cfg->source ||
	    shb_source_check_local(c->cfg->source, 1, c->err, c->errlen) < 0)
		return -1;
	return 0;
}

/* --source's family is the one connections use: it narrows name
 * resolution as -4/-6 do, and must match an IP literal the URL connects
 * to. */
static int check_source(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	const struct shb_source *s = cfg->source;
	if (!s)
		return 0;
	const char *fam = s->family == AF_INET ? "IPv4" : "IPv6";
	if (cfg->unix_socket)
		return fail(c, "--source cannot be combined with --unix-socket");
	if (cfg->family && cfg->family != s->family)
		return fail(c, "--source is %s but %s was given", fam,
			    cfg->family == AF_INET ? "-4" : "-6");
	if (cfg->url.host_is_ip && !cfg->connect_to_count &&
	    !cfg->resolve_count && !(cfg->proxy && cfg->proxy[0]) &&
	    (cfg->url.host_is_ipv6 != 0) != (s->family == AF_INET6))
		return fail(c, "--source is %s but the URL's host %s is %s", fam,
			    cfg->url.host, cfg->url.host_is_ipv6 ? "IPv6" : "IPv4");
	cfg->family = s->family;
	return 0;
}

/* --unix-socket replaces where TCP would connect; the Priority header
 * comes from --priority or -H, not both. */
static int check_route_opts(struct cli *c)
{
	const struct shb_config *cfg = c->cfg;
	size_t nprio = 0;
	for (size_t i = 0; i < cfg->header_count; i++)
		nprio += strcasecmp(cfg->headers[i].name, "priority") == 0;
	if (cfg->priority && nprio > 1)
		return fail(c, "--priority and -H 'Priority: ...' cannot be "
			       "combined: give one");
	if (!cfg->unix_socket)
		return 0;
	if (cfg->proxy && cfg->proxy[0])
		return fail(c, "--unix-socket and --proxy cannot be combined");
	if (cfg->connect_to_count || cfg->resolve_count || cfg->family)
		return fail(c, "--unix-socket cannot be combined with "
			       "--connect-to, --resolve, -4 or -6: the socket "
			       "path is where every connection goes");
	return 0;
}

static int family_opt(struct cli *c, int family)
{
	if (c->cfg->family && c->cfg->family != family)
		return fail(c, "-4/--ipv4 and -6/--ipv6 cannot be combined");
	c->cfg->family = family;
	return 0;
}

static int apply_flag(struct cli *c, enum opt_id id)
{
	struct shb_config *cfg = c->cfg;

	switch (id) {
	case O_HTTP2: cfg->proto_given = 1; return set_string(c, &cfg->proto, "h2");
	case O_HTTP3: cfg->proto_given = 1; return set_string(c, &cfg->proto, "h3");
	case O_JSON: c->json = 1; return 0;
	case O_NO_KEEPALIVE: cfg->disable_keepalive = 1; return 0;
	case O_LIST_PLUGINS: cfg->list_plugins = 1; return 0;
	case O_VERIFY: cfg->verify = 1; return 0;
	case O_INSECURE: return 0; /* not verifying is the default */
	case O_TLS_RESUME: cfg->tls_resume = 1; return 0;
	case O_IPV4: return family_opt(c, AF_INET);
	case O_IPV6: return family_opt(c, AF_INET6);
	case O_QUIET: cfg->quiet = 1; return 0;
	case O_TUI: cfg->tui = 1; return 0;
	case O_MIX: cfg->mix = 1; return 0;
	case O_HELP: cfg->help = 1; return 0;
	case O_VERSION: cfg->version = 1; return 0;
	default: return fail(c, "internal error: option %d", (int)id);
	}
}

static const char *shard_env(const char *name)
{
	return getenv(name);
}

static int start_at_opt(struct cli *c, const char *name, const char *v)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return shb_start_at_opt(name, v, now, &c->cfg->start_at_unix_ns,
				c->err, c->errlen);
}

static int apply_value(struct cli *c, enum opt_id id, const char *name,
		       const char *v)
{
	struct shb_config *cfg = c->cfg;

	switch (id) {
	case O_PROTO: return proto_opt(c, name, v);
	case O_REPORT: return report_opt(c, name, v);
	case O_PROTO_OPT: return plugin_opt(c, name, v, 0);
	case O_REPORT_OPT: return plugin_opt(c, name, v, 1);
	case O_CONNECTIONS:
		return number_opt32(c, name, v, 1, SHB_MAX_CONNECTIONS,
				    &cfg->connections);
	case O_PARALLEL:
		return number_opt32(c, name, v, 1, SHB_MAX_PARALLEL,
				    &cfg->parallel);
	case O_REQUESTS:
		c->requests_given = 1;
		return number_opt(c, name, v, 1, SHB_MAX_REQUESTS,
				  &cfg->requests);
	case O_DURATION:
		c->duration_given = 1;
		return duration_opt(c, name, v, 0, &cfg->duration_ns);
	case O_THREADS:
		return number_opt32(c, name, v, 0, SHB_MAX_THREADS,
				    &cfg->threads);
	case O_METHOD: return method_opt(c, name, v);
	case O_HEADER: return header_opt(c, name, v);
	case O_DATA:
		if (shb_cli_hint_data(name, v, c->err, c->errlen) < 0)
			return -1;
		return data_opt(c, name, v, 1);
	case O_DATA_BINARY: return data_opt(c, name, v, 0);
	case O_BODY_LINES: return set_string(c, &cfg->body_lines, v);
	case O_URLS: return set_string(c, &cfg->urls_file, v);
	case O_CONNECT_TIMEOUT:
		return duration_opt(c, name, v, 0, &cfg->connect_timeout_ns);
	case O_TIMEOUT: return duration_opt(c, name, v, 1, &cfg->timeout_ns);
	case O_BATCH_SIZE:
		return number_opt32(c, name, v, 0, SHB_MAX_BATCH,
				    &cfg->batch_size);
	case O_BATCH_LINGER:
		return number_opt32(c, name, v, 1, SHB_MAX_LINGER_US,
				    &cfg->batch_linger_us);
	case O_PLUGIN_DIR: return plugin_dir_opt(c, name, v);
	case O_CACERT: return cacert_opt(c, name, v);
	case O_SNI: return sni_opt(c, name, v);
	case O_CERT: return set_string(c, &c->cfg->cert, v);
	case O_KEY: return set_string(c, &c->cfg->key, v);
	case O_TLS_VERSION: return tls_version_opt(c, name, v);
	case O_CIPHERS: return ciphers_opt(c, name, v);
	case O_CONNECT_TO: return connect_to_opt(c, name, v);
	case O_RESOLVE: return resolve_opt(c, name, v);
	case O_SLO: return slo_opt(c, name, v);
	case O_PERCENTILES: {
		char perr[160];
		if (shb_percentiles_parse(v, cfg->percentiles, &cfg->percentile_count,
					  perr, sizeof(perr)) < 0)
			return fail(c, "%s: %s", name, perr);
		return 0;
	}
	case O_SUCCESS: {
		char serr[400];
		if (cfg->success.given)
			return fail(c, "%s given twice: list the statuses in one "
				    "(e.g. 2xx,304)", name);
		if (shb_success_parse(v, &cfg->success, serr, sizeof(serr)) < 0)
			return fail(c, "%s: %s", name, serr);
		return 0;
	}
	case O_WARMUP: return duration_opt(c, name, v, 1, &cfg->warmup_ns);
	case O_INTERVAL:
		if (duration_opt(c, name, v, 0, &cfg->interval_ns) < 0)
			return -1;
		if (cfg->interval_ns < SHB_INTERVAL_MIN_NS ||
		    cfg->interval_ns > SHB_INTERVAL_MAX_NS)
			return fail(c, "%s: expected 100ms to 1h, got \"%s\"", name,
				    shb_quote(v).s);
		return 0;
	case O_RATE: return rate_opt(c, name, v);
	case O_STAGES: return stages_opt(c, name, v);
	case O_SHARD:
		return shb_shard_parse(name, v, shard_env, &cfg->shard_index,
				       &cfg->shard_count, c->err, c->errlen);
	case O_START_AT: return start_at_opt(c, name, v);
	case O_UNIX_SOCKET: return unix_socket_opt(c, name, v);
	case O_PROXY: return set_string(c, &cfg->proxy, v);
	case O_NOPROXY: return set_string(c, &cfg->noproxy, v);
	case O_PRIORITY: return priority_opt(c, name, v);
	case O_SOURCE: return source_opt(c, name, v);
	default: return fail(c, "internal error: option %d", (int)id);
	}
}

static const struct opt_def *find_long(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].lng && strlen(opts[i].lng) == n &&
		    strncmp(opts[i].lng, s, n) == 0)
			return &opts[i];
	return NULL;
}

static const struct opt_def *find_short(char ch)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].shrt == ch)
			return &opts[i];
	return NULL;
}

/* Levenshtein distance of a[0..an) and b, for suggestions only: both
 * are short (an <= 40, option names < 40). */
static size_t edit_distance(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b), row[48];

	if (bn >= sizeof(row) / sizeof(row[0]))
		return SIZE_MAX;
	for (size_t j = 0; j <= bn; j++)
		row[j] = j;
	for (size_t i = 1; i <= an; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= bn; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[bn];
}

/* The known long option closest to a typo: at most 2 edits away, and
 * fewer than half the name's length, so that "--x" suggests nothing. */
static const char *nearest_long(const char *s, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (!opts[i].lng)
			continue;
		size_t d = edit_distance(s, n, opts[i].lng);
		if (d < best_d && d * 2 < n) {
			best = opts[i].lng;
			best_d = d;
		}
	}
	return best;
}

/* argv[*i] is "--name" or "--name=value". */
static int long_option(struct cli *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2;
	size_t n = strcspn(arg, "=");
	char name[48];

	snprintf(name, sizeof(name), "--%.*s", (int)(n < 40 ? n : 40), arg);
	const struct opt_def *o = find_long(arg, n);
	if (!o) {
		const char *near = n <= 40 ? nearest_long(arg, n) : NULL;
		if (near)
			return fail(c, "unknown option %s (did you mean --%s?)",
				    shb_quote(name).s, near);
		return fail(c, "unknown option %s%s", shb_quote(name).s,
			    n > 40 ? "..." : "");
	}
	if (!o->has_arg) {
		if (arg[n] == '=')
			return fail(c, "%s: takes no value", name);
		return apply_flag(c, o->id);
	}
	if (arg[n] == '=')
		return apply_value(c, o->id, name, arg + n + 1);
	if (*i + 1 >= argc)
		return fail(c, "%s: missing value", name);
	return apply_value(c, o->id, name, argv[++*i]);
}

/* argv[*i] is "-abc": flags cluster, and an option with a value takes the
 * rest of the word or, when that is empty, the next argument. */
static int short_options(struct cli *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];

	for (size_t k = 1; arg[k]; k++) {
		char name[3] = {'-', arg[k], '\0'};
		const struct opt_def *o = find_short(arg[k]);
		if (!o) {
			if (k > 1 || arg[2])
				return fail(c, "unknown option %s in \"%s\"",
					    shb_quote(name).s, shb_quote(arg).s);
			return fail(c, "unknown option %s", shb_quote(arg).s);
		}
		if (!o->has_arg) {
			if (apply_flag(c, o->id) < 0)
				return -1;
			continue;
		}
		if (arg[k + 1])
			return apply_value(c, o->id, name, arg + k + 1);
		if (*i + 1 >= argc)
			return fail(c, "%s: missing value", name);
		return apply_value(c, o->id, name, argv[++*i]);
	}
	return 0;
}

/* A target, `[label=]URL`; several make a comparison (compare.h). */
static int positional(struct cli *c, const char *arg)
{
	struct shb_config *cfg = c->cfg;
	const char *label, *url;
	size_t label_len;

	if (shb_target_split(arg, &label, &label_len, &url, c->err, c->errlen) < 0)
		return -1;
	for (size_t i = 0; label && i < cfg->target_count; i++)
		if (cfg->targets[i].label &&
		    strlen(cfg->targets[i].label) == label_len &&
		    memcmp(cfg->targets[i].label, label, label_len) == 0)
			return fail(c, "\"%s\": the label %s is given twice",
				    shb_quote(arg).s,
				    shb_quote_n(label, label_len).s);
	struct shb_target_arg *t = realloc(cfg->targets, (cfg->target_count + 1) *
					   sizeof(*t));
	if (!t)
		return fail(c, "out of memory");
	cfg->targets = t;
	t = &t[cfg->target_count];
	memset(t, 0, sizeof(*t));
	t->label = label ? strndup(label, label_len) : NULL;
	t->url_text = strdup(url);
	t->weight = 1;
	cfg->target_count++;
	if ((label && !t->label) || !t->url_text)
		return fail(c, "out of memory");
	if (!c->url)
		c->url = t->url_text;
	return 0;
}

/* --urls and --mix (targets.h): the list file's targets, or the weights
 * of the command line's (`URL@WEIGHT`); one mixed run either way. */
static int finish_targets(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	uint64_t sum = 0;

	if (cfg->urls_file) {
		if (cfg->target_count)
			return fail(c, "--urls %s gives the targets: no URL on "
				       "the command line as well (\"%s\")",
				    cfg->urls_file,
				    shb_quote(cfg->targets[0].url_text).s);
		if (shb_urls_load(cfg, cfg->urls_file, c->err, c->errlen) < 0)
			return -1;
		cfg->mix = 1;
		c->url = cfg->targets[0].url_text;
	}
	if (!cfg->mix)
		return 0;
	if (cfg->target_count > SHB_TARGETS_MAX)
		return fail(c, "--mix: %zu targets, at most %d", cfg->target_count,
			    SHB_TARGETS_MAX);
	for (size_t i = 0; i < cfg->target_count; i++) {
		struct shb_target_arg *t = &cfg->targets[i];
		size_t n;
		if (!cfg->urls_file) {
			if (shb_target_split_weight(t->url_text, &n, &t->weight,
						    c->err, c->errlen) < 0)
				return -1;
			t->url_text[n] = '\0';
		}
		sum += t->weight;
	}
	if (sum > SHB_WEIGHT_MAX)
		return fail(c, "%s: the weights add up to %llu, at most %u",
			    cfg->urls_file ? "--urls" : "--mix",
			    (unsigned long long)sum, SHB_WEIGHT_MAX);
	return 0;
}

/* Every target's URL is checked before any run, so that a typo in the
 * last one of a comparison costs no traffic. */
static int check_targets(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	for (size_t i = 1; i < cfg->target_count; i++) {
		struct shb_url u;
		memset(&u, 0, sizeof(u));
		int rc = shb_url_parse_any(cfg->targets[i].url_text, &u, c->err,
					   c->errlen);
		shb_url_free(&u);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int scan(struct cli *c, int argc, char **argv)
{
	int options_done = 0;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int rc;
		if (options_done || arg[0] != '-' || arg[1] == '\0')
			rc = positional(c, arg);
		else if (strcmp(arg, "--") == 0)
			rc = 0, options_done = 1;
		else if (arg[1] == '-')
			rc = long_option(c, argc, argv, &i);
		else
			rc = short_options(c, argc, argv, &i);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int has_header(const struct shb_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->header_count; i++)
		if (strcasecmp(cfg->headers[i].name, name) == 0)
			return 1;
	return 0;
}

/* Every protocol frames the body by its length (h1 sends Content-Length,
 * h2 and h3 a content-length field and END_STREAM): a user Content-Length
 * must state that same length, once, or the server waits for bytes that
 * never come (or reads the next request as body); Transfer-Encoding would
 * announce a chunked body shb never sends. */
static int check_framing(struct cli *c)
{
	const struct shb_config *cfg = c->cfg;
	const struct shb_header *cl = NULL;
	uint64_t n = 0;

	for (size_t i = 0; i < cfg->header_count; i++) {
		const struct shb_header *h = &cfg->headers[i];
		if (strcasecmp(h->name, "transfer-encoding") == 0)
			return fail(c, "-H '%s: %s': shb sends the body with "
				       "a length, never chunked; remove this "
				       "header",
				    h->name, shb_quote(h->value).s);
		if (strcasecmp(h->name, "content-length") != 0)
			continue;
		if (cl)
			return fail(c, "-H '%s: %s': Content-Length is given "
				       "more than once; give it once or not "
				       "at all",
				    h->name, shb_quote(h->value).s);
		cl = h;
	}
	if (!cl)
		return 0;
	if (shb_parse_u64(cl->value, &n) < 0)
		return fail(c, "-H '%s: %s': Content-Length must be a "
			       "decimal number of bytes",
			    cl->name, shb_quote(cl->value).s);
	if (n != cfg->body_len)
		return fail(c, "-H '%s: %s' disagrees with the body (%zu "
			       "byte%s)",
			    cl->name, shb_quote(cl->value).s, cfg->body_len,
			    cfg->body_len == 1 ? "" : "s");
	return 0;
}

static int has_stdout_report(const struct shb_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->report_count; i++)
		if (!cfg->reports[i].path &&
		    strcmp(cfg->reports[i].name, name) == 0)
			return 1;
	return 0;
}

/* --tui adds the reporter "tui" (plugins/reporters/tui). The screen is
 * the terminal on stdout: the reporter goes first, so that its end()
 * leaves the full screen before any other reporter prints its report
 * there, and the progress line is off, as it would draw over the screen. */
static int tui_report(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	size_t at = cfg->report_count;
	for (size_t i = 0; i < cfg->report_count; i++) {
		if (strcmp(cfg->reports[i].name, "tui") != 0)
			continue;
		if (cfg->reports[i].path)
			return fail(c, "--report tui:%s: the tui reporter draws "
				       "on the terminal, never to a file; give "
				       "it no FILE", shb_quote(cfg->reports[i].path).s);
		if (at == cfg->report_count)
			at = i;
	}
	if (at == cfg->report_count) {
		if (!cfg->tui)
			return 0;
		if (add_report(c, "tui", 3, NULL, 0) < 0)
			return -1;
	}
	struct shb_report_spec t = cfg->reports[at];
	memmove(cfg->reports + 1, cfg->reports, at * sizeof(t));
	cfg->reports[0] = t;
	cfg->tui = 1;
	cfg->quiet = 1;
	return 0;
}

static int fill_defaults(struct cli *c)
{
	struct shb_config *cfg = c->cfg;

	if (!cfg->proto && set_string(c, &cfg->proto, "h1") < 0)
		return -1;
	if (cfg->body_lines && cfg->has_body)
		return fail(c, "--body-lines and -d/--data-binary: give one "
			       "of them");
	cfg->has_body |= cfg->body_lines != NULL; /* the lines are bodies */
	if (!cfg->method &&
	    set_string(c, &cfg->method, cfg->has_body ? "POST" : "GET") < 0)
		return -1;
	if (cfg->has_body && !has_header(cfg, "content-type")) {
		static const char ct[] = "application/x-www-form-urlencoded";
		if (add_header(c, "Content-Type", 12, ct, sizeof(ct) - 1) < 0)
			return -1;
	}
	if (c->json && !has_stdout_report(cfg, "json") &&
	    add_report(c, "json", 4, NULL, 0) < 0)
		return -1;
	if (cfg->report_count == 0 && add_report(c, "text", 4, NULL, 0) < 0)
		return -1;
	if (tui_report(c) < 0)
		return -1;
	if (!c->duration_given && !c->requests_given)
		cfg->requests = SHB_DEFAULT_REQUESTS;
	cfg->requests_all = cfg->requests; /* before --shard takes its part */
	return 0;
}

static void set_defaults(struct shb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->connections = 50;
	cfg->parallel = 1;
	cfg->connect_timeout_ns = SHB_DEFAULT_CONNECT_TIMEOUT_NS;
	cfg->batch_linger_us = 0; /* automatic (core/engine/batch.h) */
	cfg->shard_count = 1;
}

static int cli_parse(int argc, char **argv, struct shb_config *cfg, char *err,
		     size_t errlen)
{
	struct cli c = {.cfg = cfg, .err = err, .errlen = errlen};

	if (err && errlen)
		err[0] = '\0';
	set_defaults(cfg);
	if (scan(&c, argc, argv) < 0)
		return -1;
	if (cfg->help || cfg->version)
		return 1;
	if (c.requests_given && c.duration_given)
		return fail(&c, "-n/--requests and -z/--duration cannot be "
				"combined: give a request count or a duration");
	if (finish_open_loop(&c) < 0 || check_framing(&c) < 0 ||
	    fill_defaults(&c) < 0 || shb_shard_apply(cfg, err, errlen) < 0 ||
	    check_route_opts(&c) < 0)
		return -1;
	if (finish_targets(&c) < 0)
		return -1;
	if (!c.url) {
		if (cfg->list_plugins)
			return 0;
		return fail(&c, "missing URL (usage: shb [options] URL)");
	}
	if (check_targets(&c) < 0)
		return -1;
	if (set_string(&c, &cfg->url_text, c.url) < 0)
		return -1;
	if (shb_url_parse_any(c.url, &cfg->url, err, errlen) < 0 ||
	    check_source(&c) < 0)
		return -1;
	/* http and https are settled now, as every protocol without
	 * scheme_defs serves them; other schemes wait for the protocol. */
	if (shb_url_find_scheme(NULL, cfg->url.scheme))
		return shb_cli_set_scheme(cfg, NULL, NULL, err, errlen);
	return 0;
}

int shb_cli_parse(int argc, char **argv, struct shb_config *cfg, char *err,
		  size_t errlen)
{
	int rc = cli_parse(argc, argv, cfg, err, errlen);

	if (rc < 0)
		shb_err_one_line(err, errlen);
	return rc;
}
