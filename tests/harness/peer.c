/* The scripted-peer runner. Each connection is a small state machine
 * driven by three libevent events (readable, writable, timer). Input is
 * read into an evbuffer and consumed by as many steps as it satisfies, so
 * pipelined requests cost one read and one write per batch. Connections
 * are only freed at the end of an event callback (conn_settle), never in
 * the middle of running steps. */
#include "harness/peer.h"
#include "script_internal.h"
#include "harness/chunked.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#define READ_CHUNK (64u * 1024u)
#define READS_PER_EVENT 16     /* fairness between connections */
#define IN_HIGH (8u * 1024u * 1024u)   /* stop reading while unconsumed */
#define OUT_HIGH (4u * 1024u * 1024u)  /* stop running steps while unsent */
#define STEPS_PER_RUN 4096     /* then yield to other connections */
#define LINGER_MS 3000
#define MAX_IOV 64

enum conn_state { C_RUN, C_DELAY, C_STALL, C_CLOSING, C_DEAD };
enum step_res { R_GO, R_WAIT, R_PAUSE };

struct shb_hconn {
	struct shb_hpeer *peer;
	struct shb_hconn *prev, *next;
	evutil_socket_t fd;
	struct event *rev, *wev, *tev;
	struct evbuffer *in, *out;
	uint64_t index;
	size_t step;
	enum conn_state state;
	int phase;      /* progress inside the current step (0 = not begun) */
	int eof;        /* the client sent FIN */
	int reading, writing, shut;
	size_t scanned; /* input already searched without a match */
	uint64_t left;  /* bytes still expected (expect_bytes, sized body) */
	struct shb_hchunked ch;
	struct shb_hreq req;
	uint64_t body_len;
	uint64_t requests;
	uint32_t *loops; /* per repeat step: jumps taken */
};

struct shb_hpeer {
	struct event_base *base;
	struct evconnlistener *lis;
	struct shb_hscript *script;
	struct shb_hconn *conns;
	uint64_t open;
	uint64_t accept_max; /* 0: no limit (shb_hpeer_set_accept_max) */
	struct event *accept_timer; /* ends the pause before accepting */
	uint16_t port;
	struct shb_hpeer_stats st;
};

static void conn_run(struct shb_hconn *c);

static void conn_free(struct shb_hconn *c)
{
	struct shb_hpeer *p = c->peer;
	if (c->rev)
		event_free(c->rev);
	if (c->wev)
		event_free(c->wev);
	if (c->tev)
		event_free(c->tev);
	evutil_closesocket(c->fd);
	if (c->in)
		evbuffer_free(c->in);
	if (c->out)
		evbuffer_free(c->out);
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	p->open--;
	p->st.closed++;
	free(c->loops);
	free(c);
}

static void set_interest(struct event *ev, int *on, int want)
{
	if (want && !*on)
		event_add(ev, NULL);
	else if (!want && *on)
		event_del(ev);
	*on = want;
}

/* Frees a dead connection, or brings its read interest up to date: reading
 * stops at EOF, and while much input waits for a script that cannot take
 * it yet (a delay, or a client not reading our output). A script waiting
 * for input always gets it. */
static void conn_settle(struct shb_hconn *c)
{
	if (c->state == C_DEAD) {
		conn_free(c);
		return;
	}
	int paused = c->state == C_DELAY ||
		     (c->state == C_RUN && evbuffer_get_length(c->out) >= OUT_HIGH);
	int want = !c->eof &&
		   !(paused && evbuffer_get_length(c->in) >= IN_HIGH);
	set_interest(c->rev, &c->reading, want);
}

static void arm_timer(struct shb_hconn *c, uint64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
	evtimer_add(c->tev, &tv);
}

static void conn_reset(struct shb_hconn *c)
{
	struct linger lg = { 1, 0 };
	setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	c->peer->st.resets++;
	c->state = C_DEAD;
}

static void protocol_error(struct shb_hconn *c)
{
	c->peer->st.protocol_errors++;
	conn_reset(c);
}

/* Sends what is queued without blocking. Once a closing connection has
 * sent everything it half-closes, then lingers for the client's FIN. */
static void conn_flush(struct shb_hconn *c)
{
	while (c->state != C_DEAD && evbuffer_get_length(c->out) > 0) {
		struct evbuffer_iovec v[MAX_IOV];
		struct iovec iov[MAX_IOV];
		int n = evbuffer_peek(c->out, -1, NULL, v, MAX_IOV);
		if (n > MAX_IOV)
			n = MAX_IOV;
		for (int i = 0; i < n; i++) {
			iov[i].iov_base = v[i].iov_base;
			iov[i].iov_len = v[i].iov_len;
		}
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		ssize_t w = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			evbuffer_drain(c->out, (size_t)w);
			c->peer->st.bytes_out += (uint64_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_interest(c->wev, &c->writing, 1);
			return;
		} else {
			c->state = C_DEAD; /* the client is gone */
			return;
		}
	}
	set_interest(c->wev, &c->writing, 0);
	if (c->state == C_CLOSING && !c->shut) {
		shutdown(c->fd, SHUT_WR);
		c->shut = 1;
		if (c->eof)
			c->state = C_DEAD;
		else
			arm_timer(c, LINGER_MS);
	}
}

static void begin_close(struct shb_hconn *c)
{
	c->state = C_CLOSING;
	evbuffer_drain(c->in, evbuffer_get_length(c->in));
	evtimer_del(c->tev);
	conn_flush(c);
}

/* Reads what the socket has, a bounded number of times. */
static void conn_read(struct shb_hconn *c)
{
	for (int i = 0; i < READS_PER_EVENT; i++) {
		struct evbuffer_iovec v;
		if (evbuffer_reserve_space(c->in, READ_CHUNK, &v, 1) < 1) {
			c->state = C_DEAD;
			return;
		}
		ssize_t r = read(c->fd, v.iov_base, v.iov_len);
		if (r < 0 && errno == EINTR) {
			i--;
			continue;
		}
		if (r <= 0) {
			v.iov_len = 0;
			evbuffer_commit_space(c->in, &v, 1);
			if (r == 0)
				c->eof = 1;
			else if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->state = C_DEAD;
			return;
		}
		size_t space = v.iov_len;
		v.iov_len = (size_t)r;
		evbuffer_commit_space(c->in, &v, 1);
		c->peer->st.bytes_in += (uint64_t)r;
		if ((size_t)r < space)
			return;
	}
}

/* ---- steps ---------------------------------------------------------- */

static enum step_res advance(struct shb_hconn *c)
{
	c->step++;
	c->phase = 0;
	c->scanned = 0;
	return R_GO;
}

static enum step_res do_expect_bytes(struct shb_hconn *c, uint64_t n)
{
	if (!c->phase) {
		c->left = n;
		c->phase = 1;
	}
	size_t avail = evbuffer_get_length(c->in);
	size_t take = avail < c->left ? avail : (size_t)c->left;
	evbuffer_drain(c->in, take);
	c->left -= take;
	return c->left ? R_WAIT : advance(c);
}

static enum step_res do_expect_exact(struct shb_hconn *c,
				     const struct shb_hstep *st)
{
	size_t avail = evbuffer_get_length(c->in);
	size_t cmp = avail < st->len ? avail : st->len;
	if (cmp) {
		const unsigned char *p = evbuffer_pullup(c->in, (ssize_t)cmp);
		if (!p || memcmp(p, st->data, cmp) != 0) {
			c->peer->st.mismatches++;
			conn_reset(c);
			return R_PAUSE;
		}
	}
	if (avail < st->len)
		return R_WAIT;
	evbuffer_drain(c->in, st->len);
	return advance(c);
}

/* Searches the input for pat, resuming where the last search stopped.
 * Returns the offset just past pat, 0 when not found yet, -1 when more
 * than max bytes came without it. */
static long search_input(struct shb_hconn *c, const void *pat, size_t patlen,
			 size_t max)
{
	size_t len = evbuffer_get_length(c->in);
	size_t from = c->scanned >= patlen ? c->scanned - (patlen - 1) : 0;
	struct evbuffer_ptr pos;
	if (len < patlen)
		return len > max ? -1 : 0;
	if (evbuffer_ptr_set(c->in, &pos, from, EVBUFFER_PTR_SET) < 0)
		return -1;
	pos = evbuffer_search(c->in, pat, patlen, &pos);
	if (pos.pos < 0) {
		c->scanned = len;
		return len > max ? -1 : 0;
	}
	size_t end = (size_t)pos.pos + patlen;
	return end > max ? -1 : (long)end;
}

static enum step_res do_expect_until(struct shb_hconn *c,
				     const struct shb_hstep *st)
{
	long end = search_input(c, st->data, st->len, (size_t)st->n);
	if (end < 0) {
		protocol_error(c);
		return R_PAUSE;
	}
	if (end == 0)
		return R_WAIT;
	evbuffer_drain(c->in, (size_t)end);
	return advance(c);
}

/* Empty lines before a request line are allowed (RFC 9112 2.2). Returns 1
 * when a lone CR leaves it undecided. */
static int skip_blank_lines(struct shb_hconn *c)
{
	unsigned char b[2];
	for (;;) {
		ev_ssize_t n = evbuffer_copyout(c->in, b, 2);
		if (n < 1 || b[0] != '\r')
			return 0;
		if (n < 2)
			return 1;
		if (b[1] != '\n')
			return 0;
		evbuffer_drain(c->in, 2);
	}
}

/* The head part of expect_head / expect_request. R_GO means parsed. */
static enum step_res read_head(struct shb_hconn *c)
{
	if (c->scanned == 0 && skip_blank_lines(c))
		return R_WAIT;
	long end = search_input(c, "\r\n\r\n", 4, SHB_HREQ_MAX_HEAD);
	if (end == 0)
		return R_WAIT;
	const char *p = end > 0 ? (const char *)evbuffer_pullup(c->in, end)
				: NULL;
	if (!p || shb_hreq_parse(p, (size_t)end, &c->req) < 0) {
		protocol_error(c);
		return R_PAUSE;
	}
	evbuffer_drain(c->in, (size_t)end);
	c->scanned = 0;
	c->body_len = 0;
	c->peer->st.requests++;
	return R_GO;
}

/* The body part. `started` is the caller's phase flag. */
static enum step_res read_body(struct shb_hconn *c, int *started)
{
	if (!*started) {
		*started = 1;
		c->body_len = 0;
		if (c->req.chunked)
			shb_hchunked_init(&c->ch);
		else
			c->left = c->req.content_length > 0
				? (uint64_t)c->req.content_length : 0;
	}
	if (!c->req.chunked) {
		size_t avail = evbuffer_get_length(c->in);
		size_t take = avail < c->left ? avail : (size_t)c->left;
		evbuffer_drain(c->in, take);
		c->left -= take;
		c->body_len += take;
		if (c->left)
			return R_WAIT;
		c->requests++;
		return R_GO;
	}
	for (;;) {
		struct evbuffer_iovec v;
		int done = 0;
		if (evbuffer_peek(c->in, -1, NULL, &v, 1) < 1)
			return R_WAIT;
		ssize_t used = shb_hchunked_feed(&c->ch, v.iov_base, v.iov_len,
						 &done);
		if (used < 0) {
			protocol_error(c);
			return R_PAUSE;
		}
		evbuffer_drain(c->in, (size_t)used);
		c->body_len = c->ch.body;
		if (done) {
			c->requests++;
			return R_GO;
		}
	}
}

static enum step_res do_request(struct shb_hconn *c, int head, int body)
{
	enum step_res r;
	if (head && c->phase == 0) {
		r = read_head(c);
		if (r != R_GO)
			return r;
		c->phase = 1;
	}
	if (body) {
		int started = c->phase == 2;
		r = read_body(c, &started);
		c->phase = 2;
		if (r != R_GO)
			return r;
	}
	return advance(c);
}

static enum step_res do_repeat(struct shb_hconn *c, const struct shb_hstep *st)
{
	uint32_t *taken = &c->loops[c->step];
	if (st->n == 0 || *taken < st->n) {
		if (st->n)
			(*taken)++;
		c->step = st->target;
		c->phase = 0;
		c->scanned = 0;
		return R_GO;
	}
	*taken = 0; /* so an enclosing loop can run this one again */
	return advance(c);
}

static enum step_res apply_action(struct shb_hconn *c, enum shb_hact a)
{
	switch (a) {
	case SHB_HACT_NEXT:
		return advance(c);
	case SHB_HACT_RESET:
		conn_reset(c);
		return R_PAUSE;
	case SHB_HACT_STALL:
		c->state = C_STALL;
		evbuffer_drain(c->in, evbuffer_get_length(c->in));
		return R_PAUSE;
	case SHB_HACT_CLOSE:
	default:
		begin_close(c);
		return R_PAUSE;
	}
}

static enum step_res exec_step(struct shb_hconn *c, const struct shb_hstep *st)
{
	switch (st->kind) {
	case HSTEP_EXPECT_BYTES:
		return do_expect_bytes(c, st->n);
	case HSTEP_EXPECT_EXACT:
		return do_expect_exact(c, st);
	case HSTEP_EXPECT_UNTIL:
		return do_expect_until(c, st);
	case HSTEP_EXPECT_HEAD:
		return do_request(c, 1, 0);
	case HSTEP_EXPECT_BODY:
		if (c->phase == 0)
			c->phase = 1; /* no head to read in this step */
		return do_request(c, 0, 1);
	case HSTEP_EXPECT_REQUEST:
		return do_request(c, 1, 1);
	case HSTEP_SEND:
		if (evbuffer_add(c->out, st->data, st->len) < 0) {
			conn_reset(c);
			return R_PAUSE;
		}
		return advance(c);
	case HSTEP_DELAY:
		c->state = C_DELAY;
		arm_timer(c, st->n);
		return R_PAUSE;
	case HSTEP_STALL:
		return apply_action(c, SHB_HACT_STALL);
	case HSTEP_CLOSE:
		return apply_action(c, SHB_HACT_CLOSE);
	case HSTEP_RESET:
		return apply_action(c, SHB_HACT_RESET);
	case HSTEP_CLOSE_IF_ASKED:
		return c->req.wants_close ? apply_action(c, SHB_HACT_CLOSE)
					  : advance(c);
	case HSTEP_REPEAT:
		return do_repeat(c, st);
	case HSTEP_CALL:
		return apply_action(c, st->fn(c, st->arg));
	}
	return apply_action(c, SHB_HACT_RESET);
}

static void conn_run(struct shb_hconn *c)
{
	const struct shb_hscript *s = c->peer->script;
	int budget = STEPS_PER_RUN;
	while (c->state == C_RUN) {
		if (evbuffer_get_length(c->out) >= OUT_HIGH) {
			conn_flush(c);
			if (evbuffer_get_length(c->out) >= OUT_HIGH)
				break; /* resumed from on_write */
			continue;
		}
		if (c->step >= s->count) {
			begin_close(c);
			break;
		}
		if (--budget == 0) {
			arm_timer(c, 0); /* a loop without I/O: let others run */
			break;
		}
		enum step_res r = exec_step(c, &s->steps[c->step]);
		if (r == R_WAIT) {
			if (c->eof)
				begin_close(c);
			break;
		}
	}
	conn_flush(c);
}

/* ---- events --------------------------------------------------------- */

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	struct shb_hconn *c = arg;
	conn_read(c);
	switch (c->state) {
	case C_RUN:
		conn_run(c);
		break;
	case C_STALL:
	case C_CLOSING:
		evbuffer_drain(c->in, evbuffer_get_length(c->in));
		if (c->eof && (c->state == C_STALL || c->shut))
			c->state = C_DEAD;
		break;
	default:
		break;
	}
	conn_settle(c);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	struct shb_hconn *c = arg;
	conn_flush(c);
	if (c->state == C_RUN && evbuffer_get_length(c->out) < OUT_HIGH)
		conn_run(c);
	conn_settle(c);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct shb_hconn *c = arg;
	switch (c->state) {
	case C_DELAY:
		c->state = C_RUN;
		advance(c);
		conn_run(c);
		break;
	case C_RUN:
		conn_run(c);
		break;
	case C_CLOSING:
		c->state = C_DEAD; /* the client never closed its side */
		break;
	default:
		break;
	}
	conn_settle(c);
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct shb_hpeer *p = arg;
	struct shb_hconn *c = calloc(1, sizeof(*c));
	int one = 1;
	p->st.accepted++;
	if (p->accept_max && p->st.accepted >= p->accept_max) {
		/* At its limit: the listener closes, and connects are refused
		 * from now on. */
		evconnlistener_free(lis);
		p->lis = NULL;
	}
	evutil_make_socket_nonblocking(fd);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!c) {
		evutil_closesocket(fd);
		p->st.closed++;
		return;
	}
	c->peer = p;
	c->fd = fd;
	c->index = p->st.accepted - 1;
	c->req.content_length = -1;
	c->rev = event_new(p->base, fd, EV_READ | EV_PERSIST, on_read, c);
	c->wev = event_new(p->base, fd, EV_WRITE | EV_PERSIST, on_write, c);
	c->tev = evtimer_new(p->base, on_timer, c);
	c->in = evbuffer_new();
	c->out = evbuffer_new();
	c->loops = calloc(p->script->count ? p->script->count : 1,
			  sizeof(*c->loops));
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->open++;
	if (!c->rev || !c->wev || !c->tev || !c->in || !c->out || !c->loops) {
		c->state = C_DEAD;
		conn_settle(c);
		return;
	}
	conn_run(c); /* a script may begin by sending */
	conn_settle(c);
}

static void on_accept_error(struct evconnlistener *lis, void *arg)
{
	struct shb_hpeer *p = arg;
	p->st.accept_errors++;
}

/* ---- peers ---------------------------------------------------------- */

/* Fills ss from a numeric IPv4 or IPv6 address and a port (0 allowed,
 * which evutil_parse_sockaddr_port refuses). */
static int make_addr(const char *host, uint16_t port,
		     struct sockaddr_storage *ss, int *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	memset(ss, 0, sizeof(*ss));
	if (evutil_inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		*len = (int)sizeof(*a4);
		return 0;
	}
	if (evutil_inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		*len = (int)sizeof(*a6);
		return 0;
	}
	return -1;
}

struct shb_hpeer *shb_hpeer_new(struct event_base *base, const char *host,
				uint16_t port, struct shb_hscript *script,
				char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	int sslen;
	if (!host)
		host = "127.0.0.1";
	if (!shb_hscript_ok(script) || !base) {
		snprintf(err, errlen, "invalid peer script or event base");
		shb_hscript_free(script);
		return NULL;
	}
	if (make_addr(host, port, &ss, &sslen) < 0) {
		snprintf(err, errlen, "invalid listen address '%s' (numeric IPv4 "
			 "or IPv6 expected)", host);
		shb_hscript_free(script);
		return NULL;
	}
	struct shb_hpeer *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		shb_hscript_free(script);
		return NULL;
	}
	p->base = base;
	p->script = script;
	p->lis = evconnlistener_new_bind(base, on_accept, p,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
		1024, (struct sockaddr *)&ss, sslen);
	if (!p->lis) {
		snprintf(err, errlen, "cannot listen on %s port %u: %s", host,
			 (unsigned)port, strerror(errno));
		shb_hscript_free(script);
		free(p);
		return NULL;
	}
	evconnlistener_set_error_cb(p->lis, on_accept_error);
	socklen_t bl = sizeof(ss);
	getsockname(evconnlistener_get_fd(p->lis), (struct sockaddr *)&ss, &bl);
	p->port = ss.ss_family == AF_INET6
		? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
		: ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return p;
}

static void on_accept_timer(evutil_socket_t fd, short what, void *arg)
{
	struct shb_hpeer *p = arg;
	if (p->lis)
		evconnlistener_enable(p->lis);
}

int shb_hpeer_set_accept_max(struct shb_hpeer *p, uint64_t n, uint32_t after_ms)
{
	if (!n || n > INT32_MAX || !p->lis)
		return -1;
	if (listen(evconnlistener_get_fd(p->lis), (int)(n - 1)) < 0)
		return -1;
	p->accept_max = n;
	if (!after_ms)
		return 0;
	struct timeval tv = {after_ms / 1000, (long)(after_ms % 1000) * 1000};
	p->accept_timer = evtimer_new(p->base, on_accept_timer, p);
	if (!p->accept_timer || evtimer_add(p->accept_timer, &tv) < 0)
		return -1;
	evconnlistener_disable(p->lis);
	return 0;
}

uint16_t shb_hpeer_port(const struct shb_hpeer *p)
{
	return p->port;
}

void shb_hpeer_get_stats(const struct shb_hpeer *p, struct shb_hpeer_stats *out)
{
	*out = p->st;
}

uint64_t shb_hpeer_open_conns(const struct shb_hpeer *p)
{
	return p->open;
}

void shb_hpeer_free(struct shb_hpeer *p)
{
	if (!p)
		return;
	if (p->lis)
		evconnlistener_free(p->lis);
	if (p->accept_timer)
		event_free(p->accept_timer);
	while (p->conns)
		conn_free(p->conns);
	shb_hscript_free(p->script);
	free(p);
}

/* ---- connection accessors for call steps ---------------------------- */

const struct shb_hreq *shb_hconn_request(const struct shb_hconn *c)
{
	return &c->req;
}

uint64_t shb_hconn_body_len(const struct shb_hconn *c)
{
	return c->body_len;
}

uint64_t shb_hconn_requests(const struct shb_hconn *c)
{
	return c->requests;
}

uint64_t shb_hconn_index(const struct shb_hconn *c)
{
	return c->index;
}

struct shb_hpeer *shb_hconn_peer(const struct shb_hconn *c)
{
	return c->peer;
}

int shb_hconn_send(struct shb_hconn *c, const void *data, size_t len)
{
	return evbuffer_add(c->out, data, len) < 0 ? -1 : 0;
}

int shb_hconn_printf(struct shb_hconn *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = evbuffer_add_vprintf(c->out, fmt, ap);
	va_end(ap);
	return r < 0 ? -1 : 0;
}
