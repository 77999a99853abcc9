/* The prom reporter's parts without a Prometheus: the protobuf and snappy
 * encodings against vectors computed by hand from the protobuf encoding
 * rules and snappy's format description, the answer's status line, the
 * bucket bounds and their le labels, the options, and how results fold
 * into the pushed state (an interval's deltas, then the run's totals),
 * with the core's own histograms, and a POST trying the next address
 * after a refused one. tests/e2e/prom.sh checks the same
 * against a real Prometheus. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <CUnit/CUnit.h>
#include <shb/shb.h>

#include "prom_opts.h"
#include "prom_push.h"
#include "prom_series.h"
#include "prom_wire.h"
#include "results/hist.h"

static void same_bytes(const struct shb_buf *b, const uint8_t *want, size_t n)
{
	CU_ASSERT_EQUAL_FATAL(b->len, n);
	CU_ASSERT_EQUAL(memcmp(b->p, want, n), 0);
}

static void test_varint(void)
{
	static const struct {
		uint64_t v;
		size_t n;
		uint8_t b[10];
	} vec[] = {
		{0, 1, {0x00}},
		{1, 1, {0x01}},
		{127, 1, {0x7f}},
		{128, 2, {0x80, 0x01}},
		{300, 2, {0xac, 0x02}},
		{70000, 3, {0xf0, 0xa2, 0x04}},
		{UINT64_MAX, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0xff, 0x01}},
	};
	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		uint8_t out[10];
		CU_ASSERT_EQUAL(shb_prom_varint(out, vec[i].v), vec[i].n);
		CU_ASSERT_EQUAL(memcmp(out, vec[i].b, vec[i].n), 0);
	}
}

/* WriteRequest{timeseries: [{labels: [{__name__, "a"}, {"b", "c"}],
 * samples: [{value: 1.0, timestamp: 5}]}]}, byte by byte. */
static void test_series(void)
{
	static const uint8_t want[] = {
		0x0a, 0x24,                         /* timeseries, 36 */
		0x0a, 0x0d,                         /* labels, 13 */
		0x0a, 0x08, '_', '_', 'n', 'a', 'm', 'e', '_', '_',
		0x12, 0x01, 'a',
		0x0a, 0x06,                         /* labels, 6 */
		0x0a, 0x01, 'b', 0x12, 0x01, 'c',
		0x12, 0x0b,                         /* samples, 11 */
		0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, /* value 1.0 */
		0x10, 0x05,                         /* timestamp 5 */
	};
	struct shb_prom_label l[2] = {{"b", "c"}, {"__name__", "a"}};
	struct shb_buf b = SHB_BUF_INIT(16, 1024);
	CU_ASSERT_EQUAL(shb_prom_put_series(&b, l, 2, 1.0, 5), -3); /* unsorted */
	CU_ASSERT_EQUAL(b.len, 0);
	shb_prom_sort_labels(l, 2);
	CU_ASSERT_STRING_EQUAL(l[0].name, "__name__");
	CU_ASSERT_EQUAL(shb_prom_put_series(&b, l, 2, 1.0, 5), SHB_BUF_OK);
	same_bytes(&b, want, sizeof(want));
	/* a timestamp of today's size: six varint bytes */
	shb_buf_clear(&b);
	struct shb_prom_label one = {"__name__", "x"};
	CU_ASSERT_EQUAL(shb_prom_put_series(&b, &one, 1, 0.5, 1796544555161), 0);
	static const uint8_t ts[] = {0x10, 0x99, 0xd1, 0x99, 0xd3, 0xa4, 0x34};
	CU_ASSERT_EQUAL_FATAL(b.len, 2 + 2 + 13 + 2 + 16);
	CU_ASSERT_EQUAL(memcmp(b.p + b.len - sizeof(ts), ts, sizeof(ts)), 0);
	static const uint8_t half[] = {0x09, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f};
	CU_ASSERT_EQUAL(memcmp(b.p + b.len - 16, half, sizeof(half)), 0);
	shb_buf_free(&b);
}

static void test_snappy(void)
{
	struct shb_buf b = SHB_BUF_INIT(16, 1 << 20);
	static const uint8_t abc[] = {0x03, 0x08, 'a', 'b', 'c'};
	CU_ASSERT_EQUAL(shb_prom_snappy(&b, (const uint8_t *)"abc", 3), 0);
	same_bytes(&b, abc, sizeof(abc));
	shb_buf_clear(&b); /* empty input: the length alone */
	CU_ASSERT_EQUAL(shb_prom_snappy(&b, NULL, 0), 0);
	CU_ASSERT_EQUAL(b.len, 1);
	CU_ASSERT_EQUAL(b.p[0], 0);

	uint8_t *in = malloc(70000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	for (size_t i = 0; i < 70000; i++)
		in[i] = (uint8_t)(i * 7);
	/* 60 bytes: the last one-byte tag, (60 - 1) << 2 */
	shb_buf_clear(&b);
	shb_prom_snappy(&b, in, 60);
	CU_ASSERT_EQUAL(b.len, 2 + 60);
	CU_ASSERT_EQUAL(b.p[0], 60);
	CU_ASSERT_EQUAL(b.p[1], 0xec);
	/* 61 bytes: tag 61 << 2 and two bytes of length - 1 */
	shb_buf_clear(&b);
	shb_prom_snappy(&b, in, 61);
	CU_ASSERT_EQUAL(b.len, 4 + 61);
	CU_ASSERT_EQUAL(b.p[1], 0xf4);
	CU_ASSERT_EQUAL(b.p[2], 60);
	CU_ASSERT_EQUAL(b.p[3], 0);
	CU_ASSERT_EQUAL(memcmp(b.p + 4, in, 61), 0);
	/* 70000 bytes: 65536 then 4464, each a literal of its own */
	shb_buf_clear(&b);
	shb_prom_snappy(&b, in, 70000);
	CU_ASSERT_EQUAL_FATAL(b.len, 3 + 3 + 65536 + 3 + 4464);
	static const uint8_t h1[] = {0xf0, 0xa2, 0x04, 0xf4, 0xff, 0xff};
	CU_ASSERT_EQUAL(memcmp(b.p, h1, sizeof(h1)), 0);
	CU_ASSERT_EQUAL(memcmp(b.p + 6, in, 65536), 0);
	static const uint8_t h2[] = {0xf4, 0x6f, 0x11};
	CU_ASSERT_EQUAL(memcmp(b.p + 6 + 65536, h2, sizeof(h2)), 0);
	CU_ASSERT_EQUAL(memcmp(b.p + 9 + 65536, in + 65536, 4464), 0);
	free(in);
	shb_buf_free(&b);
}

static int status_of(const char *s, int *code)
{
	*code = -1;
	return shb_prom_status(s, strlen(s), code);
}

static void test_status(void)
{
	int c;
	CU_ASSERT_EQUAL(status_of("HTTP/1.1 204 No Content\r\n", &c), 1);
	CU_ASSERT_EQUAL(c, 204);
	CU_ASSERT_EQUAL(status_of("HTTP/1.0 500\r\nx", &c), 1);
	CU_ASSERT_EQUAL(c, 500);
	CU_ASSERT_EQUAL(status_of("HTTP/1.1 400 Bad\n", &c), 1);
	CU_ASSERT_EQUAL(c, 400);
	CU_ASSERT_EQUAL(status_of("", &c), 0);
	CU_ASSERT_EQUAL(status_of("HTTP/1.", &c), 0);
	CU_ASSERT_EQUAL(status_of("HTTP/1.1 20", &c), 0);
	CU_ASSERT_EQUAL(c, -1);
	CU_ASSERT_EQUAL(status_of("HTTX", &c), -1);
	CU_ASSERT_EQUAL(status_of("HTTP/2 200\r\n", &c), -1);
	CU_ASSERT_EQUAL(status_of("HTTP/1.1 2000\r\n", &c), -1);
	CU_ASSERT_EQUAL(status_of("HTTP/1.1 099 x\r\n", &c), -1);
	CU_ASSERT_EQUAL(status_of("HTTP/1.1 2x0 x\r\n", &c), -1);
	CU_ASSERT_EQUAL(status_of("HTTP/1.1 200\r\n", &c), 1);
	/* a status line that never ends: refused at the cap, not read on */
	char *longl = malloc(SHB_PROM_LINE_MAX + 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(longl);
	memset(longl, 'x', SHB_PROM_LINE_MAX + 8);
	memcpy(longl, "HTTP/1.1 200 ", 13);
	CU_ASSERT_EQUAL(shb_prom_status(longl, SHB_PROM_LINE_MAX - 1, &c), 0);
	CU_ASSERT_EQUAL(shb_prom_status(longl, SHB_PROM_LINE_MAX, &c), -1);
	free(longl);
}

static int answer_of(const char *s, char *why, size_t whylen)
{
	return shb_prom_answer(s, strlen(s), why, whylen);
}

static void test_answer(void)
{
	char why[256];
	CU_ASSERT_EQUAL(answer_of("HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n",
				  why, sizeof(why)), 204);
	CU_ASSERT_STRING_EQUAL(why, "answered 204");
	CU_ASSERT_EQUAL(answer_of("HTTP/1.1 400 Bad Request\r\nContent-Length: 20"
				  "\r\n\r\nout of order sample\n", why,
				  sizeof(why)), 400);
	CU_ASSERT_STRING_EQUAL(why, "answered 400: out of order sample");
	/* the body quoted: one printable line whatever it holds */
	CU_ASSERT_EQUAL(answer_of("HTTP/1.0 500 x\r\n\r\na\x01\nb", why,
				  sizeof(why)), 500);
	CU_ASSERT_STRING_EQUAL(why, "answered 500: a\\x01\\x0ab");
	CU_ASSERT_EQUAL(answer_of("SSH-2.0-OpenSSH\r\n", why, sizeof(why)), -1);
	CU_ASSERT_STRING_EQUAL(why, "the answer is not an HTTP/1.x status line");
	CU_ASSERT_EQUAL(answer_of("HTTP/1.1 200 OK", why, sizeof(why)), -1);
}

static void test_buckets(void)
{
	char le[24];
	CU_ASSERT_STRING_EQUAL(shb_prom_le_label(le, sizeof(le), 0), "0.000001");
	CU_ASSERT_STRING_EQUAL(shb_prom_le_label(le, sizeof(le), 7), "0.000015");
	CU_ASSERT_STRING_EQUAL(shb_prom_le_label(le, sizeof(le), 18), "0.001");
	CU_ASSERT_STRING_EQUAL(shb_prom_le_label(le, sizeof(le), 37), "1.5");
	CU_ASSERT_STRING_EQUAL(shb_prom_le_label(le, sizeof(le), 36), "1");
	CU_ASSERT_STRING_EQUAL(shb_prom_le_label(le, sizeof(le), 46), "60");
	for (size_t i = 1; i < SHB_PROM_BUCKETS; i++)
		CU_ASSERT_TRUE(shb_prom_le_ns[i] > shb_prom_le_ns[i - 1]);
	CU_ASSERT_EQUAL(shb_prom_bucket_of(0), 0);
	CU_ASSERT_EQUAL(shb_prom_bucket_of(10000), 6);
	CU_ASSERT_EQUAL(shb_prom_bucket_of(10001), 7);
	CU_ASSERT_EQUAL(shb_prom_bucket_of(1000000), 18);
	CU_ASSERT_EQUAL(shb_prom_bucket_of(60000000000ull), 46);
	CU_ASSERT_EQUAL(shb_prom_bucket_of(60000000001ull), SHB_PROM_BUCKETS);
}

static void test_duration(void)
{
	uint64_t ns = 0;
	CU_ASSERT_EQUAL(shb_prom_duration("2s", 2, &ns), 0);
	CU_ASSERT_EQUAL(ns, 2000000000ull);
	CU_ASSERT_EQUAL(shb_prom_duration("500ms", 5, &ns), 0);
	CU_ASSERT_EQUAL(ns, 500000000ull);
	CU_ASSERT_EQUAL(shb_prom_duration("1.5s", 4, &ns), 0);
	CU_ASSERT_EQUAL(ns, 1500000000ull);
	CU_ASSERT_EQUAL(shb_prom_duration("3", 1, &ns), 0);
	CU_ASSERT_EQUAL(ns, 3000000000ull);
	CU_ASSERT_EQUAL(shb_prom_duration("600s", 4, &ns), 0);
	CU_ASSERT_EQUAL(shb_prom_duration("601s", 4, &ns), -1);
	CU_ASSERT_EQUAL(shb_prom_duration("0s", 2, &ns), -1);
	CU_ASSERT_EQUAL(shb_prom_duration("0.5ms", 5, &ns), -1);
	CU_ASSERT_EQUAL(shb_prom_duration("", 0, &ns), -1);
	CU_ASSERT_EQUAL(shb_prom_duration("s", 1, &ns), -1);
	CU_ASSERT_EQUAL(shb_prom_duration("2m", 2, &ns), -1);
	CU_ASSERT_EQUAL(shb_prom_duration("99999999999s", 12, &ns), -1);
}

static void test_options(void)
{
	struct shb_prom_opts o;
	char err[512];
	CU_ASSERT_EQUAL(shb_prom_opts_parse(NULL, &o, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(o.target.path, "/api/v1/write");
	CU_ASSERT_STRING_EQUAL(o.target.hostport, "127.0.0.1:9090");
	CU_ASSERT_EQUAL(o.timeout_ns, SHB_PROM_TIMEOUT_DEFAULT_NS);
	CU_ASSERT_STRING_EQUAL(o.run_id, "");
	CU_ASSERT_EQUAL(shb_prom_opts_parse("url=http://[::1]:19090/w,run=a.b:c-1,"
					    "timeout=250ms", &o, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(o.target.path, "/w");
	CU_ASSERT_STRING_EQUAL(o.target.hostport, "[::1]:19090");
	CU_ASSERT_STRING_EQUAL(o.run_id, "a.b:c-1");
	CU_ASSERT_EQUAL(o.timeout_ns, 250000000ull);
	CU_ASSERT_EQUAL(shb_prom_opts_parse("url=http://127.0.0.1", &o, err,
					    sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.target.naddr, 1);
	CU_ASSERT_EQUAL(((struct sockaddr_in *)&o.target.addr[0])->sin_port, htons(80));
	/* a query after the path goes with it (receivers take parameters) */
	CU_ASSERT_EQUAL(shb_prom_opts_parse("url=http://127.0.0.1:1/w?x=1", &o,
					    err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(o.target.path, "/w?x=1");
	static const char *const bad[] = {
		"url=https://127.0.0.1/", "url=http://127.0.0.1:99999/",
		"url=http://:80/",
		"url=http://[::1/", "url=http://127.0.0.1:9090?x=1", "url=http://h/#f",
		"run=a b", "run=", "timeout=0",
		"url=http://127.0.0.1:/",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		int rc = shb_prom_opts_parse(bad[i], &o, err, sizeof(err));
		if (rc != -1)
			fprintf(stderr, "accepted: %s\n", bad[i]);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_TRUE(strncmp(err, "url \"", 5) == 0 ||
			       strncmp(err, "option \"", 8) == 0);
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	}
}

/* A result as the core hands it: counts, errors by kind, statuses and a
 * latency histogram. */
struct fake {
	struct shb_histo lat, empty;
	struct shb_status_count st[2];
	struct shb_error_count ex[SHB_ERRK_EX_COUNT];
	struct shb_results r;
};

static void fake_init(struct fake *f, int kind, uint64_t ok, uint64_t read_errs,
		      const uint64_t *lat_ns, size_t nlat)
{
	memset(f, 0, sizeof(*f));
	CU_ASSERT_EQUAL_FATAL(shb_histo_init(&f->lat, 3600000000000ull, 3), 0);
	CU_ASSERT_EQUAL_FATAL(shb_histo_init(&f->empty, 3600000000000ull, 3), 0);
	for (size_t i = 0; i < nlat; i++)
		shb_histo_record(&f->lat, lat_ns[i]);
	f->st[0] = (struct shb_status_count){200, 0, ok - 1};
	f->st[1] = (struct shb_status_count){503, 0, 1};
	for (uint32_t k = 0; k < SHB_ERRK_EX_COUNT; k++)
		f->ex[k] = (struct shb_error_count){k, 0, k == SHB_ERRK_READ ?
						    read_errs : 0, NULL};
	struct shb_results *r = &f->r;
	r->struct_size = sizeof(*r);
	r->kind = (uint32_t)kind;
	r->elapsed_ns = 1000000000;
	r->requests_ok = ok;
	r->requests_errors = read_errs;
	r->requests_total = ok + read_errs;
	r->requests_answered = ok;
	r->bytes_sent = 100 * ok;
	r->bytes_received = 200 * ok;
	r->connections_opened = 2;
	r->statuses = f->st;
	r->status_count = 2;
	r->errors = f->ex;
	r->error_count = 0;
	r->errors_ex = f->ex;
	r->error_ex_count = SHB_ERRK_EX_COUNT;
	r->latency = shb_histo_abi(&f->lat);
	r->latency_uncorrected = r->latency;
	r->connect = r->handshake = r->first_byte = shb_histo_abi(&f->empty);
	r->latency_error_reply = shb_histo_abi(&f->empty);
	r->connections_active = 2;
	r->measured = SHB_MEASURED_BYTES | SHB_MEASURED_CONNECTIONS;
}

static void fake_free(struct fake *f)
{
	shb_histo_destroy(&f->lat);
	shb_histo_destroy(&f->empty);
}

/* Two intervals are added; the total then replaces the counts (here it
 * says one more ok request than the intervals did, as a total always
 * wins), and each latency lands in the bucket of its HdrHistogram
 * bucket's highest value. */
static void test_take(void)
{
	static const uint64_t a[] = {9990, 10001, 999999, 1000000},
			      b[] = {2000000, 70000000000ull};
	static const uint64_t t[] = {9990, 10001, 999999, 1000000, 2000000,
				     70000000000ull, 14000};
	struct shb_prom_state s = {0};
	struct fake f;
	fake_init(&f, SHB_RESULTS_INTERVAL, 4, 1, a, 4);
	shb_prom_take(&s, &shb_histo_ops, &f.r, 0);
	fake_free(&f);
	CU_ASSERT_EQUAL(s.ok, 4);
	CU_ASSERT_EQUAL(s.errk[SHB_ERRK_READ], 1);
	CU_ASSERT_EQUAL(s.kinds, SHB_ERRK_EX_COUNT);
	CU_ASSERT_EQUAL(s.status[200], 3);
	CU_ASSERT_EQUAL(s.status[503], 1);
	CU_ASSERT_EQUAL(s.bucket[6], 1); /* 9990: [9984, 9991] */
	CU_ASSERT_EQUAL(s.bucket[7], 1); /* 10001: [10000, 10007], above 10 us */
	/* 999999 and 1000000 share [999936, 1000447]: above 1 ms */
	CU_ASSERT_EQUAL(s.bucket[18], 0);
	CU_ASSERT_EQUAL(s.bucket[19], 2);
	CU_ASSERT_EQUAL(s.lat_count, 4);
	fake_init(&f, SHB_RESULTS_INTERVAL, 2, 0, b, 2);
	shb_prom_take(&s, &shb_histo_ops, &f.r, 0);
	fake_free(&f);
	CU_ASSERT_EQUAL(s.ok, 6);
	CU_ASSERT_EQUAL(s.sent, 600);
	CU_ASSERT_EQUAL(s.bucket[SHB_PROM_BUCKETS], 1); /* 70 s: +Inf only */
	CU_ASSERT_EQUAL(s.elapsed_ns, 2000000000ull);
	CU_ASSERT_FALSE(s.final);
	double sum_ivals = s.lat_sum_ns;

	fake_init(&f, SHB_RESULTS_TOTAL, 7, 1, t, 7);
	f.r.elapsed_ns = 2000000123;
	shb_prom_take(&s, &shb_histo_ops, &f.r, 1);
	CU_ASSERT_EQUAL(s.ok, 7);
	CU_ASSERT_EQUAL(s.errors, 1);
	CU_ASSERT_EQUAL(s.status[200], 6);
	CU_ASSERT_EQUAL(s.sent, 700);
	CU_ASSERT_EQUAL(s.received, 1400);
	CU_ASSERT_EQUAL(s.opened, 2);
	CU_ASSERT_EQUAL(s.lat_count, 7);
	CU_ASSERT_EQUAL(s.bucket[7], 2);
	CU_ASSERT_EQUAL(s.elapsed_ns, 2000000123ull);
	CU_ASSERT_TRUE(s.final);
	double want = (double)shb_histo_mean(&f.lat) * 7;
	CU_ASSERT_DOUBLE_EQUAL(s.lat_sum_ns, want > sum_ivals ? want : sum_ivals, 0.5);
	CU_ASSERT_TRUE(s.lat_sum_ns >= sum_ivals);

	struct shb_buf pb = SHB_BUF_INIT(1024, 1 << 20);
	struct shb_prom_ids ids = {"r1", "http://x/", "h1", "0"};
	CU_ASSERT_EQUAL(shb_prom_encode(&s, &ids, 1000, &pb), SHB_BUF_OK);
	/* 3 request counters, answered, 8 kinds (script since 1.4), 2
	 * statuses, 3 byte and connection counters, 2 gauges, elapsed,
	 * finished, 48 buckets, sum and count: 71 timeseries entries, each
	 * starting with key 0x0a */
	size_t n = 0;
	for (size_t at = 0; at < pb.len; n++) {
		uint64_t len = 0;
		unsigned shift = 0;
		CU_ASSERT_EQUAL_FATAL(pb.p[at], 0x0a);
		for (at++; pb.p[at] & 0x80; at++, shift += 7)
			len |= (uint64_t)(pb.p[at] & 0x7f) << shift;
		len |= (uint64_t)pb.p[at++] << shift;
		at += len;
		CU_ASSERT_TRUE_FATAL(at <= pb.len);
	}
	CU_ASSERT_EQUAL(n, 71);
	shb_buf_free(&pb);
	fake_free(&f);
}

/* A TCP socket on 127.0.0.1, any port: listening, or closed again so
 * that a connect to its port is refused. Returns the fd (-1 when closed)
 * and the address. */
static int loopback_port(int listening, struct sockaddr_storage *a, socklen_t *alen)
{
	struct sockaddr_in *in = (struct sockaddr_in *)a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CU_ASSERT_FATAL(fd >= 0);
	memset(a, 0, sizeof(*a));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*alen = sizeof(*in);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)in, *alen) == 0);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)in, alen) == 0);
	if (listening) {
		CU_ASSERT_FATAL(listen(fd, 4) == 0);
		return fd;
	}
	close(fd);
	return -1;
}

/* One receiver: takes a connection within 5 s, reads the head and the
 * 5-byte body, answers 204. */
static void *answer_204(void *arg)
{
	int lfd = *(int *)arg, fd;
	struct pollfd pfd = {lfd, POLLIN, 0};
	char buf[2048];
	size_t got = 0;
	if (poll(&pfd, 1, 5000) != 1 || (fd = accept(lfd, NULL, NULL)) < 0)
		return NULL;
	for (;;) {
		ssize_t k = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
		if (k <= 0)
			break;
		got += (size_t)k;
		buf[got] = 0;
		const char *end = strstr(buf, "\r\n\r\n");
		if (end && got >= (size_t)(end + 4 - buf) + 5)
			break;
	}
	static const char ok[] = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
	(void)!send(fd, ok, sizeof(ok) - 1, MSG_NOSIGNAL);
	close(fd);
	return NULL;
}

static void target_of(struct shb_prom_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->url, sizeof(t->url), "http://localhost/");
	snprintf(t->hostport, sizeof(t->hostport), "localhost");
	snprintf(t->path, sizeof(t->path), "/api/v1/write");
}

/* A name that resolves to an address nobody listens on first (localhost
 * on ::1 before 127.0.0.1, as a stock Debian resolves it) still reaches
 * the receiver: a POST tries the next address after a refusal. With the
 * refused address alone the POST fails as a connect error that says so. */
static void test_post_addresses(void)
{
	struct shb_prom_target t;
	struct sockaddr_storage refused, open_a;
	socklen_t rlen, olen;
	char why[256] = "";
	pthread_t th;
	int lfd = loopback_port(1, &open_a, &olen);
	(void)loopback_port(0, &refused, &rlen);

	target_of(&t);
	t.addr[0] = refused;
	t.addrlen[0] = rlen;
	t.addr[1] = open_a;
	t.addrlen[1] = olen;
	t.naddr = 2;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, answer_204, &lfd) == 0);
	CU_ASSERT_EQUAL(shb_prom_post(&t, (const uint8_t *)"abcde", 5, 5000000000ull,
				      why, sizeof(why)), SHB_PROM_POST_OK);
	pthread_join(th, NULL);
	close(lfd);

	t.naddr = 1;
	CU_ASSERT_EQUAL(shb_prom_post(&t, (const uint8_t *)"abcde", 5, 5000000000ull,
				      why, sizeof(why)), SHB_PROM_FAIL_CONNECT);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "connect: Connection refused"));
}

static CU_TestInfo prom_tests[] = {
	{"protobuf varints", test_varint},
	{"a WriteRequest timeseries, byte by byte", test_series},
	{"snappy literals of every tag size", test_snappy},
	{"the answer's status line", test_status},
	{"the answer: status and the body's reason", test_answer},
	{"bucket bounds and le labels", test_buckets},
	{"timeout durations", test_duration},
	{"options: url, run, timeout", test_options},
	{"intervals add up, the total replaces them", test_take},
	{"a POST tries the next address after a refusal", test_post_addresses},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"prom", NULL, NULL, NULL, NULL, prom_tests},
	CU_SUITE_INFO_NULL,
};
