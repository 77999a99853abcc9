/* URL lists, weights and the weighted picker (targets.h). */
#include "cli/targets.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/compare.h"
#include "common/quote.h"

/* ---- weights ----------------------------------------------------------------- */

/* A weight: 1..SHB_WEIGHT_MAX in decimal digits only. */
static int parse_weight(const char *s, size_t len, uint32_t *w)
{
	uint64_t v = 0;

	if (len == 0 || len > 7)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v < 1 || v > SHB_WEIGHT_MAX)
		return -1;
	*w = (uint32_t)v;
	return 0;
}

static int all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return len > 0;
}

int shb_target_split_weight(const char *url, size_t *url_len,
			    uint32_t *weight, char *err, size_t errlen)
{
	const char *at = strrchr(url, '@');
	size_t n = strlen(url);

	*url_len = n;
	*weight = 1;
	if (!at || !all_digits(at + 1, strlen(at + 1)))
		return 0;
	if (parse_weight(at + 1, strlen(at + 1), weight) < 0)
		return shb_errf(err, errlen, "\"%s\": the weight after '@' must be "
			    "1..%u", shb_quote(url).s, SHB_WEIGHT_MAX);
	*url_len = (size_t)(at - url);
	return 0;
}

/* ---- one line of a URL list --------------------------------------------------- */

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* An RFC 9110 token character (a method). */
static int tchar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

#define LINE_FIELDS 4

static void free_target(struct shb_target_arg *t)
{
	free(t->label);
	free(t->url_text);
	free(t->method);
	free(t->body_file);
	free(t->body);
	memset(t, 0, sizeof(*t));
}

int shb_urls_parse_line(const char *line, size_t len,
			struct shb_target_arg *t, char *err, size_t errlen)
{
	const char *f[LINE_FIELDS + 1];
	size_t fl[LINE_FIELDS + 1], nf = 0, i = 0;

	memset(t, 0, sizeof(*t));
	if (len && line[len - 1] == '\r') /* a file written on Windows */
		len--;
	if (len > SHB_URLS_LINE_MAX) /* the first field is copied below */
		return shb_errf(err, errlen, "line longer than %d bytes",
			    SHB_URLS_LINE_MAX);
	for (size_t k = 0; k < len; k++)
		if ((unsigned char)line[k] < 0x20 && !is_blank(line[k]))
			return shb_errf(err, errlen, "control character 0x%02x at "
				    "column %zu", (unsigned char)line[k], k + 1);
	while (i < len) {
		while (i < len && is_blank(line[i]))
			i++;
		if (i == len)
			break;
		if (nf == 0 && line[i] == '#')
			return 0;
		if (nf == LINE_FIELDS)
			return shb_errf(err, errlen, "too many fields (at most "
				    "[LABEL=]URL WEIGHT METHOD BODY-FILE)");
		f[nf] = line + i;
		while (i < len && !is_blank(line[i]))
			i++;
		fl[nf] = (size_t)(line + i - f[nf]);
		nf++;
	}
	if (nf == 0)
		return 0;

	char first[SHB_URLS_LINE_MAX + 1];
	memcpy(first, f[0], fl[0]);
	first[fl[0]] = '\0';
	const char *label, *url;
	size_t label_len;
	if (shb_target_split(first, &label, &label_len, &url, err, errlen) < 0)
		return -1;
	struct shb_url u;
	memset(&u, 0, sizeof(u));
	int bad = shb_url_parse_any(url, &u, err, errlen);
	shb_url_free(&u);
	if (bad < 0)
		return -1;
	size_t k = 1;
	t->weight = 1;
	if (k < nf && all_digits(f[k], fl[k])) {
		if (parse_weight(f[k], fl[k], &t->weight) < 0)
			return shb_errf(err, errlen, "weight %.*s: must be 1..%u",
				    (int)fl[k], f[k], SHB_WEIGHT_MAX);
		k++;
	}
	if (k < nf) {
		for (size_t j = 0; j < fl[k]; j++)
			if (!tchar(f[k][j]))
				return shb_errf(err, errlen, "method \"%s\": letters, "
					    "digits and !#$%%&'*+-.^_`|~ only",
					    shb_quote_n(f[k], fl[k]).s);
		t->method = strndup(f[k], fl[k]);
		if (!t->method)
			return shb_errf(err, errlen, "out of memory");
		k++;
	}
	if (k < nf) {
		t->body_file = strndup(f[k], fl[k]);
		if (!t->body_file) {
			free_target(t);
			return shb_errf(err, errlen, "out of memory");
		}
		k++;
	}
	if (k < nf) {
		free_target(t);
		return shb_errf(err, errlen, "\"%s\" after the body file: a URL or "
			    "file name cannot hold blanks",
			    shb_quote_n(f[k], fl[k]).s);
	}
	t->label = label ? strndup(label, label_len) : NULL;
	t->url_text = strdup(url);
	if ((label && !t->label) || !t->url_text) {
		free_target(t);
		return shb_errf(err, errlen, "out of memory");
	}
	return 1;
}

/* ---- the file ------------------------------------------------------------------- */

/* Reads all of `path` (at most `cap` bytes) into a malloc'd buffer. */
static int read_all(const char *path, size_t cap, uint8_t **out, size_t *len,
		    char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t n = 0, sz = 4096;
	uint8_t *buf;

	if (fd < 0)
		return shb_errf(why, whylen, "%s", strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return shb_errf(why, whylen, "is a directory");
	}
	buf = malloc(sz);
	while (buf) {
		if (n == sz) {
			uint8_t *b = sz >= cap + 1 ? NULL : realloc(buf, sz * 2);
			if (!b)
				break;
			buf = b;
			sz *= 2;
		}
		ssize_t r = read(fd, buf + n, sz - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return shb_errf(why, whylen, "%s", strerror(e));
		}
		if (r == 0) {
			close(fd);
			*out = buf;
			*len = n;
			return 0;
		}
		n += (size_t)r;
		if (n > cap)
			break;
	}
	free(buf);
	close(fd);
	return shb_errf(why, whylen, n > cap ? "larger than the limit" : "out of memory");
}

static int append_target(struct shb_config *cfg, struct shb_target_arg *t)
{
	struct shb_target_arg *v = realloc(cfg->targets, (cfg->target_count + 1) *
					   sizeof(*v));
	if (!v)
		return -1;
	cfg->targets = v;
	v[cfg->target_count++] = *t;
	return 0;
}

int shb_urls_load(struct shb_config *cfg, const char *path, char *err,
		  size_t errlen)
{
	uint8_t *text;
	size_t len, start = 0;
	char why[256], msg[512];
	int line = 0, rc = 0;

	if (read_all(path, SHB_URLS_FILE_MAX, &text, &len, why, sizeof(why)) < 0)
		return shb_errf(err, errlen, "--urls %s: cannot read: %s%s", path, why,
			    strcmp(why, "larger than the limit") ? "" : " of 1 MiB");
	while (start < len && rc == 0) {
		const char *s = (const char *)text + start;
		const char *nl = memchr(s, '\n', len - start);
		size_t n = nl ? (size_t)(nl - s) : len - start;
		struct shb_target_arg t;
		start += n + 1;
		line++;
		if (memchr(s, '\0', n)) {
			rc = shb_errf(err, errlen, "%s:%d: NUL byte in the line", path, line);
			break;
		}
		if (n > SHB_URLS_LINE_MAX) {
			rc = shb_errf(err, errlen, "%s:%d: line longer than %d bytes",
				  path, line, SHB_URLS_LINE_MAX);
			break;
		}
		int r = shb_urls_parse_line(s, n, &t, msg, sizeof(msg));
		if (r < 0) {
			rc = shb_errf(err, errlen, "%s:%d: %s", path, line, msg);
			break;
		}
		if (r == 0)
			continue;
		t.line = line;
		if (t.body_file &&
		    read_all(t.body_file, SHB_MAX_BODY, &t.body, &t.body_len, why,
			     sizeof(why)) < 0) {
			rc = shb_errf(err, errlen, "%s:%d: body file %s: %s%s", path,
				  line, t.body_file, why,
				  strcmp(why, "larger than the limit") ? "" :
				  " of " SHB_MAX_BODY_TEXT);
			free_target(&t);
			break;
		}
		if (cfg->target_count == SHB_TARGETS_MAX) {
			rc = shb_errf(err, errlen, "%s:%d: more than %d targets", path,
				  line, SHB_TARGETS_MAX);
			free_target(&t);
			break;
		}
		if (append_target(cfg, &t) < 0) {
			rc = shb_errf(err, errlen, "out of memory");
			free_target(&t);
		}
	}
	free(text);
	if (rc == 0 && cfg->target_count == 0)
		rc = shb_errf(err, errlen, "--urls %s: no target in the file (only "
			  "blank or comment lines)", path);
	return rc;
}

/* ---- the picker ------------------------------------------------------------------ */

int shb_swrr_next(struct shb_swrr *s)
{
	int64_t total = 0;
	int best = -1;

	for (uint32_t i = 0; i < s->n; i++) {
		if (s->left && s->left[i] == 0)
			continue;
		s->cur[i] += s->weight[i];
		total += s->weight[i];
		if (best < 0 || s->cur[i] > s->cur[best])
			best = (int)i;
	}
	if (best < 0)
		return -1;
	s->cur[best] -= total;
	if (s->left)
		s->left[best]--;
	return best;
}

void shb_swrr_counts(const uint32_t *weight, uint32_t n, uint64_t off,
		     uint64_t count, uint64_t *out)
{
	int64_t cur[SHB_TARGETS_MAX] = {0};
	struct shb_swrr s = {n, weight, cur, NULL};
	uint64_t period = 0;

	for (uint32_t i = 0; i < n; i++) {
		period += weight[i];
		out[i] = 0;
	}
	/* The sequence repeats every period: whole periods give each its
	 * weight; only the two partial ones are walked. */
	uint64_t skip = off % period, whole = count / period, rest = count % period;
	for (uint64_t k = 0; k < skip; k++)
		shb_swrr_next(&s);
	for (uint32_t i = 0; i < n; i++)
		out[i] = whole * weight[i];
	for (uint64_t k = 0; k < rest; k++)
		out[shb_swrr_next(&s)]++;
}

uint64_t shb_split_share(uint64_t total, uint32_t k, uint32_t i, uint32_t j)
{
	if (i >= k)
		return 0;
	return total / k + ((i + k - j % k) % k < total % k);
}

void shb_split_weighted(uint32_t total, const uint64_t *weight, uint32_t n,
			uint32_t *out)
{
	uint64_t sum = 0, rem[SHB_TARGETS_MAX];
	uint32_t given = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += weight[i];
	/* By weight, the largest remainders taking what is left... */
	for (uint32_t i = 0; i < n; i++) {
		unsigned __int128 x = (unsigned __int128)total * weight[i];
		out[i] = (uint32_t)(x / sum);
		rem[i] = (uint64_t)(x % sum);
		given += out[i];
	}
	while (given < total) {
		uint32_t best = 0;
		for (uint32_t i = 1; i < n; i++)
			if (rem[i] > rem[best])
				best = i;
		out[best]++;
		rem[best] = 0;
		given++;
	}
	/* ... then every part gets at least one, from the largest part. */
	for (uint32_t i = 0; i < n; i++) {
		if (out[i])
			continue;
		uint32_t big = 0;
		for (uint32_t j = 1; j < n; j++)
			if (out[j] > out[big])
				big = j;
		out[big]--;
		out[i] = 1;
	}
}
