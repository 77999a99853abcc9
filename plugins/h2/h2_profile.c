/* Connection profiles: see h2_profile.h. docs/fingerprints.md says, per
 * profile, which parts match the browser byte for byte and which cannot
 * (most of the TLS ClientHello, which the core's GnuTLS writes). */
#include "h2_profile.h"

#include "http_look.h"

#include <stdio.h>
#include <string.h>

/* shb's own: push off, the largest stream and connection windows (a load
 * generator reads every response as fast as it can), no PRIORITY, no
 * default header. */
static const struct shb_h2_profile prof_shb = {
	.name = "shb",
	.n_settings = 2,
	.settings = {{SHB_H2_SET_ENABLE_PUSH, 0},
		     {SHB_H2_SET_INITIAL_WINDOW_SIZE, SHB_H2_MAX_WINDOW}},
	.window_update = SHB_H2_MAX_WINDOW - SHB_H2_DEFAULT_WINDOW,
	.pseudo = "msap",
};

/* Chrome 120.0.6099.109 on macOS, as captured by curl-impersonate:
 * https://github.com/lwthiker/curl-impersonate/blob/main/tests/signatures/chrome_120.0.6099.109_macOS.yaml
 * (akamai_text 1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p, and
 * the HEADERS frame's fields in that order). */
static const struct shb_h2_profile prof_chrome = {
	.name = "chrome",
	.n_settings = 4,
	.settings = {{SHB_H2_SET_HEADER_TABLE_SIZE, 65536},
		     {SHB_H2_SET_ENABLE_PUSH, 0},
		     {SHB_H2_SET_INITIAL_WINDOW_SIZE, 6291456},
		     {SHB_H2_SET_MAX_HEADER_LIST_SIZE, 262144}},
	.window_update = 15663105,
	.pseudo = "masp",
	.n_headers = 12,
	.headers = {
		{"sec-ch-ua", "\"Not_A Brand\";v=\"8\", \"Chromium\";v=\"120\", "
			      "\"Google Chrome\";v=\"120\""},
		{"sec-ch-ua-mobile", "?0"},
		{"sec-ch-ua-platform", "\"macOS\""},
		{"upgrade-insecure-requests", "1"},
		{"user-agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) "
			       "AppleWebKit/537.36 (KHTML, like Gecko) "
			       "Chrome/120.0.0.0 Safari/537.36"},
		{"accept", "text/html,application/xhtml+xml,application/xml;"
			   "q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
			   "application/signed-exchange;v=b3;q=0.7"},
		{"sec-fetch-site", "none"},
		{"sec-fetch-mode", "navigate"},
		{"sec-fetch-user", "?1"},
		{"sec-fetch-dest", "document"},
		{"accept-encoding", "gzip, deflate, br"},
		{"accept-language", "en-US,en;q=0.9"},
	},
	/* Chrome 120's suites, groups and signature algorithms as near
	 * as GnuTLS allows (http_look.h). */
	.tls_priority = SHB_HTTP_TLS_CHROME,
};

/* Firefox 120.0.1 on Linux, as captured by curl-impersonate:
 * https://github.com/lwthiker/curl-impersonate/blob/main/tests/signatures/firefox_120.0.1_linux.yaml
 * (akamai_text 1:65536;4:131072;5:16384|12517377|3:0:0:201,5:0:0:101,
 * 7:0:0:1,9:0:7:1,11:0:3:1,13:0:0:241|m,p,a,s: six PRIORITY frames build
 * its dependency tree on idle streams 3 to 13, and the first request goes
 * on stream 15). */
static const struct shb_h2_profile prof_firefox = {
	.name = "firefox",
	.n_settings = 3,
	.settings = {{SHB_H2_SET_HEADER_TABLE_SIZE, 65536},
		     {SHB_H2_SET_INITIAL_WINDOW_SIZE, 131072},
		     {SHB_H2_SET_MAX_FRAME_SIZE, 16384}},
	.window_update = 12517377,
	.n_prio = 6,
	.prio = {{3, 0, 0, 201}, {5, 0, 0, 101}, {7, 0, 0, 1},
		 {9, 0, 7, 1}, {11, 0, 3, 1}, {13, 0, 0, 241}},
	.pseudo = "mpas",
	.n_headers = 10,
	.headers = {
		{"user-agent", "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) "
			       "Gecko/20100101 Firefox/120.0"},
		{"accept", "text/html,application/xhtml+xml,application/xml;"
			   "q=0.9,image/avif,image/webp,*/*;q=0.8"},
		{"accept-language", "en-US,en;q=0.5"},
		{"accept-encoding", "gzip, deflate, br"},
		{"upgrade-insecure-requests", "1"},
		{"sec-fetch-dest", "document"},
		{"sec-fetch-mode", "navigate"},
		{"sec-fetch-site", "none"},
		{"sec-fetch-user", "?1"},
		{"te", "trailers"},
	},
	/* Firefox 120's suites, groups and signature algorithms as near
	 * as GnuTLS allows (http_look.h). */
	.tls_priority = SHB_HTTP_TLS_FIREFOX,
};

/* curl 7.88.1 with nghttp2 (Debian 12's): MAX_CONCURRENT_STREAMS 100, a
 * 32 MiB stream and connection window (HTTP2_HUGE_WINDOW_SIZE in
 * https://github.com/curl/curl/blob/curl-7_88_1/lib/http2.c), push off,
 * :method :path :scheme :authority, then user-agent and accept: Akamai
 * 3:100;4:33554432;2:0|33488897|0|m,p,s,a. */
static const struct shb_h2_profile prof_curl = {
	.name = "curl",
	.n_settings = 3,
	.settings = {{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 100},
		     {SHB_H2_SET_INITIAL_WINDOW_SIZE, 33554432},
		     {SHB_H2_SET_ENABLE_PUSH, 0}},
	.window_update = 33554432 - SHB_H2_DEFAULT_WINDOW,
	.pseudo = "mpsa",
	.n_headers = 2,
	.headers = {
		{"user-agent", SHB_HTTP_CURL_UA},
		{"accept", SHB_HTTP_CURL_ACCEPT},
	},
};

static const struct shb_h2_profile *const profiles[] = {
	&prof_chrome, &prof_firefox, &prof_curl, &prof_shb,
};

const struct shb_h2_profile *shb_h2_profile_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (strcmp(profiles[i]->name, name) == 0)
			return profiles[i];
	return NULL;
}

const char *shb_h2_profile_names(void)
{
	return "chrome, firefox, curl, shb";
}

const struct shb_h2_profile *shb_h2_profile_default(void)
{
	return &prof_shb;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* snprintf's result n at *at of out[cap]: 0, or -1 when it did not fit. */
static int advance(int n, size_t cap, size_t *at)
{
	if (n < 0 || (size_t)n >= cap - *at)
		return -1;
	*at += (size_t)n;
	return 0;
}

/* One frame's part of the fingerprint: SETTINGS into s, the connection
 * WINDOW_UPDATE into w, PRIORITY into pr. */
static int fp_frame(const struct shb_h2_frame_header *h, const uint8_t *p,
		    char *s, size_t *sn, char *w, char *pr, size_t *pn)
{
	const size_t cap = SHB_H2_FP_HEAD_MAX;

	if (h->type == SHB_H2_SETTINGS && !(h->flags & SHB_H2_FLAG_ACK)) {
		for (uint32_t i = 0; i + 6 <= h->length; i += 6)
			if (advance(snprintf(s + *sn, cap - *sn, "%s%u:%u",
					     *sn ? ";" : "",
					     (unsigned)(p[i] << 8 | p[i + 1]),
					     get32(p + i + 2)), cap, sn) < 0)
				return -1;
	} else if (h->type == SHB_H2_WINDOW_UPDATE && h->stream_id == 0 &&
		   h->length == 4 && !w[0]) {
		snprintf(w, 12, "%u", get32(p) & SHB_H2_MAX_STREAM_ID);
	} else if (h->type == SHB_H2_PRIORITY && h->length == 5) {
		uint32_t dep = get32(p);
		if (advance(snprintf(pr + *pn, cap - *pn, "%s%u:%u:%u:%u",
				     *pn ? "," : "", h->stream_id, dep >> 31,
				     dep & SHB_H2_MAX_STREAM_ID, p[4] + 1u),
			    cap, pn) < 0)
			return -1;
	}
	return 0;
}

size_t shb_h2_preface_fp(const uint8_t *bytes, size_t len, char *out,
			 size_t cap)
{
	char s[SHB_H2_FP_HEAD_MAX] = "", pr[SHB_H2_FP_HEAD_MAX] = "", w[12] = "";
	size_t sn = 0, pn = 0, at = SHB_H2_PREFACE_LEN;
	struct shb_h2_frame_header h;

	if (len < SHB_H2_PREFACE_LEN)
		return 0;
	while (at < len) {
		if (len - at < SHB_H2_FRAME_HEADER_LEN)
			return 0;
		shb_h2_frame_header_parse(bytes + at, &h);
		at += SHB_H2_FRAME_HEADER_LEN;
		if (len - at < h.length ||
		    fp_frame(&h, bytes + at, s, &sn, w, pr, &pn) < 0)
			return 0;
		at += h.length;
	}
	/* Akamai: "00" without a WINDOW_UPDATE, "0" without PRIORITY. */
	int n = snprintf(out, cap, "%s|%s|%s", s, w[0] ? w : "00",
			 pn ? pr : "0");
	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* How much of a window we grant is consumed before we top it up. */
static uint32_t refill(uint32_t window)
{
	return window > SHB_H2_WINDOW_REFILL ? SHB_H2_WINDOW_REFILL : window / 2;
}

/* The windows and table size the preface announces, read back from its
 * SETTINGS (RFC 9113 defaults where it names none). */
static void read_back(struct shb_h2_preface *out, const struct shb_h2_profile *p)
{
	const uint8_t *s = out->bytes + SHB_H2_PREFACE_LEN + SHB_H2_FRAME_HEADER_LEN;
	out->stream_window = SHB_H2_DEFAULT_WINDOW;
	out->table_size = 4096;
	for (size_t i = 0; i < p->n_settings; i++, s += SHB_H2_SETTINGS_ENTRY_LEN) {
		uint16_t id = (uint16_t)(s[0] << 8 | s[1]);
		if (id == SHB_H2_SET_INITIAL_WINDOW_SIZE)
			out->stream_window = get32(s + 2);
		else if (id == SHB_H2_SET_HEADER_TABLE_SIZE)
			out->table_size = get32(s + 2);
	}
	out->conn_window = SHB_H2_DEFAULT_WINDOW;
	if (p->window_update)
		out->conn_window += get32(s + SHB_H2_FRAME_HEADER_LEN);
	out->stream_refill = refill(out->stream_window);
	out->conn_low = out->conn_window - refill(out->conn_window);
}

static int profile_ok(const struct shb_h2_profile *p)
{
	if (p->n_settings > SHB_H2_PROFILE_MAX_SETTINGS ||
	    p->n_prio > SHB_H2_PROFILE_MAX_PRIO ||
	    p->window_update > SHB_H2_MAX_WINDOW - SHB_H2_DEFAULT_WINDOW)
		return 0;
	for (size_t i = 0; i < p->n_settings; i++)
		if (p->settings[i].id == SHB_H2_SET_INITIAL_WINDOW_SIZE &&
		    p->settings[i].value > SHB_H2_MAX_WINDOW)
			return 0;
	for (size_t i = 0; i < p->n_prio; i++)
		if (!(p->prio[i].stream & 1) || p->prio[i].weight < 1 ||
		    p->prio[i].weight > 256)
			return 0;
	return 1;
}

int shb_h2_preface_build(const struct shb_h2_profile *p,
			 struct shb_h2_preface *out)
{
	size_t n = SHB_H2_PREFACE_LEN;

	memset(out, 0, sizeof(*out));
	if (!profile_ok(p))
		return -1;
	memcpy(out->bytes, SHB_H2_PREFACE, SHB_H2_PREFACE_LEN);
	n += shb_h2_write_settings(out->bytes + n, p->settings, p->n_settings);
	if (p->window_update)
		n += shb_h2_write_window_update(out->bytes + n, 0, p->window_update);
	out->first_k = 0;
	for (size_t i = 0; i < p->n_prio; i++) {
		const struct shb_h2_prio_spec *q = &p->prio[i];
		n += shb_h2_write_priority(out->bytes + n, q->stream, (int)q->exclusive,
					   q->depends_on, q->weight);
		if (q->stream / 2 + 1 > out->first_k)
			out->first_k = q->stream / 2 + 1;
	}
	out->len = n;
	read_back(out, p);
	return shb_h2_preface_fp(out->bytes, n, out->fp, sizeof(out->fp)) ? 0 : -1;
}
