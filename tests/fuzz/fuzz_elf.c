/* The ELF reader behind --list-plugins' "also exports" warning
 * (core/loader/elf_exports.c): the input is the whole plugin file, read through
 * the same callback shape as the file reader (exact ranges, each checked
 * against the file's size here too).
 *
 * Checked besides memory safety: every read the reader asks for lies
 * inside the file, the count does not depend on the output buffer's size,
 * the short buffer's text is a prefix of the long one's, and no extra
 * export means an empty text. */
#include <string.h>

#include "loader/elf_exports.h"
#include "fuzz_input.h"

struct img {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct img *m = ctx;

	FZ_CHECK(off <= m->n && n <= m->n - off);
	memcpy(buf, m->p + off, n);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct img m = { data, size };
	struct shb_elf_src src = { mem_read, &m, size };
	char big[4096], small[24];
	unsigned a = shb_elf_extra_exports(&src, big, sizeof big);
	unsigned b = shb_elf_extra_exports(&src, small, sizeof small);

	FZ_CHECK(a == b);
	FZ_CHECK(strlen(big) < sizeof big && strlen(small) < sizeof small);
	FZ_CHECK(!strncmp(big, small, strlen(small)));
	FZ_CHECK((a == 0) == (big[0] == '\0'));
	return 0;
}
