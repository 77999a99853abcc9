/* A UDP echo server for the core's datagram tests: echoes every datagram,
 * optionally dropping every Nth one (to exercise the protocol timer), and
 * counts what it saw. With --gso N it echoes up to N equal datagrams that
 * are already queued from one peer as one UDP GSO train (so that a client
 * with UDP_GRO receives them coalesced). Prints its port to --port-file;
 * stops on SIGTERM and writes "received N dropped M trains T maxtrain B"
 * to --stats-file. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_term(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	const char *port_file = NULL, *stats_file = NULL;
	long drop_every = 0, gso = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--port-file")) port_file = argv[i + 1];
		else if (!strcmp(argv[i], "--stats-file")) stats_file = argv[i + 1];
		else if (!strcmp(argv[i], "--drop-every")) drop_every = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--gso")) gso = atol(argv[i + 1]);
		else { fprintf(stderr, "udp_echo_server: unknown option %s\n", argv[i]); return 2; }
	}
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int big = 8 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("udp_echo_server: bind");
		return 1;
	}
	socklen_t al = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &al);
	struct sigaction sa = {.sa_handler = on_term};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (port_file) {
		FILE *f = fopen(port_file, "w");
		if (!f) return 1;
		fprintf(f, "%u\n", ntohs(a.sin_port));
		fclose(f);
	}
	unsigned long received = 0, dropped = 0, trains = 0, maxtrain = 0;
	static unsigned char buf[65536];
	while (!stop) {
		struct sockaddr_in from, more;
		socklen_t fl = sizeof(from), ml;
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR) continue;
			break;
		}
		received++;
		if (drop_every && received % (unsigned long)drop_every == 0) {
			dropped++;
			continue;
		}
		size_t len = (size_t)n, k = 1;
		/* Gather queued datagrams of the same size from the same peer
		 * behind this one; a different one ends the train and is
		 * echoed alone. */
		while (gso > 1 && k < (size_t)gso && len + (size_t)n <= sizeof(buf)) {
			ml = sizeof(more);
			ssize_t m = recvfrom(fd, buf + len, (size_t)n, MSG_DONTWAIT | MSG_TRUNC,
					     (struct sockaddr *)&more, &ml);
			if (m < 0)
				break;
			received++;
			if (m != n || more.sin_port != from.sin_port) {
				sendto(fd, buf + len, (size_t)m < (size_t)n ? (size_t)m : (size_t)n,
				       0, (struct sockaddr *)&more, ml);
				break;
			}
			len += (size_t)n;
			k++;
		}
		if (k == 1) {
			sendto(fd, buf, len, 0, (struct sockaddr *)&from, fl);
			continue;
		}
		char cbuf[CMSG_SPACE(sizeof(uint16_t))] = {0};
		struct iovec iov = {buf, len};
		struct msghdr mh = {.msg_name = &from, .msg_namelen = fl, .msg_iov = &iov,
				    .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		uint16_t seg = (uint16_t)n;
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
		if (sendmsg(fd, &mh, 0) < 0) {
			perror("udp_echo_server: sendmsg (UDP_SEGMENT)");
			return 1;
		}
		trains++;
		if (k > maxtrain)
			maxtrain = k;
	}
	if (stats_file) {
		FILE *f = fopen(stats_file, "w");
		if (f) {
			fprintf(f, "received %lu dropped %lu trains %lu maxtrain %lu\n",
				received, dropped, trains, maxtrain);
			fclose(f);
		}
	}
	return 0;
}
