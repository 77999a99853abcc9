/* A client's transport parameters as a list: see quic_tp_items.h. */
#include "quic_tp_items.h"

#include "quic_rd.h"
#include "quic_wire_err.h"

#define BYTES_MAX 32u
/* Where in the random octets each choice comes from. */
#define RND_GREASE_N 0
#define RND_GREASE_LEN 2
#define RND_GREASE_BYTES 4
#define RND_VERSION 20
#define RND_SHUFFLE (SHB_QUIC_TP_RANDOM_LEN - SHB_QUIC_TP_ITEMS_MAX)

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put(struct shb_quic_wr *w, uint64_t id, const uint8_t *v,
		size_t len)
{
	shb_quic_wr_varint(w, id);
	shb_quic_wr_varint(w, len);
	shb_quic_wr_bytes(w, v, len);
}

static void put_grease(struct shb_quic_wr *w, const struct shb_quic_tp_item *p,
		       const uint8_t *rnd)
{
	uint64_t n = (uint64_t)(rnd[RND_GREASE_N] << 8 | rnd[RND_GREASE_N + 1]);
	size_t len = p->len;

	if (p->value == 1)
		len = rnd[RND_GREASE_LEN] % (p->len + 1);
	put(w, 31 * n + 27, rnd + RND_GREASE_BYTES, len);
}

static void put_versions(struct shb_quic_wr *w, const struct shb_quic_tp_item *p,
			 const uint8_t *rnd)
{
	uint8_t v[12];
	uint32_t grease = (get32(rnd + RND_VERSION) & 0xf0f0f0f0u) | 0x0a0a0a0au;

	put32(v, 1);
	put32(v + 4, p->value == 1 ? grease : 1);
	put32(v + 8, p->value == 1 ? 1 : grease);
	/* value 2: no reserved version, v1 alone */
	put(w, p->id, v, p->value == 2 ? 8 : sizeof(v));
}

static int item_ok(const struct shb_quic_tp_item *it, size_t i)
{
	const struct shb_quic_tp_item *p = &it[i];

	if (p->id > SHB_QUIC_VARINT_MAX || p->value > SHB_QUIC_VARINT_MAX)
		return 0;
	if ((p->kind == SHB_QUIC_TPK_BYTES && (p->len > BYTES_MAX ||
					       (p->len && !p->bytes))) ||
	    (p->kind == SHB_QUIC_TPK_GREASE && p->len > SHB_QUIC_TP_GREASE_MAX) ||
	    (p->kind == SHB_QUIC_TPK_VERSIONS && p->value > 2) ||
	    p->kind > SHB_QUIC_TPK_VERSIONS)
		return 0;
	for (size_t j = 0; j < i; j++)
		if (p->kind != SHB_QUIC_TPK_GREASE &&
		    it[j].kind != SHB_QUIC_TPK_GREASE && it[j].id == p->id)
			return 0;
	return 1;
}

int shb_quic_tp_encode_items(uint8_t *out, size_t cap,
			     const struct shb_quic_tp_item *it, size_t n,
			     const struct shb_quic_cid *scid,
			     const uint8_t *rnd, size_t *written)
{
	struct shb_quic_wr w;

	*written = 0;
	if (n > SHB_QUIC_TP_ITEMS_MAX)
		return SHB_QUIC_E_INVALID;
	for (size_t i = 0; i < n; i++)
		if (!item_ok(it, i))
			return SHB_QUIC_E_INVALID;
	if (!out)
		return SHB_QUIC_E_SPACE;
	shb_quic_wr_init(&w, out, cap);
	for (size_t i = 0; i < n; i++) {
		const struct shb_quic_tp_item *p = &it[i];

		if (p->kind == SHB_QUIC_TPK_INT) {
			shb_quic_wr_varint(&w, p->id);
			shb_quic_wr_varint(&w, shb_quic_varint_len(p->value));
			shb_quic_wr_varint(&w, p->value);
		} else if (p->kind == SHB_QUIC_TPK_EMPTY) {
			put(&w, p->id, NULL, 0);
		} else if (p->kind == SHB_QUIC_TPK_BYTES) {
			put(&w, p->id, p->bytes, p->len);
		} else if (p->kind == SHB_QUIC_TPK_SCID) {
			put(&w, p->id, scid->id, scid->len);
		} else if (p->kind == SHB_QUIC_TPK_GREASE) {
			put_grease(&w, p, rnd);
		} else {
			put_versions(&w, p, rnd);
		}
	}
	if (w.fail)
		return SHB_QUIC_E_SPACE;
	*written = w.n;
	return SHB_QUIC_OK;
}

void shb_quic_tp_items_shuffle(struct shb_quic_tp_item *it, size_t n,
			       const uint8_t *rnd)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rnd[RND_SHUFFLE + i - 1] % i;
		struct shb_quic_tp_item t = it[i - 1];

		it[i - 1] = it[j];
		it[j] = t;
	}
}

uint64_t shb_quic_tp_items_int(const struct shb_quic_tp_item *it, size_t n,
			       uint64_t id, uint64_t def)
{
	for (size_t i = 0; i < n; i++)
		if (it[i].kind == SHB_QUIC_TPK_INT && it[i].id == id)
			return it[i].value;
	return def;
}
