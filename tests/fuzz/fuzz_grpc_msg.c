/* The gRPC message reader of sdk/examples/grpc (grpc_wire.c, Sans-I/O,
 * built here from the example's source): a response body, cut into
 * pieces as DATA frames cut it, fed to grpc_reader_feed until an error;
 * then the same bytes as the grpc-status and grpc-message trailer values.
 * Input: a flags byte (bits 0-2: max-message, one of 0, 1, 5, 100, 4096,
 * 65535, 4 MiB, UINT32_MAX), a split plan, then the body.
 *
 * Checked besides memory safety: a body read without error and not
 * partial is exactly its messages plus a 5-byte prefix each; counts never
 * exceed what was fed; TOO_LARGE names a length above the maximum; the
 * result does not depend on the cuts; grpc-status agrees with a plain
 * decimal reading; grpc-message output is NUL-terminated printable ASCII
 * within its buffer. */
#include <string.h>

#include "fuzz_input.h"
#include "grpc_wire.h"

static const uint32_t maxes[8] = {
	0, 1, 5, 100, 4096, 65535, GRPC_DEFAULT_MAX_MESSAGE, UINT32_MAX,
};

struct run {
	struct grpc_reader r;
	uint64_t fed;
	int rc;
};

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;

	(void)last;
	u->rc = grpc_reader_feed(&u->r, p, n);
	u->fed += n;
	FZ_CHECK(u->r.message_bytes + (uint64_t)GRPC_PREFIX_LEN * u->r.messages
		 <= u->fed);
	if (u->rc == GRPC_READ_E_TOO_LARGE)
		FZ_CHECK(grpc_reader_bad_length(&u->r) > u->r.max_message);
	FZ_CHECK(u->rc == GRPC_READ_OK || u->rc == GRPC_READ_E_COMPRESSED ||
		 u->rc == GRPC_READ_E_FLAG || u->rc == GRPC_READ_E_TOO_LARGE);
	return u->rc != GRPC_READ_OK;
}

static void run(struct run *u, uint32_t max, const struct fz_plan *pl,
		const uint8_t *p, size_t n)
{
	memset(u, 0, sizeof(*u));
	grpc_reader_init(&u->r, max);
	fz_feed_plan(pl, p, n, feed, u);
	if (u->rc == GRPC_READ_OK && !grpc_reader_partial(&u->r) &&
	    u->r.left == 0)
		FZ_CHECK(u->r.message_bytes +
				 (uint64_t)GRPC_PREFIX_LEN * u->r.messages ==
			 u->fed);
}

/* The trailers: the same bytes as grpc-status and grpc-message. */
static void trailers(const uint8_t *p, size_t n)
{
	uint64_t x = 0;
	uint32_t code = 0;
	int digits = n > 0 && n <= 10;
	char out[64];
	size_t len;

	for (size_t i = 0; i < n && digits; i++) {
		digits = p[i] >= '0' && p[i] <= '9';
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	digits = digits && x <= UINT32_MAX;
	FZ_CHECK((grpc_parse_status(p, n, &code) == 0) == digits);
	if (digits)
		FZ_CHECK(code == x);
	for (size_t cap = 0; cap <= sizeof(out); cap += 16) {
		memset(out, 'x', sizeof(out));
		len = grpc_decode_message(p, n, out, cap);
		if (cap == 0) {
			FZ_CHECK(len == 0);
			continue;
		}
		FZ_CHECK(len < cap && out[len] == '\0' && strlen(out) == len);
		for (size_t i = 0; i < len; i++)
			FZ_CHECK(out[i] >= 0x20 && out[i] < 0x7f);
	}
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct fz_plan pl;
	uint32_t max = maxes[fz_u8(&f) & 7];

	fz_plan_read(&f, &pl);
	run(&split, max, &pl, f.p, f.n);
	run(&whole, max, NULL, f.p, f.n);
	FZ_CHECK(split.rc == whole.rc);
	FZ_CHECK(split.r.messages == whole.r.messages &&
		 split.r.message_bytes == whole.r.message_bytes &&
		 split.r.left == whole.r.left && split.r.have == whole.r.have);
	trailers(f.p, f.n);
	return 0;
}
