/* Readers for the RFC 7541 vector files in tests/vectors. The directory
 * comes from SHB_H2_VECTORS (set by meson to the source tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_tests.h"

char *shb_h2_vec_read(const char *name)
{
	const char *dir = getenv("SHB_H2_VECTORS");
	char path[1024];
	FILE *f;
	long n;
	char *buf;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL_FATAL(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long shb_h2_unhex(const char *hex, size_t hex_len, uint8_t *out, size_t cap)
{
	if (hex_len % 2 || hex_len / 2 > cap)
		return -1;
	for (size_t i = 0; i < hex_len; i += 2) {
		int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(hex_len / 2);
}

/* Splits a line at TABs (in place); returns the field count. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/* Calls fn for every data line (not a comment, not empty). */
static void each_line(char *text, void (*fn)(char *line, void *ctx), void *ctx)
{
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(l);

		if (n && l[n - 1] == '\r')
			l[--n] = '\0';
		if (n == 0 || l[0] == '#')
			continue;
		fn(l, ctx);
	}
}

static void copy(char *dst, size_t cap, const char *src)
{
	CU_ASSERT_FATAL(strlen(src) < cap);
	strcpy(dst, src);
}

static void static_line(char *line, void *ctx)
{
	struct shb_h2_vec_static *t = ctx;
	char *f[3] = {0};
	size_t n = split_tabs(line, f, 3);
	long idx = strtol(f[0], NULL, 10);

	CU_ASSERT_FATAL(n >= 2 && idx >= 1 && idx <= 61);
	copy(t[idx].name, sizeof(t[idx].name), f[1]);
	copy(t[idx].value, sizeof(t[idx].value), n == 3 ? f[2] : "");
}

void shb_h2_vec_static_table(struct shb_h2_vec_static t[62])
{
	char *text = shb_h2_vec_read("hpack-static-table.txt");

	memset(t, 0, 62 * sizeof(*t));
	each_line(text, static_line, t);
	free(text);
	for (int i = 1; i <= 61; i++)
		CU_ASSERT(t[i].name[0] != '\0');
}

static void huff_line(char *line, void *ctx)
{
	struct shb_h2_vec_huff *t = ctx;
	unsigned sym, len;
	char bits[40];

	CU_ASSERT_FATAL(sscanf(line, "%u %39s %u", &sym, bits, &len) == 3);
	CU_ASSERT_FATAL(sym <= 256 && strlen(bits) == len && len < 32);
	copy(t[sym].bits, sizeof(t[sym].bits), bits);
	t[sym].len = len;
}

void shb_h2_vec_huffman(struct shb_h2_vec_huff t[257])
{
	char *text = shb_h2_vec_read("hpack-huffman.txt");

	memset(t, 0, 257 * sizeof(*t));
	each_line(text, huff_line, t);
	free(text);
	for (int i = 0; i < 257; i++)
		CU_ASSERT(t[i].len >= 5);
}

static void appc_line(char *line, void *ctx)
{
	struct shb_h2_vec_appendix_c *a = ctx;
	struct shb_h2_vec_case *c = a->ncases ? &a->cases[a->ncases - 1] : NULL;
	char *f[7] = {0};
	size_t n = split_tabs(line, f, 7);

	if (strcmp(f[0], "INT") == 0) {
		struct shb_h2_vec_int *v = &a->ints[a->nints++];
		long k;

		CU_ASSERT_FATAL(n == 5 && a->nints <= 8);
		copy(v->id, sizeof(v->id), f[1]);
		v->prefix = (unsigned)strtoul(f[2], NULL, 10);
		v->value = strtoull(f[3], NULL, 10);
		k = shb_h2_unhex(f[4], strlen(f[4]), v->bytes, sizeof(v->bytes));
		CU_ASSERT_FATAL(k > 0);
		v->len = (size_t)k;
	} else if (strcmp(f[0], "CASE") == 0) {
		CU_ASSERT_FATAL(n == 6 && a->ncases < 32);
		c = &a->cases[a->ncases++];
		memset(c, 0, sizeof(*c));
		copy(c->id, sizeof(c->id), f[1]);
		copy(c->context, sizeof(c->context), f[2]);
		c->max_table = (unsigned)strtoul(f[3], NULL, 10);
		c->huffman = atoi(f[4]);
	} else if (strcmp(f[0], "HEADER") == 0) {
		CU_ASSERT_FATAL(c && n == 3 && c->nfields < SHB_H2_VEC_MAX_FIELDS);
		copy(c->fields[c->nfields].name, 64, f[1]);
		copy(c->fields[c->nfields].value, 64, f[2]);
		c->nfields++;
	} else if (strcmp(f[0], "HEX") == 0) {
		long k;

		CU_ASSERT_FATAL(c && n == 2);
		k = shb_h2_unhex(f[1], strlen(f[1]), c->block, sizeof(c->block));
		CU_ASSERT_FATAL(k > 0);
		c->block_len = (size_t)k;
	} else if (strcmp(f[0], "DYN") == 0) {
		size_t i;

		CU_ASSERT_FATAL(c && n == 5);
		i = strtoul(f[1], NULL, 10);
		CU_ASSERT_FATAL(i == c->ndyn + 1 && i <= SHB_H2_VEC_MAX_FIELDS);
		c->dyn_size[c->ndyn] = (unsigned)strtoul(f[2], NULL, 10);
		copy(c->dyn[c->ndyn].name, 64, f[3]);
		copy(c->dyn[c->ndyn].value, 64, f[4]);
		c->ndyn++;
	} else if (strcmp(f[0], "TABLE_SIZE") == 0) {
		CU_ASSERT_FATAL(c && n == 2);
		c->table_size = (unsigned)strtoul(f[1], NULL, 10);
	} else {
		CU_ASSERT_FATAL(strcmp(f[0], "END") == 0 && c &&
				strcmp(f[1], c->id) == 0);
	}
}

void shb_h2_vec_appendix_c(struct shb_h2_vec_appendix_c *a)
{
	char *text = shb_h2_vec_read("hpack-appendix-c.txt");

	memset(a, 0, sizeof(*a));
	each_line(text, appc_line, a);
	free(text);
	/* C.1 (3), C.2 (4), C.3..C.6 (3 each). */
	CU_ASSERT_EQUAL(a->nints, 3);
	CU_ASSERT_EQUAL(a->ncases, 16);
}
