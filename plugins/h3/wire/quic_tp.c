/* QUIC transport parameters (RFC 9000 Sections 7.3, 7.4, 18). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "quic_frame.h"
#include "quic_rd.h"
#include "quic_tp.h"
#include "quic_tp_items.h"
#include "quic_wire_err.h"

#define LAST_KNOWN_ID SHB_QUIC_TP_RETRY_SCID
#define DEFAULT_MAX_UDP_PAYLOAD 65527
#define DEFAULT_ACK_DELAY_EXPONENT 3
#define DEFAULT_MAX_ACK_DELAY 25
#define PREFERRED_ADDRESS_FIXED 41 /* every field but the CID */
#define PREFERRED_ADDRESS_CID_LEN_AT 24

/* The integer parameters: ID, default, where the value lives. */
struct int_param {
	uint8_t id;
	uint64_t def;
	size_t off;
};

#define INT_PARAM(id, def, field) {id, def, offsetof(struct shb_quic_tp, field)}

static const struct int_param int_params[] = {
	INT_PARAM(SHB_QUIC_TP_MAX_IDLE_TIMEOUT, 0, max_idle_timeout_ms),
	INT_PARAM(SHB_QUIC_TP_MAX_UDP_PAYLOAD_SIZE, DEFAULT_MAX_UDP_PAYLOAD,
		  max_udp_payload_size),
	INT_PARAM(SHB_QUIC_TP_INITIAL_MAX_DATA, 0, initial_max_data),
	INT_PARAM(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 0,
		  initial_max_stream_data_bidi_local),
	INT_PARAM(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE, 0,
		  initial_max_stream_data_bidi_remote),
	INT_PARAM(SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, 0,
		  initial_max_stream_data_uni),
	INT_PARAM(SHB_QUIC_TP_INITIAL_MAX_STREAMS_BIDI, 0,
		  initial_max_streams_bidi),
	INT_PARAM(SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI, 0,
		  initial_max_streams_uni),
	INT_PARAM(SHB_QUIC_TP_ACK_DELAY_EXPONENT, DEFAULT_ACK_DELAY_EXPONENT,
		  ack_delay_exponent),
	INT_PARAM(SHB_QUIC_TP_MAX_ACK_DELAY, DEFAULT_MAX_ACK_DELAY,
		  max_ack_delay_ms),
	INT_PARAM(SHB_QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT,
		  SHB_QUIC_TP_MIN_ACTIVE_CID_LIMIT, active_connection_id_limit),
};

#define N_INT_PARAMS (sizeof(int_params) / sizeof(int_params[0]))

static uint64_t *int_field(struct shb_quic_tp *tp, const struct int_param *p)
{
	return (uint64_t *)(void *)((char *)tp + p->off);
}

static uint64_t int_value(const struct shb_quic_tp *tp,
			  const struct int_param *p)
{
	return *(const uint64_t *)(const void *)((const char *)tp + p->off);
}

static const struct int_param *find_int_param(uint64_t id)
{
	for (size_t i = 0; i < N_INT_PARAMS; i++)
		if (int_params[i].id == id)
			return &int_params[i];
	return NULL;
}

/* The range rules of Section 18.2; NULL when v is acceptable for id. */
static const char *int_param_problem(uint64_t id, uint64_t v)
{
	switch (id) {
	case SHB_QUIC_TP_MAX_UDP_PAYLOAD_SIZE:
		return v < SHB_QUIC_TP_MIN_UDP_PAYLOAD ?
			       "max_udp_payload_size below 1200" : NULL;
	case SHB_QUIC_TP_ACK_DELAY_EXPONENT:
		return v > SHB_QUIC_TP_MAX_ACK_DELAY_EXPONENT ?
			       "ack_delay_exponent above 20" : NULL;
	case SHB_QUIC_TP_MAX_ACK_DELAY:
		return v >= SHB_QUIC_TP_MAX_ACK_DELAY_LIMIT ?
			       "max_ack_delay of 2^14 or more" : NULL;
	case SHB_QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT:
		return v < SHB_QUIC_TP_MIN_ACTIVE_CID_LIMIT ?
			       "active_connection_id_limit below 2" : NULL;
	case SHB_QUIC_TP_INITIAL_MAX_STREAMS_BIDI:
	case SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI:
		return v > SHB_QUIC_MAX_STREAMS ?
			       "initial_max_streams above 2^60" : NULL;
	default:
		return NULL;
	}
}

void shb_quic_tp_init(struct shb_quic_tp *tp)
{
	memset(tp, 0, sizeof(*tp));
	for (size_t i = 0; i < N_INT_PARAMS; i++)
		*int_field(tp, &int_params[i]) = int_params[i].def;
}

static void put_param(struct shb_quic_wr *w, uint64_t id, const uint8_t *v,
		      size_t len)
{
	shb_quic_wr_varint(w, id);
	shb_quic_wr_varint(w, len);
	shb_quic_wr_bytes(w, v, len);
}

static void put_int_param(struct shb_quic_wr *w, uint64_t id, uint64_t v)
{
	shb_quic_wr_varint(w, id);
	shb_quic_wr_varint(w, shb_quic_varint_len(v));
	shb_quic_wr_varint(w, v);
}

static int client_tp_valid(const struct shb_quic_tp *tp)
{
	for (size_t i = 0; i < N_INT_PARAMS; i++) {
		uint64_t v = int_value(tp, &int_params[i]);

		if (v > SHB_QUIC_VARINT_MAX ||
		    int_param_problem(int_params[i].id, v))
			return 0;
	}
	return tp->initial_scid.len <= SHB_QUIC_MAX_CID_LEN &&
	       tp->disable_active_migration <= 1;
}

int shb_quic_tp_encode_client(uint8_t *out, size_t cap,
			      const struct shb_quic_tp *tp, size_t *written)
{
	struct shb_quic_wr w;

	*written = 0;
	if (!client_tp_valid(tp))
		return SHB_QUIC_E_INVALID;
	if (!out)
		return SHB_QUIC_E_SPACE;
	shb_quic_wr_init(&w, out, cap);
	/* int_params is in ascending ID order; 0x0c and 0x0f slot in. */
	for (size_t i = 0; i < N_INT_PARAMS; i++) {
		const struct int_param *p = &int_params[i];
		uint64_t v = int_value(tp, p);

		if (p->id == SHB_QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT &&
		    tp->disable_active_migration)
			put_param(&w, SHB_QUIC_TP_DISABLE_ACTIVE_MIGRATION, NULL,
				  0);
		if (v != p->def)
			put_int_param(&w, p->id, v);
	}
	put_param(&w, SHB_QUIC_TP_INITIAL_SCID, tp->initial_scid.id,
		  tp->initial_scid.len);
	if (w.fail)
		return SHB_QUIC_E_SPACE;
	*written = w.n;
	return SHB_QUIC_OK;
}

static const char *decode_cid(struct shb_quic_cid *c, const uint8_t *v,
			      size_t len)
{
	if (shb_quic_cid_set(c, v, len) != SHB_QUIC_OK)
		return "connection ID parameter longer than 20 bytes";
	return NULL;
}

static const char *decode_preferred_address(const uint8_t *v, size_t len)
{
	uint8_t cid_len;

	if (len < PREFERRED_ADDRESS_FIXED)
		return "preferred_address too short";
	cid_len = v[PREFERRED_ADDRESS_CID_LEN_AT];
	if (cid_len < 1 || cid_len > SHB_QUIC_MAX_CID_LEN)
		return "preferred_address connection ID length outside 1..20";
	if (len != PREFERRED_ADDRESS_FIXED + (size_t)cid_len)
		return "preferred_address length does not match its fields";
	return NULL;
}

static const char *decode_int(struct shb_quic_tp *tp,
			      const struct int_param *p, const uint8_t *v,
			      size_t len)
{
	uint64_t x;

	if (len == 0 || shb_quic_varint_decode(v, len, &x) != len)
		return "integer transport parameter does not fill its length";
	*int_field(tp, p) = x;
	return int_param_problem(p->id, x);
}

/* One known parameter; NULL when it is acceptable. */
static const char *decode_known(struct shb_quic_tp *tp, uint64_t id,
				const uint8_t *v, size_t len)
{
	const struct int_param *p = find_int_param(id);

	if (p)
		return decode_int(tp, p, v, len);
	switch (id) {
	case SHB_QUIC_TP_ORIGINAL_DCID:
		return decode_cid(&tp->original_dcid, v, len);
	case SHB_QUIC_TP_INITIAL_SCID:
		return decode_cid(&tp->initial_scid, v, len);
	case SHB_QUIC_TP_RETRY_SCID:
		return decode_cid(&tp->retry_scid, v, len);
	case SHB_QUIC_TP_STATELESS_RESET_TOKEN:
		if (len != sizeof(tp->stateless_reset_token))
			return "stateless_reset_token not 16 bytes";
		memcpy(tp->stateless_reset_token, v, len);
		return NULL;
	case SHB_QUIC_TP_DISABLE_ACTIVE_MIGRATION:
		if (len != 0)
			return "disable_active_migration not empty";
		tp->disable_active_migration = 1;
		return NULL;
	default: /* SHB_QUIC_TP_PREFERRED_ADDRESS: shape only, no migration */
		return decode_preferred_address(v, len);
	}
}

/* RFC 9221 Section 3: an integer, once. */
static const char *decode_datagram(struct shb_quic_tp *tp, const uint8_t *v,
				   size_t len)
{
	if (tp->has_max_datagram)
		return "duplicate transport parameter";
	tp->has_max_datagram = 1;
	if (len == 0 || shb_quic_varint_decode(v, len, &tp->max_datagram_frame_size) != len)
		return "integer transport parameter does not fill its length";
	return NULL;
}

/* RFC 9368 Section 3: Chosen Version, then Available Versions, 32 bits
 * each; a version 0 anywhere is a parsing failure. */
static const char *decode_versions(struct shb_quic_tp *tp, const uint8_t *v,
				   size_t len)
{
	if (tp->has_version_info)
		return "duplicate transport parameter";
	tp->has_version_info = 1;
	if (len < 4 || len % 4)
		return "version_information not a list of versions";
	for (size_t i = 0; i < len; i += 4)
		if (!(v[i] | v[i + 1] | v[i + 2] | v[i + 3]))
			return "version_information with version 0";
	tp->chosen_version = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 |
			     (uint32_t)v[2] << 8 | v[3];
	return NULL;
}

static int tp_fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return SHB_QUIC_E_TRANSPORT_PARAM;
}

int shb_quic_tp_decode_server(const uint8_t *in, size_t len,
			      struct shb_quic_tp *tp, const char **why)
{
	struct shb_quic_rd r = {in, in ? len : 0};

	shb_quic_tp_init(tp);
	if (why)
		*why = NULL;
	while (r.left) {
		uint64_t id, plen;
		const uint8_t *v;
		const char *problem;

		if (shb_quic_rd_varint(&r, &id) < 0 ||
		    shb_quic_rd_varint(&r, &plen) < 0 ||
		    shb_quic_rd_bytes(&r, plen, &v) < 0)
			return tp_fail(why, "transport parameter truncated");
		if (id == SHB_QUIC_TP_GREASE_QUIC_BIT) {
			problem = tp->grease_quic_bit ? "duplicate transport parameter"
				  : plen ? "grease_quic_bit not empty" : NULL;
			tp->grease_quic_bit = 1;
			if (problem)
				return tp_fail(why, problem);
			continue;
		}
		if (id == SHB_QUIC_TP_VERSION_INFORMATION) {
			problem = decode_versions(tp, v, (size_t)plen);
			if (problem)
				return tp_fail(why, problem);
			continue;
		}
		if (id == SHB_QUIC_TP_MAX_DATAGRAM_FRAME_SIZE) {
			problem = decode_datagram(tp, v, (size_t)plen);
			if (problem)
				return tp_fail(why, problem);
			continue;
		}
		if (id > LAST_KNOWN_ID)
			continue; /* unknown or reserved: ignored */
		if (tp->present & SHB_QUIC_TP_BIT(id))
			return tp_fail(why, "duplicate transport parameter");
		tp->present |= SHB_QUIC_TP_BIT(id);
		problem = decode_known(tp, id, v, (size_t)plen);
		if (problem)
			return tp_fail(why, problem);
	}
	return SHB_QUIC_OK;
}

static int cid_matches(const struct shb_quic_cid *a,
		       const struct shb_quic_cid *b)
{
	return shb_quic_cid_eq(a, b->id, b->len);
}

int shb_quic_tp_check_server_cids(const struct shb_quic_tp *tp,
				  const struct shb_quic_cid *first_dcid,
				  const struct shb_quic_cid *server_scid,
				  const struct shb_quic_cid *retry_scid,
				  const char **why)
{
	uint32_t has = tp->present;

	if (why)
		*why = NULL;
	if (!(has & SHB_QUIC_TP_BIT(SHB_QUIC_TP_ORIGINAL_DCID)))
		return tp_fail(why, "original_destination_connection_id missing");
	if (!cid_matches(&tp->original_dcid, first_dcid))
		return tp_fail(why, "original_destination_connection_id mismatch");
	if (!(has & SHB_QUIC_TP_BIT(SHB_QUIC_TP_INITIAL_SCID)))
		return tp_fail(why, "initial_source_connection_id missing");
	if (!cid_matches(&tp->initial_scid, server_scid))
		return tp_fail(why, "initial_source_connection_id mismatch");
	if (!retry_scid) {
		if (has & SHB_QUIC_TP_BIT(SHB_QUIC_TP_RETRY_SCID))
			return tp_fail(why, "retry_source_connection_id "
					    "without a Retry");
		return SHB_QUIC_OK;
	}
	if (!(has & SHB_QUIC_TP_BIT(SHB_QUIC_TP_RETRY_SCID)))
		return tp_fail(why, "retry_source_connection_id missing");
	if (!cid_matches(&tp->retry_scid, retry_scid))
		return tp_fail(why, "retry_source_connection_id mismatch");
	return SHB_QUIC_OK;
}

/* ---- the fingerprint of the ClientHello's parameters ---------------------- */

/* Skips a vector whose length is `lenlen` octets (1 or 2) ahead. */
static int skip_vec(struct shb_quic_rd *r, int lenlen)
{
	const uint8_t *p;
	uint8_t a, b = 0;

	if (shb_quic_rd_u8(r, &a) < 0 || (lenlen == 2 && shb_quic_rd_u8(r, &b) < 0))
		return -1;
	return shb_quic_rd_bytes(r, lenlen == 2 ? (uint64_t)(a << 8 | b) : a, &p);
}

/* The quic_transport_parameters extension of a ClientHello message: its
 * body in *ext, or -1 without one. */
static int find_tp_ext(const uint8_t *hello, size_t len, struct shb_quic_rd *ext)
{
	struct shb_quic_rd r = {hello, len};
	const uint8_t *p;
	uint8_t t;

	/* type, uint24 length, version, random */
	if (shb_quic_rd_u8(&r, &t) < 0 || t != 1 || shb_quic_rd_bytes(&r, 3 + 2 + 32, &p) < 0 ||
	    skip_vec(&r, 1) < 0 || skip_vec(&r, 2) < 0 || skip_vec(&r, 1) < 0 ||
	    shb_quic_rd_bytes(&r, 2, &p) < 0)
		return -1;
	while (r.left >= 4) {
		uint8_t h[4];
		for (int i = 0; i < 4; i++)
			(void)shb_quic_rd_u8(&r, &h[i]);
		uint64_t n = (uint64_t)(h[2] << 8 | h[3]);
		if (shb_quic_rd_bytes(&r, n, &p) < 0)
			return -1;
		if ((h[0] << 8 | h[1]) == SHB_QUIC_TP_EXTENSION) {
			ext->p = p;
			ext->left = (size_t)n;
			return 0;
		}
	}
	return -1;
}

size_t shb_quic_tp_hello_ids(const uint8_t *hello, size_t len, char *out,
			     size_t cap)
{
	struct shb_quic_rd r;
	size_t at = 0;

	if (cap == 0 || find_tp_ext(hello, len, &r) < 0)
		return 0;
	while (r.left) {
		uint64_t id, n;
		const uint8_t *v;
		int w;

		if (shb_quic_rd_varint(&r, &id) < 0 || shb_quic_rd_varint(&r, &n) < 0 ||
		    shb_quic_rd_bytes(&r, n, &v) < 0)
			return 0;
		w = snprintf(out + at, cap - at, "%s%llu", at ? "-" : "",
			     (unsigned long long)id);
		if (w < 0 || (size_t)w >= cap - at)
			return 0;
		at += (size_t)w;
	}
	return at;
}
