/* shb-h2-peer: options, the listener, signals and the stats file. */
#include "h2peer.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

struct options {
	const char *host;
	uint16_t port;
	const char *port_file;
	const char *stats_file;
};

static const struct {
	const char *name;
	enum shb_h2peer_mode mode;
} mode_names[] = {
	{ "hello", SHB_H2PEER_HELLO },
	{ "goaway-after", SHB_H2PEER_GOAWAY_AFTER },
	{ "refuse-first-flight", SHB_H2PEER_REFUSE_FIRST_FLIGHT },
	{ "table-size", SHB_H2PEER_TABLE_SIZE },
	{ "small-windows", SHB_H2PEER_SMALL_WINDOWS },
	{ "continuation", SHB_H2PEER_CONTINUATION },
	{ "reset", SHB_H2PEER_RESET },
	{ "garbage", SHB_H2PEER_GARBAGE },
	{ "ping", SHB_H2PEER_PING },
	{ "stall", SHB_H2PEER_STALL },
};

/* Hostile modes (tests/hostile), in enum shb_h2peer_hostile order. */
static const char *const hostile_names[] = {
	[SHB_H2PEER_X_SETTINGS_FLOOD] = "settings-flood",
	[SHB_H2PEER_X_PING_FLOOD] = "ping-flood",
	[SHB_H2PEER_X_WINDOW_FLOOD] = "window-update-flood",
	[SHB_H2PEER_X_RST_FLOOD] = "rst-flood",
	[SHB_H2PEER_X_WINDOW_OVERFLOW] = "window-overflow",
	[SHB_H2PEER_X_STREAM_WINDOW_OVERFLOW] = "stream-window-overflow",
	[SHB_H2PEER_X_DATA_STREAM0] = "data-stream0",
	[SHB_H2PEER_X_HEADERS_STREAM0] = "headers-stream0",
	[SHB_H2PEER_X_CLOSED_STREAM] = "closed-stream",
	[SHB_H2PEER_X_IDLE_STREAM] = "idle-stream",
	[SHB_H2PEER_X_DATA_FIRST] = "data-first",
	[SHB_H2PEER_X_OVERSIZE] = "oversize",
	[SHB_H2PEER_X_SETTINGS_BAD] = "settings-bad",
	[SHB_H2PEER_X_SIZE_UPDATE] = "size-update",
	[SHB_H2PEER_X_BAD_INDEX] = "bad-index",
	[SHB_H2PEER_X_HUFFMAN_EOS] = "huffman-eos",
	[SHB_H2PEER_X_HUFFMAN_PAD] = "huffman-pad",
	[SHB_H2PEER_X_INT_OVERFLOW] = "int-overflow",
	[SHB_H2PEER_X_HPACK_BOMB] = "hpack-bomb",
	[SHB_H2PEER_X_CONTINUATION_ENDLESS] = "continuation-endless",
	[SHB_H2PEER_X_PSEUDO_LATE] = "pseudo-late",
	[SHB_H2PEER_X_REQUEST_PSEUDO] = "request-pseudo",
	[SHB_H2PEER_X_PUSH_PROMISE] = "push-promise",
	[SHB_H2PEER_X_GOAWAY_STORM] = "goaway-storm",
	[SHB_H2PEER_X_GOAWAY_OPEN] = "goaway-open",
	[SHB_H2PEER_X_REFUSE_ALL] = "refuse-all",
	[SHB_H2PEER_X_NO_STREAMS] = "no-streams",
};

static const char *const garbage_names[] = {
	[SHB_H2PEER_G_OVERSIZE] = "oversize",
	[SHB_H2PEER_G_SETTINGS_LEN] = "settings-len",
	[SHB_H2PEER_G_CONTINUATION] = "continuation",
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shb-h2-peer --mode 'MODE [N]' [--port-file FILE] [--stats-file FILE]\n"
		"                   [--host ADDR] [--port N] [--goaway-after N]\n"
		"                   [--garbage KIND] [--wait-streams N]\n"
		"modes (HTTP/2 with prior knowledge, one answer 'hello, world!'):\n"
		"  hello                  answer every request\n"
		"  goaway-after N         GOAWAY after N answers on a connection\n"
		"  refuse-first-flight [M]  REFUSED_STREAM before our SETTINGS\n"
		"                         are ACKed; MAX_CONCURRENT_STREAMS M (4)\n"
		"  table-size [N]         HEADER_TABLE_SIZE N (0): check the update\n"
		"  small-windows [BYTES]  16 KiB stream windows; 200 when a body\n"
		"                         has BYTES (204800) octets, else 400\n"
		"  continuation [BYTES]   a header block of BYTES (49152) octets\n"
		"  reset N                RST_STREAM(INTERNAL_ERROR) every Nth request\n"
		"  garbage                every 3rd connection gets a bad frame\n"
		"                         (--garbage oversize|settings-len|continuation)\n"
		"  ping [N]               a PING before every Nth answer (1), which\n"
		"                         waits for its ACK\n"
		"  stall N                every Nth request is never answered (the\n"
		"                         client must reset it; the others are)\n"
		"hostile modes (every connection; see h2peer.h):\n ");
	for (size_t i = 0; i < sizeof(hostile_names) / sizeof(hostile_names[0]); i++)
		fprintf(out, " %s", hostile_names[i]);
	fprintf(out, "\n");
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

/* "NAME" or "NAME N". */
static int parse_mode(const char *text, struct shb_h2peer_config *cfg)
{
	char name[32];
	const char *sp = strchr(text, ' ');
	size_t n = sp ? (size_t)(sp - text) : strlen(text);

	if (n >= sizeof(name))
		return -1;
	memcpy(name, text, n);
	name[n] = '\0';
	cfg->has_arg = 0;
	if (sp) {
		if (parse_u64(sp + 1, UINT32_MAX, &cfg->arg) < 0)
			return -1;
		cfg->has_arg = 1;
	}
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (strcmp(name, mode_names[i].name) == 0) {
			cfg->mode = mode_names[i].mode;
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(hostile_names) / sizeof(hostile_names[0]); i++) {
		if (strcmp(name, hostile_names[i]) == 0) {
			cfg->mode = SHB_H2PEER_HOSTILE;
			cfg->hostile = (enum shb_h2peer_hostile)i;
			return 0;
		}
	}
	return -1;
}

static int parse_garbage(const char *text, struct shb_h2peer_config *cfg)
{
	for (size_t i = 0; i < sizeof(garbage_names) / sizeof(garbage_names[0]); i++) {
		if (strcmp(text, garbage_names[i]) == 0) {
			cfg->garbage = (enum shb_h2peer_garbage)i;
			return 0;
		}
	}
	return -1;
}

static int bad_value(const char *opt, const char *v)
{
	fprintf(stderr, "shb-h2-peer: invalid %s '%s'\n", opt, v);
	return -1;
}

static int parse_args(int argc, char **argv, struct options *o,
		      struct shb_h2peer_config *cfg)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "stats-file", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "garbage", required_argument, NULL, 'g' },
		{ "goaway-after", required_argument, NULL, 'G' },
		{ "wait-streams", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int ch, have_mode = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a': o->host = optarg; break;
		case 'f': o->port_file = optarg; break;
		case 's': o->stats_file = optarg; break;
		case 'm':
			if (parse_mode(optarg, cfg) < 0)
				return bad_value("--mode", optarg);
			have_mode = 1;
			break;
		case 'g':
			if (parse_garbage(optarg, cfg) < 0)
				return bad_value("--garbage", optarg);
			break;
		case 'p':
			if (parse_u64(optarg, 65535, &v) < 0)
				return bad_value("--port", optarg);
			o->port = (uint16_t)v;
			break;
		case 'G':
		case 'w':
			if (parse_u64(optarg, UINT32_MAX, &v) < 0 || v == 0)
				return bad_value(ch == 'G' ? "--goaway-after"
							   : "--wait-streams", optarg);
			if (ch == 'G')
				cfg->goaway_after = (uint32_t)v;
			else
				cfg->wait_streams = (uint32_t)v;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "shb-h2-peer: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!have_mode) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* Written under a temporary name and renamed, so a script polling for
 * the file never reads it half-written. */
static int write_file_atomic(const char *path, const char *text)
{
	size_t n = strlen(path) + 8;
	char *tmp = malloc(n);
	FILE *f;
	int ok;

	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp", path);
	f = fopen(tmp, "w");
	ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (ok && rename(tmp, path) < 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, "shb-h2-peer: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ok ? 0 : -1;
}

/* The violation text goes into JSON: keep it printable, no quotes. */
static void json_safe(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			*s = '?';
}

static int write_stats(const char *path, struct shb_h2peer *p)
{
	struct shb_h2peer_stats *st = &p->st;
	char text[2048];

	json_safe(st->first_violation);
	snprintf(text, sizeof(text),
		 "{\"connections\": %" PRIu64 ", \"streams\": %" PRIu64
		 ", \"answered\": %" PRIu64 ", \"answeredAfterGoaway\": %" PRIu64
		 ", \"status400\": %" PRIu64
		 ", \"refused\": %" PRIu64 ", \"resetsSent\": %" PRIu64
		 ", \"goawaysSent\": %" PRIu64 ", \"aboveGoaway\": %" PRIu64
		 ", \"clientResets\": %" PRIu64 ", \"clientGoaways\": %" PRIu64
		 ", \"clientGoawayErrors\": %" PRIu64
		 ", \"violations\": %" PRIu64 ", \"firstViolation\": \"%s\""
		 ", \"pingsSent\": %" PRIu64 ", \"pingsAcked\": %" PRIu64
		 ", \"pingMismatches\": %" PRIu64
		 ", \"sizeUpdates\": %" PRIu64 ", \"missingUpdates\": %" PRIu64
		 ", \"bodiesOk\": %" PRIu64 ", \"bodiesBad\": %" PRIu64
		 ", \"bodyBytes\": %" PRIu64 ", \"windowUpdates\": %" PRIu64
		 ", \"maxDataFrame\": %" PRIu64
		 ", \"continuations\": %" PRIu64 ", \"blockLen\": %zu"
		 ", \"garbageConns\": %" PRIu64 ", \"garbageStreams\": %" PRIu64
		 ", \"maxOpen\": %" PRIu64 ", \"bytesIn\": %" PRIu64
		 ", \"bytesOut\": %" PRIu64 ", \"idleConns\": %" PRIu64
		 ", \"handshakeOut\": %" PRIu64 "}\n",
		 st->connections, st->streams, st->answered,
		 st->answered_late, st->status400,
		 st->refused, st->resets_sent, st->goaways_sent,
		 st->above_goaway, st->client_resets, st->client_goaways,
		 st->client_goaway_errors, st->violations,
		 st->first_violation, st->pings_sent, st->pings_acked,
		 st->ping_mismatches, st->size_updates, st->missing_updates,
		 st->bodies_ok, st->bodies_bad, st->body_bytes,
		 st->window_updates, st->max_data_frame, st->continuations,
		 p->cfg.mode == SHB_H2PEER_CONTINUATION ? p->big.len
							 : p->hello.len,
		 st->garbage_conns, st->garbage_streams, st->max_open,
		 st->bytes_in, st->bytes_out, st->idle_conns,
		 st->handshake_out);
	return write_file_atomic(path, text);
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	shb_h2peer_accept(arg, fd);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopexit(arg, NULL);
}

/* A numeric IPv4 or IPv6 address and a port, 0 included (which
 * evutil_parse_sockaddr_port refuses). */
static int make_addr(const char *host, uint16_t port,
		     struct sockaddr_storage *ss, int *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (evutil_inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		*len = (int)sizeof(*a4);
		return 0;
	}
	if (evutil_inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		*len = (int)sizeof(*a6);
		return 0;
	}
	return -1;
}

/* Returns the port listened on, or -1. */
static int listen_on(struct shb_h2peer *p, const struct options *o)
{
	struct sockaddr_storage ss;
	socklen_t bl = sizeof(ss);
	int len;

	if (make_addr(o->host, o->port, &ss, &len) < 0) {
		fprintf(stderr, "shb-h2-peer: invalid listen address '%s' "
			"(numeric IPv4 or IPv6 expected)\n", o->host);
		return -1;
	}
	p->lis = evconnlistener_new_bind(p->base, on_accept, p,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
		1024, (struct sockaddr *)&ss, len);
	if (!p->lis) {
		fprintf(stderr, "shb-h2-peer: cannot listen on %s port %u: %s\n",
			o->host, (unsigned)o->port, strerror(errno));
		return -1;
	}
	getsockname(evconnlistener_get_fd(p->lis), (struct sockaddr *)&ss, &bl);
	return ss.ss_family == AF_INET6
		? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
		: ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static int serve(struct shb_h2peer *p, const struct options *o)
{
	struct event *sigterm = evsignal_new(p->base, SIGTERM, on_signal, p->base);
	struct event *sigint = evsignal_new(p->base, SIGINT, on_signal, p->base);
	char line[16];
	int port = listen_on(p, o), rc = 0;

	if (port < 0 || !sigterm || !sigint) {
		rc = 1;
	} else {
		evsignal_add(sigterm, NULL);
		evsignal_add(sigint, NULL);
		snprintf(line, sizeof(line), "%d\n", port);
		if (o->port_file && write_file_atomic(o->port_file, line) < 0) {
			rc = 1;
		} else {
			printf("listening on port %d\n", port);
			fflush(stdout);
			event_base_dispatch(p->base);
		}
	}
	if (sigterm)
		event_free(sigterm);
	if (sigint)
		event_free(sigint);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o = { .host = "127.0.0.1" };
	struct shb_h2peer p;
	char err[128];
	int rc;

	memset(&p, 0, sizeof(p));
	shb_buf_init(&p.hello, 256, SHB_H2PEER_BLOCK_MAX);
	shb_buf_init(&p.bad, 256, SHB_H2PEER_BLOCK_MAX);
	shb_buf_init(&p.big, 256, SHB_H2PEER_BLOCK_MAX);
	p.cfg.initial_window = SHB_H2_DEFAULT_WINDOW;
	p.cfg.wait_streams = 4;
	if (parse_args(argc, argv, &o, &p.cfg) < 0)
		return 2;
	if (shb_h2peer_mode_setup(&p, err, sizeof(err)) < 0) {
		fprintf(stderr, "shb-h2-peer: %s\n", err);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	p.base = event_base_new();
	if (!p.base) {
		fprintf(stderr, "shb-h2-peer: cannot create an event base\n");
		return 1;
	}
	rc = serve(&p, &o);
	while (p.conns)
		shb_h2peer_conn_free(p.conns);
	if (p.lis)
		evconnlistener_free(p.lis);
	if (rc == 0 && o.stats_file && write_stats(o.stats_file, &p) < 0)
		rc = 1;
	shb_buf_free(&p.hello);
	shb_buf_free(&p.bad);
	shb_buf_free(&p.big);
	event_base_free(p.base);
	return rc;
}
