/* Retry Integrity Tag with nettle's GCM: unlike a GnuTLS AEAD handle it
 * needs no allocation, and its incremental AAD input avoids copying the
 * pseudo-packet into a bounded buffer. */
#include "quic_retry.h"

#include <string.h>
#include <nettle/gcm.h>
#include <nettle/memops.h>

/* RFC 9001 5.8, QUIC version 1. */
static const uint8_t retry_key[16] = {
	0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
	0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e,
};
static const uint8_t retry_nonce[12] = {
	0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2,
	0x23, 0x98, 0x25, 0xbb,
};

/* nettle's gcm_update accepts several calls only if all but the last are
 * whole blocks; this stages the pieces of the pseudo-packet accordingly. */
struct aad_feed {
	struct gcm_aes128_ctx *gcm;
	uint8_t block[GCM_BLOCK_SIZE];
	size_t used;
};

static void aad_add(struct aad_feed *f, const uint8_t *p, size_t len)
{
	if (f->used) {
		size_t take = GCM_BLOCK_SIZE - f->used;
		if (take > len)
			take = len;
		memcpy(f->block + f->used, p, take);
		f->used += take;
		p += take;
		len -= take;
		if (f->used < GCM_BLOCK_SIZE)
			return;
		gcm_aes128_update(f->gcm, GCM_BLOCK_SIZE, f->block);
		f->used = 0;
	}
	size_t whole = len - len % GCM_BLOCK_SIZE;
	if (whole)
		gcm_aes128_update(f->gcm, whole, p);
	memcpy(f->block, p + whole, len - whole);
	f->used = len - whole;
}

int shb_quic_retry_tag(const uint8_t *odcid, size_t odcid_len,
		       const uint8_t *pkt, size_t len,
		       uint8_t tag[SHB_QUIC_RETRY_TAG_LEN])
{
	struct gcm_aes128_ctx gcm;
	struct aad_feed f = { .gcm = &gcm, .used = 0 };
	uint8_t odcid_len8 = (uint8_t)odcid_len;

	if (odcid_len > 20 || (!odcid && odcid_len) || (!pkt && len) || !tag)
		return SHB_QUIC_CRYPTO_E_INVAL;
	gcm_aes128_set_key(&gcm, retry_key);
	gcm_aes128_set_iv(&gcm, sizeof(retry_nonce), retry_nonce);
	aad_add(&f, &odcid_len8, 1);
	if (odcid_len)
		aad_add(&f, odcid, odcid_len);
	if (len)
		aad_add(&f, pkt, len);
	if (f.used)
		gcm_aes128_update(&gcm, f.used, f.block);
	gcm_aes128_digest(&gcm, SHB_QUIC_RETRY_TAG_LEN, tag);
	return SHB_QUIC_CRYPTO_OK;
}

int shb_quic_retry_verify(const uint8_t *odcid, size_t odcid_len,
			  const uint8_t *pkt, size_t pkt_len)
{
	uint8_t tag[SHB_QUIC_RETRY_TAG_LEN];
	int rc;

	if (!pkt || pkt_len <= SHB_QUIC_RETRY_TAG_LEN)
		return SHB_QUIC_CRYPTO_E_INVAL;
	rc = shb_quic_retry_tag(odcid, odcid_len, pkt,
				pkt_len - SHB_QUIC_RETRY_TAG_LEN, tag);
	if (rc != SHB_QUIC_CRYPTO_OK)
		return rc;
	return memeql_sec(tag, pkt + pkt_len - SHB_QUIC_RETRY_TAG_LEN,
			  SHB_QUIC_RETRY_TAG_LEN) ? SHB_QUIC_CRYPTO_OK
						  : SHB_QUIC_CRYPTO_E_AUTH;
}
