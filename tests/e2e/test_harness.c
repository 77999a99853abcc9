/* Unit tests of the test harness itself: the request head parser, the
 * chunked decoder (at every split offset), and scripted peers driven by a
 * blocking client socket while the peer's loop runs on its own thread. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>
#include <event2/event.h>

#include "harness/chunked.h"
#include "harness/loop_thread.h"
#include "harness/peer.h"
#include "harness/request_head.h"

/* ---- request heads ---------------------------------------------------- */

static int parse(const char *s, struct shb_hreq *r)
{
	return shb_hreq_parse(s, strlen(s), r);
}

static void test_head_simple(void)
{
	struct shb_hreq r;
	const char *h = "GET /x?y HTTP/1.1\r\nHost: a\r\n\r\n";
	CU_ASSERT_EQUAL(parse(h, &r), 0);
	CU_ASSERT_STRING_EQUAL(r.method, "GET");
	CU_ASSERT_EQUAL(r.version_minor, 1);
	CU_ASSERT_EQUAL(r.content_length, -1);
	CU_ASSERT_EQUAL(r.chunked, 0);
	CU_ASSERT_EQUAL(r.wants_close, 0);
	CU_ASSERT_EQUAL(r.head_len, strlen(h));
}

static void test_head_framing(void)
{
	struct shb_hreq r;
	CU_ASSERT_EQUAL(parse("POST / HTTP/1.1\r\ncontent-length:  42 \r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.content_length, 42);
	CU_ASSERT_EQUAL(parse("POST / HTTP/1.1\r\nContent-Length: 7\r\n"
			      "Content-Length: 7\r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.content_length, 7);
	CU_ASSERT_EQUAL(parse("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.chunked, 1);
	CU_ASSERT_EQUAL(r.content_length, -1);
	CU_ASSERT_EQUAL(r.wants_close, 0);
	/* Both: chunked wins and the connection must close afterwards. */
	CU_ASSERT_EQUAL(parse("POST / HTTP/1.1\r\nContent-Length: 3\r\n"
			      "Transfer-Encoding: chunked\r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.chunked, 1);
	CU_ASSERT_EQUAL(r.content_length, -1);
	CU_ASSERT_EQUAL(r.wants_close, 1);
}

static void test_head_connection(void)
{
	struct shb_hreq r;
	CU_ASSERT_EQUAL(parse("GET / HTTP/1.1\r\nConnection: Keep-Alive, CLOSE\r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.wants_close, 1);
	CU_ASSERT_EQUAL(parse("GET / HTTP/1.0\r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.version_minor, 0);
	CU_ASSERT_EQUAL(r.wants_close, 1);
	CU_ASSERT_EQUAL(parse("GET / HTTP/1.0\r\nconnection: keep-alive\r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.wants_close, 0);
	CU_ASSERT_EQUAL(parse("GET / HTTP/1.1\r\nX-Connection: close\r\n\r\n", &r), 0);
	CU_ASSERT_EQUAL(r.wants_close, 0);
}

static void test_head_malformed(void)
{
	static const char *const bad[] = {
		"GET / HTTP/1.1\r\n",                       /* no empty line */
		"GET / HTTP/1.1\n\r\n\r\n",                 /* bare LF */
		"GET /  HTTP/1.1\r\n\r\n",                  /* two spaces */
		"GET / HTTP/2.0\r\n\r\n",
		"GET / HTTP/1.1 \r\n\r\n",
		" GET / HTTP/1.1\r\n\r\n",
		"GET\r\n\r\n",
		"VERYLONGMETHODNAME / HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nNoColon\r\n\r\n",
		"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
		"GET / HTTP/1.1\r\n folded: x\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length:\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n\r\n",
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
		"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
	};
	struct shb_hreq r;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &r) != -1)
			CU_FAIL_FATAL("malformed head accepted");
	}
}

/* ---- chunked bodies --------------------------------------------------- */

static const char chunked_body[] =
	"3;name=value\r\nabc\r\n"
	"1A\r\n0123456789abcdefghijklmnop\r\n"
	"1 \r\nZ\r\n"
	"0\r\nTrailer: x\r\nOther: y\r\n\r\n";
#define CHUNKED_DATA 30 /* 3 + 26 + 1 */

/* Feeds the body plus a following byte in two parts split at `cut`. */
static void feed_split(size_t cut)
{
	char buf[sizeof(chunked_body) + 1];
	size_t len = sizeof(chunked_body) - 1;
	memcpy(buf, chunked_body, len);
	buf[len] = 'G'; /* the next request: must not be consumed */
	struct shb_hchunked c;
	shb_hchunked_init(&c);
	int done = 0;
	ssize_t a = shb_hchunked_feed(&c, (const uint8_t *)buf, cut, &done);
	CU_ASSERT_EQUAL_FATAL(a, (ssize_t)cut);
	CU_ASSERT_EQUAL(done, cut == len);
	ssize_t b = shb_hchunked_feed(&c, (const uint8_t *)buf + cut,
				      len + 1 - cut, &done);
	CU_ASSERT_EQUAL_FATAL(b, (ssize_t)(len - cut));
	CU_ASSERT_EQUAL(done, 1);
	CU_ASSERT_EQUAL(c.body, CHUNKED_DATA);
}

static void test_chunked_every_split(void)
{
	for (size_t cut = 0; cut < sizeof(chunked_body); cut++)
		feed_split(cut);
}

static void test_chunked_byte_by_byte(void)
{
	struct shb_hchunked c;
	int done = 0;
	size_t len = sizeof(chunked_body) - 1;
	shb_hchunked_init(&c);
	for (size_t i = 0; i < len; i++) {
		CU_ASSERT_EQUAL_FATAL(done, 0);
		CU_ASSERT_EQUAL_FATAL(shb_hchunked_feed(&c,
			(const uint8_t *)chunked_body + i, 1, &done), 1);
	}
	CU_ASSERT_EQUAL(done, 1);
	CU_ASSERT_EQUAL(c.body, CHUNKED_DATA);
}

static void test_chunked_malformed(void)
{
	static const char *const bad[] = {
		"\r\n", "g\r\n", "3x\r\nabc\r\n", "3\nabc\r\n", "3\r\nabcd\r\n",
		"3\r\nabc\n", "0\r\n\n", "1234567890abcdef0\r\n",
		"0\r\nTrailer: x\n", "0\r\nT: x\r\r",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct shb_hchunked c;
		int done = 0;
		shb_hchunked_init(&c);
		CU_ASSERT_EQUAL(shb_hchunked_feed(&c, (const uint8_t *)bad[i],
						  strlen(bad[i]), &done), -1);
	}
}

/* ---- peers over loopback ---------------------------------------------- */

struct fixture {
	struct event_base *base;
	struct shb_hpeer *peer;
	struct shb_hloop *loop;
};

static int fx_start(struct fixture *fx, struct shb_hscript *s)
{
	char err[256];
	memset(fx, 0, sizeof(*fx)); /* every member set, whatever fails */
	fx->base = event_base_new();
	if (!fx->base)
		return -1;
	fx->peer = shb_hpeer_new(fx->base, NULL, 0, s, err, sizeof(err));
	if (!fx->peer) {
		fprintf(stderr, "peer: %s\n", err);
		return -1;
	}
	fx->loop = shb_hloop_start(fx->base, err, sizeof(err));
	return fx->loop ? 0 : -1;
}

/* Stops the loop thread, then runs the loop on this thread (for at most
 * two seconds) until the peer has accepted `accepted` connections and
 * every connection has ended: the client's last close may still be in
 * flight when the test's exchanges are over. */
static void fx_stop(struct fixture *fx, uint64_t accepted)
{
	struct shb_hpeer_stats st;
	shb_hloop_stop(fx->loop);
	for (int i = 0; i < 2000; i++) {
		shb_hpeer_get_stats(fx->peer, &st);
		if (st.accepted >= accepted && shb_hpeer_open_conns(fx->peer) == 0)
			break;
		event_base_loop(fx->base, EVLOOP_NONBLOCK);
		usleep(1000);
	}
}

static void fx_free(struct fixture *fx)
{
	shb_hpeer_free(fx->peer);
	event_base_free(fx->base);
}

static int client(const struct fixture *fx)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(shb_hpeer_port(fx->peer)) };
	int one = 1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads until `want` bytes, EOF, an error or timeout_ms of silence.
 * Returns the byte count; *end is 0 (got want), 'E' (EOF), 'R' (reset)
 * or 'T' (timeout). */
static size_t recv_some(int fd, char *buf, size_t want, int timeout_ms,
			int *end)
{
	size_t got = 0;
	*end = 0;
	while (got < want) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, timeout_ms);
		if (r == 0) {
			*end = 'T';
			break;
		}
		ssize_t n = recv(fd, buf + got, want - got, 0);
		if (n == 0) {
			*end = 'E';
			break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*end = errno == ECONNRESET ? 'R' : 'X';
			break;
		}
		got += (size_t)n;
	}
	return got;
}

/* Expects exactly `text` and then EOF (when eof is set). */
static void expect_reply(int fd, const char *text, int eof)
{
	char buf[4096];
	int end;
	size_t n = recv_some(fd, buf, strlen(text), 2000, &end);
	CU_ASSERT_EQUAL(n, strlen(text));
	CU_ASSERT_EQUAL(end, 0);
	CU_ASSERT(memcmp(buf, text, n < strlen(text) ? n : strlen(text)) == 0);
	if (eof) {
		n = recv_some(fd, buf, 1, 2000, &end);
		CU_ASSERT_EQUAL(n, 0);
		CU_ASSERT_EQUAL(end, 'E');
	}
}

static void test_peer_exact_and_repeat(void)
{
	struct fixture fx;
	struct shb_hscript *s = shb_hscript_new();
	int top = shb_hscript_expect_exact(s, "ping", 4);
	shb_hscript_send_str(s, "pong;");
	shb_hscript_repeat(s, top, 2);
	shb_hscript_send_str(s, "end");
	CU_ASSERT_EQUAL(shb_hscript_steps(s), 4);
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	/* Three pings split across writes: two jumps, then the end. */
	CU_ASSERT(send_all(fd, "pi", 2) == 0);
	usleep(2000);
	CU_ASSERT(send_all(fd, "ngpingpi", 8) == 0);
	usleep(2000);
	CU_ASSERT(send_all(fd, "ng", 2) == 0);
	expect_reply(fd, "pong;pong;pong;end", 1);
	close(fd);
	fx_stop(&fx, 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.accepted, 1);
	CU_ASSERT_EQUAL(st.closed, 1);
	CU_ASSERT_EQUAL(st.bytes_in, 12);
	CU_ASSERT_EQUAL(st.bytes_out, 18);
	CU_ASSERT_EQUAL(st.mismatches, 0);
	fx_free(&fx);
}

static void test_peer_mismatch_resets(void)
{
	struct fixture fx;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_expect_exact(s, "hello", 5);
	shb_hscript_send_str(s, "never");
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(send_all(fd, "help", 4) == 0);
	char buf[16];
	int end;
	CU_ASSERT_EQUAL(recv_some(fd, buf, sizeof(buf), 2000, &end), 0);
	CU_ASSERT_EQUAL(end, 'R');
	close(fd);
	fx_stop(&fx, 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.mismatches, 1);
	CU_ASSERT_EQUAL(st.resets, 1);
	CU_ASSERT_EQUAL(st.bytes_out, 0);
	fx_free(&fx);
}

/* Two pipelined requests (sized body, chunked body) then a GET, sent in
 * two writes split at every offset; a call step answers each with its
 * number on the connection and its body length. */
static const char pipelined[] =
	"\r\nPOST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
	"POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
	"4\r\nwxyz\r\n0\r\n\r\n"
	"GET /c HTTP/1.1\r\nConnection: close\r\n\r\n";
static const char pipelined_reply[] = "POST#1:5;POST#2:4;GET#3:0;";

static enum shb_hact answer_numbered(struct shb_hconn *c, void *arg)
{
	int *calls = arg;
	(*calls)++;
	shb_hconn_printf(c, "%s#%llu:%llu;", shb_hconn_request(c)->method,
			 (unsigned long long)shb_hconn_requests(c),
			 (unsigned long long)shb_hconn_body_len(c));
	return SHB_HACT_NEXT;
}

static void test_peer_pipelined_every_split(void)
{
	struct fixture fx;
	int calls = 0;
	size_t len = sizeof(pipelined) - 1;
	struct shb_hscript *s = shb_hscript_new();
	int top = shb_hscript_expect_request(s);
	shb_hscript_call(s, answer_numbered, &calls);
	shb_hscript_close_if_asked(s);
	shb_hscript_repeat(s, top, 0);
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	for (size_t cut = 0; cut <= len; cut++) {
		int fd = client(&fx);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT(send_all(fd, pipelined, cut) == 0);
		usleep(300);
		CU_ASSERT(send_all(fd, pipelined + cut, len - cut) == 0);
		expect_reply(fd, pipelined_reply, 1);
		close(fd);
	}
	fx_stop(&fx, len + 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(calls, 3 * (int)(len + 1));
	CU_ASSERT_EQUAL(st.accepted, len + 1);
	CU_ASSERT_EQUAL(st.closed, len + 1);
	CU_ASSERT_EQUAL(st.requests, 3 * (len + 1));
	CU_ASSERT_EQUAL(st.bytes_in, len * (len + 1));
	CU_ASSERT_EQUAL(st.protocol_errors, 0);
	fx_free(&fx);
}

static void test_peer_until_every_split(void)
{
	static const char msg[] = "abc\r\n\rxyz\r\n\r\n";
	size_t len = sizeof(msg) - 1;
	struct fixture fx;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_expect_until(s, "\r\n\r\n", 4, 64);
	shb_hscript_send_str(s, "seen");
	shb_hscript_expect_bytes(s, 3);
	shb_hscript_send_str(s, "+3");
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	for (size_t cut = 0; cut <= len; cut++) {
		int fd = client(&fx);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT(send_all(fd, msg, cut) == 0);
		usleep(300);
		CU_ASSERT(send_all(fd, msg + cut, len - cut) == 0);
		expect_reply(fd, "seen", 0);
		CU_ASSERT(send_all(fd, "123", 3) == 0);
		expect_reply(fd, "+3", 1);
		close(fd);
	}
	fx_stop(&fx, len + 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.protocol_errors, 0);
	CU_ASSERT_EQUAL(st.closed, len + 1);
	fx_free(&fx);
}

static void test_peer_until_overlong(void)
{
	struct fixture fx;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_expect_until(s, "\n", 1, 8);
	shb_hscript_send_str(s, "never");
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(send_all(fd, "0123456789", 10) == 0);
	char buf[8];
	int end;
	CU_ASSERT_EQUAL(recv_some(fd, buf, sizeof(buf), 2000, &end), 0);
	CU_ASSERT_EQUAL(end, 'R');
	close(fd);
	fx_stop(&fx, 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.protocol_errors, 1);
	fx_free(&fx);
}

static void test_peer_malformed_head(void)
{
	struct fixture fx;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_expect_request(s);
	shb_hscript_send_str(s, "never");
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(send_all(fd, "GET / HTTP/1.1\r\nBad\r\n\r\n", 23) == 0);
	char buf[8];
	int end;
	CU_ASSERT_EQUAL(recv_some(fd, buf, sizeof(buf), 2000, &end), 0);
	CU_ASSERT_EQUAL(end, 'R');
	close(fd);
	fx_stop(&fx, 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.protocol_errors, 1);
	CU_ASSERT_EQUAL(st.requests, 0);
	fx_free(&fx);
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	       (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A delay holds the reply back; input arriving meanwhile is kept. */
static void test_peer_delay_keeps_input(void)
{
	struct fixture fx;
	struct timespec t0;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_send_str(s, "hi;");
	shb_hscript_delay(s, 150);
	shb_hscript_expect_exact(s, "abc", 3);
	shb_hscript_send_str(s, "ok");
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	expect_reply(fd, "hi;", 0);
	CU_ASSERT(send_all(fd, "abc", 3) == 0);
	expect_reply(fd, "ok", 1);
	long ms = elapsed_ms(&t0);
	CU_ASSERT(ms >= 140);
	CU_ASSERT(ms < 2000);
	close(fd);
	fx_stop(&fx, 1);
	fx_free(&fx);
}

/* A stalled connection reads everything and answers nothing; it ends when
 * the client closes. A reset step aborts. */
static void test_peer_stall_and_reset(void)
{
	struct fixture fx;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_stall(s);
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	static char big[256 * 1024];
	memset(big, 'x', sizeof(big));
	/* More than socket buffers hold: only a reading peer takes it all. */
	CU_ASSERT(send_all(fd, big, sizeof(big)) == 0);
	char buf[8];
	int end;
	CU_ASSERT_EQUAL(recv_some(fd, buf, sizeof(buf), 200, &end), 0);
	CU_ASSERT_EQUAL(end, 'T');
	close(fd);
	fx_stop(&fx, 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.bytes_in, sizeof(big));
	CU_ASSERT_EQUAL(st.closed, 1);
	fx_free(&fx);

	s = shb_hscript_new();
	shb_hscript_send_str(s, "bye");
	shb_hscript_expect_bytes(s, 1);
	shb_hscript_reset(s);
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	expect_reply(fd, "bye", 0);
	CU_ASSERT(send_all(fd, "!", 1) == 0);
	CU_ASSERT_EQUAL(recv_some(fd, buf, sizeof(buf), 2000, &end), 0);
	CU_ASSERT_EQUAL(end, 'R');
	close(fd);
	fx_stop(&fx, 1);
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.resets, 1);
	fx_free(&fx);
}

/* An early answer to a large body, as a server that refuses uploads does;
 * the peer still reads the whole body before closing, so the client sees
 * a clean EOF and never an RST. */
static void test_peer_answer_before_body(void)
{
	struct fixture fx;
	int calls = 0;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_expect_head(s);
	shb_hscript_send_str(s, "early");
	shb_hscript_expect_body(s);
	shb_hscript_call(s, answer_numbered, &calls);
	shb_hscript_close(s);
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	size_t body = 4u * 1024 * 1024;
	char head[128];
	int hn = snprintf(head, sizeof(head), "PUT /u HTTP/1.1\r\n"
			  "Content-Length: %zu\r\n\r\n", body);
	CU_ASSERT(send_all(fd, head, (size_t)hn) == 0);
	expect_reply(fd, "early", 0);
	char *big = malloc(body);
	CU_ASSERT_FATAL(big != NULL);
	memset(big, 'b', body);
	CU_ASSERT(send_all(fd, big, body) == 0);
	free(big);
	expect_reply(fd, "PUT#1:4194304;", 1);
	close(fd);
	fx_stop(&fx, 1);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.bytes_in, (uint64_t)hn + body);
	CU_ASSERT_EQUAL(st.requests, 1);
	fx_free(&fx);
}

static enum shb_hact answer_index(struct shb_hconn *c, void *arg)
{
	shb_hconn_printf(c, "conn%llu",
			 (unsigned long long)shb_hconn_index(c));
	return shb_hconn_index(c) % 2 ? SHB_HACT_RESET : SHB_HACT_CLOSE;
}

/* Connections are numbered in accept order; a call step's action is
 * obeyed; a client leaving mid-script ends its connection. */
static void test_peer_index_and_eof(void)
{
	struct fixture fx;
	struct shb_hscript *s = shb_hscript_new();
	shb_hscript_expect_bytes(s, 1);
	shb_hscript_call(s, answer_index, NULL);
	CU_ASSERT_FATAL(fx_start(&fx, s) == 0);
	char buf[16];
	int end;
	for (int i = 0; i < 4; i++) {
		int fd = client(&fx);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT(send_all(fd, "x", 1) == 0);
		if (i % 2 == 0) {
			char want[16];
			snprintf(want, sizeof(want), "conn%d", i);
			expect_reply(fd, want, 1);
		} else {
			CU_ASSERT_EQUAL(recv_some(fd, buf, sizeof(buf), 2000, &end), 0);
			CU_ASSERT_EQUAL(end, 'R');
		}
		close(fd);
	}
	int fd = client(&fx);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd); /* before the first expected byte */
	fx_stop(&fx, 5);
	struct shb_hpeer_stats st;
	shb_hpeer_get_stats(fx.peer, &st);
	CU_ASSERT_EQUAL(st.accepted, 5);
	CU_ASSERT_EQUAL(st.closed, 5);
	CU_ASSERT_EQUAL(st.resets, 2);
	CU_ASSERT_EQUAL(shb_hpeer_open_conns(fx.peer), 0);
	fx_free(&fx);
}

static void test_script_builders_reject(void)
{
	struct shb_hscript *s = shb_hscript_new();
	CU_ASSERT_EQUAL(shb_hscript_expect_bytes(s, 0), -1);
	CU_ASSERT_EQUAL(shb_hscript_ok(s), 0);
	shb_hscript_free(s);
	s = shb_hscript_new();
	CU_ASSERT_EQUAL(shb_hscript_send_str(s, "a"), 0);
	CU_ASSERT_EQUAL(shb_hscript_repeat(s, 1, 0), -1); /* no step 1 yet */
	CU_ASSERT_EQUAL(shb_hscript_ok(s), 0);
	char err[128] = "";
	struct event_base *base = event_base_new();
	CU_ASSERT_PTR_NULL(shb_hpeer_new(base, NULL, 0, s, err, sizeof(err)));
	CU_ASSERT(strlen(err) > 0);
	s = shb_hscript_new();
	CU_ASSERT_EQUAL(shb_hscript_expect_until(s, "abc", 3, 2), -1);
	shb_hscript_free(s);
	s = shb_hscript_new();
	shb_hscript_stall(s);
	CU_ASSERT_PTR_NULL(shb_hpeer_new(base, "not-an-ip", 0, s, err, sizeof(err)));
	CU_ASSERT(strstr(err, "not-an-ip") != NULL);
	event_base_free(base);
}

static CU_TestInfo head_tests[] = {
	{ "simple", test_head_simple },
	{ "framing", test_head_framing },
	{ "connection", test_head_connection },
	{ "malformed", test_head_malformed },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo chunked_tests[] = {
	{ "every split", test_chunked_every_split },
	{ "byte by byte", test_chunked_byte_by_byte },
	{ "malformed", test_chunked_malformed },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo peer_tests[] = {
	{ "builders reject bad steps", test_script_builders_reject },
	{ "exact and repeat", test_peer_exact_and_repeat },
	{ "mismatch resets", test_peer_mismatch_resets },
	{ "pipelined requests, every split", test_peer_pipelined_every_split },
	{ "until, every split", test_peer_until_every_split },
	{ "until overlong", test_peer_until_overlong },
	{ "malformed head", test_peer_malformed_head },
	{ "delay keeps input", test_peer_delay_keeps_input },
	{ "stall and reset", test_peer_stall_and_reset },
	{ "answer before body", test_peer_answer_before_body },
	{ "index and eof", test_peer_index_and_eof },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "harness_request_head", NULL, NULL, NULL, NULL, head_tests },
	{ "harness_chunked", NULL, NULL, NULL, NULL, chunked_tests },
	{ "harness_peer", NULL, NULL, NULL, NULL, peer_tests },
	CU_SUITE_INFO_NULL,
};
