/* A redirect's Location resolved against its request's URL (core/cli/
 * url_ref.c), then split into a request's parts. Input: a length byte
 * (the base's share of the rest, modulo its length + 1), the base, the
 * Location.
 *
 * Checked besides memory safety: a result is NUL-terminated at the
 * length returned and holds no control byte or space; its parts lie
 * inside it; a host:port that parses has a port of 0..65535. */
#include <string.h>

#include "cli/url_ref.h"
#include "fuzz_input.h"

static char base[SHB_URL_REF_MAX + 2];
static char out[SHB_URL_REF_MAX + 1];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	size_t blen = fz_u16(&f), got;

	blen %= f.n + 1;
	const uint8_t *b = fz_take(&f, blen, &got);
	if (memchr(b, 0, got) || got > SHB_URL_REF_MAX)
		return 0;
	memcpy(base, b, got);
	base[got] = '\0';
	long n = shb_url_ref_resolve(base, (const char *)f.p, f.n, out, sizeof(out));
	if (n < 0)
		return 0;
	FZ_CHECK((size_t)n == strlen(out));
	for (long i = 0; i < n; i++)
		FZ_CHECK((unsigned char)out[i] > 0x20 && out[i] != 0x7f);
	struct shb_url_parts p;
	if (shb_url_ref_split(out, &p) < 0)
		return 0;
	FZ_CHECK(p.scheme == out && p.scheme_len > 0);
	FZ_CHECK(p.authority > out && p.authority + p.authority_len <= out + n);
	FZ_CHECK(p.path >= p.authority + p.authority_len &&
		 p.path + p.path_len <= out + n);
	const char *h;
	size_t hl;
	unsigned port;
	if (shb_url_ref_host_port(p.authority, p.authority_len, &h, &hl, &port) == 0)
		FZ_CHECK(port <= 65535 && h >= p.authority &&
			 h + hl <= p.authority + p.authority_len);
	return 0;
}
