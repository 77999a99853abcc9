/* RFC 9218 PRIORITY_UPDATE on HTTP/3: for each request with a Priority
 * field, a frame of type 0xF0700 on our control stream (after its
 * SETTINGS) naming the request stream, queued before the request's
 * HEADERS; none without the field or with --proto-opt
 * priority-update=off; a full control stream costs the frame, not the
 * request. */
#include <string.h>

#include "h3p_tests.h"

static const struct shb_kv prio_headers[] = {
	{"Accept", "*/*"},
	{"Priority", "u=1, i"},
};

static void *prepare(struct h3p_fx *f, size_t nh)
{
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "https",
		.authority = "example.com",
		.path = "/",
		.headers = prio_headers,
		.header_count = nh,
	};
	void *prep = NULL;
	char err[200];

	CU_ASSERT_EQUAL_FATAL(f->vt->prepare_request(f->mod, &req, &prep, err,
						     sizeof(err)), SHB_OK);
	return prep;
}

/* The control stream's bytes after its type and SETTINGS. */
static const uint8_t *after_settings(const struct h3p_fx *f, size_t *n)
{
	const struct fq_uni *u = &f->q->uni[0];

	CU_ASSERT_EQUAL_FATAL(u->id, 2);
	CU_ASSERT_FATAL(u->nsend >= 1);
	*n = u->len - u->end_at[0];
	return u->bytes + u->end_at[0];
}

#define PU(id) "\x80\x0f\x07\x00\x07" id "u=1, i"

static void test_control_stream_bytes(void)
{
	static const char want[] = PU("\x00") PU("\x04");
	struct h3p_fx f;
	const uint8_t *p;
	size_t n;

	h3p_open_ready(&f, 4);
	void *prep = prepare(&f, 2);
	CU_ASSERT_EQUAL(f.q->uni[0].nsend, 1); /* SETTINGS only */
	CU_ASSERT_EQUAL(h3p_vt_issue(&f, prep, 1, f.now), SHB_OK);
	CU_ASSERT_EQUAL(h3p_vt_issue(&f, prep, 2, f.now), SHB_OK);
	p = after_settings(&f, &n);
	CU_ASSERT_EQUAL(n, sizeof(want) - 1);
	CU_ASSERT(n == sizeof(want) - 1 && memcmp(p, want, n) == 0);
	/* Each frame went to QUIC before its request's bytes. */
	CU_ASSERT_EQUAL(f.q->uni[0].nsend, 3);
	CU_ASSERT_EQUAL(f.q->uni[0].bidi_before[1], 0);
	CU_ASSERT_EQUAL(f.q->uni[0].bidi_before[2], 1);
	CU_ASSERT_EQUAL_FATAL(f.q->send_count, 2);
	CU_ASSERT_EQUAL(f.q->sends[0].id, 0);
	CU_ASSERT_EQUAL(f.q->sends[1].id, 4);
	CU_ASSERT_EQUAL(f.c->prio_updates, 2);
	CU_ASSERT_EQUAL(f.c->prio_skipped, 0);
	/* The QPACK streams carry their type octet only. */
	CU_ASSERT_EQUAL(f.q->uni[1].len, 1);
	CU_ASSERT_EQUAL(f.q->uni[2].len, 1);
	f.vt->release_request(f.mod, prep);
	h3p_close(&f);
}

/* No Priority field, or priority-update=off: the control stream keeps
 * its SETTINGS alone. */
static void test_none(void)
{
	struct h3p_fx f;
	size_t n;

	for (int off = 0; off < 2; off++) {
		h3p_open_ready(&f, 4);
		f.mod->no_prio_update = (uint32_t)off;
		void *prep = prepare(&f, off ? 2 : 1);
		CU_ASSERT_EQUAL(h3p_vt_issue(&f, prep, 1, f.now), SHB_OK);
		CU_ASSERT_EQUAL(h3p_vt_issue(&f, f.prep, 2, f.now), SHB_OK);
		(void)after_settings(&f, &n);
		CU_ASSERT_EQUAL(n, 0);
		CU_ASSERT_EQUAL(f.q->uni[0].nsend, 1);
		CU_ASSERT_EQUAL(f.q->send_count, 2);
		CU_ASSERT_EQUAL(f.c->prio_updates, 0);
		f.vt->release_request(f.mod, prep);
		h3p_close(&f);
	}
}

/* issue_var: a varied Priority value is what the frame carries. */
static void test_varied_value(void)
{
	static const char want[] = "\x80\x0f\x07\x00\x04\x00" "u=6";
	struct shb_var_header h = {1, 0, "u=6", 3};
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = SHB_VAR_HEADERS,
		.headers = &h, .header_count = 1,
	};
	struct h3p_fx f;
	const uint8_t *p;
	size_t n;

	h3p_open_ready(&f, 4);
	void *prep = prepare(&f, 2);
	shb_kit_clock_set(&h3p_kit.clock, f.now);
	CU_ASSERT_EQUAL(shb_kit_conn_issue_var(&f.kc, prep, &v, 1), SHB_OK);
	p = after_settings(&f, &n);
	CU_ASSERT_EQUAL(n, sizeof(want) - 1);
	CU_ASSERT(n == sizeof(want) - 1 && memcmp(p, want, n) == 0);
	CU_ASSERT_EQUAL(f.q->uni[0].bidi_before[1], 0);
	CU_ASSERT_EQUAL(f.q->send_count, 1);
	f.vt->release_request(f.mod, prep);
	h3p_close(&f);
}

/* A control stream that takes no more (the fake's 256 octets; the real
 * one: 64 KiB not yet acknowledged): the requests still go, the frames
 * that did not fit are counted, one debug line says so. */
static void test_control_stream_full(void)
{
	struct h3p_fx f;
	size_t n, settings;

	h3p_open(&f, 0, 32, NULL, 1);
	fq_q_handshake(f.q);
	CU_ASSERT_EQUAL_FATAL(h3p_recv(&f), SHB_OK);
	void *prep = prepare(&f, 2);
	settings = f.q->uni[0].end_at[0];
	for (uint64_t k = 1; k <= 24; k++)
		CU_ASSERT_EQUAL(h3p_vt_issue(&f, prep, k, f.now), SHB_OK);
	(void)after_settings(&f, &n);
	/* 12-octet frames (2-octet stream IDs from 64 on: 13). */
	uint64_t fit = f.c->prio_updates;
	CU_ASSERT(fit > 0 && fit < 24);
	CU_ASSERT_EQUAL(f.c->prio_skipped, 24 - fit);
	CU_ASSERT(n <= sizeof(f.q->uni[0].bytes) - settings);
	CU_ASSERT(sizeof(f.q->uni[0].bytes) - settings - n < 13);
	CU_ASSERT_EQUAL(f.q->send_count, 24);
	CU_ASSERT(h3p_logged("PRIORITY_UPDATE not sent for stream"));
	f.vt->release_request(f.mod, prep);
	h3p_close(&f);
}

/* --proto-opt priority-update=auto|off: declared, parsed, checked. */
static void test_option(void)
{
	static const struct shb_kv off[] = {{"priority-update", "off"}};
	static const struct shb_kv bad[] = {{"priority-update", "1"}};
	const struct shb_proto_desc *d = NULL;
	struct h3p_fx f;
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = SHB_RUN_TLS,
		.parallel = 1,
		.scheme = "https",
		.host = "example.com",
		.authority = "example.com",
	};
	char err[160] = "";
	void *m = NULL;

	h3p_open_ready(&f, 1);
	d = f.km.desc;
	CU_ASSERT_EQUAL(f.mod->no_prio_update, 0); /* auto by default */
	h3p_close(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_STRING_EQUAL(d->option_defs[2].key, "priority-update");
	CU_ASSERT_STRING_EQUAL(d->option_defs[2].value_name, "auto|off");
	cfg.options = bad;
	cfg.option_count = 1;
	CU_ASSERT_EQUAL(d->vt->module_create(&h3p_kit.host, &cfg, &m, err,
					     sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "h3: --proto-opt priority-update=1: "
			       "expected auto or off");
	cfg.options = off;
	CU_ASSERT_EQUAL_FATAL(d->vt->module_create(&h3p_kit.host, &cfg, &m, err,
						   sizeof(err)), SHB_OK);
	CU_ASSERT_EQUAL(((struct shb_h3_module *)m)->no_prio_update, 1);
	d->vt->module_destroy(m);
}

CU_TestInfo shb_h3p_prio_tests[] = {
	{"control stream: PRIORITY_UPDATE bytes, before each request",
	 test_control_stream_bytes},
	{"no Priority field, or priority-update=off: none", test_none},
	{"issue_var: the varied value", test_varied_value},
	{"control stream full: the frame skipped, the request sent",
	 test_control_stream_full},
	{"priority-update option", test_option},
	CU_TEST_INFO_NULL,
};
