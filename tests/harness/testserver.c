/* shb-testserver: HTTP/1.1 test server on loopback for the end-to-end
 * tests, built from scripted peers. Every mode is one script; the server
 * is a single event loop thread. */
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

#define HELLO_BODY "hello, world!"
#define HELLO_HEAD "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n" \
	"Content-Type: text/plain\r\n"

static const char hello_keep[] = HELLO_HEAD "\r\n" HELLO_BODY;
static const char hello_close[] = HELLO_HEAD "Connection: close\r\n\r\n"
	HELLO_BODY;

struct options {
	const char *host;
	uint16_t port;
	const char *port_file;
	const char *stats_file;
	const char *mode;
	uint32_t delay_ms;
	uint32_t accept_max;
	uint32_t accept_after_ms;
};

/* Answers hello, closing when the client asked for it. */
static enum shb_hact answer_hello(struct shb_hconn *c, void *arg)
{
	if (shb_hconn_request(c)->wants_close) {
		shb_hconn_send(c, hello_close, sizeof(hello_close) - 1);
		return SHB_HACT_CLOSE;
	}
	shb_hconn_send(c, hello_keep, sizeof(hello_keep) - 1);
	return SHB_HACT_NEXT;
}

/* Answers with the decimal length of the request body just read. */
static enum shb_hact answer_echo_len(struct shb_hconn *c, void *arg)
{
	char body[24];
	int n = snprintf(body, sizeof(body), "%" PRIu64, shb_hconn_body_len(c));
	int close = shb_hconn_request(c)->wants_close;
	shb_hconn_printf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
			 "Content-Type: text/plain\r\n%s\r\n%s", n,
			 close ? "Connection: close\r\n" : "", body);
	return close ? SHB_HACT_CLOSE : SHB_HACT_NEXT;
}

static void maybe_delay(struct shb_hscript *s, uint32_t ms)
{
	if (ms)
		shb_hscript_delay(s, ms);
}

/* Builds the script of a mode, or returns NULL for an unknown mode. */
static struct shb_hscript *build_script(const char *mode, uint32_t delay_ms)
{
	struct shb_hscript *s = shb_hscript_new();
	if (!s)
		return NULL;
	if (strcmp(mode, "hello") == 0 || strcmp(mode, "echo-len") == 0) {
		int top = shb_hscript_expect_request(s);
		maybe_delay(s, delay_ms);
		shb_hscript_call(s, mode[0] == 'h' ? answer_hello
						   : answer_echo_len, NULL);
		shb_hscript_repeat(s, top, 0);
	} else if (strcmp(mode, "stubborn") == 0) {
		/* 204 has no body by definition, so no Content-Length; the
		 * server never closes, whatever the client asked. */
		int top = shb_hscript_expect_request(s);
		maybe_delay(s, delay_ms);
		shb_hscript_send_str(s, "HTTP/1.1 204 No Content\r\n\r\n");
		shb_hscript_repeat(s, top, 0);
	} else if (strcmp(mode, "eager") == 0) {
		shb_hscript_expect_head(s);
		maybe_delay(s, delay_ms);
		shb_hscript_send(s, hello_close, sizeof(hello_close) - 1);
		shb_hscript_expect_body(s);
		shb_hscript_close(s);
	} else if (strcmp(mode, "silent") == 0) {
		shb_hscript_stall(s);
	} else if (strcmp(mode, "midclose") == 0) {
		shb_hscript_expect_request(s);
		maybe_delay(s, delay_ms);
		shb_hscript_send_str(s, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n"
				     "\r\n0123456789");
		shb_hscript_close(s);
	} else if (strcmp(mode, "close") == 0) {
		shb_hscript_expect_request(s);
		maybe_delay(s, delay_ms);
		shb_hscript_send(s, hello_close, sizeof(hello_close) - 1);
		shb_hscript_close(s);
	} else if (strcmp(mode, "reset") == 0) {
		shb_hscript_expect_request(s);
		shb_hscript_reset(s);
	} else {
		shb_hscript_free(s);
		return NULL;
	}
	return s;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shb-testserver [--host ADDR] [--port N] [--port-file FILE]\n"
		"                      [--stats-file FILE] [--mode MODE] [--delay-ms N]\n"
		"                      [--accept-max N [--accept-after-ms MS]]\n"
		"--accept-max N: a listen queue of N, accepting only after MS\n"
		"       (default 300; SYNs beyond the queue are dropped), and the\n"
		"       listener closed once N are accepted (later connects refused)\n"
		"modes: hello (default), echo-len, stubborn, eager, silent,\n"
		"       midclose, close, reset\n");
}

static int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "stats-file", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "delay-ms", required_argument, NULL, 'd' },
		{ "accept-max", required_argument, NULL, 'x' },
		{ "accept-after-ms", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t v;
	int ch;
	*o = (struct options){ .host = "127.0.0.1", .mode = "hello",
			       .accept_after_ms = 300 };
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a': o->host = optarg; break;
		case 'f': o->port_file = optarg; break;
		case 's': o->stats_file = optarg; break;
		case 'm': o->mode = optarg; break;
		case 'p':
			if (parse_u32(optarg, 65535, &v) < 0) {
				fprintf(stderr, "shb-testserver: invalid --port '%s'\n", optarg);
				return -1;
			}
			o->port = (uint16_t)v;
			break;
		case 'd':
			if (parse_u32(optarg, 3600000, &v) < 0) {
				fprintf(stderr, "shb-testserver: invalid --delay-ms '%s'\n", optarg);
				return -1;
			}
			o->delay_ms = v;
			break;
		case 'x':
			if (parse_u32(optarg, UINT32_MAX, &v) < 0) {
				fprintf(stderr, "shb-testserver: invalid --accept-max '%s'\n", optarg);
				return -1;
			}
			o->accept_max = v;
			break;
		case 'w':
			if (parse_u32(optarg, 3600000, &v) < 0) {
				fprintf(stderr, "shb-testserver: invalid --accept-after-ms '%s'\n", optarg);
				return -1;
			}
			o->accept_after_ms = v;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "shb-testserver: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* Written under a temporary name and renamed, so a script polling for the
 * file never reads it half-written. */
static int write_file_atomic(const char *path, const char *text)
{
	size_t n = strlen(path) + 8;
	char *tmp = malloc(n);
	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (ok && rename(tmp, path) < 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, "shb-testserver: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ok ? 0 : -1;
}

static int write_stats(const char *path, const struct shb_hpeer_stats *st)
{
	char text[512];
	snprintf(text, sizeof(text),
		 "{\"accepted\": %" PRIu64 ", \"closed\": %" PRIu64
		 ", \"requests\": %" PRIu64 ", \"bytesIn\": %" PRIu64
		 ", \"bytesOut\": %" PRIu64 ", \"protocolErrors\": %" PRIu64
		 ", \"resets\": %" PRIu64 ", \"acceptErrors\": %" PRIu64 "}\n",
		 st->accepted, st->closed, st->requests, st->bytes_in,
		 st->bytes_out, st->protocol_errors, st->resets,
		 st->accept_errors);
	return write_file_atomic(path, text);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopexit(arg, NULL);
}

int main(int argc, char **argv)
{
	struct options o;
	char err[256];
	if (parse_args(argc, argv, &o) < 0)
		return 2;
	struct shb_hscript *script = build_script(o.mode, o.delay_ms);
	if (!script) {
		fprintf(stderr, "shb-testserver: unknown mode '%s'\n", o.mode);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	struct event_base *base = event_base_new();
	if (!base) {
		fprintf(stderr, "shb-testserver: cannot create an event base\n");
		shb_hscript_free(script);
		return 1;
	}
	struct shb_hpeer *peer = shb_hpeer_new(base, o.host, o.port, script,
					       err, sizeof(err));
	if (!peer) {
		fprintf(stderr, "shb-testserver: %s\n", err);
		event_base_free(base);
		return 1;
	}
	if (o.accept_max && shb_hpeer_set_accept_max(peer, o.accept_max,
						     o.accept_after_ms) < 0) {
		fprintf(stderr, "shb-testserver: --accept-max %u: %s\n",
			o.accept_max, strerror(errno));
		shb_hpeer_free(peer);
		event_base_free(base);
		return 1;
	}
	struct event *sigterm = evsignal_new(base, SIGTERM, on_signal, base);
	struct event *sigint = evsignal_new(base, SIGINT, on_signal, base);
	evsignal_add(sigterm, NULL);
	evsignal_add(sigint, NULL);
	int rc = 0;
	char portline[16];
	snprintf(portline, sizeof(portline), "%u\n", (unsigned)shb_hpeer_port(peer));
	if (o.port_file && write_file_atomic(o.port_file, portline) < 0) {
		rc = 1;
	} else {
		printf(strchr(o.host, ':') ? "listening on [%s]:%u\n"
					   : "listening on %s:%u\n",
		       o.host, (unsigned)shb_hpeer_port(peer));
		fflush(stdout);
		event_base_dispatch(base);
	}
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(peer, &st);
	shb_hpeer_free(peer);
	if (o.stats_file && write_stats(o.stats_file, &st) < 0)
		rc = 1;
	event_free(sigterm);
	event_free(sigint);
	event_base_free(base);
	return rc;
}
