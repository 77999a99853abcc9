/* The Redis plugin's own tests. First plain C on its parts: the RESP2
 * reply reader fed a stream of every reply kind split at every offset
 * (and one byte at a time), and refusing each bound a peer could push
 * (bulk length, array count, nesting, line length, numbers); the command
 * encoder's exact bytes with {seq} and {rand}. Then connections through
 * the SDK's test kit (pkg-config shb-plugin-kit-1), which runs the plugin
 * as the core would: pipelined commands answered in order, the split
 * driver, a cancel whose reply arrives after, error replies and nil, AUTH
 * and SELECT first, a huge bulk string refused, and no host rule broken.
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/kit.h>

#include "../src/redis_conn.h"

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

/* ---- the reply reader ------------------------------------------------------ */

/* One of every kind: status, error, integer, bulk, empty bulk, nil bulk,
 * nil array, empty array, a nested array holding an error and a nil. */
static const char stream[] =
	"+OK\r\n"
	"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	":-42\r\n"
	"$5\r\nhe\r\nl\r\n"
	"$0\r\n\r\n"
	"$-1\r\n"
	"*-1\r\n"
	"*0\r\n"
	"*3\r\n*2\r\n:1\r\n-ERR inner\r\n$-1\r\n+x\r\n";

struct want {
	uint32_t kind;
	uint64_t bytes;
	int64_t integer;
	const char *word;
};

static const struct want stream_want[] = {
	{RESP_OK, 5, 0, ""},
	{RESP_ERROR, 68, 0, "WRONGTYPE"},
	{RESP_OK, 6, -42, ""},
	{RESP_OK, 11, 0, ""},
	{RESP_OK, 6, 0, ""},
	{RESP_NIL, 5, 0, ""},
	{RESP_NIL, 5, 0, ""},
	{RESP_OK, 4, 0, ""},
	{RESP_OK, 33, 0, ""},
};
#define STREAM_REPLIES (sizeof stream_want / sizeof stream_want[0])

/* Feeds data[len] in pieces ending at each cut (and the end); the
 * replies found into got[]. Their count, or -1 when malformed. */
static int parse_cut(const char *data, size_t len, const size_t *cuts,
		     size_t ncuts, struct resp_reply *got, size_t max,
		     uint64_t max_bulk, const char **why)
{
	struct resp_parser p;
	size_t at = 0, n = 0;

	resp_init(&p, max_bulk);
	for (size_t k = 0; k <= ncuts; k++) {
		size_t end = k < ncuts ? cuts[k] : len;

		while (at < end) {
			struct resp_reply r;
			int done;
			ptrdiff_t c = resp_parse(&p, (const uint8_t *)data + at,
						 end - at, &r, &done);

			if (c < 0) {
				*why = p.err;
				return -1;
			}
			at += (size_t)c;
			if (done && n < max)
				got[n++] = r;
		}
	}
	return (int)n;
}

static int same_replies(const struct resp_reply *got, int n)
{
	if (n != (int)STREAM_REPLIES)
		return 0;
	for (size_t i = 0; i < STREAM_REPLIES; i++) {
		const struct want *w = &stream_want[i];

		if (got[i].kind != w->kind || got[i].bytes != w->bytes ||
		    got[i].integer != w->integer || strcmp(got[i].word, w->word)) {
			fprintf(stderr, "reply %zu: kind %u bytes %llu int %lld word '%s'\n",
				i, got[i].kind, (unsigned long long)got[i].bytes,
				(long long)got[i].integer, got[i].word);
			return 0;
		}
	}
	return 1;
}

static void test_resp_every_split(void)
{
	size_t len = sizeof stream - 1, bad = 0, cuts[2];
	struct resp_reply got[16];
	const char *why = NULL;
	size_t *each = malloc(len * sizeof *each);

	CHECK(same_replies(got, parse_cut(stream, len, NULL, 0, got, 16,
					  RESP_BULK_DEFAULT, &why)));
	for (size_t i = 0; i <= len; i++) {
		cuts[0] = i;
		bad += !same_replies(got, parse_cut(stream, len, cuts, 1, got, 16,
						    RESP_BULK_DEFAULT, &why));
		for (size_t j = i; j <= len; j += 7) {
			cuts[1] = j;
			bad += !same_replies(got, parse_cut(stream, len, cuts, 2, got,
							    16, RESP_BULK_DEFAULT, &why));
		}
	}
	CHECK(bad == 0);
	for (size_t i = 0; each && i < len; i++)
		each[i] = i + 1;
	CHECK(each && same_replies(got, parse_cut(stream, len, each, len, got, 16,
						  RESP_BULK_DEFAULT, &why)));
	free(each);
}

/* Each input is malformed or over a bound: refused with `why`, split
 * anywhere. */
static void refused(const char *in, size_t len, uint64_t max_bulk,
		    const char *why)
{
	struct resp_reply got[4];
	const char *w = NULL;
	size_t bad = 0;

	for (size_t i = 0; i <= len; i++) {
		w = NULL;
		bad += parse_cut(in, len, &i, 1, got, 4, max_bulk, &w) != -1 ||
		       !w || strcmp(w, why) != 0;
	}
	if (bad)
		fprintf(stderr, "refused('%.20s'): got '%s', want '%s'\n", in,
			w ? w : "(accepted)", why);
	CHECK(bad == 0);
}

static void test_resp_bounds(void)
{
	char deep[80], *line;

	refused("$1048577\r\n", 10, RESP_BULK_DEFAULT, "a bulk string longer than max-bulk");
	refused("$11\r\n", 5, 10, "a bulk string longer than max-bulk");
	refused("*1048577\r\n", 10, RESP_BULK_DEFAULT, "an array of more than 1048576 elements");
	for (int i = 0; i < 17; i++)
		memcpy(deep + 4 * i, "*1\r\n", 4);
	refused(deep, 68, RESP_BULK_DEFAULT, "arrays nested more than 16 deep");
	refused(":12345678901234567890\r\n", 23, RESP_BULK_DEFAULT, "a malformed number in a reply");
	refused("$-2\r\n", 5, RESP_BULK_DEFAULT, "a negative length other than -1");
	refused(":\r\n", 3, RESP_BULK_DEFAULT, "a malformed number in a reply");
	refused(":1-\r\n", 5, RESP_BULK_DEFAULT, "a malformed number in a reply");
	refused("_\r\n", 3, RESP_BULK_DEFAULT, "a byte that starts no RESP2 reply");
	refused("+OK\n", 4, RESP_BULK_DEFAULT, "a line feed without a carriage return");
	refused("+OK\rx", 5, RESP_BULK_DEFAULT, "a carriage return without a line feed");
	refused("$2\r\nabc\r\n", 9, RESP_BULK_DEFAULT, "a bulk string longer than its length");
	line = malloc(RESP_LINE_MAX + 8);
	if (line) {
		struct resp_reply got[1];
		const char *w = NULL;

		line[0] = '-';
		memset(line + 1, 'e', RESP_LINE_MAX);
		memcpy(line + 1 + RESP_LINE_MAX, "\r\n", 2);
		/* 65536 bytes of line are fine, one more is not. */
		CHECK(parse_cut(line, RESP_LINE_MAX + 3, NULL, 0, got, 1,
				RESP_BULK_DEFAULT, &w) == 1);
		CHECK(got[0].kind == RESP_ERROR && strlen(got[0].word) == RESP_WORD_MAX - 1);
		line[RESP_LINE_MAX + 1] = 'e';
		CHECK(parse_cut(line, RESP_LINE_MAX + 2, NULL, 0, got, 1,
				RESP_BULK_DEFAULT, &w) == -1);
		CHECK(w && strcmp(w, "a status or error line longer than 65536 bytes") == 0);
		free(line);
	}
	/* 16 deep is fine; max-bulk bytes exactly are fine. */
	{
		struct resp_reply got[1];
		const char *w = NULL;
		char ok16[80];

		for (int i = 0; i < 16; i++)
			memcpy(ok16 + 4 * i, "*1\r\n", 4);
		memcpy(ok16 + 64, ":7\r\n", 4);
		CHECK(parse_cut(ok16, 68, NULL, 0, got, 1, RESP_BULK_DEFAULT, &w) == 1);
		CHECK(parse_cut("$10\r\n0123456789\r\n", 17, NULL, 0, got, 1, 10, &w) == 1);
		CHECK(got[0].kind == RESP_OK && got[0].bytes == 17);
	}
}

/* ---- the command encoder --------------------------------------------------- */

static int encoded(const char *command, const char *key, const char *value,
		   uint64_t seq, uint64_t rnd, const char *want)
{
	struct redis_cmd c;
	struct redis_buf b = {0};
	char err[128];
	int ok;

	if (redis_cmd_build(&c, command, key, value, err, sizeof err)) {
		fprintf(stderr, "build: %s\n", err);
		return 0;
	}
	ok = redis_cmd_encode(&c, &b, seq, rnd) == 0 && b.len == strlen(want) &&
	     memcmp(b.p, want, b.len) == 0 && b.len <= c.max_len;
	if (!ok)
		fprintf(stderr, "encoded: '%.*s'\n", (int)b.len, (const char *)b.p);
	redis_buf_free(&b);
	redis_cmd_free(&c);
	return ok;
}

static int build_error(const char *command, const char *key, const char *value,
		       const char *want)
{
	struct redis_cmd c;
	char err[128] = "";

	if (redis_cmd_build(&c, command, key, value, err, sizeof err) == 0) {
		redis_cmd_free(&c);
		return 0;
	}
	if (strcmp(err, want))
		fprintf(stderr, "build error: '%s'\n", err);
	return strcmp(err, want) == 0;
}

static void test_encoder(void)
{
	char *big = calloc(1, REDIS_VALUE_MAX + 2);

	CHECK(encoded("PING", NULL, NULL, 0, 0, "*1\r\n$4\r\nPING\r\n"));
	CHECK(encoded("SET", "k", "v", 5, 6, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"));
	CHECK(encoded(" CLIENT  INFO ", NULL, NULL, 0, 0,
		      "*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n"));
	CHECK(encoded("SET", "key:{seq}", "{rand}-{rand}", 42, 1234567,
		      "*3\r\n$3\r\nSET\r\n$6\r\nkey:42\r\n$15\r\n1234567-1234567\r\n"));
	CHECK(encoded("GET", "{seq}{se", NULL, 18446744073709551615ull, 0,
		      "*2\r\n$3\r\nGET\r\n$23\r\n18446744073709551615{se\r\n"));
	CHECK(encoded("GET", "", NULL, 0, 0, "*2\r\n$3\r\nGET\r\n$0\r\n\r\n"));
	CHECK(build_error("", NULL, NULL, "command must name a Redis command, e.g. command=GET"));
	CHECK(build_error("A B C D E F G H I J K L M N O P Q", NULL, NULL,
			  "command has more than 16 words"));
	CHECK(build_error("GET", "{seq}{seq}{seq}{seq}{seq}{rand}{rand}{rand}{rand}",
			  NULL, "key has more than 8 {seq} and {rand}"));
	if (big) {
		memset(big, 'v', REDIS_VALUE_MAX + 1);
		CHECK(build_error("SET", "k", big, "value is longer than 65536 bytes"));
		free(big);
	}
}

/* ---- connections through the kit ------------------------------------------ */

static struct shb_kit_host kh;
static struct shb_kit_plugin plugin;
static const struct shb_proto_desc *desc;

static int kit_start(void)
{
	char err[256] = "";

	if (shb_kit_host_init(&kh, SHB_ABI_MINOR) ||
	    shb_kit_plugin_use(&plugin, &shb_plugin_entry_v1, err, sizeof err) ||
	    shb_kit_plugin_init(&plugin, &kh) != SHB_OK) {
		fprintf(stderr, "test_redis: the kit cannot run the plugin: %s\n", err);
		return -1;
	}
	desc = shb_kit_plugin_proto(&plugin, "redis");
	return desc ? 0 : -1;
}

static size_t violations(void)
{
	size_t n = shb_kit_host_dump_violations(&kh, "kit: ");

	shb_kit_host_reset(&kh);
	return n;
}

/* redis://127.0.0.1:6379`path` with options (key=value pairs, NULL
 * ended), up to `parallel` in flight. The module's create or prepare
 * code; on failure m->err has its line. */
static int module_open(struct shb_kit_module *m, const char *const *opts,
		       uint32_t parallel, const char *path)
{
	struct shb_kv kv[8];
	size_t n = 0;
	struct shb_run_config cfg;
	struct shb_request req = {
		.struct_size = sizeof req,
		.method = "",
		.scheme = "redis",
		.authority = "127.0.0.1:6379",
		.path = path ? path : "/",
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
	cfg.authority = "127.0.0.1:6379";
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

struct rig {
	struct shb_kit_module m;
	struct shb_kit_conn c;
};

static int rig_open(struct rig *r, const char *const *opts, uint32_t parallel,
		    const char *path)
{
	memset(r, 0, sizeof *r);
	shb_kit_clock_set(&kh.clock, 1);
	if (module_open(&r->m, opts, parallel, path) != SHB_OK)
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

static const struct shb_kit_done *result(uint64_t cookie)
{
	return shb_kit_done_find(&kh, cookie);
}

static int is_reply(const struct shb_kit_done *d, uint32_t code, uint32_t ok,
		    uint64_t bytes, const char *detail)
{
	return d && d->res.outcome == SHB_REQ_OK && d->res.status == 0 &&
	       d->res.app_space == REDIS_SPACE && d->res.app_code == code &&
	       d->res.app_ok == ok && d->res.rx_body_bytes == bytes &&
	       d->res.rx_header_bytes == 0 &&
	       strcmp(d->detail, detail ? detail : "") == 0 &&
	       d->has_detail == (detail != NULL);
}

static const char incr[] = "*2\r\n$4\r\nINCR\r\n$3\r\nctr\r\n";
/* Four replies: two integers, an error, a nil. */
static const char four[] = ":1\r\n:2\r\n-ERR not an integer\r\n$-1\r\n";

static void test_conn_pipelined(void)
{
	static const char *const opts[] = {"command", "INCR", "key", "ctr", NULL};
	struct rig r;

	if (rig_open(&r, opts, 4, NULL)) {
		CHECK(0);
		return;
	}
	CHECK(r.c.capacity == 4 && r.c.state == 0);
	for (uint64_t k = 1; k <= 4; k++)
		CHECK(shb_kit_conn_issue(&r.c, NULL, k) == SHB_OK);
	CHECK(r.c.capacity == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 5) == SHB_E_BUSY);
	CHECK(r.c.state == SHB_CS_WANT_WRITE);
	/* Sent 3 bytes at a time: four commands back to back. */
	CHECK(shb_kit_conn_flush(&r.c, 3) == 4 * (sizeof incr - 1));
	CHECK(r.c.out_len == 4 * (sizeof incr - 1));
	for (size_t i = 0; i < 4 && r.c.out_len == 4 * (sizeof incr - 1); i++)
		CHECK(memcmp(r.c.out + i * (sizeof incr - 1), incr, sizeof incr - 1) == 0);
	shb_kit_clock_set(&kh.clock, 5);
	CHECK(shb_kit_conn_recv(&r.c, four, 6) == 6);
	shb_kit_clock_set(&kh.clock, 9);
	CHECK(shb_kit_conn_recv(&r.c, four + 6, sizeof four - 1 - 6) ==
	      (shb_ssize)(sizeof four - 7));
	CHECK(kh.done_count == 4);
	CHECK(is_reply(result(1), RESP_OK, 1, 4, NULL));
	CHECK(is_reply(result(2), RESP_OK, 1, 4, NULL));
	CHECK(is_reply(result(3), RESP_ERROR, 0, 21, "ERR"));
	CHECK(is_reply(result(4), RESP_NIL, 1, 5, NULL));
	/* The first reply began at 5; the second's first byte too (the
	 * same read), the third's at 9. */
	CHECK(result(1) && result(1)->res.ts_first_byte == 5);
	CHECK(result(2) && result(2)->res.ts_first_byte == 5);
	CHECK(result(3) && result(3)->res.ts_first_byte == 9);
	CHECK(r.c.capacity == 4 && r.c.state == 0);
	/* The pipeline's depth as each command went: 1, 2, 3, 4. */
	const struct shb_kit_metric *d = shb_kit_metric(&kh, "redis_pipeline_depth");
	CHECK(d && d->kind == SHB_METRIC_VALUE && d->count == 4 && d->sum == 10 &&
	      d->min == 1 && d->max == 4);
	/* A reply nobody asked for. */
	CHECK(shb_kit_conn_recv(&r.c, "+OK\r\n", 5) == SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c), "redis: a reply nothing asked for") == 0);
	CHECK(rig_close(&r) == 0);
}

/* The split driver: four INCRs in flight, their replies cut everywhere. */
static int four_issued(struct shb_kit_conn *c, void *user)
{
	(void)user;
	for (uint64_t k = 1; k <= 4; k++)
		if (shb_kit_conn_issue(c, NULL, k) != SHB_OK)
			return -1;
	shb_kit_conn_flush(c, 0);
	return 0;
}

static void test_conn_split_driver(void)
{
	static const char *const opts[] = {"command", "INCR", "key", "ctr", NULL};
	struct shb_kit_module m;
	struct shb_kit_split s = {0};

	memset(&m, 0, sizeof m);
	if (module_open(&m, opts, 4, NULL) != SHB_OK) {
		CHECK(0);
		return;
	}
	s.m = &m;
	s.setup = four_issued;
	CHECK(shb_kit_split_check(&s, four, sizeof four - 1) == 0);
	if (s.mismatch[0])
		fprintf(stderr, "split: %s\n", s.mismatch);
	CHECK(s.ref.result_count == 4 && s.ref.rc == SHB_OK && s.ref.outstanding == 0);
	CHECK(s.ref.result_count == 4 && s.ref.results[2].res.app_code == RESP_ERROR &&
	      strcmp(s.ref.results[2].detail, "ERR") == 0);
	shb_kit_split_fini(&s);
	/* With the server closing after two replies: two results, then
	 * the end is an error with two replies to come. */
	memset(&s, 0, sizeof s);
	s.m = &m;
	s.setup = four_issued;
	s.eof = 1;
	CHECK(shb_kit_split_check(&s, four, 8) == 0);
	CHECK(s.ref.result_count == 2 && s.ref.rc == SHB_E_CLOSED &&
	      s.ref.outstanding == 2);
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);
	CHECK(violations() == 0);
}

/* A cancelled request keeps its place: its reply, arriving after, is
 * dropped and the next reply goes to the next request. */
static void test_conn_cancel(void)
{
	static const char *const opts[] = {"command", "GET", "key", "k", NULL};
	struct rig r;

	if (rig_open(&r, opts, 3, NULL)) {
		CHECK(0);
		return;
	}
	for (uint64_t k = 1; k <= 3; k++)
		CHECK(shb_kit_conn_issue(&r.c, NULL, k) == SHB_OK);
	shb_kit_conn_flush(&r.c, 0);
	shb_kit_conn_cancel(&r.c, 2);
	shb_kit_conn_cancel(&r.c, 1);
	CHECK(r.c.capacity == 0); /* still three replies to come */
	CHECK(shb_kit_conn_recv(&r.c, "$1\r\na\r\n$1\r\nb\r\n", 14) == 14);
	CHECK(kh.done_count == 0 && r.c.capacity == 2);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 4) == SHB_OK);
	CHECK(shb_kit_conn_recv(&r.c, "$2\r\ncc\r\n$-1\r\n", 13) == 13);
	CHECK(kh.done_count == 2);
	CHECK(is_reply(result(3), RESP_OK, 1, 8, NULL));
	CHECK(is_reply(result(4), RESP_NIL, 1, 5, NULL));
	CHECK(result(1) == NULL && result(2) == NULL);
	/* Cancelled, never answered: nothing is reported at the end. */
	CHECK(shb_kit_conn_issue(&r.c, NULL, 5) == SHB_OK);
	shb_kit_conn_cancel(&r.c, 5);
	/* A cancelled command stays in the pipeline until its reply: the
	 * depths were 1, 2, 3, then 2 (4 after two replies), then 1 (5). */
	const struct shb_kit_metric *d = shb_kit_metric(&kh, "redis_pipeline_depth");
	CHECK(d && d->count == 5 && d->sum == 9 && d->min == 1 && d->max == 3);
	CHECK(rig_close(&r) == 0);
}

static void test_conn_huge_bulk(void)
{
	static const char *const small[] = {"command", "GET", "key", "k",
					    "max-bulk", "10", NULL};
	struct rig r;

	if (rig_open(&r, NULL, 1, NULL)) {
		CHECK(0);
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 1) == SHB_OK);
	CHECK(shb_kit_conn_recv(&r.c, "$1048577\r\n", 10) == SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "redis: a bulk string longer than max-bulk") == 0);
	CHECK(kh.done_count == 0);
	CHECK(rig_close(&r) == 0);
	if (rig_open(&r, small, 2, NULL)) {
		CHECK(0);
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 1) == SHB_OK);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 2) == SHB_OK);
	CHECK(shb_kit_conn_recv(&r.c, "$10\r\n0123456789\r\n$11\r\n", 22) == SHB_E_PROTO);
	CHECK(kh.done_count == 1 && is_reply(result(1), RESP_OK, 1, 17, NULL));
	CHECK(rig_close(&r) == 0);
}

static const char hello[] = "*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n"
			    "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n";

static void test_conn_hello(void)
{
	static const char *const opts[] = {"auth", "secret", "database", "3", NULL};
	static const char *const user[] = {"auth", "pw", "user", "bob", NULL};
	struct rig r;

	if (rig_open(&r, opts, 2, NULL)) {
		CHECK(0);
		return;
	}
	CHECK(r.c.capacity == 0 && r.c.state == SHB_CS_WANT_WRITE);
	CHECK(shb_kit_conn_flush(&r.c, 0) == sizeof hello - 1);
	CHECK(r.c.out_len == sizeof hello - 1 && memcmp(r.c.out, hello, sizeof hello - 1) == 0);
	CHECK(shb_kit_conn_recv(&r.c, "+OK\r\n+O", 7) == 7);
	CHECK(r.c.capacity == 0);
	CHECK(shb_kit_conn_recv(&r.c, "K\r\n", 3) == 3);
	CHECK(r.c.capacity == 2 && kh.done_count == 0);
	CHECK(rig_close(&r) == 0);
	/* A refused AUTH ends the connection, naming the command and the
	 * error's first word, never the password. */
	if (rig_open(&r, opts, 2, "/3")) {
		CHECK(0);
		return;
	}
	shb_kit_conn_flush(&r.c, 0);
	CHECK(shb_kit_conn_recv(&r.c, "-WRONGPASS invalid username-password pair\r\n", 43) ==
	      SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c), "redis: AUTH refused: WRONGPASS") == 0);
	CHECK(rig_close(&r) == 0);
	/* SELECT from the URL's path; AUTH with an ACL user. */
	if (rig_open(&r, user, 1, "/12")) {
		CHECK(0);
		return;
	}
	shb_kit_conn_flush(&r.c, 0);
	{
		static const char want[] = "*3\r\n$4\r\nAUTH\r\n$3\r\nbob\r\n$2\r\npw\r\n"
					   "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n";

		CHECK(r.c.out_len == sizeof want - 1 && memcmp(r.c.out, want, sizeof want - 1) == 0);
	}
	CHECK(shb_kit_conn_recv(&r.c, "+OK\r\n-ERR DB index is out of range\r\n", 36) ==
	      SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c), "redis: SELECT refused: ERR") == 0);
	CHECK(rig_close(&r) == 0);
}

/* {seq}: worker 1 of 2 numbers its requests 1, 3, 5. */
static void test_conn_seq(void)
{
	static const char *const opts[] = {"command", "SET", "key", "k{seq}",
					   "value", "{rand}", "range", "1", NULL};
	static const char want[] = "*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$1\r\n0\r\n"
				   "*3\r\n$3\r\nSET\r\n$2\r\nk3\r\n$1\r\n0\r\n"
				   "*3\r\n$3\r\nSET\r\n$2\r\nk5\r\n$1\r\n0\r\n";
	struct shb_kv kv[4];
	struct shb_run_config cfg;
	struct rig r;

	memset(&r, 0, sizeof r);
	for (int i = 0; i < 4; i++)
		kv[i] = (struct shb_kv){opts[2 * i], opts[2 * i + 1]};
	shb_kit_run_config_default(&cfg, desc);
	cfg.threads = 2;
	cfg.parallel = 3;
	cfg.options = kv;
	cfg.option_count = 4;
	if (shb_kit_module_create(&r.m, &kh, desc, &cfg) != SHB_OK ||
	    (r.m.worker_index = 1, shb_kit_module_prepare(&r.m, NULL)) != SHB_OK ||
	    shb_kit_module_worker_init(&r.m) != SHB_OK ||
	    shb_kit_conn_init(&r.c, &r.m) != SHB_OK ||
	    shb_kit_conn_ready(&r.c, NULL) != SHB_OK) {
		CHECK(0);
		rig_close(&r);
		return;
	}
	for (uint64_t k = 1; k <= 3; k++)
		CHECK(shb_kit_conn_issue(&r.c, NULL, k) == SHB_OK);
	shb_kit_conn_flush(&r.c, 0);
	CHECK(r.c.out_len == sizeof want - 1 && memcmp(r.c.out, want, sizeof want - 1) == 0);
	CHECK(shb_kit_conn_recv(&r.c, "+OK\r\n+OK\r\n+OK\r\n", 15) == 15);
	CHECK(kh.done_count == 3);
	CHECK(shb_kit_conn_recv_eof(&r.c) == SHB_OK && (r.c.state & SHB_CS_CLOSED));
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
	static const char *const unknown[] = {"frame", "1", NULL};
	static const char *const db[] = {"database", "x", NULL};
	static const char *const user[] = {"user", "bob", NULL};
	static const char *const range[] = {"range", "0", NULL};
	static const char *const auth[] = {"auth", "", NULL};
	static const char *const both[] = {"database", "2", NULL};

	CHECK(create_error(unknown, 1, NULL, "unknown option 'frame' (known: command, key, "
			   "value, database, auth, user, range, max-bulk)"));
	CHECK(create_error(db, 1, NULL, "database must be a number (0 to 2147483647), not 'x'"));
	CHECK(create_error(user, 1, NULL, "user needs auth (the password)"));
	CHECK(create_error(range, 1, NULL, "range must be a number (1 to 4294967295), not '0'"));
	CHECK(create_error(auth, 1, NULL, "auth must be 1 to 1024 bytes"));
	CHECK(create_error(NULL, 1025, NULL, "-p 1025: at most 1024 replies awaited per connection"));
	CHECK(create_error(NULL, 1, "/x", "the URL's path must be empty or /DATABASE "
			   "(a number), not '/x'"));
	CHECK(create_error(both, 1, "/3", "database=2 and the URL's /3 disagree"));
	CHECK(violations() == 0);
}

static void test_descriptor(void)
{
	const struct shb_outcome_space *s = desc->outcome_spaces;

	CHECK(desc->request_model == SHB_REQMODEL_NONE);
	CHECK((desc->flags & (SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED)) ==
	      (SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED));
	CHECK(strcmp(desc->scheme_defs[1].name, "rediss") == 0 &&
	      desc->scheme_defs[1].flags == SHB_SCHEME_TLS);
	CHECK(s && s[0].space == REDIS_SPACE && strcmp(s[0].name, "redis") == 0 &&
	      s[1].name == NULL);
	CHECK(s && strcmp(s[0].codes[RESP_OK].name, "ok") == 0 &&
	      strcmp(s[0].codes[RESP_NIL].name, "nil") == 0 &&
	      strcmp(s[0].codes[RESP_ERROR].name, "error") == 0 &&
	      s[0].codes[RESP_ERROR].ok == 0 && s[0].codes[3].name == NULL);
	CHECK(desc->metric_count == 1 && desc->metrics &&
	      desc->metrics[0].kind == SHB_METRIC_VALUE &&
	      strcmp(desc->metrics[0].name, "redis_pipeline_depth") == 0);
}

int main(void)
{
	test_resp_every_split();
	test_resp_bounds();
	test_encoder();
	if (kit_start() == 0) {
		test_descriptor();
		test_conn_pipelined();
		test_conn_split_driver();
		test_conn_cancel();
		test_conn_huge_bulk();
		test_conn_hello();
		test_conn_seq();
		test_options();
		shb_kit_plugin_close(&plugin);
	} else {
		CHECK(0);
	}
	shb_kit_host_fini(&kh);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
