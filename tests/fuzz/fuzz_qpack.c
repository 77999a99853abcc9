/* The QPACK field section decoder (plugins/h3/http3/qpack_dec.c), fed one
 * HEADERS payload in pieces as h3_response.c does, with no table or over
 * a dynamic table that encoder-stream input fills (fuzz_qpack_table.h),
 * part of it only once the section blocked. Input: the table's part, a
 * split plan, then the section.
 *
 * Checked besides memory safety: an error carries its reason, DONE comes
 * exactly when the whole section was consumed, a :status is 100..999, a
 * blocked section consumed no more than its first octets and waits for
 * more inserts than the table has, and the split run gives exactly the
 * result of the unsplit run. */
#include <string.h>

#include "fuzz_qpack_table.h"
#include "qpack_dec.h"

struct run {
	struct shb_qpack_dec d;
	struct fz_qtable q;
	const uint8_t *p;
	size_t n, fed;
	int rc;
};

/* Blocked: the rest of the encoder stream, then the section again from
 * where the decoder stopped (all of it, in one piece). */
static int unblock(struct run *u, const uint8_t *p, size_t n)
{
	FZ_CHECK(u->d.used <= n);
	FZ_CHECK(u->d.ric > u->q.t.inserted);
	fz_qtable_rest(&u->q);
	size_t rest = (size_t)(u->n - u->fed) + (n - u->d.used);
	const uint8_t *from = u->p + u->fed - (n - u->d.used);

	(void)p;
	u->rc = shb_qpack_dec_feed(&u->d, from, rest);
	if (u->rc == SHB_QPACK_DEC_BLOCKED)
		FZ_CHECK(u->d.used == 0 && u->d.ric > u->q.t.inserted);
	u->fed = u->n;
	return 1;
}

static int feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct run *u = ctx;

	(void)last;
	FZ_CHECK(n <= u->d.left);
	u->rc = shb_qpack_dec_feed(&u->d, p, n);
	u->fed += n;
	if (u->rc == SHB_QPACK_DEC_BLOCKED)
		return unblock(u, p, n);
	if (u->rc == SHB_QPACK_DEC_DONE)
		FZ_CHECK(u->d.left == 0);
	else if (u->rc == SHB_QPACK_DEC_MORE)
		FZ_CHECK(u->d.left > 0);
	else
		FZ_CHECK(u->rc < 0 && u->d.detail != NULL);
	return u->rc != SHB_QPACK_DEC_MORE;
}

static void run(struct run *u, const struct fz_plan *pl, struct fz *in,
		const uint8_t *p, size_t n)
{
	struct fz f = *in;

	memset(&u->d, 0, sizeof(u->d));
	fz_qtable_read(&f, &u->q);
	u->p = p;
	u->n = n;
	u->fed = 0;
	shb_qpack_dec_begin_table(&u->d, n, u->q.on ? &u->q.t : NULL);
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
	fz_qtable_check(&u->q);
}

static struct run split, whole;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size}, table = f;
	struct fz_plan pl;
	struct fz_qtable skip;

	fz_qtable_read(&f, &skip); /* where the plan starts */
	fz_qtable_free(&skip);
	fz_plan_read(&f, &pl);
	run(&split, &pl, &table, f.p, f.n);
	run(&whole, NULL, &table, f.p, f.n);
	FZ_CHECK(split.rc == whole.rc);
	FZ_CHECK(split.d.status == whole.d.status);
	FZ_CHECK(split.d.lines == whole.d.lines);
	FZ_CHECK(split.d.detail == whole.d.detail);
	FZ_CHECK(split.d.ric == whole.d.ric);
	fz_qtable_free(&split.q);
	fz_qtable_free(&whole.q);
	return 0;
}
