/* --proto-opt profile= on h3: each profile's transport parameters,
 * SETTINGS and request against the capture its table cites (curl-
 * impersonate's tests/http3_targets.yaml at commit 2473011, curl_chrome146
 * and curl_firefox147; for curl, what curl 8.21.0 with ngtcp2 v1.25.0 and
 * nghttp3 v1.18.0 sends, read out of their sources; copied below by
 * hand), and what the plugin hands the QUIC connection and sends on its
 * control stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h3p_tests.h"
#include "h3_local.h"
#include "h3_profile.h"
#include "qpack_fields.h"
#include "quic_tp.h"
#include "quic_varint.h"
#include "quic_wire_err.h"

/* The captures, "id:value" with value as the capture writes it: decimal
 * integers, hex octets, "1@..." version_information (chosen @
 * available), GREASE for a reserved parameter. */
static const char chrome_tp[] =
	"1:30000;3:1472;4:15728640;5:6291456;6:6291456;7:6291456;8:100;"
	"9:103;15:SCID;17:1@1,GREASE;32:65536;12584:4f524947;GREASE";
static const char firefox_tp[] =
	"1:30000;4:25165824;5:12582912;6:1048576;7:1048576;8:100;9:100;"
	"11:20;14:8;15:SCID;17:1@GREASE,1;GREASE;32:65535";
static const char chrome_settings[] = "1:65536;6:262144;7:100;51:1;GREASE";
static const char firefox_settings[] =
	"1:65536;7:20;727725890:0;16765559:1;51:1;8:1";
/* curl's, from its sources (h3_profile.c says where), and what shb
 * announces for it: the same but initial_max_streams_uni 128 (curl:
 * 262144), a max_idle_timeout of 30 s where ngtcp2 would put one (curl:
 * none), and MAX_FIELD_SECTION_SIZE 262144 (nghttp3: 2^62 - 1). */
static const char curl_tp_source[] =
	"15:SCID;5:32768;6:32768;7:1048576000;4:1048576000;8:262144;"
	"9:262144;17:1@1";
static const char curl_tp[] =
	"15:SCID;5:32768;6:32768;7:1048576000;4:1048576000;8:262144;"
	"9:128;1:30000;17:1@1";
static const char curl_settings_source[] = "6:4611686018427387903;1:0;7:0";
static const char curl_settings[] = "6:262144;1:0;7:0";
static const char *const chrome_headers[] = {
	"sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform",
	"upgrade-insecure-requests", "user-agent", "accept", "sec-fetch-site",
	"sec-fetch-mode", "sec-fetch-user", "sec-fetch-dest", "accept-encoding",
	"accept-language", "priority"};
static const char *const firefox_headers[] = {
	"user-agent", "accept", "accept-language", "accept-encoding",
	"upgrade-insecure-requests", "sec-fetch-dest", "sec-fetch-mode",
	"sec-fetch-site", "sec-fetch-user", "priority", "te"};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void version_text(const uint8_t *v, uint64_t n, char *o, size_t cap)
{
	size_t at = (size_t)snprintf(o, cap, "%u@", be32(v));

	for (uint64_t i = 4; i + 4 <= n; i += 4) {
		uint32_t x = be32(v + i);
		at += (size_t)snprintf(o + at, cap - at, "%s", i > 4 ? "," : "");
		if ((x & 0x0f0f0f0fu) == 0x0a0a0a0au)
			at += (size_t)snprintf(o + at, cap - at, "GREASE");
		else
			at += (size_t)snprintf(o + at, cap - at, "%u", x);
	}
}

/* One parameter as the capture writes it. */
static void param_text(uint64_t id, const uint8_t *v, uint64_t n, char *o,
		       size_t cap)
{
	uint64_t x;
	size_t at;

	if (shb_quic_tp_is_grease(id)) {
		snprintf(o, cap, "GREASE");
	} else if (id == SHB_QUIC_TP_INITIAL_SCID) {
		snprintf(o, cap, "15:SCID");
	} else if (id == SHB_QUIC_TP_VERSION_INFORMATION) {
		at = (size_t)snprintf(o, cap, "17:");
		version_text(v, n, o + at, cap - at);
	} else if (id > 0x20) {
		at = (size_t)snprintf(o, cap, "%llu:", (unsigned long long)id);
		for (uint64_t i = 0; i < n; i++)
			at += (size_t)snprintf(o + at, cap - at, "%02x", v[i]);
	} else {
		CU_ASSERT_EQUAL(shb_quic_varint_decode(v, n, &x), n);
		snprintf(o, cap, "%llu:%llu", (unsigned long long)id,
			 (unsigned long long)x);
	}
}

/* The parameters as encoded from p's table (its order, not permuted),
 * each through param_text, joined by ';'. */
static void encoded_text(const struct shb_h3_profile *p, char *out, size_t cap)
{
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN], buf[SHB_QUIC_TP_ITEMS_MAX_LEN];
	struct shb_quic_cid scid;
	size_t n = 0, at = 0, o = 0;

	memset(rnd, 0x5c, sizeof(rnd));
	shb_quic_cid_set(&scid, (const uint8_t *)"\1\2\3\4\5\6\7\10", 8);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_encode_items(buf, sizeof(buf), p->tp, p->n_tp,
						       &scid, rnd, &n), SHB_QUIC_OK);
	out[0] = '\0';
	while (at < n) {
		uint64_t id, len;
		char one[128];

		at += shb_quic_varint_decode(buf + at, n - at, &id);
		at += shb_quic_varint_decode(buf + at, n - at, &len);
		CU_ASSERT_FATAL(len <= n - at);
		param_text(id, buf + at, len, one, sizeof(one));
		at += len;
		o += (size_t)snprintf(out + o, cap - o, "%s%s", o ? ";" : "", one);
	}
}

static void settings_text(const struct shb_h3_profile *p, uint64_t table,
			  uint64_t blocked, char *t, size_t cap)
{
	struct shb_h3_setting s[SHB_H3_LOCAL_SETTINGS_MAX];
	uint8_t ctl[SHB_H3_LOCAL_CONTROL_MAX];
	size_t n = shb_h3_profile_settings(p, table, blocked, s);

	n = shb_h3_local_control_list(ctl, sizeof(ctl), s, n, 12345);
	CU_ASSERT_FATAL(n > 0);
	CU_ASSERT_FATAL(shb_h3_local_settings_text(ctl, n, t, cap) > 0);
}

static void test_tables_match_captures(void)
{
	const struct shb_h3_profile *c = shb_h3_profile_find("chrome");
	const struct shb_h3_profile *f = shb_h3_profile_find("firefox");
	char t[1024];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	encoded_text(c, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, chrome_tp);
	CU_ASSERT_EQUAL(c->tp_shuffle, 1); /* allow_permutation: true */
	encoded_text(f, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, firefox_tp);
	CU_ASSERT_EQUAL(f->tp_shuffle, 0);
	/* With a QPACK decoder that takes the browser's table. */
	settings_text(c, 65536, 100, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, chrome_settings);
	settings_text(f, 65536, 20, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, firefox_settings);
	/* A decoder set up without a table: announced as 0. */
	settings_text(c, 0, 0, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, "1:0;6:262144;7:0;51:1;GREASE");
	settings_text(f, 0, 0, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, "1:0;7:0;727725890:0;16765559:1;51:1;8:1");
	CU_ASSERT_STRING_EQUAL(c->pseudo, "masp");
	CU_ASSERT_STRING_EQUAL(f->pseudo, "msap");
	CU_ASSERT_EQUAL_FATAL(c->n_headers, 13);
	for (size_t i = 0; i < 13; i++)
		CU_ASSERT_STRING_EQUAL(c->headers[i].key, chrome_headers[i]);
	CU_ASSERT_EQUAL_FATAL(f->n_headers, 11);
	for (size_t i = 0; i < 11; i++)
		CU_ASSERT_STRING_EQUAL(f->headers[i].key, firefox_headers[i]);
	CU_ASSERT_PTR_NULL(shb_h3_profile_find("edge"));
	CU_ASSERT_PTR_EQUAL(shb_h3_profile_find("shb"), shb_h3_profile_default());
	CU_ASSERT_EQUAL(shb_h3_profile_default()->n_tp, 0);
}

/* The two lists differ by exactly the parts docs/fingerprints.md names. */
static void test_curl_table(void)
{
	const struct shb_h3_profile *c = shb_h3_profile_find("curl");
	struct shb_h3_profile raw;
	char t[1024];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	encoded_text(c, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, curl_tp);
	CU_ASSERT_EQUAL(c->tp_shuffle, 0);
	/* The table with curl's uni stream count and without the idle
	 * timeout encodes to curl's list. */
	raw = *c;
	raw.tp[6].value = 262144;
	raw.tp[7] = raw.tp[8];
	raw.n_tp = 8;
	encoded_text(&raw, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, curl_tp_source);
	/* The table holds nghttp3's values; the announcement is lowered to
	 * what the reader takes. */
	CU_ASSERT_EQUAL_FATAL(c->n_settings, 3);
	CU_ASSERT_EQUAL(c->settings[0].value, (UINT64_C(1) << 62) - 1);
	settings_text(c, 65536, 100, t, sizeof(t));
	CU_ASSERT_STRING_EQUAL(t, curl_settings);
	CU_ASSERT_STRING_EQUAL(strstr(curl_settings_source, ";"),
			       strstr(curl_settings, ";"));
	CU_ASSERT_STRING_EQUAL(c->pseudo, "mpsa");
	CU_ASSERT_EQUAL_FATAL(c->n_headers, 2);
	CU_ASSERT_STRING_EQUAL(c->headers[0].value, "curl/7.88.1");
	CU_ASSERT_PTR_NULL(c->tls_priority);
}

/* The names of the request's fields (pseudo-headers left out). */
static long request_names(const struct h3p_fx *f, struct shb_buf *strs,
			  struct shb_buf *kvs)
{
	return shb_qpack_fields(f->prep->bytes + f->prep->section_off,
				f->prep->section_len, NULL, strs, kvs);
}

/* profile=chrome through the module: the QUIC connection gets the list
 * and the windows it announces, the control stream Chrome's SETTINGS
 * (QPACK at 0), the request Chrome's pseudo-headers and headers. */
static void test_plugin_chrome(void)
{
	struct shb_buf strs = SHB_BUF_INIT(64, 8192), kvs = SHB_BUF_INIT(64, 8192);
	struct h3p_fx f;
	char t[128];

	h3p_profile = "chrome";
	h3p_open_ready(&f, 1);
	h3p_profile = NULL;
	CU_ASSERT_PTR_EQUAL(f.mod->prof, shb_h3_profile_find("chrome"));
	CU_ASSERT_PTR_EQUAL(f.q->cfg.tp_items, f.mod->prof->tp);
	CU_ASSERT_EQUAL(f.q->cfg.tp_count, 13);
	CU_ASSERT_EQUAL(f.q->cfg.tp_shuffle, 1);
	CU_ASSERT_EQUAL(f.q->cfg.conn_window, 15728640);
	CU_ASSERT_EQUAL(f.q->cfg.stream_window, 6291456);
	CU_ASSERT_EQUAL(f.q->cfg.uni_window, 6291456);
	CU_ASSERT_EQUAL(f.q->cfg.peer_uni, 103);
	CU_ASSERT_EQUAL(f.q->cfg.max_recv_dgram, 1472);
	CU_ASSERT_EQUAL(f.q->cfg.idle_timeout, UINT64_C(30000000000));
	CU_ASSERT_EQUAL_FATAL(f.q->uni_count, 3);
	CU_ASSERT(shb_h3_local_settings_text(f.q->uni[0].bytes, f.q->uni[0].len,
					     t, sizeof(t)) > 0);
	/* The kit's random octets are zeros: no reserved setting then. The
	 * QPACK table is Chrome's, and the decoder's. */
	CU_ASSERT_STRING_EQUAL(t, "1:65536;6:262144;7:100;51:1");
	CU_ASSERT_EQUAL(f.mod->conf.qpack_max_table_capacity, 65536);
	CU_ASSERT_EQUAL(f.mod->conf.qpack_blocked_streams, 100);
	/* :method GET, :authority, :scheme https, :path / */
	CU_ASSERT(memcmp(f.prep->bytes + f.prep->section_off,
			 "\x00\x00\xd1\x50\x0b" "example.com" "\xd7\xc1", 18) == 0);
	CU_ASSERT_EQUAL_FATAL(request_names(&f, &strs, &kvs), 13);
	for (size_t i = 0; i < 13; i++)
		CU_ASSERT_STRING_EQUAL(((struct shb_kv *)(void *)kvs.p)[i].key,
				       chrome_headers[i]);
	h3p_close(&f);
	shb_buf_free(&strs);
	shb_buf_free(&kvs);
}

static void test_plugin_firefox(void)
{
	struct h3p_fx f;
	char t[128];

	h3p_profile = "firefox";
	h3p_open_ready(&f, 1);
	h3p_profile = NULL;
	CU_ASSERT_EQUAL(f.q->cfg.tp_count, 13);
	CU_ASSERT_EQUAL(f.q->cfg.tp_shuffle, 0);
	CU_ASSERT_EQUAL(f.q->cfg.conn_window, 25165824);
	CU_ASSERT_EQUAL(f.q->cfg.stream_window, 12582912);
	CU_ASSERT_EQUAL(f.q->cfg.uni_window, 1048576);
	CU_ASSERT_EQUAL(f.q->cfg.peer_uni, 100);
	CU_ASSERT_EQUAL(f.q->cfg.max_recv_dgram, 65527);
	CU_ASSERT(shb_h3_local_settings_text(f.q->uni[0].bytes, f.q->uni[0].len,
					     t, sizeof(t)) > 0);
	CU_ASSERT_STRING_EQUAL(t, "1:65536;7:20;727725890:0;16765559:1;51:1;8:1");
	CU_ASSERT_EQUAL(f.mod->conf.qpack_blocked_streams, 20);
	CU_ASSERT(memcmp(f.prep->bytes + f.prep->section_off,
			 "\x00\x00\xd1\xd7\x50\x0b" "example.com" "\xc1", 18) == 0);
	h3p_close(&f);
	/* shb's own: no list, our SETTINGS. */
	h3p_open_ready(&f, 1);
	CU_ASSERT_PTR_NULL(f.q->cfg.tp_items);
	CU_ASSERT(shb_h3_local_settings_text(f.q->uni[0].bytes, f.q->uni[0].len,
					     t, sizeof(t)) > 0);
	CU_ASSERT_STRING_EQUAL(t, "1:0;7:0;6:262144");
	h3p_close(&f);
}

/* profile=curl: the connection holds curl's windows (1000 MiB for the
 * connection and uni streams, 32 KiB per request stream), 128 server
 * streams and the 30 s idle timeout it announces; the control stream
 * nghttp3's SETTINGS, the decoder no dynamic table. */
static void test_plugin_curl(void)
{
	struct h3p_fx f;
	char t[128];

	h3p_profile = "curl";
	h3p_open_ready(&f, 1);
	h3p_profile = NULL;
	CU_ASSERT_PTR_EQUAL(f.q->cfg.tp_items, shb_h3_profile_find("curl")->tp);
	CU_ASSERT_EQUAL(f.q->cfg.tp_count, 9);
	CU_ASSERT_EQUAL(f.q->cfg.tp_shuffle, 0);
	CU_ASSERT_EQUAL(f.q->cfg.conn_window, 1048576000);
	CU_ASSERT_EQUAL(f.q->cfg.stream_window, 32768);
	CU_ASSERT_EQUAL(f.q->cfg.uni_window, 1048576000);
	CU_ASSERT_EQUAL(f.q->cfg.peer_uni, 128);
	CU_ASSERT_EQUAL(f.q->cfg.max_recv_dgram, 65527);
	CU_ASSERT_EQUAL(f.q->cfg.idle_timeout, UINT64_C(30000000000));
	CU_ASSERT_EQUAL_FATAL(f.q->uni_count, 3);
	CU_ASSERT(shb_h3_local_settings_text(f.q->uni[0].bytes, f.q->uni[0].len,
					     t, sizeof(t)) > 0);
	CU_ASSERT_STRING_EQUAL(t, curl_settings);
	CU_ASSERT_EQUAL(f.mod->conf.qpack_max_table_capacity, 0);
	CU_ASSERT_EQUAL(f.mod->conf.qpack_blocked_streams, 0);
	/* :method GET, :path /, :scheme https, :authority */
	CU_ASSERT(memcmp(f.prep->bytes + f.prep->section_off,
			 "\x00\x00\xd1\xc1\xd7\x50\x0b" "example.com", 18) == 0);
	h3p_close(&f);
}

static void test_profile_option(void)
{
	const struct shb_proto_factory *fac;
	const struct shb_proto_desc *d;
	const struct shb_kv bad = {"profile", "edge"};
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg), .flags = SHB_RUN_TLS, .parallel = 1,
		.scheme = "https", .host = "192.0.2.1", .authority = "192.0.2.1",
		.options = &bad, .option_count = 1,
	};
	char err[200] = "";
	void *m = NULL;

	h3p_reset(0);
	CU_ASSERT_EQUAL_FATAL(shb_plugin_entry_v1.init(&h3p_kit.host), SHB_OK);
	fac = shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);
	d = fac->get(0);
	CU_ASSERT_EQUAL(d->vt->module_create(&h3p_kit.host, &cfg, &m, err, sizeof(err)),
			SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "h3: --proto-opt profile=edge: unknown profile "
			       "(known: chrome, firefox, curl, shb)");
	CU_ASSERT_PTR_NULL(m);
}

CU_TestInfo shb_h3p_profile_tests[] = {
	{"tables against the cited captures", test_tables_match_captures},
	{"profile=chrome through the module", test_plugin_chrome},
	{"curl's table against its sources", test_curl_table},
	{"profile=firefox and shb through the module", test_plugin_firefox},
	{"profile=curl through the module", test_plugin_curl},
	{"unknown profile", test_profile_option},
	CU_TEST_INFO_NULL,
};
