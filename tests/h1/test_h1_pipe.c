/* Pipelining (-p N on HTTP/1.1): the FIFO of requests in flight, driven
 * through the vtable under the test kit. Responses of five requests (a
 * sized body, a HEAD, a 1xx then a 204, a 304 with a length, a chunked
 * body) are fed split at every offset, cut by EOF at every offset, broken,
 * closing and overflowing; every cookie must be reported exactly once, in
 * order, with its own status and byte counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h1_conn.h"
#include "h1_tests.h"

#define NREQ 5

/* The responses to GET /0, HEAD /1, GET /2, GET /3, GET /4, back to back. */
static const char *const resp[NREQ] = {
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
	"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
	"HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	"3\r\nabc\r\n0\r\n\r\n",
};
static const uint32_t status[NREQ] = {200, 200, 204, 304, 200};
static const uint64_t body[NREQ] = {5, 0, 0, 0, 3};

struct px {
	struct shb_kit_module m;
	struct shb_kit_conn c;
	char all[1024]; /* the responses concatenated */
	size_t len;
	size_t end[NREQ]; /* where response i ends in all */
};

static void px_open(struct px *f, uint32_t depth, uint32_t run_flags)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	struct shb_run_config cfg;

	shb_h1_test_reset(0);
	memset(f, 0, sizeof(*f));
	shb_kit_run_config_default(&cfg, d);
	cfg.parallel = depth;
	cfg.flags = run_flags;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f->m, &shb_h1_kit, d, &cfg),
			      SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f->m, NULL), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f->c, &f->m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&f->c, NULL), SHB_OK);
	for (int i = 0; i < NREQ; i++) {
		size_t n = strlen(resp[i]);
		memcpy(f->all + f->len, resp[i], n);
		f->len += n;
		f->end[i] = f->len;
	}
}

static void px_close(struct px *f)
{
	shb_kit_conn_fini(&f->c);
	shb_kit_module_destroy(&f->m);
	CU_ASSERT_EQUAL(shb_kit_host_dump_violations(&shb_h1_kit, "h1 pipe: "), 0);
}

/* Request i: GET /i, HEAD for i == 1, with cookie 100 + i. */
static void px_issue(struct px *f, uint32_t i)
{
	char path[16];
	struct shb_request r = {
		.struct_size = sizeof(r),
		.method = i == 1 ? "HEAD" : "GET",
		.scheme = "http",
		.authority = "h",
		.path = path,
	};

	snprintf(path, sizeof(path), "/%u", i);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_req(&f->c, &r, 100 + i), SHB_OK);
}

/* Issues NREQ requests, checks they leave in one pull_send, in order,
 * and sends them. */
static void px_issue_all(struct px *f)
{
	struct shb_vec v[16];
	char want[512] = "";

	for (uint32_t i = 0; i < NREQ; i++) {
		CU_ASSERT_EQUAL(f->c.capacity, NREQ - i);
		px_issue(f, i);
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "%s /%u HTTP/1.1\r\nHost: h\r\n\r\n",
			 i == 1 ? "HEAD" : "GET", i);
	}
	CU_ASSERT_EQUAL(f->c.capacity, 0);
	CU_ASSERT_EQUAL(f->c.state, SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(shb_kit_conn_pull_send(&f->c, v, 16), NREQ);
	shb_kit_conn_sent(&f->c, 0); /* nothing taken yet */
	CU_ASSERT_EQUAL(shb_kit_conn_flush(&f->c, 1 << 20), strlen(want));
	CU_ASSERT_EQUAL(f->c.out_len, strlen(want));
	CU_ASSERT_NSTRING_EQUAL(f->c.out, want, strlen(want));
	CU_ASSERT_EQUAL(f->c.state, 0);
}

static const struct shb_kit_done *done_at(size_t i)
{
	CU_ASSERT_FATAL(shb_h1_kit.done_count > i);
	return &shb_h1_kit.done[i];
}

/* Responses [0, n) completed ok, in order, each with its own counts. */
static void expect_ok(const struct px *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct shb_kit_done *d = done_at(i);
		size_t start = i ? f->end[i - 1] : 0;
		CU_ASSERT_EQUAL(d->cookie, 100 + i);
		CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
		CU_ASSERT_EQUAL(d->res.status, status[i]);
		CU_ASSERT_EQUAL(d->res.rx_body_bytes, body[i]);
		CU_ASSERT_EQUAL(d->res.rx_header_bytes + d->res.rx_body_bytes,
				f->end[i] - start);
	}
}

/* Requests [from, NREQ) ended with outcome, in order, none twice. */
static void expect_rest(size_t from, uint32_t outcome, const char *detail)
{
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, NREQ);
	for (size_t i = from; i < NREQ; i++) {
		const struct shb_kit_done *d = done_at(i);
		CU_ASSERT_EQUAL(d->cookie, 100 + i);
		CU_ASSERT_EQUAL(d->res.outcome, outcome);
		if (detail)
			CU_ASSERT_STRING_EQUAL(d->detail, detail);
	}
}

/* Two receives cut at every offset, then a byte at a time. */
static void test_every_split(void)
{
	struct px f;

	for (size_t cut = 0; cut <= 1024; cut++) {
		px_open(&f, NREQ, 0);
		if (cut > f.len) {
			px_close(&f);
			break;
		}
		px_issue_all(&f);
		CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, f.all, cut), (shb_ssize)cut);
		CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, f.all + cut, f.len - cut),
				(shb_ssize)(f.len - cut));
		CU_ASSERT_EQUAL(shb_h1_kit.done_count, NREQ);
		expect_ok(&f, NREQ);
		/* All answered and sent: the pipeline is empty again. */
		CU_ASSERT_EQUAL(f.c.capacity, NREQ);
		CU_ASSERT_EQUAL(f.c.state, 0);
		px_close(&f);
	}
	px_open(&f, NREQ, 0);
	px_issue_all(&f);
	for (size_t i = 0; i < f.len; i++)
		CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, f.all + i, 1), 1);
	expect_ok(&f, NREQ);
	px_close(&f);
}

/* The peer closes after `cut` bytes: the responses it finished are ok;
 * the one it broke and those behind are conn lost, each once. */
static void test_eof_every_offset(void)
{
	for (size_t cut = 0; cut < sizeof(((struct px *)0)->all); cut++) {
		struct px f;
		px_open(&f, NREQ, 0);
		if (cut >= f.len) {
			px_close(&f);
			break;
		}
		px_issue_all(&f);
		size_t whole = 0;
		while (whole < NREQ && f.end[whole] <= cut)
			whole++;
		CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, f.all, cut), (shb_ssize)cut);
		CU_ASSERT_EQUAL(shb_kit_conn_recv_eof(&f.c), SHB_E_CLOSED);
		expect_ok(&f, whole);
		expect_rest(whole, SHB_REQ_CONN_LOST, NULL);
		for (size_t i = whole + 1; i < NREQ; i++)
			CU_ASSERT_NSTRING_EQUAL(done_at(i)->detail,
						"connection closed: ", 19);
		CU_ASSERT_EQUAL(f.c.state, SHB_CS_CLOSED);
		CU_ASSERT_EQUAL(f.c.capacity, 0);
		px_close(&f);
	}
}

/* A malformed second response: protocol error for it, conn lost for the
 * three behind. */
static void test_malformed_mid(void)
{
	struct px f;
	char bytes[256];

	px_open(&f, NREQ, 0);
	px_issue_all(&f);
	snprintf(bytes, sizeof(bytes), "%sHTTP/1.1 2000 OK\r\n\r\n", resp[0]);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, bytes, strlen(bytes)), SHB_E_PROTO);
	expect_ok(&f, 1);
	CU_ASSERT_EQUAL(done_at(1)->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(done_at(1)->cookie, 101);
	expect_rest(2, SHB_REQ_CONN_LOST,
		    "connection closed: the response to a request before this "
		    "one in the pipeline failed");
	CU_ASSERT_EQUAL(f.c.state, SHB_CS_CLOSED);
	px_close(&f);
}

/* Connection: close on the second response: the server processes no
 * request after it (RFC 9112 9.6), so the three behind are refused, and
 * the bytes after it are not read. */
static void test_close_mid(void)
{
	struct px f;
	char bytes[512];

	px_open(&f, NREQ, 0);
	px_issue_all(&f);
	snprintf(bytes, sizeof(bytes),
		 "%sHTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0"
		 "\r\n\r\n%s", resp[0], resp[2]);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, bytes, strlen(bytes)),
			(shb_ssize)strlen(bytes));
	expect_ok(&f, 1);
	CU_ASSERT_EQUAL(done_at(1)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(done_at(1)->res.status, 200);
	expect_rest(2, SHB_REQ_REFUSED,
		    "not processed: the server closed the connection after the "
		    "response to a request before this one in the pipeline");
	CU_ASSERT_EQUAL(f.c.state, SHB_CS_CLOSED);
	/* Its EOF then is the clean end it announced. */
	CU_ASSERT_EQUAL(shb_kit_conn_recv_eof(&f.c), SHB_OK);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, NREQ);
	px_close(&f);
}

/* A body to EOF is a close too: its request is ok, the rest refused. */
static void test_eof_body_mid(void)
{
	struct px f;
	static const char bytes[] = "HTTP/1.1 200 OK\r\n\r\nuntil the end";

	px_open(&f, NREQ, 0);
	px_issue_all(&f);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, bytes, sizeof(bytes) - 1),
			(shb_ssize)sizeof(bytes) - 1);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 0);
	CU_ASSERT_EQUAL(shb_kit_conn_recv_eof(&f.c), SHB_OK);
	CU_ASSERT_EQUAL(done_at(0)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(done_at(0)->res.rx_body_bytes, 13);
	expect_rest(1, SHB_REQ_REFUSED, NULL);
	px_close(&f);
}

/* --timeout cancels the oldest owed: it is not reported, the connection
 * closes, the others owed are conn lost; one answered before stays ok. */
static void test_cancel_mid(void)
{
	static const char detail[] =
		"connection closed: another request in the pipeline was "
		"cancelled (HTTP/1.1 cannot skip a response)";

	for (uint64_t victim = 101; victim < 100 + NREQ; victim++) {
		struct px f;
		px_open(&f, NREQ, 0);
		px_issue_all(&f);
		CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, resp[0], strlen(resp[0])),
				(shb_ssize)strlen(resp[0]));
		shb_kit_conn_cancel(&f.c, victim);
		CU_ASSERT_EQUAL(f.c.state, SHB_CS_CLOSED);
		CU_ASSERT_EQUAL(shb_h1_kit.done_count, NREQ - 1);
		expect_ok(&f, 1);
		for (size_t i = 1, k = 101; i < NREQ - 1; i++, k++) {
			k += k == victim;
			CU_ASSERT_EQUAL(done_at(i)->cookie, k);
			CU_ASSERT_EQUAL(done_at(i)->res.outcome, SHB_REQ_CONN_LOST);
			CU_ASSERT_STRING_EQUAL(done_at(i)->detail, detail);
		}
		CU_ASSERT_STRING_EQUAL(shb_kit_conn_error_detail(&f.c),
				       "request cancelled");
		px_close(&f);
	}
}

/* One response more than requests: the extra is unsolicited, after the
 * ones owed completed. */
static void test_extra_response(void)
{
	struct px f;
	char bytes[256];

	px_open(&f, 2, 0);
	px_issue(&f, 0);
	px_issue(&f, 2);
	CU_ASSERT_EQUAL(f.c.capacity, 0);
	CU_ASSERT(shb_kit_conn_flush(&f.c, 7) > 0);
	snprintf(bytes, sizeof(bytes), "%s%s%s", resp[0], resp[2], resp[0]);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, bytes, strlen(bytes)), SHB_E_PROTO);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 2);
	CU_ASSERT_EQUAL(done_at(0)->res.status, 200);
	CU_ASSERT_EQUAL(done_at(1)->res.status, 204);
	CU_ASSERT_STRING_EQUAL(shb_kit_conn_error_detail(&f.c),
			       "response bytes with no request outstanding");
	px_close(&f);
}

/* An eager server answers the first before its bytes are all out: the
 * entry stays (its bytes are still the core's to send) and the second
 * follows it on the wire, whole. */
static void test_eager_in_pipe(void)
{
	struct px f;
	struct shb_vec v[16];

	px_open(&f, 2, 0);
	px_issue(&f, 0);
	px_issue(&f, 3);
	CU_ASSERT_EQUAL(shb_kit_conn_pull_send(&f.c, v, 16), 2);
	shb_kit_conn_sent(&f.c, 5);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, resp[0], strlen(resp[0])),
			(shb_ssize)strlen(resp[0]));
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(f.c.capacity, 0); /* entry 0 is not sent yet */
	CU_ASSERT_EQUAL(f.c.state, SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(shb_kit_conn_pull_send(&f.c, v, 16), 2);
	CU_ASSERT_EQUAL(v[0].len, strlen("GET /0 HTTP/1.1\r\nHost: h\r\n\r\n") - 5);
	CU_ASSERT_NSTRING_EQUAL(v[1].base, "GET /3 ", 7);
	shb_kit_conn_sent(&f.c, v[0].len);
	CU_ASSERT_EQUAL(f.c.capacity, 1);
	shb_kit_conn_sent(&f.c, 0);
	CU_ASSERT_EQUAL(shb_kit_conn_flush(&f.c, 3), v[1].len);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, resp[3], strlen(resp[3])),
			(shb_ssize)strlen(resp[3]));
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 2);
	CU_ASSERT_EQUAL(done_at(1)->res.status, 304);
	CU_ASSERT_EQUAL(f.c.capacity, 2);
	px_close(&f);
}

/* Short sends at every size: the prepared requests of a full pipeline
 * leave whole and in order, and the FIFO refills as they are answered. */
static void test_short_sends(void)
{
	static const char one[] = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n";
	const size_t n = sizeof(one) - 1;

	for (size_t chunk = 1; chunk <= 4 * n; chunk++) {
		struct px f;
		px_open(&f, 4, 0);
		for (uint64_t k = 0; k < 4; k++)
			CU_ASSERT_EQUAL(shb_kit_conn_issue(&f.c, NULL, k), SHB_OK);
		CU_ASSERT_EQUAL(shb_kit_conn_issue(&f.c, NULL, 9), SHB_E_BUSY);
		CU_ASSERT_EQUAL(shb_kit_conn_flush(&f.c, chunk), 4 * n);
		for (size_t i = 0; i < 4; i++)
			CU_ASSERT_NSTRING_EQUAL(f.c.out + i * n, one, n);
		CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, resp[0], strlen(resp[0])),
				(shb_ssize)strlen(resp[0]));
		CU_ASSERT_EQUAL(f.c.capacity, 1);
		CU_ASSERT_EQUAL(shb_kit_conn_issue(&f.c, NULL, 4), SHB_OK);
		CU_ASSERT_EQUAL(shb_h1_kit.done_count, 1);
		CU_ASSERT_EQUAL(done_at(0)->cookie, 0);
		px_close(&f);
	}
}

/* The depth is capped, and pipelining on connections that close after
 * each request is refused: one line each. */
static void test_depth_refused(void)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	struct shb_kit_module m;
	struct shb_run_config cfg;

	shb_h1_test_reset(0);
	shb_kit_run_config_default(&cfg, d);
	cfg.parallel = SHB_H1_PIPE_MAX + 1;
	CU_ASSERT_EQUAL(shb_kit_module_create(&m, &shb_h1_kit, d, &cfg),
			SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(m.err, "h1: -p 1025: HTTP/1.1 pipelines at most "
			       "1024 requests per connection");
	cfg.parallel = 2;
	cfg.flags = SHB_RUN_DISABLE_KEEPALIVE;
	CU_ASSERT_EQUAL(shb_kit_module_create(&m, &shb_h1_kit, d, &cfg),
			SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(m.err, "h1: -p 2 pipelines requests on a "
			       "connection that --disable-keepalive closes "
			       "after the first");
	cfg.parallel = SHB_H1_PIPE_MAX;
	cfg.flags = 0;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&m, &shb_h1_kit, d, &cfg),
			      SHB_OK);
	shb_kit_module_destroy(&m);
}

/* The FIFO itself: once every request is both sent and answered it
 * starts again at entry 0 (a deep ring carrying a few requests at a time
 * reuses the same entries); while any byte or answer is owed it does
 * not. */
static void test_empty_restarts(void)
{
	struct shb_h1_pipe p;
	struct shb_h1_request r = {.total = 10};

	CU_ASSERT_EQUAL_FATAL(shb_h1_pipe_init(&p, 64), 0);
	for (int round = 0; round < 2; round++) {
		for (uint64_t k = 0; k < 3; k++)
			shb_h1_pipe_push(&p, &r, k);
		CU_ASSERT_EQUAL(shb_h1_pipe_room(&p), 61);
		/* Answered before the last bytes are out (an eager server). */
		for (int k = 0; k < 3; k++)
			shb_h1_pipe_answer(&p);
		shb_h1_pipe_sent(&p, 25, 0);
		CU_ASSERT_EQUAL(p.base, 2);
		CU_ASSERT_EQUAL(p.tail, 3);
		CU_ASSERT_EQUAL(p.send_off, 5);
		shb_h1_pipe_sent(&p, 5, 0);
		CU_ASSERT_EQUAL(p.base, 0);
		CU_ASSERT_EQUAL(p.tail, 0);
		CU_ASSERT_EQUAL(p.ans, 0);
		CU_ASSERT_EQUAL(p.snt, 0);
		CU_ASSERT_EQUAL(shb_h1_pipe_room(&p), 64);
	}
	/* Sent first, then answered: the last answer empties it. */
	shb_h1_pipe_push(&p, &r, 7);
	shb_h1_pipe_sent(&p, 10, 0);
	CU_ASSERT_EQUAL(p.snt, 1);
	shb_h1_pipe_answer(&p);
	CU_ASSERT_EQUAL(p.tail, 0);
	shb_h1_pipe_push(&p, &r, 8);
	CU_ASSERT_EQUAL(shb_h1_pipe_at(&p, 0)->cookie, 8);
	shb_h1_pipe_fini(&p);
}

CU_TestInfo shb_h1_pipe_tests[] = {
	{"an emptied FIFO starts again at entry 0", test_empty_restarts},
	{"five responses split at every offset", test_every_split},
	{"EOF at every offset of the pipeline", test_eof_every_offset},
	{"malformed response mid-pipeline", test_malformed_mid},
	{"Connection: close mid-pipeline refuses the rest", test_close_mid},
	{"body to EOF mid-pipeline refuses the rest", test_eof_body_mid},
	{"cancel in the pipeline", test_cancel_mid},
	{"a response more than requests", test_extra_response},
	{"eager answer before the bytes are out", test_eager_in_pipe},
	{"short sends of a full pipeline", test_short_sends},
	{"depth capped, refused without keep-alive", test_depth_refused},
	CU_TEST_INFO_NULL,
};
