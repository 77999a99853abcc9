/* HPACK: prefixed integers (RFC 7541 C.1), the static table (Appendix A),
 * the C.2-C.6 header block examples decoded field by field, and the
 * request encoder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "http_fields.h"
#include "h2_hpack.h"
#include "h2_request.h"
#include "h2_tests.h"
#include "http_prefint.h"

static struct shb_h2_vec_appendix_c appc;
static struct shb_h2_vec_static statics[62];

static void load(void)
{
	static int loaded;

	if (loaded)
		return;
	shb_h2_vec_appendix_c(&appc);
	shb_h2_vec_static_table(statics);
	loaded = 1;
}

/* ---- integers ------------------------------------------------------------ */

/* Decodes in[n] one octet per call, as a split input would. */
static int decode_bytewise(const uint8_t *in, size_t n, unsigned prefix,
			   uint64_t *v)
{
	struct shb_prefint p;
	int rc = shb_prefint_begin(&p, in[0], prefix);
	size_t i = 1;

	while (rc == SHB_PREFINT_MORE && i < n)
		rc = shb_prefint_next(&p, in[i++]);
	if (rc == SHB_PREFINT_DONE && i == n)
		*v = p.value;
	return i == n ? rc : -99;
}

static void test_c1_integers(void)
{
	load();
	for (size_t k = 0; k < appc.nints; k++) {
		const struct shb_h2_vec_int *t = &appc.ints[k];
		uint8_t out[16];
		uint64_t v = 0;
		size_t used = 0;

		CU_ASSERT_EQUAL(shb_prefint_len(t->value, t->prefix), t->len);
		CU_ASSERT_EQUAL(shb_prefint_encode(out, sizeof(out), t->prefix, 0,
						   t->value),
				t->len);
		CU_ASSERT_EQUAL(memcmp(out, t->bytes, t->len), 0);
		CU_ASSERT_EQUAL(shb_prefint_decode(t->bytes, t->len, t->prefix, &v,
						   &used),
				SHB_PREFINT_DONE);
		CU_ASSERT_EQUAL(v, t->value);
		CU_ASSERT_EQUAL(used, t->len);
		/* Every truncation asks for more. */
		for (size_t cut = 0; cut < t->len; cut++)
			CU_ASSERT_EQUAL(shb_prefint_decode(t->bytes, cut, t->prefix,
							   &v, &used),
					SHB_PREFINT_MORE);
		v = 0;
		CU_ASSERT_EQUAL(decode_bytewise(t->bytes, t->len, t->prefix, &v),
				SHB_PREFINT_DONE);
		CU_ASSERT_EQUAL(v, t->value);
		/* Flag bits above the prefix are kept and ignored. */
		shb_prefint_encode(out, sizeof(out), t->prefix, 0xff, t->value);
		if (t->prefix < 8)
			CU_ASSERT_EQUAL(out[0] >> t->prefix,
					0xff >> t->prefix);
		CU_ASSERT_EQUAL(shb_prefint_decode(out, t->len, t->prefix, &v,
						   &used),
				SHB_PREFINT_DONE);
		CU_ASSERT_EQUAL(v, t->value);
	}
}

static void test_integer_round_trip_and_limits(void)
{
	static const uint64_t values[] = {
		0, 1, 14, 15, 16, 30, 31, 32, 126, 127, 128, 254, 255, 256,
		16383, 16384, 1u << 21, UINT32_MAX, SHB_PREFINT_MAX,
	};
	uint8_t out[16];
	uint64_t v;
	size_t used;

	for (unsigned prefix = 1; prefix <= 8; prefix++)
		for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
			size_t n = shb_prefint_encode(out, sizeof(out), prefix,
						      0, values[i]);

			CU_ASSERT(n > 0);
			CU_ASSERT_EQUAL(n, shb_prefint_len(values[i], prefix));
			CU_ASSERT_EQUAL(shb_prefint_decode(out, n, prefix, &v,
							   &used),
					SHB_PREFINT_DONE);
			CU_ASSERT_EQUAL(v, values[i]);
			CU_ASSERT_EQUAL(used, n);
			/* No room: nothing written. */
			CU_ASSERT_EQUAL(shb_prefint_encode(out, n - 1, prefix,
							   0, values[i]),
					0);
		}
	CU_ASSERT_EQUAL(shb_prefint_encode(out, sizeof(out), 5, 0,
					   SHB_PREFINT_MAX + 1),
			0);
	/* 2^62 and above, and endless continuation octets, are refused. */
	{
		uint8_t big[12];
		size_t n = shb_prefint_encode(big, sizeof(big), 5, 0,
					      SHB_PREFINT_MAX);

		big[n - 1]++; /* MAX + 2^k: out of range */
		CU_ASSERT_EQUAL(shb_prefint_decode(big, n, 5, &v, &used),
				SHB_PREFINT_E_RANGE);
	}
	{
		uint8_t zeros[16];

		memset(zeros, 0x80, sizeof(zeros));
		zeros[0] = 0x1f;
		CU_ASSERT_EQUAL(shb_prefint_decode(zeros, sizeof(zeros), 5, &v,
						   &used),
				SHB_PREFINT_E_RANGE);
	}
}

/* ---- static table --------------------------------------------------------- */

static void test_static_table(void)
{
	load();
	for (unsigned i = 1; i <= 61; i++) {
		const struct shb_hpack_static_entry *e = shb_hpack_static_get(i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_STRING_EQUAL(e->name, statics[i].name);
		CU_ASSERT_STRING_EQUAL(e->value, statics[i].value);
		CU_ASSERT_EQUAL(shb_hpack_static_status(i),
				strcmp(statics[i].name, ":status") == 0
					? atoi(statics[i].value)
					: 0);
	}
	CU_ASSERT_PTR_NULL(shb_hpack_static_get(0));
	CU_ASSERT_PTR_NULL(shb_hpack_static_get(62));
	CU_ASSERT_STRING_EQUAL(statics[SHB_HPACK_IDX_AUTHORITY].name, ":authority");
	CU_ASSERT_STRING_EQUAL(statics[SHB_HPACK_IDX_METHOD_GET].value, "GET");
	CU_ASSERT_STRING_EQUAL(statics[SHB_HPACK_IDX_CONTENT_LENGTH].name,
			       "content-length");
	CU_ASSERT_STRING_EQUAL(statics[SHB_HPACK_IDX_STATUS_200].value, "200");
	CU_ASSERT_STRING_EQUAL(statics[SHB_HPACK_IDX_STATUS_500].value, "500");
}

/* ---- Appendix C --------------------------------------------------------------- */

/* The representation of every field of every example, from the RFC's
 * decoding notes: I indexed, L with incremental indexing, N without
 * indexing, V never indexed. */
static const struct {
	const char *id, *reps;
} expected_reps[] = {
	{"C.2.1", "L"},     {"C.2.2", "N"},     {"C.2.3", "V"},
	{"C.2.4", "I"},     {"C.3.1", "IIIL"},  {"C.3.2", "IIIIL"},
	{"C.3.3", "IIIIL"}, {"C.4.1", "IIIL"},  {"C.4.2", "IIIIL"},
	{"C.4.3", "IIIIL"}, {"C.5.1", "LLLL"},  {"C.5.2", "LIII"},
	{"C.5.3", "IILILL"}, {"C.6.1", "LLLL"}, {"C.6.2", "LIII"},
	{"C.6.3", "IILILL"},
};

static const char *reps_of(const char *id)
{
	for (size_t i = 0; i < sizeof(expected_reps) / sizeof(expected_reps[0]); i++)
		if (strcmp(expected_reps[i].id, id) == 0)
			return expected_reps[i].reps;
	return NULL;
}

static void check_case(struct shb_h2_tdec *d, const struct shb_h2_vec_case *c)
{
	struct shb_h2_tdec_field f[SHB_H2_VEC_MAX_FIELDS];
	const char *reps = reps_of(c->id);
	long n = shb_h2_tdec_decode(d, c->block, c->block_len, f,
				    SHB_H2_VEC_MAX_FIELDS);

	CU_ASSERT_PTR_NOT_NULL_FATAL(reps);
	CU_ASSERT_EQUAL_FATAL(n, (long)c->nfields);
	CU_ASSERT_EQUAL(strlen(reps), c->nfields);
	for (size_t i = 0; i < c->nfields; i++) {
		CU_ASSERT_EQUAL(f[i].rep, reps[i]);
		CU_ASSERT_EQUAL(f[i].name_len, strlen(c->fields[i].name));
		CU_ASSERT_EQUAL(f[i].value_len, strlen(c->fields[i].value));
		CU_ASSERT_STRING_EQUAL(f[i].name, c->fields[i].name);
		CU_ASSERT_STRING_EQUAL(f[i].value, c->fields[i].value);
		if (f[i].rep == SHB_H2_REP_INDEXED)
			continue;
		/* Every literal string is Huffman-coded exactly when the
		 * example says so. */
		CU_ASSERT_EQUAL(f[i].value_huffman, c->huffman);
		if (f[i].name_index == 0)
			CU_ASSERT_EQUAL(f[i].name_huffman, c->huffman);
		if (!c->huffman)
			CU_ASSERT_EQUAL(f[i].value_wire, f[i].value_len);
	}
	CU_ASSERT_EQUAL(d->n, c->ndyn);
	CU_ASSERT_EQUAL(d->size, c->table_size);
	for (size_t i = 0; i < c->ndyn && i < d->n; i++) {
		CU_ASSERT_STRING_EQUAL(d->entries[i].name, c->dyn[i].name);
		CU_ASSERT_STRING_EQUAL(d->entries[i].value, c->dyn[i].value);
		CU_ASSERT_EQUAL(strlen(c->dyn[i].name) + strlen(c->dyn[i].value) + 32,
				c->dyn_size[i]);
	}
}

static void test_appendix_c_sequences(void)
{
	struct shb_h2_tdec d;
	const char *ctx = "";
	size_t checked = 0;

	load();

	for (size_t i = 0; i < appc.ncases; i++) {
		const struct shb_h2_vec_case *c = &appc.cases[i];

		if (strcmp(c->context, ctx) != 0) {
			shb_h2_tdec_init(&d, c->max_table, statics);
			ctx = c->context;
		}
		check_case(&d, c);
		checked++;
	}
	CU_ASSERT_EQUAL(checked, 16);
}

/* ---- request encoder ----------------------------------------------------------- */

static struct shb_h2_request *encode(const struct shb_request *req)
{
	struct shb_h2_request *r = NULL;
	char err[128] = "";

	CU_ASSERT_EQUAL_FATAL(shb_h2_request_encode(req, &r, err, sizeof(err)),
			      SHB_OK);
	return r;
}

static void test_request_get_bytes(void)
{
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "http",
		.authority = "example.com",
		.path = "/",
	};
	static const uint8_t want[] = {
		0x82, 0x86, 0x01, 0x0b, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		'.',  'c',  'o',  'm',  0x84,
	};
	struct shb_h2_request *r = encode(&req);

	CU_ASSERT_EQUAL(r->block_len, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(r->block, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(r->has_body, 0);
	CU_ASSERT_PTR_NULL(r->body);
	shb_h2_request_free(r);

	req.scheme = "https";
	req.path = "/index.html";
	req.method = "POST";
	r = encode(&req);
	CU_ASSERT_EQUAL(r->block[0], 0x83);
	CU_ASSERT_EQUAL(r->block[1], 0x87);
	CU_ASSERT_EQUAL(r->block[r->block_len - 1], 0x85);
	shb_h2_request_free(r);
}

static void test_request_fields(void)
{
	static const struct shb_kv hdrs[] = {
		{"User-Agent", "shb-test"},
		{"X-Custom-Name", "Mixed Case Value"},
		{"Host", "other"},
		{"te", "trailers"},
		{"Content-Length", "99"},
		{"Accept-Encoding", "gzip, deflate"},
		{"accept", ""},
	};
	static const uint8_t body[] = "a=1&b=2";
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = SHB_REQUEST_HAS_BODY,
		.method = "PUT",
		.scheme = "https",
		.authority = "h.example:8443",
		.path = "/a/b?c=d",
		.headers = hdrs,
		.header_count = sizeof(hdrs) / sizeof(hdrs[0]),
		.body = body,
		.body_len = 7,
	};
	static const struct {
		const char *name, *value;
		int rep;
		uint64_t name_index;
	} want[] = {
		{":method", "PUT", 'N', 2},
		{":scheme", "https", 'I', 7},
		{":authority", "h.example:8443", 'N', 1},
		{":path", "/a/b?c=d", 'N', 4},
		{"user-agent", "shb-test", 'N', 58},
		{"x-custom-name", "Mixed Case Value", 'N', 0},
		{"te", "trailers", 'N', 0},
		{"accept-encoding", "gzip, deflate", 'I', 16},
		{"accept", "", 'N', 19},
		{"content-length", "7", 'N', 28},
	};
	struct shb_h2_request *r = encode(&req);
	struct shb_h2_tdec d;
	struct shb_h2_tdec_field f[16];
	long n;

	load();

	shb_h2_tdec_init(&d, 4096, statics);
	n = shb_h2_tdec_decode(&d, r->block, r->block_len, f, 16);
	CU_ASSERT_EQUAL_FATAL(n, (long)(sizeof(want) / sizeof(want[0])));
	for (long i = 0; i < n; i++) {
		CU_ASSERT_STRING_EQUAL(f[i].name, want[i].name);
		CU_ASSERT_STRING_EQUAL(f[i].value, want[i].value);
		CU_ASSERT_EQUAL(f[i].rep, want[i].rep);
		CU_ASSERT_EQUAL(f[i].name_index, want[i].name_index);
		CU_ASSERT_EQUAL(f[i].name_huffman, 0);
		CU_ASSERT_EQUAL(f[i].value_huffman, 0);
	}
	/* Nothing went into the peer's dynamic table. */
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL(r->has_body, 1);
	CU_ASSERT_EQUAL(r->body_len, 7);
	CU_ASSERT_EQUAL(memcmp(r->body, body, 7), 0);
	CU_ASSERT_PTR_NOT_EQUAL(r->body, body); /* a copy */
	shb_h2_request_free(r);

	/* An empty body still says content-length: 0. */
	req.body_len = 0;
	req.header_count = 0;
	r = encode(&req);
	shb_h2_tdec_init(&d, 4096, statics);
	n = shb_h2_tdec_decode(&d, r->block, r->block_len, f, 16);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	CU_ASSERT_STRING_EQUAL(f[4].name, "content-length");
	CU_ASSERT_STRING_EQUAL(f[4].value, "0");
	CU_ASSERT_EQUAL(r->body_len, 0);
	shb_h2_request_free(r);
}

static void test_request_long_values(void)
{
	static char big[20000];
	struct shb_kv hdr = {"x-big", big};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "http",
		.authority = "h",
		.path = "/",
		.headers = &hdr,
		.header_count = 1,
	};
	struct shb_h2_request *r;
	struct shb_h2_tdec d;
	static struct shb_h2_tdec_field f[8];
	uint64_t len;
	size_t used;

	load();

	memset(big, 'v', sizeof(big) - 1);
	r = encode(&req);
	/* :method, :scheme, :authority (3), :path, then 0x00, the name
	 * (1 + 5) and the value. */
	CU_ASSERT_EQUAL(r->block_len, 13 + shb_prefint_len(19999, 7) + 19999);
	CU_ASSERT_EQUAL(shb_prefint_decode(r->block + 13, 4, 7, &len, &used),
			SHB_PREFINT_DONE);
	CU_ASSERT_EQUAL(used, 4);
	CU_ASSERT_EQUAL(len, 19999);
	shb_h2_tdec_init(&d, 4096, statics);
	/* The test decoder keeps only short values: check the structure. */
	CU_ASSERT_EQUAL(shb_h2_tdec_decode(&d, r->block, 6, f, 8), 4);
	shb_h2_request_free(r);
}

static void test_request_rejects_incomplete(void)
{
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "http",
		.path = "/",
	};
	struct shb_h2_request *r = NULL;
	char err[128] = "";

	CU_ASSERT_EQUAL(shb_h2_request_encode(&req, &r, err, sizeof(err)),
			SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_STRING_EQUAL(err, "h2: incomplete request template");
}

/* plugins/common's list, shared by h2 and h3 (tested here once). */
static void test_dropped_headers(void)
{
	CU_ASSERT(shb_http_field_dropped("Host"));
	CU_ASSERT(shb_http_field_dropped("host"));
	CU_ASSERT(shb_http_field_dropped("content-LENGTH"));
	CU_ASSERT(shb_http_field_dropped("Content-Length"));
	CU_ASSERT(!shb_http_field_dropped("connection"));
	CU_ASSERT(!shb_http_field_dropped("te"));
	CU_ASSERT(!shb_http_field_dropped("accept"));
	CU_ASSERT(!shb_http_field_dropped("hosts"));
	CU_ASSERT(!shb_http_field_dropped("cookie"));
}

/* Connection-specific user headers (RFC 9113 Section 8.2.2) are refused
 * at prepare time with one line naming the header as the user wrote
 * it; "TE: trailers" (any case) is the one TE allowed. */
static void test_conn_specific_refused(void)
{
	static const struct {
		const char *name, *value, *err;
	} v[] = {
		{"Connection", "close", "h2: header 'Connection' is connection-specific and not allowed in HTTP/2 (RFC 9113 8.2.2)"},
		{"keep-alive", "5", "h2: header 'keep-alive' is connection-specific and not allowed in HTTP/2 (RFC 9113 8.2.2)"},
		{"Proxy-Connection", "x", "h2: header 'Proxy-Connection' is connection-specific and not allowed in HTTP/2 (RFC 9113 8.2.2)"},
		{"TRANSFER-ENCODING", "chunked", "h2: header 'TRANSFER-ENCODING' is connection-specific and not allowed in HTTP/2 (RFC 9113 8.2.2)"},
		{"Upgrade", "h2c", "h2: header 'Upgrade' is connection-specific and not allowed in HTTP/2 (RFC 9113 8.2.2)"},
		{"TE", "gzip", "h2: header 'TE: gzip' is not allowed in HTTP/2: TE may only be \"trailers\" (RFC 9113 8.2.2)"},
		{"te", "trailers, gzip", "h2: header 'te: trailers, gzip' is not allowed in HTTP/2: TE may only be \"trailers\" (RFC 9113 8.2.2)"},
		{"TE", "Trailers", NULL},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct shb_kv h[2] = {{"accept", "*/*"}, {v[i].name, v[i].value}};
		struct shb_request req = {
			.struct_size = sizeof(req),
			.method = "GET",
			.scheme = "https",
			.authority = "a",
			.path = "/",
			.headers = h,
			.header_count = 2,
		};
		struct shb_h2_request *r = NULL;
		char err[160] = "";
		int rc = shb_h2_request_encode(&req, &r, err, sizeof(err));

		if (!v[i].err) {
			CU_ASSERT_EQUAL(rc, SHB_OK);
			shb_h2_request_free(r);
			continue;
		}
		CU_ASSERT_EQUAL(rc, SHB_E_INVAL);
		CU_ASSERT_PTR_NULL(r);
		CU_ASSERT_STRING_EQUAL(err, v[i].err);
	}
}

static void test_size_update_encoding(void)
{
	struct shb_buf b = SHB_BUF_INIT(16, 64);

	shb_hpack_encode_size_update(&b, 0);
	shb_hpack_encode_size_update(&b, 100);
	CU_ASSERT_EQUAL(b.len, 3);
	CU_ASSERT_EQUAL(b.p[0], 0x20);
	CU_ASSERT_EQUAL(b.p[1], 0x3f);
	CU_ASSERT_EQUAL(b.p[2], 100 - 31);
	shb_buf_free(&b);
}

/* A block above SHB_H2_REQ_BLOCK_MAX is refused with one line, before any
 * traffic; a varied block above its buffer's cap is SHB_E_INVAL. */
static void test_request_block_cap(void)
{
	char *big = malloc(SHB_H2_REQ_BLOCK_MAX + 1);
	struct shb_kv hdr = {"x-big", big};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "http",
		.authority = "h",
		.path = "/",
		.headers = &hdr,
		.header_count = 1,
	};
	struct shb_h2_request *r = NULL;
	struct shb_buf small = SHB_BUF_INIT(16, 64);
	struct shb_request_var v = {.struct_size = sizeof(v),
				    .flags = SHB_VAR_PATH};
	char err[128] = "", path[100];

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, 'v', SHB_H2_REQ_BLOCK_MAX);
	big[SHB_H2_REQ_BLOCK_MAX] = '\0';
	CU_ASSERT_EQUAL(shb_h2_request_encode(&req, &r, err, sizeof(err)),
			SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_STRING_EQUAL(err, "h2: request header block above 16 MiB");
	free(big);
	hdr.value = "v";
	CU_ASSERT_EQUAL_FATAL(shb_h2_request_encode(&req, &r, err, sizeof(err)),
			      SHB_OK);
	memset(path, 'p', sizeof(path));
	v.path = path;
	v.path_len = 40; /* fits 64 octets */
	CU_ASSERT_EQUAL(shb_h2_request_var_block(r, &v, &small), SHB_OK);
	v.path_len = sizeof(path); /* does not */
	CU_ASSERT_EQUAL(shb_h2_request_var_block(r, &v, &small), SHB_E_INVAL);
	CU_ASSERT_EQUAL(small.err, SHB_BUF_E_CAP);
	CU_ASSERT(small.len <= 64);
	shb_buf_free(&small);
	shb_h2_request_free(r);
}

CU_TestInfo shb_h2_prefint_tests[] = {
	{"RFC 7541 C.1 integers, every truncation", test_c1_integers},
	{"round trip for every prefix, limits", test_integer_round_trip_and_limits},
	CU_TEST_INFO_NULL,
};

CU_TestInfo shb_h2_hpack_tests[] = {
	{"static table equals RFC 7541 Appendix A", test_static_table},
	{"C.2-C.6 decoded field by field", test_appendix_c_sequences},
	{"GET block bytes", test_request_get_bytes},
	{"request fields: case, drops, indices", test_request_fields},
	{"long header value", test_request_long_values},
	{"request block cap", test_request_block_cap},
	{"incomplete template rejected", test_request_rejects_incomplete},
	{"host and content-length dropped", test_dropped_headers},
	{"connection-specific headers refused", test_conn_specific_refused},
	{"size update encoding", test_size_update_encoding},
	CU_TEST_INFO_NULL,
};
