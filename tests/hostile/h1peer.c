/* shb-hostile-h1: misbehaving HTTP/1.1 servers for the hostile suite, one
 * per mode, built as scripts on the libevent scripted peers of
 * tests/harness. Each mode reads a request, then answers wrongly: garbage,
 * heads and bodies without end or beyond any sane size, framing that
 * contradicts itself, a byte at a time, or a reset in the middle.
 *
 * The pipe-* modes read --depth requests (4 by default) before they send
 * any response, so that a client that does not pipeline waits for ever,
 * then answer them, all or wrongly.
 *
 *   shb-hostile-h1 --mode MODE [--depth N] [--port-file FILE]
 *                  [--stats-file FILE]
 *
 * Listens on 127.0.0.1, an ephemeral port written to --port-file; at
 * SIGTERM writes what it saw to --stats-file and exits 0. */
#include "harness/peer.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#define MB (1024u * 1024u)
#define SLOW_MS 100 /* slow-loris: one byte every SLOW_MS */
#define HELLO "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nhello, world!"

typedef void (*build_fn)(struct shb_hscript *s);

static unsigned depth = 4; /* --depth: the pipe-* modes' pipeline */

/* Bytes of one character, as a script step: huge lines. */
static void send_fill(struct shb_hscript *s, char ch, size_t n)
{
	char *p = malloc(n);

	if (!p) {
		shb_hscript_send(s, NULL, 1); /* fails: the script is broken */
		return;
	}
	memset(p, ch, n);
	shb_hscript_send(s, p, n);
	free(p);
}

/* Sends str again and again until the client goes away. */
static void send_forever(struct shb_hscript *s, const char *str)
{
	int top = shb_hscript_send_str(s, str);

	shb_hscript_repeat(s, top, 0);
}

/* One request in, then a fixed answer, then close. */
static void answer_close(struct shb_hscript *s, const char *answer)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, answer);
	shb_hscript_close(s);
}

static void m_garbage_status(struct shb_hscript *s)
{
	answer_close(s, "HELLO WORLD THIS IS NOT HTTP\r\n\r\n");
}

/* Binary noise, no line ending anywhere. */
static void m_binary(struct shb_hscript *s)
{
	uint8_t junk[4096];
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < sizeof(junk); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		junk[i] = (uint8_t)(x == '\n' ? 0 : x);
	}
	shb_hscript_expect_request(s);
	shb_hscript_send(s, junk, sizeof(junk));
	shb_hscript_close(s);
}

static void m_bad_code(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n");
}

static void m_endless_headers(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\n");
	send_forever(s, "X-Hostile: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
}

static void m_huge_header(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\nX-Big: ");
	send_fill(s, 'a', MB);
	shb_hscript_send_str(s, "\r\nContent-Length: 0\r\n\r\n");
	shb_hscript_close(s);
}

static void m_huge_status(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 ");
	send_fill(s, 'O', MB);
	shb_hscript_send_str(s, "\r\nContent-Length: 0\r\n\r\n");
	shb_hscript_close(s);
}

static void m_cl_conflict(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
		     "Content-Length: 6\r\n\r\nhello!");
}

static void m_cl_list(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n"
		     "hello!");
}

static void m_cl_huge(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 200 OK\r\n"
		     "Content-Length: 184467440737095516160000\r\n\r\nhello");
}

/* A length that is valid but far beyond what will come: 1 MiB of it,
 * then the connection closes. */
static void m_cl_big_close(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\n"
			     "Content-Length: 1000000000000\r\n\r\n");
	send_fill(s, 'b', MB);
	shb_hscript_close(s);
}

static void m_cl_negative(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nhello");
}

/* RFC 9112 5.2: the fold is a space, so the value is "2 3": invalid. */
static void m_cl_obsfold(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n 3\r\n\r\n"
		     "hello");
}

static void m_chunk_bad(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		     "zz\r\nhello\r\n0\r\n\r\n");
}

static void m_chunk_overflow(struct shb_hscript *s)
{
	answer_close(s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		     "10000000000000000000001\r\nhello\r\n0\r\n\r\n");
}

/* Chunks of one byte, forever: a body that never ends. */
static void m_chunk_endless(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\n"
			     "Transfer-Encoding: chunked\r\n\r\n");
	send_forever(s, "1\r\na\r\n");
}

/* A chunk-size line whose extension never ends. */
static void m_chunk_ext_endless(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\n"
			     "Transfer-Encoding: chunked\r\n\r\n5;ext=");
	send_forever(s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
}

static void m_trailers_endless(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\n"
			     "Transfer-Encoding: chunked\r\n\r\n"
			     "5\r\nhello\r\n0\r\n");
	send_forever(s, "X-Trailer: tttttttttttttttttttttttttttttttttttt\r\n");
}

/* No framing: the body runs until the server closes, which it never does. */
static void m_body_endless(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\n\r\n");
	send_forever(s, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
		     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
}

static void m_flood_1xx(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	send_forever(s, "HTTP/1.1 100 Continue\r\n\r\n");
}

/* A valid response, one byte every SLOW_MS. */
static void m_slowloris(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	for (const char *p = HELLO; *p; p++) {
		shb_hscript_send(s, p, 1);
		shb_hscript_delay(s, SLOW_MS);
	}
	shb_hscript_close(s);
}

static void m_reset_body(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n"
			     "\r\n0123456789");
	shb_hscript_delay(s, 20); /* the bytes leave before the RST */
	shb_hscript_reset(s);
}

static void m_reset_head(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\nContent-Le");
	shb_hscript_delay(s, 20);
	shb_hscript_reset(s);
}

/* Accepts and closes at once, before any request: no connection ever
 * carries one, whatever the client does. */
static void m_accept_close(struct shb_hscript *s)
{
	shb_hscript_close(s);
}

static void m_empty_reply(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_close(s);
}

/* A major version shb does not speak (RFC 9112 2.3). */
static void m_bad_version(struct shb_hscript *s)
{
	answer_close(s, "HTTP/9.9 200 OK\r\nContent-Length: 5\r\n\r\nhello");
}

/* The HTTP/2 connection preface in place of a response. */
static void m_h2_preface(struct shb_hscript *s)
{
	static const char r[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
				"\0\0\0\4\0\0\0\0\0";

	shb_hscript_expect_request(s);
	shb_hscript_send(s, r, sizeof(r) - 1);
	shb_hscript_close(s);
}

/* Redirects for -L, on keep-alive: to the URL itself (a loop), with a
 * Location of 64 KiB (over the 8 KiB a redirect may lead to), and with a
 * control byte in it. */
static void redirect_forever(struct shb_hscript *s, const char *answer)
{
	int top = shb_hscript_expect_request(s);

	shb_hscript_send_str(s, answer);
	shb_hscript_repeat(s, top, 0);
}

static void m_redirect_self(struct shb_hscript *s)
{
	redirect_forever(s, "HTTP/1.1 302 Found\r\nLocation: /\r\n"
			 "Content-Length: 0\r\n\r\n");
}

static void m_redirect_huge(struct shb_hscript *s)
{
	int top = shb_hscript_expect_request(s);

	shb_hscript_send_str(s, "HTTP/1.1 301 Moved\r\nLocation: /");
	send_fill(s, 'a', 64 * 1024);
	shb_hscript_send_str(s, "\r\nContent-Length: 0\r\n\r\n");
	shb_hscript_repeat(s, top, 0);
}

static void m_redirect_bad(struct shb_hscript *s)
{
	redirect_forever(s, "HTTP/1.1 307 T\r\nLocation: /a\x01b\r\n"
			 "Content-Length: 0\r\n\r\n");
}

/* -L and --timeout: the 302 comes after 900 ms, then the hop it leads
 * to (on the same connection) is read and never answered. */
static void m_redirect_slow(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_delay(s, 900);
	shb_hscript_send_str(s, "HTTP/1.1 302 Found\r\nLocation: /hop\r\n"
			     "Content-Length: 0\r\n\r\n");
	shb_hscript_expect_request(s);
	shb_hscript_stall(s);
}

/* A 302 to --location, on keep-alive (set before the script is built). */
static char away_answer[1024];

static void m_redirect_away(struct shb_hscript *s)
{
	if (!away_answer[0]) /* no --location: the script is refused */
		shb_hscript_send(s, NULL, 1);
	redirect_forever(s, away_answer);
}

/* Every request read, none answered. */
static void m_silent(struct shb_hscript *s)
{
	int top = shb_hscript_expect_request(s);

	shb_hscript_repeat(s, top, 0);
}

static void m_hello(struct shb_hscript *s)
{
	int top = shb_hscript_expect_request(s);

	shb_hscript_send_str(s, HELLO);
	shb_hscript_repeat(s, top, 0);
}

/* Reads `depth` requests before any answer: the step to repeat. */
static int read_pipeline(struct shb_hscript *s)
{
	int top = shb_hscript_expect_request(s);

	for (unsigned i = 1; i < depth; i++)
		shb_hscript_expect_request(s);
	return top;
}

/* n copies of str in one send step: one write, so that a client reads
 * them in one receive (one segment on loopback). */
static void send_n(struct shb_hscript *s, const char *str, unsigned n)
{
	size_t len = strlen(str);
	char *p = malloc(len * n + 1);

	if (!p) {
		shb_hscript_send(s, NULL, 1); /* fails: the script is broken */
		return;
	}
	for (unsigned i = 0; i < n; i++)
		memcpy(p + i * len, str, len);
	shb_hscript_send(s, p, len * n);
	free(p);
}

/* Every pipeline answered, for ever. */
static void m_pipe(struct shb_hscript *s)
{
	int top = read_pipeline(s);

	send_n(s, HELLO, depth);
	shb_hscript_repeat(s, top, 0);
}

/* Two answers, then FIN: the rest of the pipeline is lost. */
static void m_pipe_close_mid(struct shb_hscript *s)
{
	read_pipeline(s);
	send_n(s, HELLO, 2);
	shb_hscript_close(s);
}

/* One answer, then RST. */
static void m_pipe_reset(struct shb_hscript *s)
{
	read_pipeline(s);
	send_n(s, HELLO, 1);
	shb_hscript_delay(s, 20); /* the bytes leave before the RST */
	shb_hscript_reset(s);
}

/* No answer at all: the pipeline waits for --timeout. */
static void m_pipe_stall(struct shb_hscript *s)
{
	read_pipeline(s);
	shb_hscript_stall(s);
}

/* One answer fewer than requests, then silence. */
static void m_pipe_one_fewer(struct shb_hscript *s)
{
	read_pipeline(s);
	send_n(s, HELLO, depth - 1);
	shb_hscript_stall(s);
}

/* One answer more than requests, then silence. */
static void m_pipe_extra(struct shb_hscript *s)
{
	read_pipeline(s);
	send_n(s, HELLO, depth + 1);
	shb_hscript_stall(s);
}

/* The first request answered with Connection: close, then FIN: the
 * server processes none of those behind it (RFC 9112 9.6), however many
 * there are. */
static void m_pipe_conn_close(struct shb_hscript *s)
{
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\nConnection: close\r\n"
			     "Content-Length: 13\r\n\r\nhello, world!");
	shb_hscript_close(s);
}

static const struct {
	const char *name;
	build_fn build;
} modes[] = {
	{ "hello", m_hello },
	{ "redirect-self", m_redirect_self },
	{ "redirect-huge", m_redirect_huge },
	{ "redirect-bad", m_redirect_bad },
	{ "redirect-slow", m_redirect_slow },
	{ "redirect-away", m_redirect_away },
	{ "silent", m_silent },
	{ "garbage-status", m_garbage_status },
	{ "binary", m_binary },
	{ "bad-code", m_bad_code },
	{ "endless-headers", m_endless_headers },
	{ "huge-header", m_huge_header },
	{ "huge-status", m_huge_status },
	{ "cl-conflict", m_cl_conflict },
	{ "cl-list", m_cl_list },
	{ "cl-huge", m_cl_huge },
	{ "cl-big-close", m_cl_big_close },
	{ "cl-negative", m_cl_negative },
	{ "cl-obsfold", m_cl_obsfold },
	{ "chunk-bad", m_chunk_bad },
	{ "chunk-overflow", m_chunk_overflow },
	{ "chunk-endless", m_chunk_endless },
	{ "chunk-ext-endless", m_chunk_ext_endless },
	{ "trailers-endless", m_trailers_endless },
	{ "body-endless", m_body_endless },
	{ "flood-1xx", m_flood_1xx },
	{ "slowloris", m_slowloris },
	{ "reset-body", m_reset_body },
	{ "reset-head", m_reset_head },
	{ "empty-reply", m_empty_reply },
	{ "accept-close", m_accept_close },
	{ "bad-version", m_bad_version },
	{ "h2-preface", m_h2_preface },
	{ "pipe", m_pipe },
	{ "pipe-close-mid", m_pipe_close_mid },
	{ "pipe-reset", m_pipe_reset },
	{ "pipe-one-fewer", m_pipe_one_fewer },
	{ "pipe-stall", m_pipe_stall },
	{ "pipe-extra", m_pipe_extra },
	{ "pipe-conn-close", m_pipe_conn_close },
};

static struct shb_hscript *build(const char *mode)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(mode, modes[i].name) == 0) {
			struct shb_hscript *s = shb_hscript_new();

			if (s)
				modes[i].build(s);
			return s;
		}
	}
	return NULL;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok = f && fputs(text, f) >= 0;

	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, "shb-hostile-h1: cannot write %s: %s\n", path,
			strerror(errno));
	return ok ? 0 : -1;
}

/* Written under another name and renamed: a script polling for the file
 * never reads half of it. */
static int write_atomic(const char *path, const char *text)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (write_file(tmp, text) < 0)
		return -1;
	return rename(tmp, path);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopexit(arg, NULL);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: shb-hostile-h1 --mode MODE [--depth N] "
		"[--port-file FILE] [--stats-file FILE] [--location URL]\n"
		"--location URL: where redirect-away redirects to\nmodes:");
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		fprintf(out, " %s", modes[i].name);
	fprintf(out, "\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "depth", required_argument, NULL, 'd' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "stats-file", required_argument, NULL, 's' },
		{ "location", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode = NULL, *port_file = NULL, *stats_file = NULL;
	char err[256], text[512];
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm': mode = optarg; break;
		case 'd':
			depth = (unsigned)strtoul(optarg, NULL, 10);
			if (depth < 2 || depth > 1024) {
				usage(stderr);
				return 2;
			}
			break;
		case 'f': port_file = optarg; break;
		case 's': stats_file = optarg; break;
		case 'l':
			snprintf(away_answer, sizeof(away_answer), "HTTP/1.1 302 "
				 "Found\r\nLocation: %.900s\r\nContent-Length: "
				 "0\r\n\r\n", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	struct shb_hscript *script = mode ? build(mode) : NULL;
	if (!script) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	struct event_base *base = event_base_new();
	struct shb_hpeer *peer = base ? shb_hpeer_new(base, NULL, 0, script,
						      err, sizeof(err)) : NULL;
	if (!peer) {
		fprintf(stderr, "shb-hostile-h1: %s\n", base ? err : "no event base");
		if (base)
			event_base_free(base);
		return 1;
	}
	struct event *sigterm = evsignal_new(base, SIGTERM, on_signal, base);
	evsignal_add(sigterm, NULL);
	snprintf(text, sizeof(text), "%u\n", (unsigned)shb_hpeer_port(peer));
	if (port_file && write_atomic(port_file, text) < 0)
		rc = 1;
	else
		event_base_dispatch(base);

	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(peer, &st);
	shb_hpeer_free(peer);
	snprintf(text, sizeof(text),
		 "{\"accepted\": %" PRIu64 ", \"requests\": %" PRIu64
		 ", \"bytesOut\": %" PRIu64 ", \"resets\": %" PRIu64 "}\n",
		 st.accepted, st.requests, st.bytes_out, st.resets);
	if (stats_file && write_atomic(stats_file, text) < 0)
		rc = 1;
	event_free(sigterm);
	event_base_free(base);
	return rc;
}
