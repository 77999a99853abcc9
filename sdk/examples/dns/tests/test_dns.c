/* The DNS plugin's own tests. First plain C on its parts: the query
 * encoder's exact bytes (placeholders and EDNS included) and its refusals,
 * the reply reader on every kind of reply and refusing what is malformed
 * (compression pointer loops, names and records past the datagram).
 * Then connections through the SDK's test kit (pkg-config
 * shb-plugin-kit-1), which runs the plugin as the core would: replies out
 * of order and in separate receives, mismatched ids and questions
 * dropped, truncated answers, a cancel whose reply comes late, the wait
 * ending a lost query, and no host rule broken.
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/kit.h>

#include "../src/dns_conn.h"

extern const struct shb_plugin_entry shb_plugin_entry_v1;

static int passed, failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                                       \
			failed++;                                              \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

/* ---- the query encoder ------------------------------------------------------- */

static void test_encoder(void)
{
	static const uint8_t want[] = {
		0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
		0, 1, 0, 1,
	};
	static const uint8_t want_vars[] = {
		0xab, 0xcd, 0x00, 0x00, 0, 1, 0, 0, 0, 0, 0, 1,
		4, 'h', '4', '2', '7', 1, '9', 3, 'l', 'a', 'n', 0,
		0, 28, 0, 3,
		0, 0, 41, 0x10, 0x00, 0, 0, 0, 0, 0, 0,
	};
	struct dns_query q;
	uint8_t out[DNS_QUERY_MAX];
	uint64_t h1, h2;
	char err[200];

	CHECK(dns_query_build(&q, "example.com.", 1, 1, 0, 1, 10, err, sizeof err) == 0);
	CHECK(dns_query_encode(&q, out, 0x1234, 0, 0, &h1) == sizeof want &&
	      memcmp(out, want, sizeof want) == 0);
	CHECK(dns_query_build(&q, "EXAMPLE.com", 1, 1, 0, 1, 10, err, sizeof err) == 0);
	dns_query_encode(&q, out, 1, 0, 0, &h2);
	CHECK(h1 == h2); /* names compare without case */
	CHECK(dns_query_build(&q, "h{seq}.{rand}.lan", 28, 3, 4096, 0, 10, err,
			      sizeof err) == 0 && q.vars == 1);
	CHECK(dns_query_encode(&q, out, 0xabcd, 427, 9, &h1) == sizeof want_vars &&
	      memcmp(out, want_vars, sizeof want_vars) == 0);
	CHECK(dns_query_build(&q, ".", 2, 1, 0, 1, 10, err, sizeof err) == 0 &&
	      dns_query_encode(&q, out, 1, 0, 0, &h1) == 17 && out[12] == 0);
}

static int build_fails(const char *name, const char *want)
{
	struct dns_query q;
	char err[200] = "";
	int rc = dns_query_build(&q, name, 1, 1, 0, 1, 1000000, err, sizeof err);

	if (rc == 0 || strcmp(err, want))
		fprintf(stderr, "build '%.40s': %d '%s'\n", name, rc, err);
	return rc == -1 && strcmp(err, want) == 0;
}

static void test_encoder_refuses(void)
{
	char label[80], longname[300];

	memset(label, 'a', 64);
	label[64] = 0;
	CHECK(build_fails(label, "name: a label is over 63 bytes"));
	CHECK(build_fails("a..b", "name: an empty label"));
	CHECK(build_fails(".a", "name: an empty label"));
	CHECK(build_fails("a b", "name must be printable ASCII without spaces (byte 1 is not)"));
	/* 50 labels of 4 bytes and {seq}: fine with 3 digits, not with 20. */
	memset(longname, 0, sizeof longname);
	for (int i = 0; i < 48; i++)
		memcpy(longname + 5 * i, "abcd.", 5);
	strcat(longname, "{seq}");
	CHECK(build_fails(longname, "name with its placeholders at their widest: "
			  "the name is over 255 bytes"));
	longname[strlen(longname) - 5] = 0;
	strcat(longname, "{rand}"); /* range 1000000: 6 digits fit */
	{
		struct dns_query q;
		char err[200];

		CHECK(dns_query_build(&q, longname, 1, 1, 0, 1, 1000000, err, sizeof err) == 0);
	}
}

/* ---- the reply reader -------------------------------------------------------- */

/* A reply to `q` (its bytes, len): QR set, `rcode`, TC when `tc`, then
 * `answers` A records whose names point at the question (0xc00c). Its
 * length. */
static size_t reply_to(const uint8_t *q, size_t len, uint8_t rcode, int tc,
		       int answers, uint8_t *out)
{
	static const uint8_t rr[] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60,
				     0, 4, 127, 0, 0, 1};
	size_t o = len;

	memcpy(out, q, len);
	out[2] |= 0x80 | (tc ? 0x02 : 0);
	out[3] = (uint8_t)(0x80 | rcode);
	out[10] = out[11] = 0; /* no OPT back */
	if (q[11]) /* the query's OPT record is not copied */
		o -= DNS_OPT_RR;
	out[7] = (uint8_t)answers;
	for (int i = 0; i < answers; i++, o += sizeof rr)
		memcpy(out + o, rr, sizeof rr);
	return o;
}

static const uint8_t q_example[] = {
	0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
	7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
	0, 1, 0, 1,
};

static int refused(const uint8_t *p, size_t n, const char *why)
{
	struct dns_reply r;
	int rc = dns_reply_read(p, n, &r);

	if (rc != -1 || !r.err || strcmp(r.err, why))
		fprintf(stderr, "reply refused? %d '%s'\n", rc, r.err ? r.err : "");
	return rc == -1 && r.err && strcmp(r.err, why) == 0;
}

static void test_reader(void)
{
	uint8_t b[600];
	struct dns_reply r;
	size_t n;
	uint64_t h = dns_question_hash(q_example + 12, 13, 1, 1);

	n = reply_to(q_example, sizeof q_example, DNS_NOERROR, 0, 2, b);
	CHECK(dns_reply_read(b, n, &r) == 0 && r.id == 0x1234 && r.ancount == 2 &&
	      r.outcome == DNS_NOERROR && r.qhash == h);
	n = reply_to(q_example, sizeof q_example, DNS_NOERROR, 0, 0, b);
	CHECK(dns_reply_read(b, n, &r) == 0 && r.outcome == DNS_NODATA);
	n = reply_to(q_example, sizeof q_example, DNS_NXDOMAIN, 0, 0, b);
	CHECK(dns_reply_read(b, n, &r) == 0 && r.outcome == DNS_NXDOMAIN);
	/* Truncated: says 3 answers, carries half of one; read to its
	 * question only. */
	n = reply_to(q_example, sizeof q_example, DNS_NOERROR, 1, 1, b) - 8;
	b[7] = 3;
	CHECK(dns_reply_read(b, n, &r) == 0 && r.outcome == DNS_TRUNCATED && r.tc);
	/* A query, and a datagram shorter than a header: not replies. */
	CHECK(dns_reply_read(q_example, sizeof q_example, &r) == 1);
	CHECK(dns_reply_read(q_example, 11, &r) == 1);
	/* Every cut of a whole reply is refused, never read past. */
	n = reply_to(q_example, sizeof q_example, DNS_NOERROR, 0, 2, b);
	for (size_t cut = DNS_HEADER; cut < n; cut++)
		CHECK(dns_reply_read(b, cut, &r) == -1);
	CHECK(refused(b, n - 1, "a record that runs past the datagram"));
	CHECK(refused(b, 20, "a name that runs past the datagram"));
	b[n] = 0;
	CHECK(refused(b, n + 1, "bytes after the last record"));
}

static void test_reader_pointers(void)
{
	uint8_t b[600];
	size_t n = reply_to(q_example, sizeof q_example, DNS_NOERROR, 0, 1, b);

	/* The answer's name points at itself: a loop of one. */
	b[29] = 0xc0;
	b[30] = 29;
	CHECK(refused(b, n, "a compression pointer that does not point back"));
	/* Forward, past itself. */
	b[30] = 40;
	CHECK(refused(b, n, "a compression pointer that does not point back"));
	/* A loop of two: the question's "com" label replaced by a pointer to
	 * the answer's name, which points back at the question. Each jump
	 * goes lower than where the labels started, so the second is
	 * refused. */
	n = reply_to(q_example, sizeof q_example, DNS_NOERROR, 0, 1, b);
	b[20] = 0xc0;
	b[21] = 12;
	CHECK(refused(b, n, "a compression pointer that does not point back"));
	/* Two pointers chained backwards are fine: answer -> 45 -> 12. */
	{
		static const uint8_t two[] = {0xc0, 45, 0, 1, 0, 1, 0, 0, 0, 60, 0, 2,
					      0xc0, 12};
		struct dns_reply r;

		n = reply_to(q_example, sizeof q_example, DNS_NOERROR, 0, 1, b);
		memcpy(b + 29 + 16, two, sizeof two); /* a second answer at 45 */
		b[7] = 2;
		b[45] = 0xc0;
		b[46] = 12;
		/* its rdata (2 bytes) is the pointer 0xc00c; the first
		 * answer's name points at the second's. */
		b[29] = 0xc0;
		b[30] = 45;
		CHECK(refused(b, n + sizeof two, "a compression pointer that does not "
			      "point back"));
		b[29] = 0xc0;
		b[30] = 12;
		CHECK(dns_reply_read(b, n + sizeof two, &r) == 0 && r.ancount == 2);
	}
}

/* ---- connections through the kit --------------------------------------------- */

static struct shb_kit_host kh;
static struct shb_kit_plugin plugin;
static const struct shb_proto_desc *desc;

static int kit_start(void)
{
	char err[256] = "";

	if (shb_kit_host_init(&kh, 4) ||
	    shb_kit_plugin_use(&plugin, &shb_plugin_entry_v1, err, sizeof err) ||
	    shb_kit_plugin_init(&plugin, &kh) != SHB_OK) {
		fprintf(stderr, "test_dns: the kit cannot run the plugin: %s\n", err);
		return -1;
	}
	desc = shb_kit_plugin_proto(&plugin, "dns");
	return desc ? 0 : -1;
}

static size_t violations(void)
{
	size_t n = shb_kit_host_dump_violations(&kh, "kit: ");

	shb_kit_host_reset(&kh);
	return n;
}

struct rig {
	struct shb_kit_module m;
	struct shb_kit_conn c;
};

/* dns://127.0.0.1:53/ with options (key, value pairs, NULL ended). */
static int module_open(struct shb_kit_module *m, const char *const *opts,
		       uint32_t parallel, const char *path)
{
	struct shb_kv kv[8];
	size_t n = 0;
	struct shb_run_config cfg;
	struct shb_request req = {
		.struct_size = sizeof req, .method = "", .scheme = "dns",
		.authority = "127.0.0.1:53", .path = path ? path : "/",
	};
	int rc;

	while (opts && opts[2 * n] && n < 8) {
		kv[n].key = opts[2 * n];
		kv[n].value = opts[2 * n + 1];
		n++;
	}
	shb_kit_run_config_default(&cfg, desc);
	cfg.parallel = parallel;
	cfg.host = "127.0.0.1";
	cfg.authority = "127.0.0.1:53";
	cfg.options = n ? kv : NULL;
	cfg.option_count = n;
	rc = shb_kit_module_create(m, &kh, desc, &cfg);
	if (rc != SHB_OK)
		return rc;
	rc = shb_kit_module_prepare(m, &req);
	if (rc == SHB_OK)
		rc = shb_kit_module_worker_init(m);
	if (rc != SHB_OK)
		shb_kit_module_destroy(m);
	return rc;
}

static int rig_open(struct rig *r, const char *const *opts, uint32_t parallel)
{
	memset(r, 0, sizeof *r);
	shb_kit_clock_set(&kh.clock, 1);
	if (module_open(&r->m, opts, parallel, NULL) != SHB_OK)
		return -1;
	if (shb_kit_conn_init(&r->c, &r->m) != SHB_OK ||
	    shb_kit_conn_ready(&r->c, NULL) != SHB_OK) {
		shb_kit_conn_fini(&r->c);
		shb_kit_module_destroy(&r->m);
		return -1;
	}
	return 0;
}

static size_t rig_close(struct rig *r)
{
	shb_kit_conn_fini(&r->c);
	shb_kit_module_destroy(&r->m);
	return violations();
}

/* The i-th datagram the connection sent, and its length. */
static const uint8_t *sent_dgram(const struct shb_kit_conn *c, size_t i, size_t *len)
{
	size_t off = 0;

	for (size_t k = 0; k < i; k++)
		off += c->dgram_len[k];
	*len = c->dgram_len[i];
	return c->out + off;
}

static int recv_one(struct rig *r, const uint8_t *p, size_t n)
{
	struct shb_vec v = {(uint8_t *)p, n};

	return shb_kit_conn_recv_dgrams(&r->c, &v, 1);
}

/* The reply to sent datagram i, with rcode (and TC). */
static int answer(struct rig *r, size_t i, uint8_t rcode, int tc, int answers)
{
	uint8_t b[600];
	size_t len;
	const uint8_t *q = sent_dgram(&r->c, i, &len);

	return recv_one(r, b, reply_to(q, len, rcode, tc, answers, b));
}

static int is_outcome(uint64_t cookie, uint32_t code, uint32_t ok, const char *detail)
{
	const struct shb_kit_done *d = shb_kit_done_find(&kh, cookie);

	return d && d->res.outcome == SHB_REQ_OK && d->res.status == 0 &&
	       d->res.app_space == DNS_SPACE && d->res.app_code == code &&
	       d->res.app_ok == ok && strcmp(d->detail, detail ? detail : "") == 0 &&
	       d->has_detail == (detail != NULL);
}

static void test_conn_out_of_order(void)
{
	static const char *const opts[] = {"name", "www.lan", NULL};
	struct rig r;

	if (rig_open(&r, opts, 4)) {
		CHECK(0);
		return;
	}
	CHECK(r.c.capacity == 4);
	for (uint64_t k = 1; k <= 4; k++)
		CHECK(shb_kit_conn_issue(&r.c, NULL, k) == SHB_OK);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 5) == SHB_E_BUSY);
	/* One train of 4 equal queries; ids differ, low bits the slot. */
	CHECK(shb_kit_conn_flush_dgrams(&r.c) == 4 && r.c.dgram_count == 4);
	CHECK(r.c.dgram_len[0] == 12 + 9 + 4);
	/* Answered 3, 1, 4, 2 in separate receives. */
	shb_kit_clock_set(&kh.clock, 5);
	CHECK(answer(&r, 2, DNS_NOERROR, 0, 1) == SHB_OK);
	CHECK(answer(&r, 0, DNS_NXDOMAIN, 0, 0) == SHB_OK);
	CHECK(answer(&r, 3, DNS_NOERROR, 0, 0) == SHB_OK);
	CHECK(answer(&r, 1, DNS_SERVFAIL, 0, 0) == SHB_OK);
	CHECK(kh.done_count == 4);
	CHECK(is_outcome(3, DNS_NOERROR, 1, NULL));
	CHECK(is_outcome(1, DNS_NXDOMAIN, 0, "NXDOMAIN"));
	CHECK(is_outcome(4, DNS_NODATA, 1, NULL));
	CHECK(is_outcome(2, DNS_SERVFAIL, 0, "SERVFAIL"));
	CHECK(r.c.capacity == 4);
	/* A repeated reply matches nothing: dropped, counted. */
	CHECK(answer(&r, 2, DNS_NOERROR, 0, 1) == SHB_OK && kh.done_count == 4);
	CHECK(((struct dns_conn *)r.c.mem)->stray == 1);
	CHECK(rig_close(&r) == 0);
}

static void test_conn_mismatch(void)
{
	struct rig r;
	uint8_t b[600];
	size_t len, n;
	const uint8_t *q;

	if (rig_open(&r, NULL, 2)) {
		CHECK(0);
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 7) == SHB_OK);
	CHECK(shb_kit_conn_flush_dgrams(&r.c) == 1);
	q = sent_dgram(&r.c, 0, &len);
	/* Another id: dropped. */
	n = reply_to(q, len, DNS_NOERROR, 0, 1, b);
	b[0] ^= 0x80;
	CHECK(recv_one(&r, b, n) == SHB_OK && kh.done_count == 0);
	/* Its id, another question (a stale reply whose id came round). */
	n = reply_to(q, len, DNS_NOERROR, 0, 1, b);
	b[13] = 'X';
	CHECK(recv_one(&r, b, n) == SHB_OK && kh.done_count == 0);
	/* Its id and question, the name's case changed (0x20 bits): ours. */
	n = reply_to(q, len, DNS_NOERROR, 0, 1, b);
	b[13] = 'E';
	CHECK(recv_one(&r, b, n) == SHB_OK && is_outcome(7, DNS_NOERROR, 1, NULL));
	CHECK(((struct dns_conn *)r.c.mem)->stray == 2);
	CHECK(rig_close(&r) == 0);
}

static void test_conn_truncated_and_malformed(void)
{
	struct rig r;
	uint8_t b[600];
	size_t len, n;
	const uint8_t *q;
	const struct shb_kit_done *d;

	if (rig_open(&r, NULL, 2)) {
		CHECK(0);
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 1) == SHB_OK);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 2) == SHB_OK);
	CHECK(shb_kit_conn_flush_dgrams(&r.c) == 2);
	/* Truncated, its answer cut short. */
	q = sent_dgram(&r.c, 0, &len);
	n = reply_to(q, len, DNS_NOERROR, 1, 1, b) - 5;
	CHECK(recv_one(&r, b, n) == SHB_OK && is_outcome(1, DNS_TRUNCATED, 0, "TC"));
	/* A pointer loop in the reply to the second: a protocol error of
	 * that query alone, the connection goes on. */
	q = sent_dgram(&r.c, 1, &len);
	n = reply_to(q, len, DNS_NOERROR, 0, 1, b);
	b[len] = 0xc0;
	b[len + 1] = (uint8_t)len;
	CHECK(recv_one(&r, b, n) == SHB_OK);
	d = shb_kit_done_find(&kh, 2);
	CHECK(d && d->res.outcome == SHB_REQ_PROTO_ERROR &&
	      strcmp(d->detail, "dns: a compression pointer that does not point back") == 0);
	CHECK(r.c.capacity == 2 && !(r.c.state & SHB_CS_CLOSED));
	CHECK(rig_close(&r) == 0);
}

static void test_conn_cancel_and_wait(void)
{
	static const char *const opts[] = {"wait", "100", NULL};
	struct rig r;
	const struct shb_kit_done *d;

	if (rig_open(&r, opts, 3)) {
		CHECK(0);
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 1) == SHB_OK);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 2) == SHB_OK);
	/* Cancelled before it was sent: never sent. */
	shb_kit_conn_cancel(&r.c, 2);
	CHECK(shb_kit_conn_flush_dgrams(&r.c) == 1);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 3) == SHB_OK);
	CHECK(shb_kit_conn_flush_dgrams(&r.c) == 1 && r.c.dgram_count == 2);
	/* Cancelled after: its late reply matches nothing. */
	shb_kit_conn_cancel(&r.c, 1);
	CHECK(answer(&r, 0, DNS_NOERROR, 0, 1) == SHB_OK && kh.done_count == 0);
	/* 3 is never answered: a timeout 100 ms after it was issued. */
	CHECK(r.c.deadline == 1 + 100000000ull);
	CHECK(shb_kit_conn_advance_to_deadline(&r.c) == 1);
	d = shb_kit_done_find(&kh, 3);
	CHECK(d && d->res.outcome == SHB_REQ_TIMEOUT &&
	      strcmp(d->detail, "dns: no reply within the wait") == 0);
	CHECK(kh.done_count == 1 && r.c.deadline == SHB_TSTAMP_NONE &&
	      r.c.capacity == 3);
	CHECK(rig_close(&r) == 0);
}

/* Names of different lengths in one train (write_dgrams_v): 9, 10, 11,
 * 12 and 100 are 23, 24, 24, 24 and 25 bytes; at most max_count of them
 * per call, the rest at the next. The connection's memory is sized by -p
 * (conn_size_for): the kit gives it exactly that, so a sanitizer would
 * see an overrun. */
static void test_conn_trains(void)
{
	static const char *const opts[] = {"name", "{seq}.lan", NULL};
	struct rig r;
	uint8_t buf[4096];
	uint16_t sizes[8];
	size_t count = 0;

	if (rig_open(&r, opts, 8)) {
		CHECK(0);
		return;
	}
	/* seq 0..3 is one digit; make 10 and 100 by issuing more. */
	((struct dns_worker *)r.m.worker)->next = 9;
	for (uint64_t k = 1; k <= 4; k++)
		CHECK(shb_kit_conn_issue(&r.c, NULL, k) == SHB_OK); /* 9,10,11,12 */
	((struct dns_worker *)r.m.worker)->next = 100;
	CHECK(shb_kit_conn_issue(&r.c, NULL, 5) == SHB_OK); /* 100 */
	CHECK(r.m.conn_size == sizeof(struct dns_conn) + 8 * sizeof(struct dns_slot) +
	      16 * sizeof(uint16_t));
	CHECK(shb_kit_conn_write_dgrams_v(&r.c, buf, sizeof buf, sizes, 3, &count) == 71 &&
	      count == 3 && sizes[0] == 23 && sizes[1] == 24 && sizes[2] == 24);
	CHECK(buf[12] == 1 && buf[13] == '9' && buf[23 + 12] == 2 &&
	      memcmp(buf + 23 + 13, "10", 2) == 0);
	CHECK(shb_kit_conn_write_dgrams_v(&r.c, buf, sizeof buf, sizes, 8, &count) == 49 &&
	      count == 2 && sizes[0] == 24 && sizes[1] == 25);
	CHECK(shb_kit_conn_write_dgrams_v(&r.c, buf, sizeof buf, sizes, 8, &count) == 0 &&
	      count == 0);
	CHECK(rig_close(&r) == 0);
}

static int create_error(const char *const *opts, uint32_t parallel,
			const char *path, const char *want)
{
	struct shb_kit_module m;
	int rc;

	memset(&m, 0, sizeof m);
	rc = module_open(&m, opts, parallel, path);
	if (rc == SHB_OK) {
		shb_kit_module_destroy(&m);
		return 0;
	}
	if (strcmp(m.err, want))
		fprintf(stderr, "create error: '%s'\n", m.err);
	return rc == SHB_E_INVAL && strcmp(m.err, want) == 0;
}

static void test_options(void)
{
	static const char *const unknown[] = {"qname", "x", NULL};
	static const char *const type[] = {"type", "AAAAA", NULL};
	static const char *const cls[] = {"class", "70000", NULL};
	static const char *const edns[] = {"edns", "100", NULL};
	static const char *const rd[] = {"rd", "2", NULL};

	CHECK(create_error(unknown, 1, NULL, "unknown option 'qname' (known: name, "
			   "type, class, edns, rd, range, wait)"));
	CHECK(create_error(type, 1, NULL, "type must be a type name (A, AAAA, MX, "
			   "TXT...) or a number up to 65535, not 'AAAAA'"));
	CHECK(create_error(cls, 1, NULL, "class must be IN, CH, HS, ANY or a number "
			   "up to 65535, not '70000'"));
	CHECK(create_error(edns, 1, NULL, "edns must be a number from 512 to 65535, "
			   "not '100'"));
	CHECK(create_error(rd, 1, NULL, "rd must be a number from 0 to 1, not '2'"));
	CHECK(create_error(NULL, 1025, NULL, "-p 1025: at most 1024 queries in "
			   "flight per socket (ids are 16 bits)"));
	CHECK(create_error(NULL, 1, "/x", "the URL's path must be empty (the query "
			   "is --proto-opt name=..., type=...), not '/x'"));
	CHECK(violations() == 0);
}

static void test_descriptor(void)
{
	const struct shb_outcome_space *s = desc->outcome_spaces;

	CHECK(desc->request_model == SHB_REQMODEL_NONE);
	CHECK(desc->transport == SHB_TRANSPORT_DGRAM);
	CHECK(s && s[0].space == DNS_SPACE && strcmp(s[0].name, "dns") == 0 &&
	      s[1].name == NULL);
	CHECK(s && strcmp(s[0].codes[3].name, "nxdomain") == 0 &&
	      strcmp(s[0].codes[11].name, "truncated") == 0 &&
	      s[0].codes[11].code == DNS_TRUNCATED && s[0].codes[11].ok == 0 &&
	      s[0].codes[0].ok == 1 && s[0].codes[13].name == NULL);
}

int main(void)
{
	test_encoder();
	test_encoder_refuses();
	test_reader();
	test_reader_pointers();
	if (kit_start() == 0) {
		test_descriptor();
		test_conn_out_of_order();
		test_conn_mismatch();
		test_conn_truncated_and_malformed();
		test_conn_cancel_and_wait();
		test_conn_trains();
		test_options();
		shb_kit_plugin_close(&plugin);
	} else {
		CHECK(0);
	}
	shb_kit_host_fini(&kh);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
