/* A UDP echo server for the core's datagram tests: echoes every datagram,
 * optionally dropping every Nth one (to exercise the protocol timer), and
 * counts what it saw. Prints its port to --port-file; stops on SIGTERM and
 * writes "received N dropped M maxburst B" to --stats-file. */
#include <errno.h>
#include <netinet/in.h>
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
	long drop_every = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--port-file")) port_file = argv[i + 1];
		else if (!strcmp(argv[i], "--stats-file")) stats_file = argv[i + 1];
		else if (!strcmp(argv[i], "--drop-every")) drop_every = atol(argv[i + 1]);
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
	unsigned long received = 0, dropped = 0;
	static unsigned char buf[65536];
	while (!stop) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
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
		sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
	if (stats_file) {
		FILE *f = fopen(stats_file, "w");
		if (f) {
			fprintf(f, "received %lu dropped %lu\n", received, dropped);
			fclose(f);
		}
	}
	return 0;
}
