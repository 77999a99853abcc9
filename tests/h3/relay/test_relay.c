/* shb-udp-relay: the PRNG and impairment decisions on their own, option
 * parsing, and the built relay (SHB_UDP_RELAY) between a client socket and
 * a UDP echo socket in this process: numbered datagrams, exact counts with
 * no impairment, rates within tolerance, and reproducibility by seed. */
#include "relay_impair.h"
#include "relay_opts.h"
#include "relay_rng.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <jansson.h>

extern char **environ;

/* --- PRNG --------------------------------------------------------------- */

static void test_rng_deterministic(void)
{
	struct shb_relay_rng a, b, c, d;
	shb_relay_rng_init(&a, 42, 3);
	shb_relay_rng_init(&b, 42, 3);
	shb_relay_rng_init(&c, 42, 4);
	shb_relay_rng_init(&d, 43, 3);
	int same_c = 0, same_d = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = shb_relay_rng_next(&a);
		CU_ASSERT_EQUAL(x, shb_relay_rng_next(&b));
		same_c += x == shb_relay_rng_next(&c);
		same_d += x == shb_relay_rng_next(&d);
	}
	CU_ASSERT_EQUAL(same_c, 0);
	CU_ASSERT_EQUAL(same_d, 0);
}

/* Seed 1 stream 2 and seed 2 stream 1 must not collide. */
static void test_rng_streams_do_not_swap(void)
{
	struct shb_relay_rng a, b;
	shb_relay_rng_init(&a, 1, 2);
	shb_relay_rng_init(&b, 2, 1);
	CU_ASSERT_NOT_EQUAL(shb_relay_rng_next(&a), shb_relay_rng_next(&b));
}

static void test_rng_chance_bounds_and_rate(void)
{
	struct shb_relay_rng r;
	shb_relay_rng_init(&r, 7, 0);
	int zero = 0, hundred = 0, ten = 0, half = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++) {
		zero += shb_relay_rng_chance(&r, 0.0);
		hundred += shb_relay_rng_chance(&r, 100.0);
		ten += shb_relay_rng_chance(&r, 10.0);
		half += shb_relay_rng_chance(&r, 0.5);
	}
	CU_ASSERT_EQUAL(zero, 0);
	CU_ASSERT_EQUAL(hundred, n);
	/* Binomial standard deviations: 134 and 31.5; allow about 4. */
	CU_ASSERT(ten > 20000 - 540 && ten < 20000 + 540);
	CU_ASSERT(half > 1000 - 130 && half < 1000 + 130);
}

/* --- impairment decisions ----------------------------------------------- */

static void test_impair_three_draws(void)
{
	struct shb_relay_impair imp = { .loss_pct = 50, .dup_pct = 50, .reorder_pct = 50 };
	struct shb_relay_rng a, b;
	shb_relay_rng_init(&a, 9, 0);
	shb_relay_rng_init(&b, 9, 0);
	for (uint64_t i = 0; i < 100; i++) {
		shb_relay_impair_decide(&imp, &a, i);
		for (int k = 0; k < 3; k++)
			shb_relay_rng_next(&b);
		CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof(a)), 0);
	}
}

static void test_impair_none_and_drop_first(void)
{
	struct shb_relay_impair imp = { .drop_first = 3 };
	struct shb_relay_rng r;
	shb_relay_rng_init(&r, 1, 0);
	for (uint64_t i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(shb_relay_impair_decide(&imp, &r, i),
				i < 3 ? SHB_RELAY_DROP : 0u);
}

static void test_impair_rates(void)
{
	struct shb_relay_impair imp = { .loss_pct = 10, .dup_pct = 20, .reorder_pct = 30 };
	struct shb_relay_rng r;
	shb_relay_rng_init(&r, 5, 1);
	const int n = 100000;
	int drop = 0, dup = 0, hold = 0, mixed = 0;
	for (int i = 0; i < n; i++) {
		unsigned d = shb_relay_impair_decide(&imp, &r, (uint64_t)i);
		drop += (d & SHB_RELAY_DROP) != 0;
		dup += (d & SHB_RELAY_DUP) != 0;
		hold += (d & SHB_RELAY_HOLD) != 0;
		mixed += (d & SHB_RELAY_DROP) && d != SHB_RELAY_DROP;
	}
	CU_ASSERT_EQUAL(mixed, 0);
	/* Drop 10 %; dup and hold apply to the 90 % kept: 18 % and 27 %. */
	CU_ASSERT(drop > 10000 - 400 && drop < 10000 + 400);
	CU_ASSERT(dup > 18000 - 500 && dup < 18000 + 500);
	CU_ASSERT(hold > 27000 - 600 && hold < 27000 + 600);
}

/* --- options ------------------------------------------------------------ */

static int parse(struct shb_relay_opts *o, char *err, size_t cap, ...)
{
	char *argv[32] = { (char *)"shb-udp-relay" };
	int argc = 1;
	va_list ap;
	va_start(ap, cap);
	for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	err[0] = '\0';
	return shb_relay_opts_parse(o, argc, argv, err, cap);
}

static void test_opts_valid(void)
{
	struct shb_relay_opts o;
	char err[256];
	CU_ASSERT_EQUAL(parse(&o, err, sizeof(err), "--upstream", "localhost:4433", NULL), 0);
	CU_ASSERT_STRING_EQUAL(o.listen_host, "127.0.0.1");
	CU_ASSERT_EQUAL(o.listen_port, 0);
	CU_ASSERT_STRING_EQUAL(o.upstream_host, "localhost");
	CU_ASSERT_EQUAL(o.upstream_port, 4433);
	CU_ASSERT_EQUAL(o.seed, 1);
	CU_ASSERT_EQUAL(o.reorder_delay_ms, 10);
	CU_ASSERT_PTR_NULL(o.port_file);

	CU_ASSERT_EQUAL(parse(&o, err, sizeof(err), "--listen=[::1]:9000",
			      "--upstream", "[::1]:443", "--seed", "18446744073709551615",
			      "--loss", "2.5", "--dup=1", "--reorder", "100",
			      "--reorder-delay-ms", "25", "--drop-first", "2",
			      "--drop-first-down=3", "--port-file", "p", "--stats-file=s",
			      NULL), 0);
	CU_ASSERT_STRING_EQUAL(o.listen_host, "::1");
	CU_ASSERT_EQUAL(o.listen_port, 9000);
	CU_ASSERT_STRING_EQUAL(o.upstream_host, "::1");
	CU_ASSERT_EQUAL(o.upstream_port, 443);
	CU_ASSERT_EQUAL(o.seed, UINT64_MAX);
	CU_ASSERT_EQUAL(o.reorder_delay_ms, 25);
	for (int d = 0; d < 2; d++) {
		CU_ASSERT_DOUBLE_EQUAL(o.impair[d].loss_pct, 2.5, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(o.impair[d].dup_pct, 1.0, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(o.impair[d].reorder_pct, 100.0, 1e-12);
	}
	CU_ASSERT_EQUAL(o.impair[SHB_RELAY_UP].drop_first, 2);
	CU_ASSERT_EQUAL(o.impair[SHB_RELAY_DOWN].drop_first, 3);
	CU_ASSERT_STRING_EQUAL(o.port_file, "p");
	CU_ASSERT_STRING_EQUAL(o.stats_file, "s");

	CU_ASSERT_EQUAL(parse(&o, err, sizeof(err), "--loss", "x", "--help", NULL), 1);
}

static void test_opts_errors(void)
{
	static const struct {
		const char *a, *b, *want;
	} cases[] = {
		{ "--loss", "101", "invalid --loss '101' (a percentage, 0..100)" },
		{ "--loss", "-1", "invalid --loss '-1' (a percentage, 0..100)" },
		{ "--dup", "nan", "invalid --dup 'nan' (a percentage, 0..100)" },
		{ "--reorder", "5%", "invalid --reorder '5%' (a percentage, 0..100)" },
		{ "--seed", "-3", "invalid --seed '-3'" },
		{ "--seed", "18446744073709551616", "invalid --seed '18446744073709551616'" },
		{ "--reorder-delay-ms", "0", "invalid --reorder-delay-ms '0' (1..60000)" },
		{ "--drop-first", "two", "invalid --drop-first 'two'" },
		{ "--listen", "127.0.0.1", "invalid --listen '127.0.0.1' (want ADDR:PORT)" },
		{ "--listen", "::1:80", "invalid --listen '::1:80' (want ADDR:PORT)" },
		{ "--listen", "[::1]80", "invalid --listen '[::1]80' (want ADDR:PORT)" },
		{ "--listen", "a:65536", "invalid --listen 'a:65536' (want ADDR:PORT)" },
		{ "--listen", ":80", "invalid --listen ':80' (want ADDR:PORT)" },
		{ "--upstream", "h:0", "invalid --upstream 'h:0' (want HOST:PORT)" },
		{ "--bogus", "1", "unknown option '--bogus'" },
		{ "stray", "1", "unexpected argument 'stray'" },
	};
	struct shb_relay_opts o;
	char err[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CU_ASSERT_EQUAL(parse(&o, err, sizeof(err), "--upstream", "h:1",
				      cases[i].a, cases[i].b, NULL), -1);
		CU_ASSERT_STRING_EQUAL(err, cases[i].want);
	}
	CU_ASSERT_EQUAL(parse(&o, err, sizeof(err), "--loss", "1", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "--upstream HOST:PORT is required");
	CU_ASSERT_EQUAL(parse(&o, err, sizeof(err), "--upstream", "h:1", "--seed", NULL), -1);
	CU_ASSERT_STRING_EQUAL(err, "option '--seed' needs a value");
}

/* --- the relay binary --------------------------------------------------- */

#define MAX_RECV 20000

struct run {
	char dir[200];
	pid_t pid;
	int echo_fd;
	int client_fd[2]; /* datagram SEQ is sent by client SEQ % nclients */
	int nclients;
	uint32_t got[MAX_RECV]; /* sequence numbers in arrival order */
	uint8_t got_by[MAX_RECV]; /* which client received it */
	size_t ngot;
	size_t corrupt;
	json_t *stats;
};

static const char *relay_path(void)
{
	const char *p = getenv("SHB_UDP_RELAY");
	return p && *p ? p : NULL;
}

static int udp_socket(uint16_t *port)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int big = 4 << 20;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	*port = ntohs(a.sin_port);
	return fd;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Datagram SEQ: 4 bytes of sequence number, 4 of length, then a pattern
 * of both, so truncation or corruption shows. Some are large. */
static size_t make_dgram(uint8_t *p, uint32_t seq)
{
	size_t n = seq % 500 == 7 ? 60000 : 16 + (seq * 37) % 1300;
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(seq >> (24 - 8 * i));
		p[4 + i] = (uint8_t)(n >> (24 - 8 * i));
	}
	for (size_t i = 8; i < n; i++)
		p[i] = (uint8_t)(seq * 31 + i);
	return n;
}

static void record(struct run *r, int client, const uint8_t *p, size_t n)
{
	static uint8_t want[65536];
	if (n < 8) {
		r->corrupt++;
		return;
	}
	uint32_t seq = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (make_dgram(want, seq) != n || memcmp(want, p, n) != 0)
		r->corrupt++;
	else if (r->ngot < MAX_RECV) {
		r->got_by[r->ngot] = (uint8_t)client;
		r->got[r->ngot++] = seq;
	}
}

/* Echoes what reached the echo socket and records what came back to the
 * client, waiting at most TIMEOUT_MS. Returns the datagrams handled. */
static int pump(struct run *r, int timeout_ms)
{
	static uint8_t buf[65536];
	struct pollfd pf[3] = { { r->echo_fd, POLLIN, 0 }, { r->client_fd[0], POLLIN, 0 },
				{ r->client_fd[1], POLLIN, 0 } };
	int handled = 0;
	if (poll(pf, 1 + (nfds_t)r->nclients, timeout_ms) <= 0)
		return 0;
	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(r->echo_fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &flen);
		if (n < 0)
			break;
		sendto(r->echo_fd, buf, (size_t)n, 0, (struct sockaddr *)&from, flen);
		handled++;
	}
	for (int c = 0; c < r->nclients; c++) {
		for (;;) {
			ssize_t n = recv(r->client_fd[c], buf, sizeof(buf), 0);
			if (n < 0)
				break;
			record(r, c, buf, (size_t)n);
			handled++;
		}
	}
	return handled;
}

static json_t *read_json(const char *path)
{
	json_error_t e;
	return json_load_file(path, 0, &e);
}

/* Starts the relay with ARGS in front of the echo socket, sends N
 * numbered datagrams through it from NCLIENTS (1 or 2) client sockets,
 * collects the echoes until 300 ms pass without any, stops the relay and
 * reads its stats. Returns 0 or -1. */
static int relay_run_clients(struct run *r, uint32_t n, int nclients,
			     const char *const *args)
{
	char up[32], pf[256], sf[256];
	uint16_t echo_port, client_port;
	memset(r, 0, sizeof(*r));
	r->echo_fd = r->client_fd[0] = r->client_fd[1] = -1;
	r->nclients = nclients;
	const char *tmp = getenv("TMPDIR");
	snprintf(r->dir, sizeof(r->dir), "%s/shb-relay-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(r->dir) || (r->echo_fd = udp_socket(&echo_port)) < 0)
		return -1;
	snprintf(up, sizeof(up), "127.0.0.1:%u", (unsigned)echo_port);
	snprintf(pf, sizeof(pf), "%s/port", r->dir);
	snprintf(sf, sizeof(sf), "%s/stats", r->dir);
	const char *argv[32] = { relay_path(), "--upstream", up, "--port-file", pf,
				 "--stats-file", sf };
	int argc = 7;
	for (; *args && argc < 31; args++)
		argv[argc++] = *args;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	int src = posix_spawn(&r->pid, argv[0], &fa, NULL, (char **)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (src != 0)
		return -1;
	FILE *f = NULL;
	unsigned relay_port = 0;
	for (int i = 0; i < 200 && !f; i++) {
		f = fopen(pf, "r");
		if (!f)
			sleep_ms(25);
	}
	if (!f || fscanf(f, "%u", &relay_port) != 1) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	struct sockaddr_in ra = { .sin_family = AF_INET, .sin_port = htons((uint16_t)relay_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	for (int c = 0; c < nclients; c++) {
		r->client_fd[c] = udp_socket(&client_port);
		if (r->client_fd[c] < 0 ||
		    connect(r->client_fd[c], (struct sockaddr *)&ra, sizeof(ra)) < 0)
			return -1;
	}
	static uint8_t buf[65536];
	for (uint32_t seq = 0; seq < n; seq++) {
		size_t len = make_dgram(buf, seq);
		if (send(r->client_fd[seq % (uint32_t)nclients], buf, len, 0) != (ssize_t)len)
			return -1;
		/* Paced so that no socket buffer overflows: a kernel drop
		 * would be indistinguishable from a relay drop. */
		pump(r, 0);
		if (seq % 16 == 15)
			while (pump(r, 1) > 0)
				;
	}
	uint64_t quiet_since = now_ms();
	while (now_ms() - quiet_since < 300)
		if (pump(r, 50) > 0)
			quiet_since = now_ms();
	int status;
	kill(r->pid, SIGTERM);
	if (waitpid(r->pid, &status, 0) != r->pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	r->pid = 0;
	r->stats = read_json(sf);
	return r->stats ? 0 : -1;
}

static int relay_run(struct run *r, uint32_t n, const char *const *args)
{
	return relay_run_clients(r, n, 1, args);
}

static void relay_done(struct run *r)
{
	if (r->pid > 0) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
	}
	if (r->echo_fd >= 0)
		close(r->echo_fd);
	for (int c = 0; c < 2; c++)
		if (r->client_fd[c] >= 0)
			close(r->client_fd[c]);
	json_decref(r->stats);
	char path[256];
	snprintf(path, sizeof(path), "%s/port", r->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stats", r->dir);
	unlink(path);
	rmdir(r->dir);
}

static json_int_t stat_of(const struct run *r, const char *dir, const char *key)
{
	json_t *d = json_object_get(r->stats, dir);
	json_t *v = d ? json_object_get(d, key) : NULL;
	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static struct run *new_run(void)
{
	struct run *r = calloc(1, sizeof(*r));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

static void test_live_clean(void)
{
	const uint32_t n = 3000;
	struct run *r = new_run();
	const char *args[] = { "--loss", "0", "--dup", "0", "--reorder", "0", NULL };
	CU_ASSERT_EQUAL_FATAL(relay_run(r, n, args), 0);
	CU_ASSERT_EQUAL(r->corrupt, 0);
	CU_ASSERT_EQUAL(r->ngot, n);
	size_t in_order = 0;
	for (size_t i = 0; i < r->ngot; i++)
		in_order += r->got[i] == i;
	CU_ASSERT_EQUAL(in_order, n);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r->stats, "sessions")), 1);
	static const char *const dirs[] = { "up", "down" };
	for (int d = 0; d < 2; d++) {
		CU_ASSERT_EQUAL(stat_of(r, dirs[d], "in"), n);
		CU_ASSERT_EQUAL(stat_of(r, dirs[d], "out"), n);
		CU_ASSERT_EQUAL(stat_of(r, dirs[d], "dropped"), 0);
		CU_ASSERT_EQUAL(stat_of(r, dirs[d], "duplicated"), 0);
		CU_ASSERT_EQUAL(stat_of(r, dirs[d], "reordered"), 0);
		CU_ASSERT_EQUAL(stat_of(r, dirs[d], "sendErrors"), 0);
	}
	relay_done(r);
	free(r);
}

/* |got/total - pct/100| within TOL percentage points. */
static int rate_near(json_int_t got, json_int_t total, double pct, double tol)
{
	if (total <= 0)
		return 0;
	double rate = 100.0 * (double)got / (double)total;
	return rate > pct - tol && rate < pct + tol;
}

static void test_live_loss(void)
{
	const uint32_t n = 4000;
	struct run *r = new_run();
	const char *args[] = { "--seed", "11", "--loss", "10", NULL };
	CU_ASSERT_EQUAL_FATAL(relay_run(r, n, args), 0);
	CU_ASSERT_EQUAL(r->corrupt, 0);
	CU_ASSERT_EQUAL(stat_of(r, "up", "in"), n);
	json_int_t up_out = stat_of(r, "up", "out");
	CU_ASSERT_EQUAL(stat_of(r, "up", "dropped") + up_out, n);
	/* The echo answered everything the relay sent up. */
	CU_ASSERT_EQUAL(stat_of(r, "down", "in"), up_out);
	CU_ASSERT_EQUAL(stat_of(r, "down", "dropped") + stat_of(r, "down", "out"), up_out);
	CU_ASSERT_EQUAL((json_int_t)r->ngot, stat_of(r, "down", "out"));
	/* 3.5 binomial standard deviations (1.6 and 1.7 points). */
	CU_ASSERT(rate_near(stat_of(r, "up", "dropped"), n, 10.0, 1.7));
	CU_ASSERT(rate_near(stat_of(r, "down", "dropped"), up_out, 10.0, 1.8));
	size_t ascending = 1;
	for (size_t i = 1; i < r->ngot; i++)
		ascending += r->got[i] > r->got[i - 1];
	CU_ASSERT_EQUAL(ascending, r->ngot);
	relay_done(r);
	free(r);
}

static void test_live_dup(void)
{
	const uint32_t n = 4000;
	struct run *r = new_run();
	const char *args[] = { "--seed", "12", "--dup", "10", NULL };
	CU_ASSERT_EQUAL_FATAL(relay_run(r, n, args), 0);
	CU_ASSERT_EQUAL(r->corrupt, 0);
	json_int_t up_dup = stat_of(r, "up", "duplicated");
	json_int_t down_in = stat_of(r, "down", "in");
	CU_ASSERT_EQUAL(stat_of(r, "up", "out"), n + up_dup);
	CU_ASSERT_EQUAL(down_in, n + up_dup);
	CU_ASSERT_EQUAL(stat_of(r, "down", "out"), down_in + stat_of(r, "down", "duplicated"));
	CU_ASSERT_EQUAL((json_int_t)r->ngot, stat_of(r, "down", "out"));
	CU_ASSERT(rate_near(up_dup, n, 10.0, 1.7));
	CU_ASSERT(rate_near(stat_of(r, "down", "duplicated"), down_in, 10.0, 1.7));
	/* Every datagram arrives at least once and at most four times. */
	uint8_t *count = calloc(n, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(count);
	for (size_t i = 0; i < r->ngot; i++)
		if (r->got[i] < n)
			count[r->got[i]]++;
	size_t ok = 0;
	for (uint32_t s = 0; s < n; s++)
		ok += count[s] >= 1 && count[s] <= 4;
	CU_ASSERT_EQUAL(ok, n);
	free(count);
	relay_done(r);
	free(r);
}

static void test_live_reorder(void)
{
	const uint32_t n = 3000;
	struct run *r = new_run();
	const char *args[] = { "--seed", "13", "--reorder", "20", "--reorder-delay-ms", "5", NULL };
	CU_ASSERT_EQUAL_FATAL(relay_run(r, n, args), 0);
	CU_ASSERT_EQUAL(r->corrupt, 0);
	CU_ASSERT_EQUAL(r->ngot, n);
	uint8_t *seen = calloc(n, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
	size_t once = 0, late = 0;
	uint32_t max = 0;
	for (size_t i = 0; i < r->ngot; i++) {
		if (r->got[i] < n && !seen[r->got[i]]++)
			once++;
		late += i > 0 && r->got[i] < max;
		if (r->got[i] > max)
			max = r->got[i];
	}
	CU_ASSERT_EQUAL(once, n);
	free(seen);
	/* A hold is only possible while none is pending, so fewer than 20 %
	 * are held; but many are. */
	json_int_t held = stat_of(r, "up", "reordered") + stat_of(r, "down", "reordered");
	CU_ASSERT(held > (json_int_t)(2 * n) / 10 && held <= (json_int_t)(2 * n) / 5);
	CU_ASSERT(late > n / 10);
	CU_ASSERT_EQUAL(stat_of(r, "up", "out"), n);
	CU_ASSERT_EQUAL(stat_of(r, "down", "out"), n);
	relay_done(r);
	free(r);
}

static void test_live_seed_reproducible(void)
{
	const uint32_t n = 2000;
	struct run *a = new_run(), *b = new_run(), *c = new_run();
	const char *args7[] = { "--seed", "7", "--loss", "20", NULL };
	const char *args8[] = { "--seed", "8", "--loss", "20", NULL };
	CU_ASSERT_EQUAL_FATAL(relay_run(a, n, args7), 0);
	CU_ASSERT_EQUAL_FATAL(relay_run(b, n, args7), 0);
	CU_ASSERT_EQUAL_FATAL(relay_run(c, n, args8), 0);
	CU_ASSERT(a->ngot > n / 2);
	CU_ASSERT_EQUAL(a->ngot, b->ngot);
	CU_ASSERT(a->ngot == b->ngot && memcmp(a->got, b->got, a->ngot * sizeof(a->got[0])) == 0);
	CU_ASSERT(a->ngot != c->ngot || memcmp(a->got, c->got, a->ngot * sizeof(a->got[0])) != 0);
	relay_done(a);
	relay_done(b);
	relay_done(c);
	free(a);
	free(b);
	free(c);
}

static void test_live_drop_first(void)
{
	const uint32_t n = 50;
	struct run *r = new_run();
	const char *args[] = { "--drop-first", "3", "--drop-first-down", "2", NULL };
	CU_ASSERT_EQUAL_FATAL(relay_run(r, n, args), 0);
	/* 0..2 lost going up; 3 and 4 (the first two echoes) coming down. */
	CU_ASSERT_EQUAL(r->ngot, n - 5);
	size_t ok = 0;
	for (size_t i = 0; i < r->ngot; i++)
		ok += r->got[i] == i + 5;
	CU_ASSERT_EQUAL(ok, n - 5);
	CU_ASSERT_EQUAL(stat_of(r, "up", "dropped"), 3);
	CU_ASSERT_EQUAL(stat_of(r, "down", "dropped"), 2);
	relay_done(r);
	free(r);
}

/* Each client address gets its own session and only its own echoes. */
static void test_live_two_clients(void)
{
	const uint32_t n = 1000;
	struct run *r = new_run();
	const char *args[] = { NULL };
	CU_ASSERT_EQUAL_FATAL(relay_run_clients(r, n, 2, args), 0);
	CU_ASSERT_EQUAL(r->corrupt, 0);
	CU_ASSERT_EQUAL(r->ngot, n);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r->stats, "sessions")), 2);
	uint32_t next[2] = { 0, 1 };
	size_t ok = 0;
	for (size_t i = 0; i < r->ngot; i++) {
		int c = r->got_by[i];
		if (r->got[i] == next[c]) {
			ok++;
			next[c] += 2;
		}
	}
	CU_ASSERT_EQUAL(ok, n);
	relay_done(r);
	free(r);
}

/* Runs the relay with ARGV and returns its exit status, with its stderr
 * in ERR. */
static int relay_exit(const char *const *args, char *err, size_t cap)
{
	char path[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/shb-relay-err.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	const char *argv[16] = { relay_path() };
	int argc = 1;
	for (; *args && argc < 15; args++)
		argv[argc++] = *args;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int status = -1;
	if (posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ) == 0 &&
	    waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		status = WEXITSTATUS(status);
	posix_spawn_file_actions_destroy(&fa);
	ssize_t n = pread(fd, err, cap - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return status;
}

static void test_live_bad_arguments(void)
{
	char err[1024];
	const char *bad_loss[] = { "--upstream", "127.0.0.1:9", "--loss", "150", NULL };
	CU_ASSERT_EQUAL(relay_exit(bad_loss, err, sizeof(err)), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "shb-udp-relay: invalid --loss '150'"));
	const char *no_up[] = { "--loss", "1", NULL };
	CU_ASSERT_EQUAL(relay_exit(no_up, err, sizeof(err)), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "--upstream HOST:PORT is required"));
	const char *bad_listen[] = { "--upstream", "127.0.0.1:9", "--listen", "localhost:0", NULL };
	CU_ASSERT_EQUAL(relay_exit(bad_listen, err, sizeof(err)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "shb-udp-relay: cannot resolve 'localhost'"));
	const char *help[] = { "--help", NULL };
	CU_ASSERT_EQUAL(relay_exit(help, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
}

static int live_init(void)
{
	if (!relay_path()) {
		fprintf(stderr, "SHB_UDP_RELAY is not set to the relay binary\n");
		return 1;
	}
	return 0;
}

static CU_TestInfo rng_tests[] = {
	{ "deterministic", test_rng_deterministic },
	{ "streams_do_not_swap", test_rng_streams_do_not_swap },
	{ "chance_bounds_and_rate", test_rng_chance_bounds_and_rate },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo impair_tests[] = {
	{ "three_draws", test_impair_three_draws },
	{ "none_and_drop_first", test_impair_none_and_drop_first },
	{ "rates", test_impair_rates },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo opts_tests[] = {
	{ "valid", test_opts_valid },
	{ "errors", test_opts_errors },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo live_tests[] = {
	{ "clean", test_live_clean },
	{ "loss", test_live_loss },
	{ "dup", test_live_dup },
	{ "reorder", test_live_reorder },
	{ "seed_reproducible", test_live_seed_reproducible },
	{ "drop_first", test_live_drop_first },
	{ "two_clients", test_live_two_clients },
	{ "bad_arguments", test_live_bad_arguments },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "relay_rng", NULL, NULL, NULL, NULL, rng_tests },
	{ "relay_impair", NULL, NULL, NULL, NULL, impair_tests },
	{ "relay_opts", NULL, NULL, NULL, NULL, opts_tests },
	{ "relay_live", live_init, NULL, NULL, NULL, live_tests },
	CU_SUITE_INFO_NULL,
};
