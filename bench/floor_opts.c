/* bench/http_floor's command line: see floor_opts.h. */
#include "floor_opts.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONNS 100000
#define MAX_THREADS 256

struct floor_opts o = { .conns = 50, .depth = 1, .duration = 5, .threads = 1, .linger_us = 500 };

static void usage_exit(const char *msg)
{
	if (msg)
		fprintf(stderr, "http_floor: %s\n", msg);
	fprintf(stderr,
		"Usage: http_floor [--h2c] [-c CONNS] [-p DEPTH] [-d SECONDS] [-t THREADS] http://IPv4:PORT/PATH\n"
		"  -c, --connections N  keep-alive connections (default 50)\n"
		"  -p, --pipeline N     requests in flight per connection: HTTP/1.1 pipeline\n"
		"                       depth, HTTP/2 concurrent streams (default 1)\n"
		"  -d, --duration S     seconds of load (default 5)\n"
		"  -t, --threads N      threads, one io_uring each (default 1)\n"
		"      --h2c            HTTP/2 over cleartext with prior knowledge\n"
		"  -b, --batch N        completions a wait asks for (default: a quarter of a\n"
		"                       thread's connections, at most 8, over HTTP/1.1; one\n"
		"                       per connection, at most 32, over HTTP/2)\n"
		"  -l, --linger USEC    longest wait for a batch (default 500)\n"
		"  -w, --warmup S       also print the requests and CPU from S seconds into the\n"
		"                       load to its end (a line 'window ...')\n");
	exit(2);
}

static int parse_num(const char *what, const char *s, int lo, int hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || (*end && strcmp(end, "s")) || v < lo || v > hi) {
		char m[160];

		snprintf(m, sizeof(m), "%s must be a whole number in %d..%d, not '%s'", what, lo, hi, s);
		usage_exit(m);
	}
	return (int)v;
}

/* http://A.B.C.D:PORT/PATH: a numeric IPv4 address, for loopback runs. */
static void parse_url(const char *url)
{
	char host[16];
	unsigned port = 0;
	int n = 0;

	if (sscanf(url, "http://%15[0-9.]:%5u%n", host, &port, &n) != 2 || !n ||
	    (url[n] && url[n] != '/') || port < 1 || port > 65535)
		usage_exit("the URL must be http://A.B.C.D:PORT/PATH (cleartext, a numeric IPv4 address)");
	o.addr.sin_family = AF_INET;
	o.addr.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &o.addr.sin_addr) != 1)
		usage_exit("the URL's host is not an IPv4 address");
	snprintf(o.authority, sizeof(o.authority), "%.*s", n - 7, url + 7);
	snprintf(o.path, sizeof(o.path), "%s", url[n] ? url + n : "/");
	if (strlen(url + n) > 1000 || strpbrk(o.path, " \r\n"))
		usage_exit("the URL's path is over 1000 bytes or holds a space or line break");
}

void floor_parse_args(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "connections", required_argument, 0, 'c' }, { "pipeline", required_argument, 0, 'p' },
		{ "duration", required_argument, 0, 'd' }, { "threads", required_argument, 0, 't' },
		{ "h2c", no_argument, 0, '2' }, { "batch", required_argument, 0, 'b' },
		{ "linger", required_argument, 0, 'l' }, { "warmup", required_argument, 0, 'w' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "c:p:d:t:b:l:w:h", longs, NULL)) != -1) {
		switch (ch) {
		case 'c': o.conns = parse_num("-c", optarg, 1, MAX_CONNS); break;
		case 'p': o.depth = parse_num("-p", optarg, 1, MAX_DEPTH); break;
		case 'd': o.duration = parse_num("-d", optarg, 1, 86400); break;
		case 't': o.threads = parse_num("-t", optarg, 1, MAX_THREADS); break;
		case '2': o.h2 = 1; break;
		case 'b': o.batch = parse_num("--batch", optarg, 1, 4096); break;
		case 'l': o.linger_us = parse_num("--linger", optarg, 0, 1000000); break;
		case 'w': o.warmup = parse_num("--warmup", optarg, 1, 86399); break;
		case 'h': usage_exit(NULL); break;
		default: usage_exit("unknown option");
		}
	}
	if (optind != argc - 1)
		usage_exit("one URL is needed");
	if (o.threads > o.conns)
		usage_exit("-t is above -c: every thread needs a connection");
	if (o.warmup >= o.duration)
		usage_exit("--warmup must be below -d: the window would be empty");
	parse_url(argv[optind]);
}
