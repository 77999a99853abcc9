/* Request templates (core/cli/template.c): placeholders in the path, header
 * values and body, the line files they name and --body-lines. Input: one
 * mode byte, eight bytes of a request number, then up to five fields
 * separated by NUL bytes: the path (a '/' put in front), two header
 * values, the body and the bytes of the file "f" of a scratch directory
 * (fuzz_files.h) that {{line:f}} and --body-lines f read.
 *   mode bit 0: the header values are given; bit 1: the body is given
 *   (-d); bit 2: --body-lines f.
 *
 * Checked besides memory safety: compile gives a template, nothing (no
 * "{{" anywhere and no --body-lines) or a one-line error; an expansion
 * stays within a scratch buffer of exactly shb_tmpl_scratch_size bytes
 * (AddressSanitizer), the path starts with '/', the headers are the ones
 * given in order, the same numbers and PRNG state expand to the same
 * bytes, and with --body-lines the body is line (seq mod lines) of f as
 * split here. */
#include <string.h>

#include "cli/config.h"
#include "fuzz_files.h"
#include "fuzz_input.h"
#include "cli/template.h"

#define FIELDS 5

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_files_init(argc, argv);
	return 0;
}

/* Line seq mod lines of f[0..n) (n > 0): LF ends a line, a last line
 * without one counts. */
static void file_line(const uint8_t *f, size_t n, uint64_t seq,
		      const uint8_t **p, size_t *len)
{
	size_t lines = 0;

	for (size_t i = 0; i < n; i++)
		lines += f[i] == '\n';
	lines += f[n - 1] != '\n';
	uint64_t want = seq % lines;
	size_t at = 0;
	for (uint64_t k = 0; k < want; k++)
		at = (size_t)((const uint8_t *)memchr(f + at, '\n', n - at) - f) + 1;
	const uint8_t *nl = memchr(f + at, '\n', n - at);
	*p = f + at;
	*len = nl ? (size_t)(nl - f) - at : n - at;
}

struct expansion {
	uint8_t *scratch;
	struct shb_var_header *hv;
	struct shb_request_var var;
};

static void expand(const struct shb_tmpl *t, uint64_t seq,
		   struct expansion *x)
{
	static const uint8_t seed[32] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct shb_tmpl_rng rng;
	struct shb_tmpl_ctx ctx = {.seq = seq, .worker = 3, .conn = 77,
				   .rng = &rng};
	size_t nh = shb_tmpl_var_headers(t);

	shb_tmpl_rng_seed(&rng, seed);
	x->scratch = malloc(shb_tmpl_scratch_size(t) + 1);
	x->hv = malloc((nh ? nh : 1) * sizeof(*x->hv));
	if (!x->scratch || !x->hv)
		abort();
	shb_tmpl_expand(t, &ctx, x->scratch, x->hv, &x->var);
}

static void check_same(const struct expansion *a, const struct expansion *b)
{
	FZ_CHECK(a->var.flags == b->var.flags);
	FZ_CHECK(a->var.path_len == b->var.path_len);
	FZ_CHECK(!a->var.path_len ||
		 !memcmp(a->var.path, b->var.path, a->var.path_len));
	FZ_CHECK(a->var.header_count == b->var.header_count);
	for (size_t i = 0; i < a->var.header_count; i++) {
		FZ_CHECK(a->hv[i].index == b->hv[i].index &&
			 a->hv[i].value_len == b->hv[i].value_len);
		FZ_CHECK(!a->hv[i].value_len ||
			 !memcmp(a->hv[i].value, b->hv[i].value, a->hv[i].value_len));
	}
	FZ_CHECK(a->var.body_len == b->var.body_len);
	FZ_CHECK(!a->var.body_len ||
		 !memcmp(a->var.body, b->var.body, a->var.body_len));
}

static void check_template(const struct shb_tmpl *t,
			   const struct shb_tmpl_src *src, uint64_t seq,
			   const uint8_t *f, size_t fn)
{
	struct expansion a, b;

	FZ_CHECK(shb_tmpl_scratch_size(t) <= SHB_TMPL_MAX_HEAD + SHB_MAX_BODY);
	FZ_CHECK(shb_tmpl_var_headers(t) <= src->header_count);
	expand(t, seq, &a);
	expand(t, seq, &b);
	check_same(&a, &b);
	if (a.var.flags & SHB_VAR_PATH)
		FZ_CHECK(a.var.path_len >= 1 && a.var.path[0] == '/');
	for (size_t i = 0; i < a.var.header_count; i++)
		FZ_CHECK(a.hv[i].index < src->header_count &&
			 (i == 0 || a.hv[i].index > a.hv[i - 1].index));
	if (src->body_lines) {
		const uint8_t *p;
		size_t len;

		file_line(f, fn, seq, &p, &len);
		FZ_CHECK(a.var.body_len == len);
		FZ_CHECK(!len || !memcmp(a.var.body, p, len));
	}
	FZ_CHECK(shb_tmpl_has_body(t) == !!(a.var.flags & SHB_VAR_BODY));
	free(a.scratch);
	free(a.hv);
	free(b.scratch);
	free(b.hv);
}

static int has_braces(const char *s)
{
	return s && strstr(s, "{{") != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[4096];
	struct fz in = {data, size};
	const char *field[FIELDS] = {"", "", "", "", ""};
	size_t flen[FIELDS] = {0};
	unsigned mode = fz_u8(&in);
	uint64_t seq = 0;
	char err[512];

	for (int i = 0; i < 8; i++)
		seq |= (uint64_t)fz_u8(&in) << (8 * i);
	if (in.n > 16384 || !fz_files_tame(in.p, in.n))
		return 0;
	for (int i = 0; i < FIELDS && in.n; i++) {
		const uint8_t *nul = i + 1 < FIELDS ? memchr(in.p, '\0', in.n) : NULL;
		size_t n = nul ? (size_t)(nul - in.p) : in.n;
		field[i] = (const char *)in.p;
		flen[i] = n;
		in.p += n + (nul != NULL);
		in.n -= n + (nul != NULL);
	}
	if (flen[0] + 2 > sizeof(path))
		return 0;
	path[0] = '/';
	memcpy(path + 1, field[0], flen[0]);
	path[flen[0] + 1] = '\0';
	char *hv[2] = {strndup(field[1], flen[1]), strndup(field[2], flen[2])};
	if (!hv[0] || !hv[1])
		abort();
	static const char *const names[2] = {"x-a", "x-b"};
	fz_files_write("f", field[4], flen[4]);
	struct shb_tmpl_src src = {
		.path = path,
		.header_names = names,
		.header_values = (const char *const *)hv,
		.header_count = mode & 1 ? 2 : 0,
		.body = mode & 2 ? (const uint8_t *)field[3] : NULL,
		.body_len = mode & 2 ? flen[3] : 0,
		.body_lines = mode & 4 ? "f" : NULL,
	};
	struct shb_tmpl *t = shb_tmpl_compile(&src, err, sizeof(err));
	if (t) {
		check_template(t, &src, seq, (const uint8_t *)field[4], flen[4]);
		shb_tmpl_free(t);
	} else if (err[0]) {
		FZ_CHECK(!strchr(err, '\n'));
	} else {
		FZ_CHECK(!src.body_lines && !has_braces(path));
		FZ_CHECK(!src.header_count || (!has_braces(hv[0]) && !has_braces(hv[1])));
		FZ_CHECK(!src.body || !memmem(src.body, src.body_len, "{{", 2));
	}
	free(hv[0]);
	free(hv[1]);
	return 0;
}
