/* QUIC v1 packet headers without packet protection (RFC 9000 Section 17,
 * RFC 8999 for the version-independent part). */
#include <string.h>

#include "quic_header.h"
#include "quic_pn.h"
#include "quic_rd.h"
#include "quic_wire_err.h"

#define HDR_FORM_LONG 0x80
#define HDR_FIXED_BIT 0x40
#define HDR_LONG_TYPE(b) (((b) >> 4) & 0x03)

/* Bytes needed from the packet number on for header protection's sample,
 * which assumes a 4-byte packet number. */
#define HP_NEEDED (SHB_QUIC_HP_SAMPLE_OFFSET + SHB_QUIC_HP_SAMPLE_LEN)

static int read_cid(struct shb_quic_rd *r, uint8_t *len, const uint8_t **cid)
{
	if (shb_quic_rd_u8(r, len) < 0 || *len > SHB_QUIC_MAX_CID_LEN)
		return -1;
	return shb_quic_rd_bytes(r, *len, cid);
}

/* The Version Negotiation body: a non-empty list of 32-bit versions that
 * fills the rest of the datagram (it cannot be coalesced). */
static int parse_vn(struct shb_quic_rd *r, size_t len, struct shb_quic_hdr *h)
{
	if (r->left == 0 || r->left % 4)
		return SHB_QUIC_E_DROP;
	h->versions = r->p;
	h->version_count = r->left / 4;
	h->packet_len = len;
	return SHB_QUIC_OK;
}

/* Retry: the token is whatever lies between the SCID and the 16-byte
 * integrity tag that ends the datagram. */
static int parse_retry(struct shb_quic_rd *r, size_t len,
		       struct shb_quic_hdr *h)
{
	if (r->left < SHB_QUIC_AEAD_TAG_LEN)
		return SHB_QUIC_E_DROP;
	h->token_len = r->left - SHB_QUIC_AEAD_TAG_LEN;
	h->token = h->token_len ? r->p : NULL;
	h->retry_tag = r->p + h->token_len;
	h->packet_len = len;
	return SHB_QUIC_OK;
}

/* Initial, 0-RTT, Handshake: [token,] Length, then the protected packet
 * number and payload, Length bytes in all. */
static int parse_protected_long(struct shb_quic_rd *r, const uint8_t *in,
				struct shb_quic_hdr *h)
{
	uint64_t length;

	if (h->type == SHB_QUIC_PT_INITIAL) {
		uint64_t tlen;
		const uint8_t *tok;

		if (shb_quic_rd_varint(r, &tlen) < 0 ||
		    shb_quic_rd_bytes(r, tlen, &tok) < 0)
			return SHB_QUIC_E_DROP;
		h->token_len = (size_t)tlen;
		h->token = tlen ? tok : NULL;
	}
	if (shb_quic_rd_varint(r, &length) < 0)
		return SHB_QUIC_E_DROP;
	if (length > r->left || length < HP_NEEDED)
		return SHB_QUIC_E_DROP;
	h->pn_offset = (size_t)(r->p - in);
	h->packet_len = h->pn_offset + (size_t)length;
	return SHB_QUIC_OK;
}

static int parse_long(const uint8_t *in, size_t len, int any_bit,
		      struct shb_quic_hdr *h)
{
	struct shb_quic_rd r = {in + 1, len - 1};
	int cids_ok;

	if (shb_quic_rd_u32(&r, &h->version) < 0)
		return SHB_QUIC_E_DROP;
	cids_ok = read_cid(&r, &h->dcid_len, &h->dcid) == 0 &&
		  read_cid(&r, &h->scid_len, &h->scid) == 0;
	if (!cids_ok) {
		h->dcid = h->scid = NULL;
		h->dcid_len = h->scid_len = 0;
	}
	if (h->version != 0 && h->version != SHB_QUIC_VERSION_1)
		return SHB_QUIC_E_VERSION;
	if (!cids_ok)
		return SHB_QUIC_E_DROP;
	if (h->version == 0) {
		h->type = SHB_QUIC_PT_VERSION_NEG;
		return parse_vn(&r, len, h);
	}
	h->type = HDR_LONG_TYPE(h->first);
	if (!(h->first & HDR_FIXED_BIT) && !any_bit)
		return SHB_QUIC_E_DROP;
	if (h->type == SHB_QUIC_PT_RETRY)
		return parse_retry(&r, len, h);
	return parse_protected_long(&r, in, h);
}

static int parse_short(const uint8_t *in, size_t len, size_t dcid_len,
		       int any_bit, struct shb_quic_hdr *h)
{
	h->type = SHB_QUIC_PT_1RTT;
	if ((!(h->first & HDR_FIXED_BIT) && !any_bit) ||
	    dcid_len > SHB_QUIC_MAX_CID_LEN)
		return SHB_QUIC_E_DROP;
	if (len - 1 < dcid_len || len - 1 - dcid_len < HP_NEEDED)
		return SHB_QUIC_E_DROP;
	h->dcid_len = (uint8_t)dcid_len;
	h->dcid = in + 1;
	h->pn_offset = 1 + dcid_len;
	h->packet_len = len;
	return SHB_QUIC_OK;
}

int shb_quic_hdr_parse_bit(const uint8_t *in, size_t len,
			   size_t short_dcid_len, int any_fixed_bit,
			   struct shb_quic_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len == 0)
		return SHB_QUIC_E_DROP;
	h->first = in[0];
	if (in[0] & HDR_FORM_LONG)
		return parse_long(in, len, any_fixed_bit, h);
	return parse_short(in, len, short_dcid_len, any_fixed_bit, h);
}

int shb_quic_hdr_parse(const uint8_t *in, size_t len, size_t short_dcid_len,
		       struct shb_quic_hdr *h)
{
	return shb_quic_hdr_parse_bit(in, len, short_dcid_len, 0, h);
}

uint32_t shb_quic_vn_version(const struct shb_quic_hdr *h, size_t i)
{
	const uint8_t *v = h->versions + 4 * i;

	return (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 |
	       (uint32_t)v[2] << 8 | v[3];
}

int shb_quic_vn_lists(const struct shb_quic_hdr *h, uint32_t version)
{
	for (size_t i = 0; i < h->version_count; i++)
		if (shb_quic_vn_version(h, i) == version)
			return 1;
	return 0;
}

unsigned shb_quic_hdr_pn_len(uint8_t first)
{
	return (unsigned)(first & 0x03) + 1;
}

int shb_quic_hdr_reserved_ok(uint8_t first)
{
	uint8_t mask = (first & HDR_FORM_LONG) ? 0x0c : 0x18;

	return (first & mask) ? SHB_QUIC_E_PROTOCOL : SHB_QUIC_OK;
}

unsigned shb_quic_hdr_key_phase(uint8_t first)
{
	return (first >> 2) & 1;
}

static int spec_ok(const struct shb_quic_hdr_spec *s)
{
	int is_long = s->type != SHB_QUIC_PT_1RTT;

	if (s->type != SHB_QUIC_PT_INITIAL && s->type != SHB_QUIC_PT_0RTT &&
	    s->type != SHB_QUIC_PT_HANDSHAKE && s->type != SHB_QUIC_PT_1RTT)
		return 0;
	if (s->pn_len < 1 || s->pn_len > 4 || s->pn > SHB_QUIC_PN_MAX)
		return 0;
	if (s->dcid_len > SHB_QUIC_MAX_CID_LEN ||
	    (s->dcid_len && !s->dcid))
		return 0;
	if (s->token_len && (s->type != SHB_QUIC_PT_INITIAL || !s->token))
		return 0;
	if (!is_long)
		return s->key_phase <= 1;
	if (s->scid_len > SHB_QUIC_MAX_CID_LEN || (s->scid_len && !s->scid))
		return 0;
	return s->length_size == 2 || s->length_size == 4;
}

static void build_long(struct shb_quic_wr *w, const struct shb_quic_hdr_spec *s,
		       struct shb_quic_hdr_layout *l)
{
	static const uint8_t v1[4] = {0, 0, 0, 1};
	uint8_t len_field[4];

	shb_quic_wr_u8(w, (uint8_t)(HDR_FORM_LONG | HDR_FIXED_BIT |
				    s->type << 4 | (s->pn_len - 1)));
	shb_quic_wr_bytes(w, v1, 4);
	shb_quic_wr_u8(w, (uint8_t)s->dcid_len);
	shb_quic_wr_bytes(w, s->dcid, s->dcid_len);
	shb_quic_wr_u8(w, (uint8_t)s->scid_len);
	shb_quic_wr_bytes(w, s->scid, s->scid_len);
	if (s->type == SHB_QUIC_PT_INITIAL) {
		shb_quic_wr_varint(w, s->token_len);
		shb_quic_wr_bytes(w, s->token, s->token_len);
	}
	l->length_offset = w->n;
	l->length_size = s->length_size;
	/* A zero Length in its reserved width, so the header reads back
	 * consistently even before the patch. */
	shb_quic_varint_encode_n(len_field, sizeof(len_field), 0,
				 s->length_size);
	shb_quic_wr_bytes(w, len_field, s->length_size);
}

int shb_quic_hdr_build(uint8_t *out, size_t cap,
		       const struct shb_quic_hdr_spec *s,
		       struct shb_quic_hdr_layout *l)
{
	struct shb_quic_wr w;
	uint8_t pn[4];

	if (!spec_ok(s))
		return SHB_QUIC_E_INVALID;
	if (!out)
		return SHB_QUIC_E_SPACE;
	shb_quic_wr_init(&w, out, cap);
	memset(l, 0, sizeof(*l));
	if (s->type == SHB_QUIC_PT_1RTT) {
		shb_quic_wr_u8(&w, (uint8_t)(HDR_FIXED_BIT | s->key_phase << 2 |
					     (s->pn_len - 1)));
		shb_quic_wr_bytes(&w, s->dcid, s->dcid_len);
	} else {
		build_long(&w, s, l);
	}
	l->pn_offset = w.n;
	l->pn_len = s->pn_len;
	shb_quic_pn_write(pn, s->pn, s->pn_len);
	shb_quic_wr_bytes(&w, pn, s->pn_len);
	if (w.fail)
		return SHB_QUIC_E_SPACE;
	l->len = w.n;
	return SHB_QUIC_OK;
}

int shb_quic_hdr_set_length(uint8_t *pkt, const struct shb_quic_hdr_layout *l,
			    size_t packet_len)
{
	if (!l->length_size || packet_len < l->pn_offset + l->pn_len)
		return SHB_QUIC_E_INVALID;
	if (!shb_quic_varint_encode_n(pkt + l->length_offset, l->length_size,
				      packet_len - l->pn_offset,
				      l->length_size))
		return SHB_QUIC_E_INVALID;
	return SHB_QUIC_OK;
}

size_t shb_quic_hp_min_payload(unsigned pn_len)
{
	return pn_len >= SHB_QUIC_HP_SAMPLE_OFFSET ?
		       0 : SHB_QUIC_HP_SAMPLE_OFFSET - pn_len;
}
