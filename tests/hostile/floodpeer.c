/* shb-hostile-flood: an HTTP/1.1 server that never stops sending. Each
 * connection reads one request head, answers it (mode below), then
 * writes bytes as fast as the kernel takes them and never reads again,
 * until its writes fail (the client reset the connection) or FLOOD_MAX_S
 * passed. It records when each connection saw the client close (its FIN
 * or reset) and when its writes failed, so that a test can bound how
 * long a client takes to let go of a connection whose peer keeps
 * sending.
 *
 *   shb-hostile-flood --mode MODE [--delay MS] [--port-file FILE]
 *                     [--stats-file FILE]
 *
 * modes:
 *   headers   a status line, then header lines without end (the client
 *             fails the head: a protocol error, and it closes)
 *   close     a whole response with Connection: close, then bytes
 *             without end (the client waits for our FIN, then closes)
 *   body      a head with a Content-Length of 1 TiB, then the body
 *             (the client closes when its --timeout expires)
 *
 * --delay MS: the answer waits that long after the request head, so that
 * what the client still sends (a body we never read) has filled the
 * buffers between us by the time it must close.
 *
 * One thread per connection, a send buffer as large as the kernel grants
 * (SO_SNDBUFFORCE when allowed): the client's receive queue is refilled
 * from our send queue as soon as it reads. A client that closed while
 * its receive window was shut never opens it again, and sends no reset
 * either: that flood ends at FLOOD_MAX_S, "capped" (its close is seen
 * all the same: the FIN came).
 *
 * Listens on 127.0.0.1, an ephemeral port written to --port-file; at
 * SIGTERM writes what it saw to --stats-file (JSON) and exits 0. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (64u * 1024u)	   /* one write */
#define SNDBUF (8 * 1024 * 1024) /* asked for; the kernel may grant less */
#define FLOOD_MAX_S 60		   /* a connection's writes end by then */
#define HEAD_MAX 65536		   /* a request head longer than this: dropped */

enum mode { M_HEADERS, M_CLOSE, M_BODY };

static const char *const mode_names[] = {
	[M_HEADERS] = "headers", [M_CLOSE] = "close", [M_BODY] = "body",
};

static const char *const answers[] = {
	[M_HEADERS] = "HTTP/1.1 200 OK\r\n",
	[M_CLOSE] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
		    "Connection: close\r\n\r\nhello",
	[M_BODY] = "HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\n",
};

static enum mode g_mode;
static unsigned g_delay_ms; /* --delay */
/* The flood: header lines in mode headers (each "X: aaa...\r\n"), any
 * bytes otherwise. Filled once, read by every connection. */
static char g_chunk[CHUNK];

/* What the connections saw, for --stats-file. */
static struct {
	pthread_mutex_t lock;
	uint64_t accepted, requests, bytes_out;
	uint64_t live;	        /* connection threads still running */
	uint64_t closed;        /* the client's FIN or reset seen */
	uint64_t gone;	        /* writes failed: the client let go */
	uint64_t resets;        /* ... with a reset (ECONNRESET) */
	uint64_t capped;        /* writes stopped by FLOOD_MAX_S */
	uint64_t max_closed_ms; /* from the first flood byte to the close */
	uint64_t max_gone_ms;   /* from the first flood byte to the failure */
	uint64_t min_flood;     /* bytes a connection wrote, the least */
} g_st = { .lock = PTHREAD_MUTEX_INITIALIZER, .min_flood = UINT64_MAX };

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void fill_chunk(void)
{
	memset(g_chunk, 'a', sizeof(g_chunk));
	if (g_mode != M_HEADERS)
		return;
	/* 64 lines of 1 KiB: "X: aaa...a\r\n" */
	for (size_t off = 0; off + 1024 <= sizeof(g_chunk); off += 1024) {
		memcpy(g_chunk + off, "X: ", 3);
		memcpy(g_chunk + off + 1022, "\r\n", 2);
	}
}

/* Reads until the end of a request head. 0, or -1 when the client went
 * away or sent more than HEAD_MAX without one. */
static int read_head(int fd)
{
	char buf[HEAD_MAX + 1];
	size_t len = 0;

	while (len < HEAD_MAX) {
		ssize_t n = read(fd, buf + len, HEAD_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = 0;
		if (strstr(buf, "\r\n\r\n"))
			return 0;
	}
	return -1;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* What one connection's flood ended with. */
struct flood {
	uint64_t t0, bytes, gone_ms;
	int closed, err; /* err: the errno that ended the writes, 0 at the cap */
};

/* The client's FIN or reset reached us: counted at once, not when the
 * flood ends, which a client that closed with a zero window open (we
 * may not write, and no reset comes) holds off for a minute. */
static void saw_close(struct flood *f)
{
	uint64_t ms = now_ms() - f->t0;

	if (f->closed)
		return;
	f->closed = 1;
	pthread_mutex_lock(&g_st.lock);
	g_st.closed++;
	if (ms > g_st.max_closed_ms)
		g_st.max_closed_ms = ms;
	pthread_mutex_unlock(&g_st.lock);
}

/* Writes g_chunk until a write fails or FLOOD_MAX_S passed, noting the
 * client's FIN or reset on the way: we never read, so they are seen
 * through poll (POLLRDHUP, POLLHUP) or a failed write. */
static void flood(int fd, struct flood *f)
{
	size_t off = 0;

	memset(f, 0, sizeof(*f));
	f->t0 = now_ms();
	while (now_ms() - f->t0 < FLOOD_MAX_S * 1000u) {
		struct pollfd p = { .fd = fd,
				   .events = POLLOUT | (f->closed ? 0 : POLLRDHUP) };
		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			break;
		if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
			saw_close(f);
		if (!(p.revents & (POLLOUT | POLLERR | POLLHUP)))
			continue;
		ssize_t n = send(fd, g_chunk + off, sizeof(g_chunk) - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			f->err = errno;
			f->gone_ms = now_ms() - f->t0;
			saw_close(f);
			return;
		}
		f->bytes += (uint64_t)n;
		off = (off + (size_t)n) % sizeof(g_chunk);
	}
}

static void note(const struct flood *f)
{
	pthread_mutex_lock(&g_st.lock);
	g_st.bytes_out += f->bytes;
	if (f->bytes < g_st.min_flood)
		g_st.min_flood = f->bytes;
	if (f->err) {
		g_st.gone++;
		g_st.resets += f->err == ECONNRESET;
		if (f->gone_ms > g_st.max_gone_ms)
			g_st.max_gone_ms = f->gone_ms;
	} else {
		g_st.capped++;
	}
	pthread_mutex_unlock(&g_st.lock);
}

static void *conn_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct flood f;

	if (read_head(fd) == 0) {
		struct timespec d = { g_delay_ms / 1000,
				      (long)(g_delay_ms % 1000) * 1000000L };
		pthread_mutex_lock(&g_st.lock);
		g_st.requests++;
		pthread_mutex_unlock(&g_st.lock);
		while (nanosleep(&d, &d) < 0 && errno == EINTR)
			;
		if (write_all(fd, answers[g_mode], strlen(answers[g_mode])) == 0) {
			flood(fd, &f);
			note(&f);
		}
	}
	close(fd);
	pthread_mutex_lock(&g_st.lock);
	g_st.live--;
	pthread_mutex_unlock(&g_st.lock);
	return NULL;
}

static int listen_local(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		perror("shb-hostile-flood: listen");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static void start_conn(int fd)
{
	int sz = SNDBUF;
	pthread_t t;
	pthread_attr_t attr;

	/* Beyond wmem_max only with CAP_NET_ADMIN: else what SO_SNDBUF gets. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	pthread_mutex_lock(&g_st.lock);
	g_st.accepted++;
	g_st.live++;
	pthread_mutex_unlock(&g_st.lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (pthread_create(&t, &attr, conn_main, (void *)(intptr_t)fd) != 0) {
		close(fd);
		pthread_mutex_lock(&g_st.lock);
		g_st.live--;
		pthread_mutex_unlock(&g_st.lock);
	}
	pthread_attr_destroy(&attr);
}

/* Written under another name and renamed: a script polling for the file
 * never reads half of it. */
static int write_atomic(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0) {
		fprintf(stderr, "shb-hostile-flood: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* At SIGTERM the client has normally exited: its sockets are reset and
 * every flood ends at its next write. Waits for them, at most LINGER_MS,
 * so that the stats hold every connection; "live" says how many did not
 * end (a client's socket lingers, its window shut: see above). */
#define LINGER_MS 1000

static int write_stats(const char *path)
{
	char text[1024];
	uint64_t t0 = now_ms();

	for (;;) {
		pthread_mutex_lock(&g_st.lock);
		if (g_st.live == 0 || now_ms() - t0 > LINGER_MS)
			break;
		pthread_mutex_unlock(&g_st.lock);
		usleep(10000);
	}
	snprintf(text, sizeof(text),
		 "{\"accepted\": %" PRIu64 ", \"requests\": %" PRIu64
		 ", \"bytesOut\": %" PRIu64 ", \"minFlood\": %" PRIu64
		 ", \"closed\": %" PRIu64 ", \"gone\": %" PRIu64
		 ", \"resets\": %" PRIu64 ", \"capped\": %" PRIu64
		 ", \"maxClosedMs\": %" PRIu64 ", \"maxGoneMs\": %" PRIu64
		 ", \"live\": %" PRIu64 "}\n",
		 g_st.accepted, g_st.requests, g_st.bytes_out,
		 g_st.min_flood == UINT64_MAX ? 0 : g_st.min_flood, g_st.closed,
		 g_st.gone, g_st.resets, g_st.capped, g_st.max_closed_ms,
		 g_st.max_gone_ms, g_st.live);
	pthread_mutex_unlock(&g_st.lock);
	return write_atomic(path, text);
}

/* Accepts until SIGTERM (read from a signalfd, so accept never races
 * with a handler). */
static void serve(int lfd, int sfd)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = lfd, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("shb-hostile-flood: poll");
			return;
		}
		if (p[1].revents)
			return;
		if (p[0].revents) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0)
				start_conn(fd);
		}
	}
}

static void usage(FILE *out)
{
	fprintf(out, "usage: shb-hostile-flood --mode headers|close|body "
		"[--delay MS] [--port-file FILE] [--stats-file FILE]\n");
}

static int parse_mode(const char *s)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (strcmp(s, mode_names[i]) == 0) {
			g_mode = (enum mode)i;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "delay", required_argument, NULL, 'd' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "stats-file", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *port_file = NULL, *stats_file = NULL;
	int ch, have_mode = 0, rc = 0;
	char text[32];
	uint16_t port;
	sigset_t set;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			if (parse_mode(optarg) < 0) {
				usage(stderr);
				return 2;
			}
			have_mode = 1;
			break;
		case 'd': g_delay_ms = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'f': port_file = optarg; break;
		case 's': stats_file = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!have_mode) {
		usage(stderr);
		return 2;
	}
	fill_chunk();
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	/* Blocked before any thread starts: every thread inherits it. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	int lfd = sfd < 0 ? -1 : listen_local(&port);
	if (lfd < 0)
		return 1;
	snprintf(text, sizeof(text), "%u\n", (unsigned)port);
	if (port_file && write_atomic(port_file, text) < 0)
		return 1;
	serve(lfd, sfd);
	if (stats_file && write_stats(stats_file) < 0)
		rc = 1;
	return rc;
}
