/* A complete HPACK decoder, for tests only: it checks the RFC 7541
 * Appendix C sequences (dynamic table included) and decodes the blocks
 * the plugin's encoder writes. It reuses the plugin's Huffman and integer
 * code, which have their own vector tests. */
#include <stdio.h>
#include <string.h>

#include "h2_tests.h"
#include "http_huffman.h"
#include "http_prefint.h"

void shb_h2_tdec_init(struct shb_h2_tdec *d, size_t max,
		      const struct shb_h2_vec_static *statics)
{
	memset(d, 0, sizeof(*d));
	d->max = max;
	d->statics = statics;
}

static size_t entry_size(const struct shb_h2_tdec_entry *e)
{
	return strlen(e->name) + strlen(e->value) + 32;
}

static void evict_to(struct shb_h2_tdec *d, size_t limit)
{
	while (d->n && d->size > limit) {
		d->n--;
		d->size -= entry_size(&d->entries[d->n]);
	}
}

static void insert(struct shb_h2_tdec *d, const char *name, const char *value)
{
	struct shb_h2_tdec_entry e;

	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.value, sizeof(e.value), "%s", value);
	evict_to(d, d->max >= entry_size(&e) ? d->max - entry_size(&e) : 0);
	if (entry_size(&e) > d->max || d->n == 64)
		return; /* larger than the table: it empties it */
	memmove(&d->entries[1], &d->entries[0], d->n * sizeof(e));
	d->entries[0] = e;
	d->n++;
	d->size += entry_size(&e);
}

/* Name and value of index i, or -1. */
static int lookup(const struct shb_h2_tdec *d, uint64_t i, const char **name,
		  const char **value)
{
	if (i >= 1 && i <= 61) {
		*name = d->statics[i].name;
		*value = d->statics[i].value;
		return 0;
	}
	if (i > 61 && i - 62 < d->n) {
		*name = d->entries[i - 62].name;
		*value = d->entries[i - 62].value;
		return 0;
	}
	return -1;
}

static int get_int(const uint8_t *p, size_t n, size_t *off, unsigned prefix,
		   uint64_t *v)
{
	size_t used = 0;

	if (shb_prefint_decode(p + *off, n - *off, prefix, v, &used) !=
	    SHB_PREFINT_DONE)
		return -1;
	*off += used;
	return 0;
}

static int get_string(const uint8_t *p, size_t n, size_t *off, char *out,
		      size_t cap, size_t *out_len, int *huff, size_t *wire)
{
	uint64_t len;
	size_t dec = 0;

	if (*off >= n)
		return -1;
	*huff = (p[*off] & 0x80) != 0;
	if (get_int(p, n, off, 7, &len) < 0 || len > n - *off)
		return -1;
	*wire = (size_t)len;
	if (*huff) {
		if (shb_huff_decode(p + *off, (size_t)len, (uint8_t *)out,
				    cap - 1, &dec) != SHB_HUFF_OK)
			return -1;
	} else {
		if (len >= cap)
			return -1;
		memcpy(out, p + *off, (size_t)len);
		dec = (size_t)len;
	}
	out[dec] = '\0';
	*out_len = dec;
	*off += (size_t)len;
	return 0;
}

static int literal(struct shb_h2_tdec *d, const uint8_t *p, size_t n,
		   size_t *off, unsigned prefix, struct shb_h2_tdec_field *f)
{
	const char *name, *value;

	if (get_int(p, n, off, prefix, &f->name_index) < 0)
		return -1;
	if (f->name_index == 0) {
		if (get_string(p, n, off, f->name, sizeof(f->name), &f->name_len,
			       &f->name_huffman, &f->name_wire) < 0)
			return -1;
	} else {
		if (lookup(d, f->name_index, &name, &value) < 0)
			return -1;
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->name_len = strlen(name);
	}
	return get_string(p, n, off, f->value, sizeof(f->value), &f->value_len,
			  &f->value_huffman, &f->value_wire);
}

long shb_h2_tdec_decode(struct shb_h2_tdec *d, const uint8_t *p, size_t n,
			struct shb_h2_tdec_field *out, size_t max)
{
	size_t off = 0, count = 0;

	while (off < n) {
		struct shb_h2_tdec_field *f = &out[count];
		uint8_t b = p[off];
		uint64_t v;

		if ((b & 0xe0) == 0x20) { /* size update */
			if (get_int(p, n, &off, 5, &v) < 0 || v > 4096)
				return -1;
			d->size_updates++;
			d->last_size_update = v;
			d->max = (size_t)v;
			evict_to(d, d->max);
			continue;
		}
		if (count == max)
			return -1;
		memset(f, 0, sizeof(*f));
		if (b & 0x80) {
			const char *name, *value;

			f->rep = SHB_H2_REP_INDEXED;
			if (get_int(p, n, &off, 7, &v) < 0 ||
			    lookup(d, v, &name, &value) < 0)
				return -1;
			f->name_index = v;
			snprintf(f->name, sizeof(f->name), "%s", name);
			snprintf(f->value, sizeof(f->value), "%s", value);
			f->name_len = strlen(name);
			f->value_len = strlen(value);
		} else if (b & 0x40) {
			f->rep = SHB_H2_REP_INCREMENTAL;
			if (literal(d, p, n, &off, 6, f) < 0)
				return -1;
			insert(d, f->name, f->value);
		} else {
			f->rep = (b & 0x10) ? SHB_H2_REP_NEVER : SHB_H2_REP_WITHOUT;
			if (literal(d, p, n, &off, 4, f) < 0)
				return -1;
		}
		count++;
	}
	return (long)count;
}
