/* shb-hostile-quic: hostile QUIC "servers" on a UDP socket for the
 * hostile suite. None of them completes a handshake; each answers every
 * datagram that looks like a client's long-header packet in one wrong
 * way, using the connection IDs the client chose:
 *
 *   garbage       three 1200-octet datagrams of noise
 *   tiny          datagrams of 0, 1, 2 and 3 octets
 *   vn            Version Negotiation listing only versions other than 1
 *   vn-badcid     the same, with connection IDs the client never used
 *   retry-badtag  a Retry whose integrity tag is wrong
 *   reset         43-octet short-header packets (a fake stateless reset)
 *   initial-junk  an Initial with the right header and an undecryptable
 *                 payload
 *   amplify       64 datagrams of noise for each one received
 *   flood         noise without end, 64 datagrams a pass of the loop, to
 *                 the client that last sent a long-header packet, while
 *                 its connection closes and after
 *
 *   shb-hostile-quic --mode MODE [--port-file FILE] [--stats-file FILE]
 *
 * Listens on 127.0.0.1 (an ephemeral port); at SIGTERM writes how many
 * datagrams it received and sent and exits 0. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DGRAM 1200
#define MAX_CID 20

enum mode { GARBAGE, TINY, VN, VN_BADCID, RETRY_BADTAG, RESET, INITIAL_JUNK,
	    AMPLIFY, FLOOD };

static const char *const mode_names[] = {
	[GARBAGE] = "garbage", [TINY] = "tiny", [VN] = "vn",
	[VN_BADCID] = "vn-badcid", [RETRY_BADTAG] = "retry-badtag",
	[RESET] = "reset", [INITIAL_JUNK] = "initial-junk",
	[AMPLIFY] = "amplify", [FLOOD] = "flood",
};

static volatile sig_atomic_t g_stop;
static unsigned long long g_rx, g_tx, g_rx_long;
static uint32_t g_rng = 0x9e3779b9u;

/* The client's packet, as far as we need it. */
struct hello {
	uint8_t dcid[MAX_CID], scid[MAX_CID];
	size_t dcid_len, scid_len;
};

static uint8_t rnd(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 17;
	g_rng ^= g_rng << 5;
	return (uint8_t)g_rng;
}

static void fill(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = rnd();
}

/* A long-header packet: the first byte, the version and both IDs
 * (RFC 9000 17.2). Returns 0 for anything else. */
static int parse_long(const uint8_t *p, size_t n, struct hello *h)
{
	size_t off = 5;

	if (n < 7 || !(p[0] & 0x80))
		return 0;
	h->dcid_len = p[off++];
	if (h->dcid_len > MAX_CID || off + h->dcid_len + 1 > n)
		return 0;
	memcpy(h->dcid, p + off, h->dcid_len);
	off += h->dcid_len;
	h->scid_len = p[off++];
	if (h->scid_len > MAX_CID || off + h->scid_len > n)
		return 0;
	memcpy(h->scid, p + off, h->scid_len);
	return 1;
}

static size_t put_cid(uint8_t *p, const uint8_t *cid, size_t len)
{
	p[0] = (uint8_t)len;
	memcpy(p + 1, cid, len);
	return len + 1;
}

static size_t put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return 4;
}

/* Version Negotiation (RFC 9000 17.2.1): QUIC v2, draft-29 and a
 * reserved version; never version 1. */
static size_t make_vn(uint8_t *p, const struct hello *h, int bad_cid)
{
	uint8_t other[8];
	size_t n = 0;

	fill(other, sizeof(other));
	p[n++] = 0x80 | (rnd() & 0x7f);
	n += put32(p + n, 0);
	if (bad_cid) {
		n += put_cid(p + n, other, sizeof(other));
		n += put_cid(p + n, other, sizeof(other));
	} else {
		n += put_cid(p + n, h->scid, h->scid_len);
		n += put_cid(p + n, h->dcid, h->dcid_len);
	}
	n += put32(p + n, 0x6b3343cfu);
	n += put32(p + n, 0xff00001du);
	n += put32(p + n, 0x1a2a3a4au);
	return n;
}

/* Retry (RFC 9000 17.2.5) with a token and a random, so wrong, tag. */
static size_t make_retry(uint8_t *p, const struct hello *h)
{
	static const char token[] = "hostile-retry-token";
	uint8_t scid[8];
	size_t n = 0;

	fill(scid, sizeof(scid));
	p[n++] = 0xf0;
	n += put32(p + n, 1);
	n += put_cid(p + n, h->scid, h->scid_len);
	n += put_cid(p + n, scid, sizeof(scid));
	memcpy(p + n, token, sizeof(token) - 1);
	n += sizeof(token) - 1;
	fill(p + n, 16);
	return n + 16;
}

/* An Initial whose header is right (version 1, the client's IDs swapped,
 * a length that matches) and whose payload is noise. */
static size_t make_initial(uint8_t *p, const struct hello *h)
{
	size_t n = 0, body = DGRAM - 64;

	p[n++] = 0xc3; /* Initial, 4-octet packet number */
	n += put32(p + n, 1);
	n += put_cid(p + n, h->scid, h->scid_len);
	n += put_cid(p + n, h->dcid, h->dcid_len);
	p[n++] = 0; /* no token */
	p[n++] = (uint8_t)(0x40 | body >> 8);
	p[n++] = (uint8_t)body;
	fill(p + n, body);
	return n + body;
}

static void send_one(int fd, const struct sockaddr_storage *to, socklen_t tl,
		     const uint8_t *p, size_t n)
{
	if (sendto(fd, p, n, 0, (const struct sockaddr *)to, tl) >= 0)
		g_tx++;
}

/* Mode flood: where the noise goes (tl 0: nowhere yet). */
static struct sockaddr_storage g_flood_to;
static socklen_t g_flood_tl;

static void flood_burst(int fd)
{
	uint8_t out[DGRAM];

	for (int i = 0; i < 64 && g_flood_tl; i++) {
		fill(out, sizeof(out));
		send_one(fd, &g_flood_to, g_flood_tl, out, sizeof(out));
	}
}

static void answer(int fd, enum mode m, const struct sockaddr_storage *to,
		   socklen_t tl, const struct hello *h)
{
	uint8_t out[DGRAM];

	switch (m) {
	case FLOOD:
		memcpy(&g_flood_to, to, tl);
		g_flood_tl = tl;
		break;
	case GARBAGE:
	case AMPLIFY:
		for (int i = 0; i < (m == AMPLIFY ? 64 : 3); i++) {
			fill(out, sizeof(out));
			send_one(fd, to, tl, out, sizeof(out));
		}
		break;
	case TINY:
		for (size_t i = 0; i < 4; i++) {
			fill(out, i);
			send_one(fd, to, tl, out, i);
		}
		break;
	case VN:
	case VN_BADCID:
		send_one(fd, to, tl, out, make_vn(out, h, m == VN_BADCID));
		break;
	case RETRY_BADTAG:
		send_one(fd, to, tl, out, make_retry(out, h));
		break;
	case RESET:
		fill(out, 43);
		out[0] = (uint8_t)(0x40 | (out[0] & 0x3f));
		send_one(fd, to, tl, out, 43);
		break;
	case INITIAL_JUNK:
		send_one(fd, to, tl, out, make_initial(out, h));
		break;
	}
}

static void on_term(int sig)
{
	(void)sig;
	g_stop = 1;
}

static int write_atomic(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) < 0) {
		fprintf(stderr, "shb-hostile-quic: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

static int open_socket(const char *port_file)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	char line[16];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("shb-hostile-quic: socket");
		return -1;
	}
	snprintf(line, sizeof(line), "%u\n", (unsigned)ntohs(a.sin_port));
	if (port_file && write_atomic(port_file, line) < 0)
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "stats-file", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *port_file = NULL, *stats_file = NULL;
	int ch, mode = -1, fd;
	struct sigaction sa = { .sa_handler = on_term };

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
				if (strcmp(optarg, mode_names[i]) == 0)
					mode = (int)i;
			break;
		case 'f': port_file = optarg; break;
		case 's': stats_file = optarg; break;
		default: mode = -1; optind = argc + 1; break;
		}
	}
	if (mode < 0 || optind != argc) {
		fprintf(stderr, "usage: shb-hostile-quic --mode garbage|tiny|vn|"
			"vn-badcid|retry-badtag|reset|initial-junk|amplify|"
			"flood [--port-file FILE] [--stats-file FILE]\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open_socket(port_file);
	if (fd < 0)
		return 1;
	while (!g_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		uint8_t in[65536];
		struct hello h;
		ssize_t r;

		flood_burst(fd);
		if (poll(&pfd, 1, g_flood_tl ? 0 : 100) <= 0)
			continue;
		r = recvfrom(fd, in, sizeof(in), 0, (struct sockaddr *)&from, &fl);
		if (r < 0)
			continue;
		g_rx++;
		if (!parse_long(in, (size_t)r, &h))
			continue;
		g_rx_long++;
		answer(fd, (enum mode)mode, &from, fl, &h);
	}
	close(fd);
	if (stats_file) {
		char text[160];

		snprintf(text, sizeof(text), "{\"received\": %llu, \"longHeader\": "
			 "%llu, \"sent\": %llu}\n", g_rx, g_rx_long, g_tx);
		if (write_atomic(stats_file, text) < 0)
			return 1;
	}
	return 0;
}
