#include "relay_opts.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char shb_relay_usage[] =
	"usage: shb-udp-relay --upstream HOST:PORT [--listen ADDR:PORT]\n"
	"         [--port-file FILE] [--stats-file FILE] [--seed N]\n"
	"         [--loss PCT] [--dup PCT] [--reorder PCT]\n"
	"         [--reorder-delay-ms MS] [--drop-first N] [--drop-first-down N]\n"
	"Forwards UDP datagrams between each client and HOST:PORT, dropping,\n"
	"duplicating and reordering them (both directions) by a PRNG seeded\n"
	"with N. --drop-first drops the first N client->upstream datagrams of\n"
	"every client, --drop-first-down the first N of the other direction.\n"
	"Stats (JSON) are written to --stats-file on SIGTERM or SIGINT.\n";

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_pct(const char *s, double *out)
{
	char *end;
	if ((*s < '0' || *s > '9') && *s != '.')
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0.0 || v > 100.0)
		return -1;
	*out = v;
	return 0;
}

int shb_relay_split_hostport(const char *text, char *host, size_t host_cap,
			     uint16_t *port)
{
	const char *h = text, *colon;
	size_t hlen;
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		if (!close || close[1] != ':')
			return -1;
		h = text + 1;
		hlen = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(text, ':');
		if (!colon || memchr(text, ':', (size_t)(colon - text)))
			return -1; /* no port, or an unbracketed IPv6 address */
		hlen = (size_t)(colon - text);
	}
	uint64_t p;
	if (hlen == 0 || hlen >= host_cap || parse_u64(colon + 1, 65535, &p) < 0)
		return -1;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* Applies one option NAME with VALUE. Returns 0 or -1 with ERR set. */
static int apply(struct shb_relay_opts *o, const char *name, const char *value,
		 char *err, size_t cap)
{
	uint64_t v;
	double pct;
	if (strcmp(name, "listen") == 0) {
		if (shb_relay_split_hostport(value, o->listen_host,
					     sizeof(o->listen_host),
					     &o->listen_port) < 0)
			return fail(err, cap, "invalid --listen '%s' (want ADDR:PORT)", value);
	} else if (strcmp(name, "upstream") == 0) {
		if (shb_relay_split_hostport(value, o->upstream_host,
					     sizeof(o->upstream_host),
					     &o->upstream_port) < 0 ||
		    o->upstream_port == 0)
			return fail(err, cap, "invalid --upstream '%s' (want HOST:PORT)", value);
	} else if (strcmp(name, "port-file") == 0) {
		o->port_file = value;
	} else if (strcmp(name, "stats-file") == 0) {
		o->stats_file = value;
	} else if (strcmp(name, "seed") == 0) {
		if (parse_u64(value, UINT64_MAX, &o->seed) < 0)
			return fail(err, cap, "invalid --seed '%s'", value);
	} else if (strcmp(name, "reorder-delay-ms") == 0) {
		if (parse_u64(value, 60000, &v) < 0 || v == 0)
			return fail(err, cap, "invalid --reorder-delay-ms '%s' (1..60000)", value);
		o->reorder_delay_ms = (uint32_t)v;
	} else if (strcmp(name, "drop-first") == 0 || strcmp(name, "drop-first-down") == 0) {
		if (parse_u64(value, UINT64_MAX, &v) < 0)
			return fail(err, cap, "invalid --%s '%s'", name, value);
		o->impair[name[10] ? SHB_RELAY_DOWN : SHB_RELAY_UP].drop_first = v;
	} else if (strcmp(name, "loss") == 0 || strcmp(name, "dup") == 0 ||
		   strcmp(name, "reorder") == 0) {
		if (parse_pct(value, &pct) < 0)
			return fail(err, cap, "invalid --%s '%s' (a percentage, 0..100)", name, value);
		for (int d = 0; d < 2; d++) {
			struct shb_relay_impair *imp = &o->impair[d];
			double *field = name[0] == 'l' ? &imp->loss_pct
				      : name[0] == 'd' ? &imp->dup_pct
						       : &imp->reorder_pct;
			*field = pct;
		}
	} else {
		return fail(err, cap, "unknown option '--%s'", name);
	}
	return 0;
}

int shb_relay_opts_parse(struct shb_relay_opts *o, int argc, char **argv,
			 char *err, size_t err_cap)
{
	*o = (struct shb_relay_opts){ .listen_host = "127.0.0.1", .seed = 1,
				      .reorder_delay_ms = 10 };
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
			return fail(err, err_cap, "unexpected argument '%s'", arg);
		char name[32];
		const char *value;
		const char *eq = strchr(arg, '=');
		size_t nlen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (nlen >= sizeof(name))
			return fail(err, err_cap, "unknown option '%s'", arg);
		memcpy(name, arg + 2, nlen);
		name[nlen] = '\0';
		if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			return fail(err, err_cap, "option '--%s' needs a value", name);
		}
		if (apply(o, name, value, err, err_cap) < 0)
			return -1;
	}
	if (o->upstream_host[0] == '\0')
		return fail(err, err_cap, "--upstream HOST:PORT is required");
	return 0;
}
