/* The HTTP/2 frame reader and everything it dispatches to (h2_recv.c,
 * h2_recv_headers.c, h2_recv_ctrl.c), through the plugin's recv() on a
 * fresh connection with nothing issued: the server's bytes from the first
 * one, as a hostile server sends them.
 * Input: a flags byte (bits 0-3: -p; bit 4: traces on; bit 5: the peer
 * closes at the end), a split plan, then the server's bytes.
 *
 * The fake host (fuzz_h2_host.c) checks the plugin's promises. */
#include "fuzz_h2_host.h"
#include "fuzz_input.h"

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct h2fz *z = ctx;

	(void)last;
	h2fz_recv(z, p, n);
	if (!z->broken)
		h2fz_flush(z, 0);
	return z->broken;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	unsigned flags = fz_u8(&f);
	struct h2fz z;

	fz_plan_read(&f, &pl);
	h2fz_open(&z, (flags & 15) + 1, 0, flags & 16);
	fz_feed_plan(&pl, f.p, f.n, feed, &z);
	if (flags & 32)
		h2fz_eof(&z);
	h2fz_close(&z);
	return 0;
}
