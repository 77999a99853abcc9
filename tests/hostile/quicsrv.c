/* shb-hostile-quicsrv: the connection tests' in-process QUIC server
 * (tests/h3/conn/ts_server.c) on a real UDP socket, for the hostile cases
 * that need a handshake to get anywhere:
 *
 *   bad-tp-odcid  transport parameters with a wrong
 *                 original_destination_connection_id
 *   bad-tp-iscid  a wrong initial_source_connection_id
 *   bad-tp-retry  a Retry, then no retry_source_connection_id
 *   raw-streams   a complete handshake, then answers that are not
 *                 HTTP/3 (raw bytes on each request stream, three bytes
 *                 of no known type on a unidirectional stream)
 *   ack-unsent    after the handshake, ACKs of a packet number 1000
 *                 above any the client sent
 *   ack-huge      after the handshake, ACKs of one range covering every
 *                 packet number up to 2^62-1
 *   no-streams    a complete handshake, then no request stream allowed,
 *                 ever
 *   h3            a well-behaved server: every request gets an HTTP/3
 *                 200 with the body "ok" (one request at a time)
 *   qpack-blocked as h3, but each response's field section needs a
 *                 dynamic table entry the server never inserts
 *   qpack-encoder as h3, after an encoder stream that sets a dynamic
 *                 table capacity of 65536, above what shb announces
 *
 *   shb-hostile-quicsrv --mode MODE [--port-file FILE] [--stats-file FILE]
 *
 * One connection at a time: a datagram from a new client address starts
 * a fresh server. Listens on 127.0.0.1, an ephemeral port; SIGTERM ends
 * it with status 0, after it read what was still queued on its socket
 * and wrote "connections N closes M" to the stats file: M of the N
 * connections received the client's CONNECTION_CLOSE. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ts_server.h"

#define DGRAM_MAX 1500

/* HEADERS (QPACK: no dynamic table, static entry 25, :status 200), then
 * DATA "ok". */
static const uint8_t h3_ok[] = {0x01, 0x03, 0x00, 0x00, 0xd9,
				0x00, 0x02, 'o', 'k'};
/* The same answer with a field section that references dynamic entry 0
 * (Required Insert Count 1, encoded 2 for a table of 4096 octets). */
static const uint8_t h3_blocked[] = {0x01, 0x03, 0x02, 0x00, 0x80,
				     0x00, 0x02, 'o', 'k'};
/* A STREAM frame (type 0x0a: length) on our stream 7 (3 is the control
 * stream): the QPACK encoder stream type, then Set Dynamic Table
 * Capacity 65536. */
static const uint8_t enc_65536[] = {0x0a, 0x07, 0x05, 0x02,
				    0x3f, 0xe1, 0xff, 0x03};
#define H3_STREAMS 4096u /* request streams answered per connection */

static volatile sig_atomic_t g_stop;
static unsigned long g_conns, g_closes;
static int g_h3;
static uint8_t g_answered[H3_STREAMS]; /* of the current connection */

static void on_term(int sig)
{
	(void)sig;
	g_stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int set_mode(const char *m, struct ts_config *cfg)
{
	if (strcmp(m, "bad-tp-odcid") == 0)
		cfg->bad_cids = 1;
	else if (strcmp(m, "bad-tp-iscid") == 0)
		cfg->bad_cids = 2;
	else if (strcmp(m, "bad-tp-retry") == 0)
		cfg->bad_cids = 3, cfg->retry = true;
	else if (strcmp(m, "ack-unsent") == 0)
		cfg->bad_ack = 1;
	else if (strcmp(m, "ack-huge") == 0)
		cfg->bad_ack = 2;
	else if (strcmp(m, "no-streams") == 0)
		cfg->max_streams_bidi = TS_NONE; /* no request stream, ever */
	else if (strcmp(m, "h3") == 0)
		cfg->no_auto_response = true, g_h3 = 1;
	else if (strcmp(m, "qpack-blocked") == 0)
		cfg->no_auto_response = true, g_h3 = 2;
	else if (strcmp(m, "qpack-encoder") == 0)
		cfg->no_auto_response = true, g_h3 = 3;
	else if (strcmp(m, "raw-streams") != 0)
		return -1;
	return 0;
}

static int open_socket(const char *port_file)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char tmp[4096];
	FILE *f;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("shb-hostile-quicsrv: socket");
		return -1;
	}
	if (!port_file)
		return fd;
	snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", (unsigned)ntohs(a.sin_port)) < 0 ||
	    fclose(f) != 0 || rename(tmp, port_file) < 0) {
		fprintf(stderr, "shb-hostile-quicsrv: cannot write %s\n", port_file);
		return -1;
	}
	return fd;
}

/* Sends everything the server has queued. */
static void flush(struct ts_server *s, int fd, const struct sockaddr_in *to)
{
	uint8_t out[DGRAM_MAX];
	size_t n;

	while ((n = ts_send(s, out, sizeof(out), now_ns())) > 0)
		sendto(fd, out, n, 0, (const struct sockaddr *)to, sizeof(*to));
}

/* One connection is over (a new client address, or the end): counted. */
static void retire(struct ts_server *s)
{
	uint64_t type, code;
	const char *reason;

	if (!s)
		return;
	g_conns++;
	if (ts_got_close(s, &type, &code, &reason))
		g_closes++;
	ts_free(s);
}

/* h3 mode: each request stream whose request is complete gets h3_ok and
 * FIN, in a STREAM frame (type 0x0b: length and FIN bits) sent once
 * with the next packet (ts_inject; loopback loses nothing). One request
 * at a time, as the cases run them: an injection not yet sent would be
 * replaced. */
static void answer(struct ts_server *s)
{
	uint64_t n = ts_streams_opened(s);

	for (uint64_t i = 0; i < n && i < H3_STREAMS; i++) {
		uint64_t id = 4 * i;
		uint8_t f[sizeof(enc_65536) + 4 + sizeof(h3_ok)];
		size_t len, at = 0;
		bool fin;

		if (g_answered[i] || !ts_stream_data(s, id, &len, &fin) || !fin)
			continue;
		if (g_h3 == 3 && i == 0) { /* before the first answer */
			memcpy(f, enc_65536, sizeof(enc_65536));
			at = sizeof(enc_65536);
		}
		f[at] = 0x0b;
		f[at + 1] = (uint8_t)(0x40 | (id >> 8)); /* 2-byte varint id */
		f[at + 2] = (uint8_t)id;
		f[at + 3] = sizeof(h3_ok);
		memcpy(f + at + 4, g_h3 == 2 ? h3_blocked : h3_ok, sizeof(h3_ok));
		ts_inject(s, f, at + 4 + sizeof(h3_ok), 1);
		g_answered[i] = 1;
	}
}

/* A datagram from `from`: a new address is a new connection. */
static struct ts_server *dispatch(struct ts_server *s, const struct ts_config *cfg,
				  struct sockaddr_in *peer,
				  const struct sockaddr_in *from,
				  uint8_t *in, size_t len)
{
	if (!s || from->sin_port != peer->sin_port ||
	    from->sin_addr.s_addr != peer->sin_addr.s_addr) {
		retire(s);
		s = ts_new(cfg);
		*peer = *from;
		memset(g_answered, 0, sizeof(g_answered));
	}
	if (s)
		ts_recv(s, in, len, now_ns());
	if (s && g_h3)
		answer(s);
	return s;
}

static int write_stats(const char *path)
{
	FILE *f;

	if (!path)
		return 0;
	f = fopen(path, "w");
	if (!f || fprintf(f, "connections %lu closes %lu\n", g_conns, g_closes) < 0 ||
	    fclose(f) != 0) {
		fprintf(stderr, "shb-hostile-quicsrv: cannot write %s\n", path);
		return 1;
	}
	return 0;
}

static int poll_ms(const struct ts_server *s)
{
	uint64_t d, now = now_ns();

	if (!s)
		return 100;
	d = ts_deadline(s);
	if (d <= now)
		return 0;
	d = (d - now + 999999) / 1000000;
	return d > 100 ? 100 : (int)d;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "stats-file", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_term };
	struct ts_config cfg = { 0 };
	struct ts_server *s = NULL;
	struct sockaddr_in peer = { 0 };
	const char *port_file = NULL, *stats_file = NULL;
	struct tp_cert cert;
	int ch, fd, have_mode = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch == 'm' && set_mode(optarg, &cfg) == 0)
			have_mode = 1;
		else if (ch == 'f')
			port_file = optarg;
		else if (ch == 's')
			stats_file = optarg;
		else
			have_mode = -1;
	}
	if (have_mode != 1 || optind != argc) {
		fprintf(stderr, "usage: shb-hostile-quicsrv --mode bad-tp-odcid|"
			"bad-tp-iscid|bad-tp-retry|raw-streams|ack-unsent|ack-huge|no-streams|h3|"
			"qpack-blocked|qpack-encoder "
			"[--port-file FILE] [--stats-file FILE]\n");
		return 2;
	}
	if (tp_cert_make(&cert, "localhost") != 0) {
		fprintf(stderr, "shb-hostile-quicsrv: cannot make a certificate\n");
		return 1;
	}
	cfg.cert = &cert;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open_socket(port_file);
	if (fd < 0)
		return 1;
	while (!g_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		uint8_t in[65536];
		ssize_t r;

		if (poll(&pfd, 1, poll_ms(s)) > 0 &&
		    (r = recvfrom(fd, in, sizeof(in), 0,
				  (struct sockaddr *)&from, &fl)) > 0)
			s = dispatch(s, &cfg, &peer, &from, in, (size_t)r);
		if (s && ts_deadline(s) <= now_ns())
			ts_timeout(s, now_ns());
		if (s)
			flush(s, fd, &peer);
	}
	/* What the client sent before it exited is still queued. */
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		uint8_t in[65536];
		ssize_t r = recvfrom(fd, in, sizeof(in), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl);

		if (r <= 0)
			break;
		s = dispatch(s, &cfg, &peer, &from, in, (size_t)r);
	}
	retire(s);
	tp_cert_free(&cert);
	close(fd);
	return write_stats(stats_file);
}
