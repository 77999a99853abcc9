/* HTTP/3 connection profiles: see h3_profile.h. docs/fingerprints.md
 * says, per profile, what matches the browser byte for byte and what
 * cannot. */
#include "h3_profile.h"

#include <string.h>

#include "h3_defs.h"
#include "quic_conn.h"
#include "quic_tp.h"

#define TP_INT(id, v) {(id), SHB_QUIC_TPK_INT, 0, (v), NULL}
#define TP_SCID {SHB_QUIC_TP_INITIAL_SCID, SHB_QUIC_TPK_SCID, 0, 0, NULL}
/* version_information: v1 chosen, v1 and a reserved version available,
 * the reserved one first when first is 1. */
#define TP_VERSIONS(first) \
	{SHB_QUIC_TP_VERSION_INFORMATION, SHB_QUIC_TPK_VERSIONS, 0, (first), NULL}
/* A reserved parameter of len random octets (0..len when any is 1). */
#define TP_GREASE(len, any) {0, SHB_QUIC_TPK_GREASE, (len), (any), NULL}

/* Chrome's google_connection_options (0x3128): "ORIG". */
static const uint8_t chrome_conn_options[4] = {0x4f, 0x52, 0x49, 0x47};

/* shb's own: its transport parameters and SETTINGS (quic_conn.c,
 * h3_local.c), the pseudo-headers :method :scheme :authority :path, no
 * default header, GnuTLS's default priorities. */
static const struct shb_h3_profile prof_shb = {
	.name = "shb",
	.pseudo = "msap",
};

/* Chrome 146 on macOS, as curl-impersonate (lexiforest) lists its
 * HTTP/3 and QUIC fingerprint, tests/http3_targets.yaml at commit
 * 2473011530c7f9e4766e66f89b94e1eafa39fdf9:
 * https://github.com/lexiforest/curl-impersonate/blob/2473011530c7f9e4766e66f89b94e1eafa39fdf9/tests/http3_targets.yaml
 * (curl_chrome146): the transport parameters below, permuted on every
 * connection ("allow_permutation: true"; uquic's Chrome 115 parrot
 * permutes them too, and gives the reserved parameter a random length up
 * to 16); SETTINGS 1:65536;6:262144;7:100;51:1;GREASE; :method
 * :authority :scheme :path; the headers in order. */
static const struct shb_h3_profile prof_chrome = {
	.name = "chrome",
	.n_tp = 13,
	.tp = {
		TP_INT(SHB_QUIC_TP_MAX_IDLE_TIMEOUT, 30000),
		TP_INT(SHB_QUIC_TP_MAX_UDP_PAYLOAD_SIZE, 1472),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_DATA, 15728640),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 6291456),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE, 6291456),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, 6291456),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAMS_BIDI, 100),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI, 103),
		TP_SCID,
		TP_VERSIONS(0),
		TP_INT(SHB_QUIC_TP_MAX_DATAGRAM_FRAME_SIZE, 65536),
		{0x3128, SHB_QUIC_TPK_BYTES, 4, 0, chrome_conn_options},
		TP_GREASE(16, 1),
	},
	.tp_shuffle = 1,
	.n_settings = 5,
	.settings = {{SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY, 65536},
		     {SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE, 262144},
		     {SHB_H3_SETTING_QPACK_BLOCKED_STREAMS, 100},
		     {SHB_H3_SETTING_H3_DATAGRAM, 1},
		     {SHB_H3_SETTING_GREASE, 0}},
	.pseudo = "masp",
	.n_headers = 13,
	.headers = {
		{"sec-ch-ua", "\"Chromium\";v=\"146\", \"Not-A.Brand\";v=\"24\", "
			      "\"Google Chrome\";v=\"146\""},
		{"sec-ch-ua-mobile", "?0"},
		{"sec-ch-ua-platform", "\"macOS\""},
		{"upgrade-insecure-requests", "1"},
		{"user-agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) "
			       "AppleWebKit/537.36 (KHTML, like Gecko) "
			       "Chrome/146.0.0.0 Safari/537.36"},
		{"accept", "text/html,application/xhtml+xml,application/xml;"
			   "q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
			   "application/signed-exchange;v=b3;q=0.7"},
		{"sec-fetch-site", "none"},
		{"sec-fetch-mode", "navigate"},
		{"sec-fetch-user", "?1"},
		{"sec-fetch-dest", "document"},
		{"accept-encoding", "gzip, deflate, br, zstd"},
		{"accept-language", "en-US,en;q=0.9"},
		{"priority", "u=0, i"},
	},
	.tls_priority = SHB_HTTP_TLS_CHROME,
};

/* Firefox 147 on macOS, the same file (curl_firefox147): the transport
 * parameters below in this order ("allow_permutation: false"), the
 * reserved one of 2 octets as uquic's Firefox 116 parrot has it; SETTINGS
 * 1:65536;7:20;727725890:0;16765559:1;51:1;8:1 (WebTransport off, the
 * draft and the RFC H3_DATAGRAM, ENABLE_CONNECT_PROTOCOL); :method
 * :scheme :authority :path; the headers in order. */
static const struct shb_h3_profile prof_firefox = {
	.name = "firefox",
	.n_tp = 13,
	.tp = {
		TP_INT(SHB_QUIC_TP_MAX_IDLE_TIMEOUT, 30000),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_DATA, 25165824),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 12582912),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE, 1048576),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, 1048576),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAMS_BIDI, 100),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI, 100),
		TP_INT(SHB_QUIC_TP_MAX_ACK_DELAY, 20),
		TP_INT(SHB_QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT, 8),
		TP_SCID,
		TP_VERSIONS(1),
		TP_GREASE(2, 0),
		TP_INT(SHB_QUIC_TP_MAX_DATAGRAM_FRAME_SIZE, 65535),
	},
	.n_settings = 6,
	.settings = {{SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY, 65536},
		     {SHB_H3_SETTING_QPACK_BLOCKED_STREAMS, 20},
		     {0x2b603742, 0},
		     {0xffd277, 1},
		     {SHB_H3_SETTING_H3_DATAGRAM, 1},
		     {SHB_H3_SETTING_ENABLE_CONNECT_PROTOCOL, 1}},
	.pseudo = "msap",
	.n_headers = 11,
	.headers = {
		{"user-agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; "
			       "rv:147.0) Gecko/20100101 Firefox/147.0"},
		{"accept", "text/html,application/xhtml+xml,application/xml;"
			   "q=0.9,*/*;q=0.8"},
		{"accept-language", "en-US,en;q=0.9"},
		{"accept-encoding", "gzip, deflate, br, zstd"},
		{"upgrade-insecure-requests", "1"},
		{"sec-fetch-dest", "document"},
		{"sec-fetch-mode", "navigate"},
		{"sec-fetch-site", "none"},
		{"sec-fetch-user", "?1"},
		{"priority", "u=0, i"},
		{"te", "trailers"},
	},
	.tls_priority = SHB_HTTP_TLS_FIREFOX,
};

/* curl 8.21.0 on HTTP/3 with its ngtcp2 and nghttp3 backend, from the
 * sources (curl's tag curl-8_21_0, ngtcp2 v1.25.0, nghttp3 v1.18.0):
 * lib/vquic/cf-ngtcp2-cmn.c (lib/vquic/curl_ngtcp2.c up to 8.20.0, with
 * the same values), quic_settings(), starts from ngtcp2_transport_params_default()
 * and sets initial_max_data 100 * 10 MiB (H3_CONN_WINDOW_SIZE_MAX in
 * cf-ngtcp2-cmn.h), initial_max_stream_data_bidi_local and _remote 32
 * KiB (H3_STREAM_WINDOW_SIZE_INITIAL), initial_max_stream_data_uni the
 * same as initial_max_data, initial_max_streams_bidi and _uni 256 Ki
 * (QUIC_MAX_STREAMS) and max_idle_timeout 0; ngtcp2_conn_client_new() is
 * given version 1 and no available_versions. ngtcp2's
 * lib/ngtcp2_transport_params.c, ngtcp2_transport_params_encode_versioned(),
 * then writes initial_source_connection_id first and the rest in RFC
 * 9000 order, leaving out what equals its default (max_udp_payload_size
 * 65527, ack_delay_exponent 3, max_ack_delay 25 ms,
 * active_connection_id_limit 2) or is 0 (max_idle_timeout,
 * max_datagram_frame_size, grease_quic_bit), version_information last
 * with version 1 chosen and alone available (lib/ngtcp2_conn.c,
 * conn_new()). Two values differ, as the connection cannot do curl's:
 * initial_max_streams_uni is 128, the most server streams a connection
 * keeps slots for, where curl has 262144; and max_idle_timeout is
 * announced, 30 s where ngtcp2 would have put it, since a connection
 * without one would wait on a silent server for ever.
 *
 * SETTINGS: lib/vquic/cf-ngtcp2.c, init_ngh3_conn(), passes
 * nghttp3_settings_default() unchanged (nghttp3's lib/nghttp3_settings.c:
 * max_field_section_size 2^62 - 1, no QPACK dynamic table, no blocked
 * streams, neither H3_DATAGRAM nor ENABLE_CONNECT_PROTOCOL), and
 * nghttp3_stream_write_settings() (lib/nghttp3_stream.c) writes
 * MAX_FIELD_SECTION_SIZE, QPACK_MAX_TABLE_CAPACITY, QPACK_BLOCKED_STREAMS
 * in that order, with no reserved setting. MAX_FIELD_SECTION_SIZE goes
 * out as the 256 KiB the QPACK decoder takes (shb_h3_profile_settings).
 *
 * The request as the h2 profile has it (curl 7.88.1, Debian 12's, which
 * has no HTTP/3): :method :path :scheme :authority, user-agent and
 * accept. The TLS ClientHello stays GnuTLS's. */
static const struct shb_h3_profile prof_curl = {
	.name = "curl",
	.n_tp = 9,
	.tp = {
		TP_SCID,
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 32768),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE, 32768),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, 1048576000),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_DATA, 1048576000),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAMS_BIDI, 262144),
		TP_INT(SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI, 128),
		TP_INT(SHB_QUIC_TP_MAX_IDLE_TIMEOUT, 30000),
		TP_VERSIONS(2),
	},
	.n_settings = 3,
	.settings = {{SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE,
		      (UINT64_C(1) << 62) - 1},
		     {SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY, 0},
		     {SHB_H3_SETTING_QPACK_BLOCKED_STREAMS, 0}},
	.pseudo = "mpsa",
	.n_headers = 2,
	.headers = {
		{"user-agent", SHB_HTTP_CURL_UA},
		{"accept", SHB_HTTP_CURL_ACCEPT},
	},
};

static const struct shb_h3_profile *const profiles[] = {
	&prof_chrome, &prof_firefox, &prof_curl, &prof_shb,
};

const struct shb_h3_profile *shb_h3_profile_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (strcmp(profiles[i]->name, name) == 0)
			return profiles[i];
	return NULL;
}

const char *shb_h3_profile_names(void)
{
	return "chrome, firefox, curl, shb";
}

const struct shb_h3_profile *shb_h3_profile_default(void)
{
	return &prof_shb;
}

static uint64_t tp_int(const struct shb_h3_profile *p, uint64_t id,
		       uint64_t def)
{
	return shb_quic_tp_items_int(p->tp, p->n_tp, id, def);
}

int shb_h3_profile_quic(const struct shb_h3_profile *p,
			struct shb_quic_conn_config *cfg)
{
	uint64_t idle = tp_int(p, SHB_QUIC_TP_MAX_IDLE_TIMEOUT, 0);
	uint64_t cids = tp_int(p, SHB_QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT, 2);
	uint64_t uni = tp_int(p, SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI, 0);
	uint64_t dgram = tp_int(p, SHB_QUIC_TP_MAX_UDP_PAYLOAD_SIZE, 65527);

	if (!p->n_tp)
		return 0;
	cfg->tp_items = p->tp;
	cfg->tp_count = (uint32_t)p->n_tp;
	cfg->tp_shuffle = p->tp_shuffle;
	cfg->conn_window = tp_int(p, SHB_QUIC_TP_INITIAL_MAX_DATA, 0);
	cfg->stream_window =
		tp_int(p, SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 0);
	cfg->uni_window = tp_int(p, SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, 0);
	if (idle == 0 || idle > 3600000 || cids > 8 || uni < 3 || uni > 128 ||
	    dgram < 1200 || dgram > 65527 || cfg->conn_window < 4096 ||
	    cfg->conn_window > (UINT64_C(1) << 30) || cfg->stream_window < 4096 ||
	    cfg->stream_window > (UINT64_C(1) << 40) || cfg->uni_window < 4096 ||
	    cfg->uni_window > (UINT64_C(1) << 40))
		return -1;
	cfg->idle_timeout = idle * UINT64_C(1000000); /* ms to ns */
	cfg->peer_uni = (uint32_t)uni;
	cfg->max_recv_dgram = (uint32_t)dgram;
	return 0;
}

void shb_h3_profile_qpack(const struct shb_h3_profile *p,
			  struct shb_h3_conn_config *conf)
{
	for (size_t i = 0; i < p->n_settings; i++) {
		uint64_t v = p->settings[i].value;

		if (p->settings[i].id == SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY)
			conf->qpack_max_table_capacity = (uint32_t)(
				v < SHB_H3_QPACK_TABLE_MAX ? v : SHB_H3_QPACK_TABLE_MAX);
		else if (p->settings[i].id == SHB_H3_SETTING_QPACK_BLOCKED_STREAMS)
			conf->qpack_blocked_streams = (uint32_t)(
				v < SHB_H3_QPACK_BLOCKED_MAX ? v : SHB_H3_QPACK_BLOCKED_MAX);
	}
}

size_t shb_h3_profile_settings(const struct shb_h3_profile *p,
			       uint64_t qpack_table, uint64_t qpack_blocked,
			       struct shb_h3_setting *out)
{
	for (size_t i = 0; i < p->n_settings; i++) {
		out[i] = p->settings[i];
		if (out[i].id == SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY &&
		    out[i].value > qpack_table)
			out[i].value = qpack_table;
		else if (out[i].id == SHB_H3_SETTING_QPACK_BLOCKED_STREAMS &&
			 out[i].value > qpack_blocked)
			out[i].value = qpack_blocked;
		/* Never more than the response reader takes (curl's 2^62 - 1). */
		else if (out[i].id == SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE &&
			 out[i].value > SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE)
			out[i].value = SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE;
	}
	return p->n_settings;
}
