/* The HTTP/1.1 plugin pipelining (-p N, plugins/h1/h1_pipe.c), driven
 * through its vtable as the core drives it: N requests (GET or HEAD)
 * issued at once, their bytes pulled through at most `max` vectors and
 * acknowledged in chunks, the server's first segment fed to recv(), then
 * maybe a cancel of the oldest request owed, then the FIFO refilled to
 * its depth (so that it wraps) and sent, the second segment fed, then
 * maybe the peer's close.
 *
 * Input: a flags byte (bits 0-2: depth - 1, 1..8; bit 3: the peer closes
 * after its bytes; bit 4: cancel after the first segment; bit 5: protocol
 * traces), a HEAD mask (bit i: the i-th request issued, modulo 8, is
 * HEAD), a send byte (bits 0-3: vectors per pull - 1; bits 4-7: bytes per
 * sent() / 7, 0 = all), a split plan, a 16-bit length of the first
 * segment, then the server's bytes.
 *
 * Checked besides memory safety: the bytes sent are the requests in the
 * order issued, however they were pulled and acknowledged; recv() takes
 * all it is offered or fails; each request is reported exactly once,
 * never a cancelled one, in the order issued, and none is owed once the
 * connection says CLOSED; and the results do not depend on where the
 * segments were cut. */
#include <string.h>

#include "fuzz_h1_host.h"
#include "fuzz_input.h"
#include "h1_request.h"

#define MAX_DEPTH H1FZ_MAX_DEPTH
#define MAX_REQ (2 * MAX_DEPTH)
#define HANDLE ((struct shb_conn *)(uintptr_t)0x91be)

struct run {
	unsigned issued, count;
	int state[MAX_REQ + 1]; /* 0 never, 1 open, 2 done, 3 cancelled */
	uint64_t last_done;
	int recv_rc[2];
	int eof_rc;
	struct h1fz_result r[MAX_REQ];
};

static struct run *cur;

static void done(uint64_t cookie, const struct shb_req_result *res)
{
	FZ_CHECK(cookie >= 1 && cookie <= cur->issued);
	FZ_CHECK(cur->state[cookie] == 1);
	/* FIFO: a request ends only after every request before it. */
	FZ_CHECK(cookie > cur->last_done);
	cur->last_done = cookie;
	cur->state[cookie] = 2;
	FZ_CHECK(cur->count < MAX_REQ);
	h1fz_record(&cur->r[cur->count++], cookie, res);
}

/* GET or HEAD, prepared once (a prepared request is the module's, and the
 * module is read only: the first module's serves every module). */
static const struct shb_h1_request *prepared(int head)
{
	static void *preps[2];
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = head ? "HEAD" : "GET",
		.scheme = "http",
		.authority = "example.com",
		.path = head ? "/head" : "/get",
	};
	char err[128];

	if (!preps[head])
		FZ_CHECK(h1fz_desc()->vt->prepare_request(h1fz_module(1, 0), &req,
			&preps[head], err, sizeof(err)) == SHB_OK);
	return preps[head];
}

struct conn {
	void *c;
	unsigned head_mask, max;
	size_t chunk;
	const struct shb_h1_request *unsent[MAX_REQ]; /* in issue order */
	unsigned nunsent;
	size_t off; /* bytes of unsent[0] already taken */
};

/* The next expected wire byte is that of the oldest request not sent. */
static void expect_wire(struct conn *k, const uint8_t *p, size_t n)
{
	while (n) {
		FZ_CHECK(k->nunsent > 0);
		const struct shb_h1_request *r = k->unsent[0];
		size_t take = r->total - k->off;
		if (take > n)
			take = n;
		for (size_t i = 0; i < take; i++) {
			size_t at = k->off + i;
			uint8_t want = at < r->head_len ? r->head[at]
							: r->body[at - r->head_len];
			FZ_CHECK(p[i] == want);
		}
		k->off += take;
		p += take;
		n -= take;
		if (k->off == r->total) {
			memmove(k->unsent, k->unsent + 1,
				--k->nunsent * sizeof(k->unsent[0]));
			k->off = 0;
		}
	}
}

/* Pulls and acknowledges everything the connection has to send. */
static void send_all(struct conn *k)
{
	const struct shb_proto_vtable *vt = h1fz_desc()->vt;
	struct shb_vec v[16];

	while (vt->state(k->c) & SHB_CS_WANT_WRITE) {
		shb_ssize m = vt->pull_send(k->c, v, k->max, 0);
		size_t n = 0;

		FZ_CHECK(m > 0 && (size_t)m <= k->max);
		for (shb_ssize i = 0; i < m && (!k->chunk || n < k->chunk); i++) {
			size_t take = v[i].len;
			FZ_CHECK(take > 0);
			if (k->chunk && take > k->chunk - n)
				take = k->chunk - n;
			expect_wire(k, v[i].base, take);
			n += take;
		}
		vt->sent(k->c, n, 0);
	}
	FZ_CHECK(k->nunsent == 0 || (vt->state(k->c) & SHB_CS_CLOSED));
}

/* Issues while the connection has room (and the run has cookies left). */
static void fill(struct run *u, struct conn *k)
{
	const struct shb_proto_vtable *vt = h1fz_desc()->vt;

	while (u->issued < MAX_REQ && vt->capacity(k->c)) {
		const struct shb_h1_request *r =
			prepared((k->head_mask >> (u->issued % 8)) & 1);
		FZ_CHECK(vt->issue(k->c, r, ++u->issued, 0) == SHB_OK);
		u->state[u->issued] = 1;
		k->unsent[k->nunsent++] = r;
	}
	send_all(k);
}

/* Nothing is owed by a connection that says CLOSED. */
static void check_closed(const struct run *u, void *c)
{
	if (!(h1fz_desc()->vt->state(c) & SHB_CS_CLOSED))
		return;
	for (unsigned i = 1; i <= u->issued; i++)
		FZ_CHECK(u->state[i] != 1);
}

/* Feeds one segment of the server's bytes; 0, or the recv error. */
static int segment(struct run *u, void *c, const struct fz_plan *pl,
		   const uint8_t *p, size_t n)
{
	struct h1fz_feed_ctx fc = {c, 0};

	fz_feed_plan(pl, p, n, h1fz_feed, &fc);
	check_closed(u, c);
	return fc.rc;
}

/* Cancels the oldest request still open, as --timeout does. */
static void cancel_oldest(struct run *u, void *c)
{
	for (unsigned i = 1; i <= u->issued; i++) {
		if (u->state[i] == 1) {
			u->state[i] = 3;
			h1fz_desc()->vt->cancel(c, i, 0);
			FZ_CHECK(h1fz_desc()->vt->state(c) & SHB_CS_CLOSED);
			check_closed(u, c);
			return;
		}
	}
}

static void run(struct run *u, const unsigned ctl[3], size_t first,
		const struct fz_plan *pl, const uint8_t *p, size_t n)
{
	const struct shb_proto_vtable *vt = h1fz_desc()->vt;
	unsigned flags = ctl[0], depth = (flags & 7) + 1;
	/* Prepared first: h1fz_module() sets the trace level of the run. */
	(void)prepared(0);
	(void)prepared(1);
	void *mod = h1fz_module(depth, (flags >> 5) & 1);
	struct conn k = {
		.head_mask = ctl[1],
		.max = (ctl[2] & 15) + 1,
		.chunk = (ctl[2] >> 4) * 7,
	};

	memset(u, 0, sizeof(*u));
	cur = u;
	k.c = calloc(1, h1fz_desc()->conn_size);
	FZ_CHECK(k.c != NULL);
	FZ_CHECK(vt->conn_init(mod, NULL, k.c, HANDLE, 0) == SHB_OK);
	FZ_CHECK(vt->on_transport_ready(k.c, NULL, 0) == SHB_OK);
	fill(u, &k);
	FZ_CHECK(u->issued == depth);
	if (first > n)
		first = n;
	u->recv_rc[0] = segment(u, k.c, pl, p, first);
	if ((flags & 16) && !(vt->state(k.c) & SHB_CS_CLOSED))
		cancel_oldest(u, k.c);
	if (!(vt->state(k.c) & SHB_CS_CLOSED)) {
		fill(u, &k);
		u->recv_rc[1] = segment(u, k.c, pl, p + first, n - first);
	}
	if ((flags & 8) && !(vt->state(k.c) & SHB_CS_CLOSED)) {
		u->eof_rc = vt->recv_eof(k.c, 0);
		FZ_CHECK(vt->state(k.c) & SHB_CS_CLOSED);
		check_closed(u, k.c);
	}
	vt->conn_fini(k.c);
	free(k.c);
	cur = NULL;
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	unsigned ctl[3];

	h1fz_host_init(HANDLE, done, NULL);
	for (int i = 0; i < 3; i++)
		ctl[i] = fz_u8(&f);
	fz_plan_read(&f, &pl);
	size_t first = fz_u16(&f);
	run(&split, ctl, first, &pl, f.p, f.n);
	run(&whole, ctl, first, NULL, f.p, f.n);
	FZ_CHECK(split.issued == whole.issued && split.count == whole.count);
	FZ_CHECK(!memcmp(split.r, whole.r, sizeof(split.r)));
	FZ_CHECK(!memcmp(split.recv_rc, whole.recv_rc, sizeof(split.recv_rc)));
	FZ_CHECK(split.eof_rc == whole.eof_rc);
	return 0;
}
