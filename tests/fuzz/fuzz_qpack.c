/* The QPACK field section decoder (plugins/h3/http3/qpack_dec.c), fed one
 * HEADERS payload in pieces as h3_response.c does. Input: a split plan,
 * then the section.
 *
 * Checked besides memory safety: an error carries its reason, DONE comes
 * exactly when the whole section was consumed, a :status is 100..999, and
 * the split run gives exactly the result of the unsplit run. */
#include <string.h>

#include "fuzz_input.h"
#include "qpack_dec.h"

struct run {
	struct shb_qpack_dec d;
	size_t fed;
	int rc;
};

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;

	FZ_CHECK(n <= u->d.left);
	u->rc = shb_qpack_dec_feed(&u->d, p, n);
	u->fed += n;
	if (u->rc == SHB_QPACK_DEC_DONE)
		FZ_CHECK(u->d.left == 0);
	else if (u->rc == SHB_QPACK_DEC_MORE)
		FZ_CHECK(u->d.left > 0);
	else
		FZ_CHECK(u->rc < 0 && u->d.detail != NULL);
	return u->rc != SHB_QPACK_DEC_MORE;
}

static void run(struct run *u, const struct fz_plan *pl, const uint8_t *p,
		size_t n)
{
	memset(u, 0, sizeof(*u));
	shb_qpack_dec_begin(&u->d, n);
	if (n == 0) {
		/* an empty section is malformed: the first feed says so */
		FZ_CHECK(shb_qpack_dec_feed(&u->d, p, 0) < 0);
		u->rc = -1;
		return;
	}
	fz_feed_plan(pl, p, n, feed, u);
	if (u->rc == SHB_QPACK_DEC_DONE)
		FZ_CHECK(u->d.status == 0 ||
			 (u->d.status >= 100 && u->d.status <= 999));
	/* a section that ends inside a line can only end in an error */
	FZ_CHECK(u->rc != SHB_QPACK_DEC_MORE);
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;

	fz_plan_read(&f, &pl);
	run(&split, &pl, f.p, f.n);
	run(&whole, NULL, f.p, f.n);
	FZ_CHECK(split.rc == whole.rc);
	FZ_CHECK(split.d.status == whole.d.status);
	FZ_CHECK(split.d.lines == whole.d.lines);
	FZ_CHECK(split.d.detail == whole.d.detail);
	return 0;
}
