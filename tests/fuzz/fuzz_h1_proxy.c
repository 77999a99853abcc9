/* The HTTP/1.1 plugin on a connection to a forward proxy (the origin's
 * route_flags has SHB_ROUTE_ABSOLUTE_FORM), driven through its vtable as
 * the core drives it: requests issued one at a time, their bytes pulled
 * in absolute form through at most `max` vectors and acknowledged in
 * chunks, and the proxy's answers fed to recv(), which parses them with
 * the h1 scanner (the peer bytes of this path), then maybe the peer's
 * close.
 *
 * Input: a flags byte (bits 0-1: requests - 1; bit 2: protocol traces;
 * bit 3: the proxy closes after its last bytes; bit 4: HEAD; bits 5-6:
 * the origin's authority; bit 7: POST with a body), a send byte (bits
 * 0-2: vectors per pull, 1..6; bits 3-7: bytes per sent(), 0 = all), a
 * split plan, then per request a 16-bit length and that many bytes of the
 * proxy's answer (the last one takes what is left).
 *
 * Checked besides memory safety: the bytes sent are the prepared request
 * with "http://AUTHORITY" inserted before its target, however they were
 * pulled and acknowledged; recv() takes all it is offered or fails; each
 * request is reported exactly once and only after it was issued; and the
 * results do not depend on where each answer was cut. */
#include <string.h>

#include "fuzz_h1_host.h"
#include "fuzz_input.h"
#include "h1_request.h"

#define MAX_REQ 4
#define HANDLE ((struct shb_conn *)(uintptr_t)0x5eed)

static const char *const authorities[4] = {
	"example.com", "example.com:8080", "[::1]:8443", "a.b",
};

struct run {
	unsigned issued, count;
	int issued_state[MAX_REQ + 1]; /* 0 never, 1 open, 2 done */
	int recv_rc[MAX_REQ];
	int eof_rc;
	struct h1fz_result r[MAX_REQ];
};

static struct run *cur;
static struct shb_origin origin = {
	.struct_size = sizeof(struct shb_origin),
	.port = 80,
	.scheme = "http",
	.host = "example.com",
	.route_flags = SHB_ROUTE_ABSOLUTE_FORM,
};

static void done(uint64_t cookie, const struct shb_req_result *res)
{
	FZ_CHECK(cookie >= 1 && cookie <= cur->issued);
	FZ_CHECK(cur->issued_state[cookie] == 1);
	cur->issued_state[cookie] = 2;
	FZ_CHECK(cur->count < MAX_REQ);
	h1fz_record(&cur->r[cur->count++], cookie, res);
}

/* kind: 0 GET, 1 HEAD, 2 POST */
static const struct shb_h1_request *prepared(void *mod, int debug, int kind)
{
	static void *preps[2][3];
	static const uint8_t body[] = "a=1&b=2";
	static const struct shb_kv hdrs[] = {{"accept", "*/*"}};
	static const char *const methods[] = {"GET", "HEAD", "POST"};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = methods[kind],
		.scheme = "http",
		.authority = "example.com",
		.path = "/fuzz?x=1",
		.headers = hdrs,
		.header_count = 1,
		.flags = kind == 2 ? SHB_REQUEST_HAS_BODY : 0,
		.body = kind == 2 ? body : NULL,
		.body_len = kind == 2 ? sizeof(body) - 1 : 0,
	};
	char err[128];

	if (!preps[debug][kind])
		FZ_CHECK(h1fz_desc()->vt->prepare_request(mod, &req,
			&preps[debug][kind], err, sizeof(err)) == SHB_OK);
	return preps[debug][kind];
}

/* Pulls and acknowledges the whole request; checks its bytes. */
static void send_all(void *c, const struct shb_h1_request *r, unsigned max,
		     size_t chunk)
{
	const struct shb_proto_vtable *vt = h1fz_desc()->vt;
	size_t alen = strlen("http://") + strlen(origin.authority);
	size_t want = r->total + alen, got = 0;
	uint8_t *wire = malloc(want + 1);
	struct shb_vec v[6];

	FZ_CHECK(wire != NULL);
	while (vt->state(c) & SHB_CS_WANT_WRITE) {
		shb_ssize k = vt->pull_send(c, v, max, 0);
		size_t n = 0;

		FZ_CHECK(k > 0 && (size_t)k <= max);
		for (shb_ssize i = 0; i < k; i++) {
			FZ_CHECK(v[i].len > 0 && got + n + v[i].len <= want);
			memcpy(wire + got + n, v[i].base, v[i].len);
			n += v[i].len;
		}
		/* Only the first `chunk` bytes of this pull are taken. */
		if (chunk && n > chunk)
			n = chunk;
		vt->sent(c, n, 0);
		got += n;
	}
	FZ_CHECK(got == want);
	FZ_CHECK(!memcmp(wire, r->head, r->target_off));
	FZ_CHECK(!memcmp(wire + r->target_off, "http://", 7));
	FZ_CHECK(!memcmp(wire + r->target_off + 7, origin.authority, alen - 7));
	FZ_CHECK(!memcmp(wire + r->target_off + alen, r->head + r->target_off,
			 r->head_len - r->target_off));
	FZ_CHECK(!r->body_len || !memcmp(wire + alen + r->head_len, r->body,
					 r->body_len));
	free(wire);
}

static void run(struct run *u, unsigned flags, unsigned sendb,
		const struct fz_plan *pl, const uint8_t *p, size_t n)
{
	const struct shb_proto_vtable *vt = h1fz_desc()->vt;
	int debug = (flags >> 2) & 1;
	int kind = (flags & 0x80) ? 2 : (flags & 0x10) ? 1 : 0;
	unsigned reqs = (flags & 3) + 1, max = (sendb & 7) % 6 + 1;
	size_t chunk = (sendb >> 3) * 3;
	void *mod = h1fz_module(1, debug);
	const struct shb_h1_request *r = prepared(mod, debug, kind);
	void *c = calloc(1, h1fz_desc()->conn_size);
	struct fz f = { p, n };

	memset(u, 0, sizeof(*u));
	cur = u;
	origin.authority = authorities[(flags >> 5) & 3];
	FZ_CHECK(c != NULL);
	FZ_CHECK(vt->conn_init(mod, NULL, c, HANDLE, 0) == SHB_OK);
	FZ_CHECK(vt->on_transport_ready(c, NULL, 0) == SHB_OK);
	for (unsigned i = 0; i < reqs && vt->capacity(c); i++) {
		struct h1fz_feed_ctx fc = { c, 0 };
		size_t len, got;
		const uint8_t *seg;

		len = i + 1 == reqs ? f.n : fz_u16(&f);
		seg = fz_take(&f, len, &got);
		FZ_CHECK(vt->issue(c, r, ++u->issued, 0) == SHB_OK);
		u->issued_state[u->issued] = 1;
		send_all(c, r, max, chunk);
		fz_feed_plan(pl, seg, got, h1fz_feed, &fc);
		u->recv_rc[i] = fc.rc;
		if (fc.rc)
			break;
	}
	if ((flags & 8) && !(vt->state(c) & SHB_CS_CLOSED))
		u->eof_rc = vt->recv_eof(c, 0);
	vt->conn_fini(c);
	free(c);
	cur = NULL;
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct fz_plan pl;
	unsigned flags = fz_u8(&f), sendb = fz_u8(&f);

	h1fz_host_init(HANDLE, done, &origin);
	fz_plan_read(&f, &pl);
	run(&split, flags, sendb, &pl, f.p, f.n);
	run(&whole, flags, sendb, NULL, f.p, f.n);
	FZ_CHECK(split.issued == whole.issued && split.count == whole.count);
	FZ_CHECK(!memcmp(split.r, whole.r, sizeof(split.r)));
	FZ_CHECK(!memcmp(split.recv_rc, whole.recv_rc, sizeof(split.recv_rc)));
	FZ_CHECK(split.eof_rc == whole.eof_rc);
	return 0;
}
