/* The json reporter's building blocks (json_util.h). */
#include "json_util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/hdrv2.h"

/* json_object_set_new fails cleanly on a NULL object or value and frees
 * `v` whenever it fails, so a failed allocation anywhere leaks nothing. */
void jput(struct jb *b, json_t *obj, const char *key, json_t *v)
{
	if (json_object_set_new(obj, key, v) != 0)
		b->failed = 1;
}

json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)LLONG_MAX ? LLONG_MAX : (json_int_t)v);
}

json_t *jsecs(uint64_t ns)
{
	return json_real((double)ns / 1e9);
}

/* Length of the valid UTF-8 sequence at s, or 0 (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		if (s[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Error samples may carry a server's bytes: anything that is not UTF-8
 * becomes U+FFFD rather than making the document invalid. */
json_t *jstr(const char *s)
{
	s = shb_rpt_str(s);
	json_t *v = json_string(s);
	if (v)
		return v;
	size_t len = strlen(s);
	char *clean = malloc(len * 3 + 1);
	if (!clean)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	while (*p) {
		size_t n = utf8_seq(p);
		if (n) {
			memcpy(clean + o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(clean + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	clean[o] = '\0';
	v = json_string(clean);
	free(clean);
	return v;
}

/* The full histogram as HdrHistogram V2 compressed base64 (hdrv2.h),
 * built from the bucket walk of host->hist; null when empty, or when a
 * bucket is not exactly one of the export layout's (a core whose layout
 * changed: then nothing rather than a histogram that is not the one
 * measured). */
json_t *jhdr(const struct shb_host *host, const struct shb_hist *h)
{
	const struct shb_hist_ops *ops = host->hist;
	if (!h || !ops || !ops->foreach_bucket || ops->count(h) == 0)
		return json_null();
	struct shb_hdr_counts c;
	if (shb_hdr_counts_init(&c) < 0)
		return NULL;
	json_t *v = json_null();
	if (ops->foreach_bucket(h, shb_hdr_add_bucket, &c) == 0 &&
	    c.total == ops->count(h)) {
		char *b64 = shb_hdr_encode(&c);
		v = b64 ? json_string(b64) : NULL;
		free(b64);
	}
	shb_hdr_counts_free(&c);
	return v;
}

