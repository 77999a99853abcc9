/* The worker's bounded submit (core/engine/ring.c) under a kernel that refuses
 * submissions. Linux 6.x keeps overflowing completions on an internal list
 * instead of answering EBUSY, so the refusal cannot be provoked with a
 * real ring: the test links with --wrap=io_uring_submit, so that ring.c's
 * calls reach __wrap_io_uring_submit below, which refuses as scripted and
 * otherwise submits for real (through io_uring_submit_and_wait, which the
 * wrap leaves alone). Each case fills the 4-entry SQ so that the next SQE needs a
 * submit, and checks that shb_worker_sqe neither spins nor loses a
 * completion. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/worker_int.h"

int __wrap_io_uring_submit(struct io_uring *ring);

static int refusals;     /* submits still to refuse */
static int refusal_code; /* what a refused submit returns */
static int submit_calls; /* __wrap_io_uring_submit calls in this case */

int __wrap_io_uring_submit(struct io_uring *ring)
{
	submit_calls++;
	if (refusals > 0) {
		refusals--;
		return refusal_code;
	}
	return io_uring_submit_and_wait(ring, 0);
}

struct fixture {
	struct worker w;
	struct shb_worker_args args;
	struct shb_run run;
};

/* A worker with only what ring.c touches: a ring with 4 SQEs and 4 CQEs,
 * its arguments and run. The SQ is then filled with 4 NOPs. */
static struct fixture *setup(int refuse, int code)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct io_uring_params p = {.flags = IORING_SETUP_CQSIZE,
				    .cq_entries = 4};

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	f->w.args = &f->args;
	f->w.run = &f->run;
	CU_ASSERT_EQUAL_FATAL(io_uring_queue_init_params(4, &f->w.u.ring, &p), 0);
	for (int i = 0; i < 4; i++)
		io_uring_prep_nop(shb_worker_sqe(&f->w));
	refusals = refuse;
	refusal_code = code;
	submit_calls = 0;
	return f;
}

static void teardown(struct fixture *f)
{
	io_uring_queue_exit(&f->w.u.ring);
	free(f->w.stash);
	free(f);
}

/* Completions anywhere: stashed, plus those the kernel posts once the
 * rest is submitted (the CQ holds 4; the kernel keeps the others on its
 * overflow list until the CQ is drained). */
static unsigned completions(struct fixture *f, unsigned want)
{
	unsigned n = f->w.nstash;
	struct io_uring_cqe *cqe;

	io_uring_submit_and_wait(&f->w.u.ring, 0);
	for (int rounds = 0; n < want && rounds < 100; rounds++) {
		while (io_uring_peek_cqe(&f->w.u.ring, &cqe) == 0) {
			io_uring_cqe_seen(&f->w.u.ring, cqe);
			n++;
		}
		if (n < want)
			io_uring_submit_and_wait(&f->w.u.ring, 1);
	}
	return n;
}

/* A refused submit moves the CQ into the stash and is retried: the SQE
 * comes back, nothing is lost, the run goes on. */
static void test_ring_busy_then_accepted(void)
{
	struct fixture *f = setup(3, -EBUSY);
	struct io_uring_sqe *sqe = shb_worker_sqe(&f->w);

	CU_ASSERT_PTR_NOT_NULL(sqe);
	CU_ASSERT_PTR_NOT_EQUAL(sqe, &f->w.dead_sqe);
	CU_ASSERT_EQUAL(submit_calls, 4);
	CU_ASSERT_EQUAL(f->args.failed, 0);
	CU_ASSERT_EQUAL(atomic_load(&f->run.abort_run), 0);
	io_uring_prep_nop(sqe);
	CU_ASSERT_EQUAL(completions(f, 5), 5);
	teardown(f);
}

/* Completions that arrived before the refusals were stashed, in order. */
static void test_ring_busy_stashes_completions(void)
{
	struct fixture *f = setup(0, 0);
	struct io_uring_sqe *sqe;

	/* Submit the first four for real and let them complete. */
	io_uring_submit_and_wait(&f->w.u.ring, 4);
	for (int i = 0; i < 4; i++) {
		sqe = shb_worker_sqe(&f->w);
		io_uring_prep_nop(sqe);
		sqe->user_data = 100 + (unsigned)i;
	}
	refusals = 2;
	refusal_code = -EAGAIN;
	submit_calls = 0;
	sqe = shb_worker_sqe(&f->w);
	CU_ASSERT_PTR_NOT_EQUAL(sqe, &f->w.dead_sqe);
	CU_ASSERT_EQUAL(submit_calls, 3);
	CU_ASSERT_EQUAL(f->w.nstash, 4);
	io_uring_prep_nop(sqe);
	CU_ASSERT_EQUAL(completions(f, 9), 9);
	CU_ASSERT_EQUAL(f->args.failed, 0);
	teardown(f);
}

/* A kernel that never accepts again stops the run after SUBMIT_TRIES
 * submits, with one line, and the caller gets a scratch SQE. */
static void test_ring_busy_forever_is_bounded(void)
{
	struct fixture *f = setup(1000000, -EBUSY);
	struct io_uring_sqe *sqe = shb_worker_sqe(&f->w);

	CU_ASSERT_PTR_EQUAL(sqe, &f->w.dead_sqe);
	CU_ASSERT_EQUAL(submit_calls, SUBMIT_TRIES);
	CU_ASSERT_EQUAL(f->args.failed, 1);
	CU_ASSERT_STRING_EQUAL(f->args.err,
			       "io_uring: the kernel accepts no more submissions");
	CU_ASSERT_EQUAL(atomic_load(&f->run.abort_run), 1);
	teardown(f);
}

/* Any other error is not worth retrying: one submit, then the run stops. */
static void test_ring_other_error_is_fatal_at_once(void)
{
	struct fixture *f = setup(1000000, -EINVAL);
	struct io_uring_sqe *sqe = shb_worker_sqe(&f->w);

	CU_ASSERT_PTR_EQUAL(sqe, &f->w.dead_sqe);
	CU_ASSERT_EQUAL(submit_calls, 1);
	CU_ASSERT_EQUAL(f->args.failed, 1);
	teardown(f);
}

/* EINTR is retried like a refusal, within the same budget. */
static void test_ring_eintr_retried(void)
{
	struct fixture *f = setup(5, -EINTR);
	struct io_uring_sqe *sqe = shb_worker_sqe(&f->w);

	CU_ASSERT_PTR_NOT_EQUAL(sqe, &f->w.dead_sqe);
	CU_ASSERT_EQUAL(submit_calls, 6);
	CU_ASSERT_EQUAL(f->w.nstash, 0);
	CU_ASSERT_EQUAL(f->args.failed, 0);
	io_uring_prep_nop(sqe);
	CU_ASSERT_EQUAL(completions(f, 5), 5);
	teardown(f);
}

static CU_TestInfo ring_tests[] = {
	{"busy_then_accepted", test_ring_busy_then_accepted},
	{"busy_stashes_completions", test_ring_busy_stashes_completions},
	{"busy_forever_is_bounded", test_ring_busy_forever_is_bounded},
	{"other_error_is_fatal_at_once", test_ring_other_error_is_fatal_at_once},
	{"eintr_retried", test_ring_eintr_retried},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"ring", NULL, NULL, NULL, NULL, ring_tests},
	CU_SUITE_INFO_NULL,
};
