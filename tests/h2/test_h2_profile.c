/* --proto-opt profile: each profile's preface byte for byte and the Akamai
 * fingerprint read back from it against the published strings, the
 * request blocks in the profile's order with -H in place, varied headers
 * spliced in block order, the fingerprint handed to the host once per
 * connection, and the decoder's table as large as the profile announces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_dtable.h"
#include "h2_fixture.h"
#include "h2_hscan.h"
#include "h2_profile.h"

/* The published strings each profile copies (h2_profile.c cites them). */
static const struct {
	const char *name, *akamai;
} published[] = {
	{"chrome", "1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p"},
	{"firefox", "1:65536;4:131072;5:16384|12517377|3:0:0:201,5:0:0:101,"
		    "7:0:0:1,9:0:7:1,11:0:3:1,13:0:0:241|m,p,a,s"},
	{"curl", "3:100;4:33554432;2:0|33488897|0|m,p,s,a"},
	{"shb", "2:0;4:2147483647|2147418112|0|m,s,a,p"},
};

static const struct shb_request get_req = {
	.struct_size = sizeof(struct shb_request),
	.method = "GET", .scheme = "https", .authority = "example.com",
	.path = "/",
};

/* The fingerprint a module of this profile reports: the preface's part
 * and the pseudo-header order of its request block. */
static void test_published_strings(void)
{
	char err[128], fp[600];

	for (size_t i = 0; i < sizeof(published) / sizeof(published[0]); i++) {
		const struct shb_h2_profile *p = shb_h2_profile_find(published[i].name);
		struct shb_h2_preface pf;
		struct shb_h2_request *r = NULL;

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL_FATAL(shb_h2_preface_build(p, &pf), 0);
		CU_ASSERT_EQUAL_FATAL(shb_h2_request_encode_as(&get_req, p, &r, err,
							       sizeof(err)), SHB_OK);
		snprintf(fp, sizeof(fp), "%s|%s", pf.fp, r->pseudo);
		CU_ASSERT_STRING_EQUAL(fp, published[i].akamai);
		shb_h2_request_free(r);
	}
	CU_ASSERT_PTR_NULL(shb_h2_profile_find("safari"));
	CU_ASSERT_PTR_NULL(shb_h2_profile_find(NULL));
	CU_ASSERT_PTR_EQUAL(shb_h2_profile_default(), shb_h2_profile_find("shb"));
}

/* Firefox's preface octet for octet, written here by hand from RFC 9113's
 * frame layouts, and what the connection takes from it. */
static void test_firefox_preface(void)
{
	static const uint8_t want[] =
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
		"\x00\x00\x12\x04\x00\x00\x00\x00\x00"
		"\x00\x01\x00\x01\x00\x00" "\x00\x04\x00\x02\x00\x00"
		"\x00\x05\x00\x00\x40\x00"
		"\x00\x00\x04\x08\x00\x00\x00\x00\x00" "\x00\xbf\x00\x01"
		"\x00\x00\x05\x02\x00\x00\x00\x00\x03" "\x00\x00\x00\x00\xc8"
		"\x00\x00\x05\x02\x00\x00\x00\x00\x05" "\x00\x00\x00\x00\x64"
		"\x00\x00\x05\x02\x00\x00\x00\x00\x07" "\x00\x00\x00\x00\x00"
		"\x00\x00\x05\x02\x00\x00\x00\x00\x09" "\x00\x00\x00\x07\x00"
		"\x00\x00\x05\x02\x00\x00\x00\x00\x0b" "\x00\x00\x00\x03\x00"
		"\x00\x00\x05\x02\x00\x00\x00\x00\x0d" "\x00\x00\x00\x00\xf0";
	struct shb_h2_preface pf;

	CU_ASSERT_EQUAL_FATAL(shb_h2_preface_build(shb_h2_profile_find("firefox"),
						   &pf), 0);
	CU_ASSERT_EQUAL_FATAL(pf.len, sizeof(want) - 1);
	CU_ASSERT_EQUAL(memcmp(pf.bytes, want, pf.len), 0);
	CU_ASSERT_EQUAL(pf.stream_window, 131072);
	CU_ASSERT_EQUAL(pf.conn_window, 12517377 + 65535);
	/* Small windows are topped up at half; shb's 2^31 - 1 after 2^30. */
	CU_ASSERT_EQUAL(pf.stream_refill, 65536);
	CU_ASSERT_EQUAL(pf.conn_low, 12517377 + 65535 - (12517377 + 65535) / 2);
	CU_ASSERT_EQUAL_FATAL(shb_h2_preface_build(shb_h2_profile_default(),
						   &pf), 0);
	CU_ASSERT_EQUAL(pf.stream_refill, 1u << 30);
	CU_ASSERT_EQUAL(pf.conn_low, 2147483647u - (1u << 30));
	CU_ASSERT_EQUAL_FATAL(shb_h2_preface_build(shb_h2_profile_find("firefox"),
						   &pf), 0);
	CU_ASSERT_EQUAL(pf.table_size, 65536);
	CU_ASSERT_EQUAL(pf.first_k, 7); /* the first request on stream 15 */
	/* Octets that are not whole frames give no fingerprint. */
	char fp[64];
	CU_ASSERT_EQUAL(shb_h2_preface_fp(want, sizeof(want) - 2, fp, sizeof(fp)), 0);
	/* Without WINDOW_UPDATE and PRIORITY: "00" and "0" (Akamai's). */
	CU_ASSERT_EQUAL(shb_h2_preface_fp(want, 24 + 9 + 18, fp, sizeof(fp)), 29);
	CU_ASSERT_STRING_EQUAL(fp, "1:65536;4:131072;5:16384|00|0");
}

static long decode(const struct shb_h2_request *r, struct shb_h2_tdec_field *out,
		   size_t max)
{
	static struct shb_h2_vec_static t[62];
	struct shb_h2_tdec d;

	shb_h2_vec_static_table(t);
	shb_h2_tdec_init(&d, 4096, t);
	return shb_h2_tdec_decode(&d, r->block, r->block_len, out, max);
}

/* Chrome's block: its pseudo-header order, its twelve headers in order,
 * a user user-agent in the profile's place and a user header of its own
 * after them; the Host header stays dropped. */
static void test_chrome_block(void)
{
	static const struct shb_kv user[] = {
		{"X-Run", "7"}, {"Host", "h"}, {"User-Agent", "mine"},
	};
	struct shb_request req = get_req;
	struct shb_h2_tdec_field f[24];
	struct shb_h2_request *r = NULL;
	char err[128];
	const struct shb_h2_profile *p = shb_h2_profile_find("chrome");

	req.headers = user;
	req.header_count = 3;
	CU_ASSERT_EQUAL_FATAL(shb_h2_request_encode_as(&req, p, &r, err, sizeof(err)),
			      SHB_OK);
	CU_ASSERT_EQUAL_FATAL(decode(r, f, 24), 4 + 12 + 1);
	CU_ASSERT_STRING_EQUAL(f[0].name, ":method");
	CU_ASSERT_STRING_EQUAL(f[1].name, ":authority");
	CU_ASSERT_STRING_EQUAL(f[2].name, ":scheme");
	CU_ASSERT_STRING_EQUAL(f[3].name, ":path");
	for (size_t j = 0; j < 12; j++)
		CU_ASSERT_STRING_EQUAL(f[4 + j].name, p->headers[j].key);
	CU_ASSERT_STRING_EQUAL(f[4 + 4].value, "mine");
	CU_ASSERT_STRING_EQUAL(f[4 + 5].value, p->headers[5].value);
	CU_ASSERT_STRING_EQUAL(f[16].name, "x-run");
	CU_ASSERT_STRING_EQUAL(f[16].value, "7");

	/* Varied: user-agent (index 2) sits before x-run (index 0) in the
	 * block; both are spliced in block order. */
	struct shb_var_header vh[] = {{0, 0, "8", 1}, {2, 0, "other", 5}};
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = SHB_VAR_HEADERS,
		.headers = vh, .header_count = 2,
	};
	struct shb_buf out = SHB_BUF_INIT(256, SHB_H2_REQ_BLOCK_MAX);
	struct shb_h2_request vr = *r;
	CU_ASSERT_EQUAL_FATAL(shb_h2_request_var_block(r, &v, &out), SHB_OK);
	vr.block = out.p;
	vr.block_len = out.len;
	CU_ASSERT_EQUAL_FATAL(decode(&vr, f, 24), 17);
	CU_ASSERT_STRING_EQUAL(f[8].name, "user-agent");
	CU_ASSERT_STRING_EQUAL(f[8].value, "other");
	CU_ASSERT_STRING_EQUAL(f[16].value, "8");
	shb_buf_free(&out);
	shb_h2_request_free(r);
}

/* A connection of a module made with profile=firefox sends its preface,
 * opens its first stream at 15 and hands the host the fingerprint once. */
static void test_connection_reports_once(void)
{
	static const struct shb_kv opt[] = {{"profile", "firefox"}};
	const struct shb_proto_desc *d = shb_h2_test_desc();
	struct shb_run_config cfg;
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	struct shb_transport_info info = {.struct_size = sizeof(info), .alpn = "h2"};

	shb_h2_test_reset(0);
	memset(&f, 0, sizeof(f));
	f.vt = d->vt;
	shb_h2_test_config(&cfg, 0, 4);
	cfg.options = opt;
	cfg.option_count = 1;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f.km, &shb_h2_kit, d, &cfg), SHB_OK);
	f.mod = f.km.module;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f.km, &get_req), SHB_OK);
	f.prep = f.km.prepared;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_worker_init(&f.km), SHB_OK);
	f.now = 1000;
	f.next_cookie = 100;
	shb_kit_clock_set(&shb_h2_kit.clock, f.now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f.kc, &f.km), SHB_OK);
	f.c = f.kc.mem;
	CU_ASSERT_EQUAL(f.c->dtable.limit, 65536);
	CU_ASSERT_EQUAL(shb_kit_conn_ready(&f.kc, &info), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	const struct shb_h2_preface *pf = &((struct shb_h2_module *)f.mod)->preface;
	CU_ASSERT_EQUAL_FATAL(f.sent.len, pf->len);
	CU_ASSERT_EQUAL(memcmp(f.sent.p, pf->bytes, pf->len), 0);
	f.sent.len = 0;
	CU_ASSERT_PTR_NULL(shb_h2_kit.fingerprints[SHB_FP_H2_AKAMAI - 1]);
	(void)shb_h2_fx_issue(&f);
	(void)shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 2);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 15);
	CU_ASSERT_EQUAL(fr[1].h.stream_id, 17);
	CU_ASSERT_EQUAL(shb_h2_kit.fingerprint_calls[SHB_FP_H2_AKAMAI - 1], 1);
	CU_ASSERT_STRING_EQUAL(shb_h2_kit.fingerprints[SHB_FP_H2_AKAMAI - 1],
			       published[1].akamai);
	shb_h2_fx_close(&f);
}

/* ABI 1.4 tls_priority: a module of each profile hands the core its
 * table's string, chrome's and firefox's naming the browser's groups
 * (tests/e2e/h2-fp.sh checks what a server receives); curl and shb keep
 * the core's default. */
static void test_tls_priority(void)
{
	static const struct {
		const char *name, *groups;
	} want[] = {
		{"chrome", ":-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:"
			   "+GROUP-SECP384R1:-SIGN-ALL:"},
		{"firefox", ":-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:"
			    "+GROUP-SECP384R1:+GROUP-SECP521R1:+GROUP-FFDHE2048:"
			    "+GROUP-FFDHE3072:-SIGN-ALL:"},
		{"curl", NULL},
		{"shb", NULL},
	};
	const struct shb_proto_desc *d = shb_h2_test_desc();

	CU_ASSERT_PTR_NOT_NULL_FATAL(d->vt->tls_priority);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct shb_kv opt[] = {{"profile", want[i].name}};
		struct shb_run_config cfg;
		struct shb_kit_module km;

		shb_h2_test_reset(0);
		shb_h2_test_config(&cfg, 0, 4);
		cfg.options = opt;
		cfg.option_count = 1;
		CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&km, &shb_h2_kit, d, &cfg), SHB_OK);
		const char *prio = d->vt->tls_priority(km.module);
		if (!want[i].groups) {
			CU_ASSERT_PTR_NULL(prio);
		} else {
			CU_ASSERT_PTR_NOT_NULL_FATAL(prio);
			CU_ASSERT_PTR_EQUAL(prio, shb_h2_profile_find(want[i].name)->tls_priority);
			static const char head[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:"
						   "+VERS-TLS1.2:-CIPHER-ALL:";
			CU_ASSERT_EQUAL(strncmp(prio, head, sizeof(head) - 1), 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(prio, want[i].groups));
		}
		shb_kit_module_destroy(&km);
	}
	shb_h2_test_reset(0);
}

/* The decoder's table is as large as the SETTINGS announce: 65536 starts
 * at the encoder's 4096 (entries past it evicted as the encoder does),
 * takes a size update to 65536 and then keeps entries past 4096 octets;
 * a table above SHB_H2_DTABLE_CAP is held to it. */
static void test_big_table(void)
{
	struct shb_h2_dtable t;

	CU_ASSERT_EQUAL_FATAL(shb_h2_dtable_init_big(&t, 65536), 0);
	CU_ASSERT_PTR_NOT_NULL(t.big);
	CU_ASSERT_EQUAL(t.max, 4096);
	for (int i = 0; i < 200; i++)
		shb_h2_dtable_insert(&t, 32 + 8, 4, 0, SHB_H2_NAME_REGULAR);
	CU_ASSERT_EQUAL(t.count, 102); /* 4096 / 40 */
	CU_ASSERT_EQUAL(shb_h2_dtable_resize(&t, 65536), 0);
	CU_ASSERT_EQUAL(shb_h2_dtable_resize(&t, 65537), -1);
	for (int i = 0; i < 1000; i++)
		shb_h2_dtable_insert(&t, 32 + 8, 4, 0, SHB_H2_NAME_REGULAR);
	CU_ASSERT_EQUAL(t.count, 1102); /* 44080 octets, all kept */
	CU_ASSERT_EQUAL(t.size, 44080);
	shb_h2_dtable_insert(&t, 40000, 4, 200, SHB_H2_NAME_STATUS);
	CU_ASSERT_EQUAL(t.count, 639); /* 25560 + 40000 <= 65536 */
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->status, 200);
	CU_ASSERT_EQUAL(shb_h2_dtable_get(&t, 1)->size, 40000);
	shb_h2_dtable_free(&t);
	CU_ASSERT_PTR_NULL(t.big);
	CU_ASSERT_EQUAL_FATAL(shb_h2_dtable_init_big(&t, 1u << 20), 0);
	CU_ASSERT_EQUAL(t.limit, SHB_H2_DTABLE_CAP);
	shb_h2_dtable_free(&t);
	CU_ASSERT_EQUAL_FATAL(shb_h2_dtable_init_big(&t, 4096), 0);
	CU_ASSERT_PTR_NULL(t.big);
}

CU_TestInfo shb_h2_profile_tests[] = {
	{"published strings", test_published_strings},
	{"firefox preface", test_firefox_preface},
	{"chrome block, -H in place, varied", test_chrome_block},
	{"connection reports once", test_connection_reports_once},
	{"decoder table of 65536", test_big_table},
	{"tls_priority of each profile", test_tls_priority},
	CU_TEST_INFO_NULL,
};
