/* shb-plugin-check: the replies a peer sends, from --replies DIR or, for
 * the protocols whose framing the checker knows (by ALPN), built in.
 *
 * DIR holds one regular file per reply (dot files ignored, at most
 * CHK_MAX_REPLIES, each 1..CHK_REPLY_MAX bytes, read in name order):
 * STREAM, the bytes that answer one request, fed once per request issued;
 * a name ending in ".seq", a whole sequence fed once whatever was issued
 * (e.g. several replies in one file, an HTTP/2 server's frames). DGRAM,
 * one datagram per file. A file named "handshake" is fed after
 * on_transport_ready and before any request (a WebSocket 101). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"

static const char h1_ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
static const char h1_chunked[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
				 "chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
/* HTTP/2: SETTINGS, SETTINGS ACK, HEADERS (:status 200, static index 8)
 * and DATA "hello" with END_STREAM, on stream 1: a sequence, since only
 * stream 1 is answered. */
static const uint8_t h2_ok[] = {
	0, 0, 0, 4, 0, 0, 0, 0, 0,
	0, 0, 0, 4, 1, 0, 0, 0, 0,
	0, 0, 1, 1, 4, 0, 0, 0, 1, 0x88,
	0, 0, 5, 0, 1, 0, 0, 0, 1, 'h', 'e', 'l', 'l', 'o',
};

static void add(struct chk_corpus *c, const char *name, const void *p,
		size_t len, int seq)
{
	struct chk_reply *r = &c->r[c->n++];

	snprintf(r->name, sizeof r->name, "%.63s", name);
	r->p = p;
	r->len = len;
	r->seq = seq;
}

void chk_corpus_get(struct chk *k, const struct shb_proto_desc *d,
		    struct chk_corpus *c)
{
	if (k->replies_dir) {
		*c = k->dir_corpus;
		return;
	}
	memset(c, 0, sizeof *c);
	for (size_t i = 0; d->alpn && d->alpn[i] && i < 16 && c->n < 3; i++) {
		if (!strcmp(d->alpn[i], "http/1.1")) {
			add(c, "HTTP/1.1", h1_ok, sizeof h1_ok - 1, 0);
			add(c, "HTTP/1.1 chunked", h1_chunked,
			    sizeof h1_chunked - 1, 0);
		} else if (!strcmp(d->alpn[i], "h2")) {
			add(c, "HTTP/2", h2_ok, sizeof h2_ok, 1);
		}
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads DIR/name (1..CHK_REPLY_MAX bytes) into a malloc'd buffer. */
static uint8_t *read_reply(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	struct stat st;
	uint8_t *buf;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		*len = 0;
		return NULL; /* not a reply file: skipped */
	}
	if (st.st_size < 1 || st.st_size > CHK_REPLY_MAX) {
		fprintf(stderr, "shb-plugin-check: --replies: %s has %lld bytes "
			"(1..%d)\n", path, (long long)st.st_size, CHK_REPLY_MAX);
		*len = 1;
		return NULL;
	}
	buf = malloc((size_t)st.st_size);
	f = fopen(path, "rb");
	if (!buf || !f || fread(buf, 1, (size_t)st.st_size, f) !=
				   (size_t)st.st_size) {
		fprintf(stderr, "shb-plugin-check: --replies: cannot read %s: "
			"%s\n", path, strerror(errno ? errno : EIO));
		free(buf);
		buf = NULL;
		*len = 1;
	} else {
		*len = (size_t)st.st_size;
	}
	if (f)
		fclose(f);
	return buf;
}

/* The names in DIR, sorted, dot files left out; their count or -1. */
static int list_dir(const char *dir, char **names, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d) {
		fprintf(stderr, "shb-plugin-check: --replies: cannot open "
			"directory '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == max) {
			fprintf(stderr, "shb-plugin-check: --replies: %s has "
				"more than %zu files\n", dir, max - 1);
			break;
		}
		names[n] = strdup(e->d_name);
		if (!names[n])
			break;
		n++;
	}
	closedir(d);
	if (e || n == max)
		return -1;
	qsort(names, n, sizeof *names, by_name);
	return (int)n;
}

int chk_corpus_load(struct chk *k)
{
	static char *names[CHK_MAX_REPLIES + 2];
	struct chk_corpus *c = &k->dir_corpus;
	int n = list_dir(k->replies_dir, names, CHK_MAX_REPLIES + 2);

	memset(c, 0, sizeof *c);
	c->dir = k->replies_dir;
	for (int i = 0; i < n; i++) {
		char name[256];
		size_t len, nl = strlen(names[i]);
		uint8_t *p = read_reply(k->replies_dir, names[i], &len);

		snprintf(name, sizeof name, "%s", names[i]);

		free(names[i]);
		if (!p && len) {
			for (int j = i + 1; j < n; j++)
				free(names[j]);
			return -1;
		}
		if (!p)
			continue;
		if (!strcmp(name, "handshake")) {
			c->handshake = p;
			c->handshake_len = len;
		} else if (c->n < CHK_MAX_REPLIES) {
			add(c, name, p, len,
			    nl > 4 && !strcmp(name + nl - 4, ".seq"));
		}
	}
	if (n >= 0 && c->n == 0)
		fprintf(stderr, "shb-plugin-check: --replies: %s has no reply "
			"file\n", k->replies_dir);
	return n < 0 || c->n == 0 ? -1 : 0;
}
