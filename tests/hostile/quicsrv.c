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
 *
 *   shb-hostile-quicsrv --mode MODE [--port-file FILE]
 *
 * One connection at a time: a datagram from a new client address starts
 * a fresh server. Listens on 127.0.0.1, an ephemeral port; SIGTERM ends
 * it with status 0. */
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

static volatile sig_atomic_t g_stop;

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
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_term };
	struct ts_config cfg = { 0 };
	struct ts_server *s = NULL;
	struct sockaddr_in peer = { 0 };
	const char *port_file = NULL;
	struct tp_cert cert;
	int ch, fd, have_mode = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch == 'm' && set_mode(optarg, &cfg) == 0)
			have_mode = 1;
		else if (ch == 'f')
			port_file = optarg;
		else
			have_mode = -1;
	}
	if (have_mode != 1 || optind != argc) {
		fprintf(stderr, "usage: shb-hostile-quicsrv --mode bad-tp-odcid|"
			"bad-tp-iscid|bad-tp-retry|raw-streams|ack-unsent|ack-huge|no-streams "
			"[--port-file FILE]\n");
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
				  (struct sockaddr *)&from, &fl)) > 0) {
			if (!s || from.sin_port != peer.sin_port ||
			    from.sin_addr.s_addr != peer.sin_addr.s_addr) {
				ts_free(s);
				s = ts_new(&cfg);
				peer = from;
			}
			if (s)
				ts_recv(s, in, (size_t)r, now_ns());
		}
		if (s && ts_deadline(s) <= now_ns())
			ts_timeout(s, now_ns());
		if (s)
			flush(s, fd, &peer);
	}
	ts_free(s);
	tp_cert_free(&cert);
	close(fd);
	return 0;
}
