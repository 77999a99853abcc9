/* The DT_NEEDED reader of shb-plugin-check (sdk/kit/check/check_elf.c),
 * which finds the sanitizer runtime a plugin file needs: the input is the
 * whole plugin file, read through the reader's callback.
 *
 * Checked besides memory safety: every read the reader asks for lies
 * inside the file, a name found starts with the prefix asked for and is a
 * string within the output, a short output buffer gives the same answer
 * with the name cut, and the empty prefix finds whenever another does. */
#include <string.h>

#include "check_elf.h"
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
	struct chk_elf_src src = { mem_read, &m, size };
	char big[256] = "", small[8] = "", any[256] = "";
	int a = chk_elf_needed(&src, "libasan.so", big, sizeof big);
	int b = chk_elf_needed(&src, "libasan.so", small, sizeof small);
	int c = chk_elf_needed(&src, "", any, sizeof any);

	FZ_CHECK(a >= -1 && a <= 1 && a == b);
	FZ_CHECK(strlen(big) < sizeof big && strlen(small) < sizeof small);
	if (a == 1) {
		FZ_CHECK(!strncmp(big, "libasan.so", 10));
		FZ_CHECK(!strncmp(big, small, strlen(small)));
		FZ_CHECK(c == 1);
	} else {
		FZ_CHECK(big[0] == '\0');
	}
	return 0;
}
