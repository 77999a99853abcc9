/* A whole HTTP/2 connection through the plugin's vtable with a fake host:
 * requests issued, server bytes received, output sent in pieces, timers,
 * cancels, shutdowns and the end of stream, in an order the input
 * chooses. Input: a flags byte (bits 0-3: -p; bit 4: POST with a body;
 * bit 5: traces on; bit 6: an observer of org.shb.h2.proto/1 on the
 * module, see h2fz_observe; bit 7: profile=firefox, see h2fz_profile),
 * then operations, each an op byte (low 3 bits: what,
 * high 5 bits: an argument) and for "receive" a length byte and that many
 * server bytes:
 *   0 receive   1 issue arg+1 requests   2 send output, arg*7 per send
 *   3 advance the clock arg*100 ms and fire the timer if due
 *   4 cancel the arg-th request   5 shutdown (arg odd: abort)
 *   6 end of stream   7 receive, length arg*8 + next byte
 *
 * The fake host (fuzz_h2_host.c) checks the plugin's promises. */
#include "fuzz_h2_host.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	unsigned flags = fz_u8(&f);
	struct h2fz z;

	h2fz_observe(flags & 64);
	h2fz_profile(flags & 128);
	h2fz_open(&z, (flags & 15) + 1, flags & 16, flags & 32);
	while (f.n && !z.broken) {
		unsigned op = fz_u8(&f), arg = op >> 3;
		const uint8_t *p;
		size_t n;

		switch (op & 7) {
		case 0:
			p = fz_take(&f, fz_u8(&f), &n);
			h2fz_recv(&z, p, n);
			break;
		case 1:
			h2fz_issue(&z, arg + 1);
			break;
		case 2:
			h2fz_flush(&z, arg * 7);
			break;
		case 3:
			h2fz_advance(&z, (shb_tstamp)arg * 100000000);
			break;
		case 4:
			h2fz_cancel(&z, arg);
			break;
		case 5:
			h2fz_shutdown(&z, arg & 1 ? SHB_SHUT_ABORT
						  : SHB_SHUT_GRACEFUL);
			break;
		case 6:
			h2fz_eof(&z);
			break;
		case 7:
			p = fz_take(&f, arg * 8 + fz_u8(&f), &n);
			h2fz_recv(&z, p, n);
			break;
		}
	}
	h2fz_close(&z);
	return 0;
}
