/* Decoded fields of one header block: see h2_fields.h. */
#include "h2_fields.h"

#include <stdlib.h>
#include <string.h>

#include "http_huffman.h"

void shb_h2_fields_reset(struct shb_h2_fields *f)
{
	if (f->b.max == 0) /* zeroed: first use */
		shb_buf_init(&f->b, 1024, SHB_H2_FIELDS_MAX);
	shb_buf_clear(&f->b);
	f->count = 0;
	f->rec = f->str = f->name_len = 0;
}

void shb_h2_fields_free(struct shb_h2_fields *f)
{
	shb_buf_free(&f->b);
	memset(f, 0, sizeof(*f));
}

uint8_t *shb_h2_fields_room(struct shb_h2_fields *f, size_t n)
{
	return shb_buf_room(&f->b, n);
}

int shb_h2_fields_add(struct shb_h2_fields *f, const void *p, size_t n)
{
	return shb_buf_put(&f->b, p, n) == SHB_BUF_OK ? 0 : -1;
}

int shb_h2_fields_begin(struct shb_h2_fields *f)
{
	if (!shb_h2_fields_room(f, SHB_H2_FIELDS_REC))
		return -1;
	f->rec = f->b.len;
	shb_buf_commit(&f->b, SHB_H2_FIELDS_REC);
	f->name_len = 0;
	return 0;
}

void shb_h2_fields_str_begin(struct shb_h2_fields *f)
{
	f->str = f->b.len;
}

int shb_h2_fields_str_end(struct shb_h2_fields *f, int huffman)
{
	size_t raw = f->b.len - f->str, out_len = 0;
	/* The shortest code is 5 bits: at most 8/5 of the octets. */
	size_t cap = raw * 8 / 5 + 1;
	uint8_t *out;

	if (!huffman || raw == 0)
		return 0;
	/* Decoded after the raw octets, then moved over them. */
	out = shb_h2_fields_room(f, cap);
	if (!out)
		return -1;
	if (shb_huff_decode(f->b.p + f->str, raw, out, cap, &out_len) !=
	    SHB_HUFF_OK)
		return -2;
	memmove(f->b.p + f->str, out, out_len);
	f->b.len = f->str + out_len;
	return 0;
}

void shb_h2_fields_name_done(struct shb_h2_fields *f)
{
	f->name_len = f->b.len - f->rec - SHB_H2_FIELDS_REC;
}

void shb_h2_fields_end(struct shb_h2_fields *f)
{
	uint32_t lens[2];

	lens[0] = (uint32_t)f->name_len;
	lens[1] = (uint32_t)(f->b.len - f->rec - SHB_H2_FIELDS_REC - f->name_len);
	memcpy(f->b.p + f->rec, lens, sizeof(lens));
	f->count++;
}

int shb_h2_fields_next(const struct shb_h2_fields *f, size_t *off,
		       const uint8_t **name, size_t *nlen,
		       const uint8_t **value, size_t *vlen)
{
	uint32_t lens[2];

	if (*off + SHB_H2_FIELDS_REC > f->b.len)
		return 0;
	memcpy(lens, f->b.p + *off, sizeof(lens));
	*name = f->b.p + *off + SHB_H2_FIELDS_REC;
	*nlen = lens[0];
	*value = *name + lens[0];
	*vlen = lens[1];
	*off += SHB_H2_FIELDS_REC + lens[0] + lens[1];
	return 1;
}
