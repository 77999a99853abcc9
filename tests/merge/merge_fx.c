/* The merge and export tests' helpers (merge_fx.h). */
#include "merge_fx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "common/hdrv2.h"
#include "results/merge.h"

/* The core's histogram through the reporters' path: the ABI bucket walk. */
char *mt_encode_histo(const struct shb_histo *h)
{
	struct shb_hdr_counts c;
	CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
	CU_ASSERT_EQUAL(shb_histo_ops.foreach_bucket(shb_histo_abi(h),
						     shb_hdr_add_bucket, &c), 0);
	CU_ASSERT_EQUAL(c.total, h->total);
	char *s = shb_hdr_encode(&c);
	shb_hdr_counts_free(&c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

void mt_new_histo(struct shb_histo *h)
{
	CU_ASSERT_EQUAL_FATAL(shb_histo_init(h, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS), 0);
}

uint8_t *mt_be32(uint8_t *p, uint32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		*p++ = (uint8_t)(v >> s);
	return p;
}

/* ZigZag LEB128 as HdrHistogram writes it: eight 7-bit groups, then a
 * whole ninth byte. */
size_t mt_zz(uint8_t *p, int64_t sv)
{
	uint64_t v = ((uint64_t)sv << 1) ^ (uint64_t)(sv >> 63);
	size_t n = 0;
	while (n < 8 && v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* The base64 of a compressed V2 histogram whose counts are the bytes
 * `w`, made here with no help from hdrv2.c: header, one stored deflate
 * block, Adler-32. Static buffer: one at a time. */
const char *mt_wrap_bytes(const uint8_t *w, size_t nw)
{
	static char out[512];
	uint8_t raw[300], z[400];
	size_t n = 40 + nw;
	CU_ASSERT_FATAL(n <= sizeof(raw));
	memcpy(raw + 40, w, nw);
	uint8_t *h = mt_be32(raw, 0x1c849313u);
	h = mt_be32(h, (uint32_t)(n - 40));
	h = mt_be32(h, 0);
	h = mt_be32(h, 3);
	h = mt_be32(mt_be32(h, 0), 1);                 /* lowest 1 */
	h = mt_be32(mt_be32(h, 0x346), 0x30b8a000u);   /* highest one hour */
	mt_be32(mt_be32(h, 0x3ff00000u), 0);           /* ratio 1.0 */
	uint8_t *p = z + 8;
	*p++ = 0x78;
	*p++ = 0x01;
	*p++ = 1;
	*p++ = (uint8_t)n;
	*p++ = (uint8_t)(n >> 8);
	*p++ = (uint8_t)~n;
	*p++ = (uint8_t)(~n >> 8);
	memcpy(p, raw, n);
	p += n;
	uint32_t a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + raw[i]) % 65521u;
		b = (b + a) % 65521u;
	}
	p = mt_be32(p, b << 16 | a);
	mt_be32(z, 0x1c849314u);
	mt_be32(z + 4, (uint32_t)(p - z - 8));
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t zn = (size_t)(p - z), o = 0;
	for (size_t i = 0; i < zn; i += 3) {
		uint32_t v = (uint32_t)z[i] << 16 |
			     (i + 1 < zn ? (uint32_t)z[i + 1] << 8 : 0) |
			     (i + 2 < zn ? z[i + 2] : 0);
		out[o++] = tab[v >> 18];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = i + 1 < zn ? tab[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < zn ? tab[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

/* The same, of counts given as numbers. */
const char *mt_wrap_words(const int64_t *words, size_t nw)
{
	uint8_t w[200];
	size_t n = 0;
	for (size_t i = 0; i < nw; i++)
		n += mt_zz(w + n, words[i]);
	return mt_wrap_bytes(w, n);
}

/* A report as the json reporter writes it, for a histogram of ok
 * requests, with `errs` timeouts and a status 200 per ok request. */
json_t *mt_report(const struct shb_histo *h, uint64_t errs, const char *url,
		      int connections)
{
	char *b64 = mt_encode_histo(h);
	json_t *lat = json_pack("{s:f, s:f, s:f, s:f}",
		"min", (double)shb_histo_min(h) / 1e9,
		"mean", (double)shb_histo_mean(h) / 1e9,
		"stddev", (double)shb_histo_stddev(h) / 1e9,
		"max", (double)shb_histo_max(h) / 1e9);
	json_t *doc = json_pack(
		"{s:i, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:b, s:s, s:I,"
		" s:n, s:f, s:f, s:b, s:{s:I, s:I, s:I, s:I, s:I},"
		" s:I, s:I, s:i, s:{s:I}, s:{s:I, s:I}, s:{s:s}, s:o, s:s, s:s, s:n,"
		" s:n, s:n}",
		"schemaVersion", 1, "shbVersion", "0.1.0",
		"startTime", "2026-01-02T03:04:05.250Z", "url", url,
		"method", "GET", "protocolName", "h1", "threads", 1,
		"connections", connections, "parallel", 1, "tls", 0,
		"tlsVerify", "none", "requestsTarget", (json_int_t)(h->total + errs),
		"durationTargetSeconds", "warmupSeconds", 0.0,
		"durationSeconds", 1.5, "interrupted", 0,
		"requests", "total", (json_int_t)(h->total + errs),
		"ok", (json_int_t)h->total, "errors", (json_int_t)errs,
		"connectErrors", (json_int_t)0, "retried", (json_int_t)0,
		"bytesReceived", (json_int_t)(100 * h->total),
		"bytesSent", (json_int_t)(40 * (h->total + errs)),
		"connectionsOpened", connections,
		"statusCodes", "200", (json_int_t)h->total,
		"errors", "timeout", (json_int_t)errs, "connect", (json_int_t)0,
		"errorSamples", "timeout", "request timed out",
		"latencySeconds", lat, "histogramUnit", "nanoseconds",
		"latencyHistogram", b64, "label",
		"shard", "openLoop");
	free(b64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	return doc;
}

/* Adds good then bad; bad must be refused with `want`. */
void mt_refused(json_t *good, json_t *bad, const char *want)
{
	struct shb_merge m;
	char err[SHB_MERGE_TEXT] = "";
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", good, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "b.json", bad, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\nwant \"%s\"\ngot  \"%s\"\n", want, err);
	CU_ASSERT_EQUAL(m.files, 1);
	CU_ASSERT_EQUAL(m.stats.ok, good ? 2 : 0);
	shb_merge_fini(&m);
}
