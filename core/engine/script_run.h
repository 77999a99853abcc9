/* A run with -s: the script engine's script and threads (shb/script.h)
 * and what the engine does with them. Set-up on the main thread before
 * the protocol module is created (the run configuration carries what the
 * script wants of responses): the script, one thread per worker with its
 * setup(thread), its address and init(args); the load on each worker
 * (request() per issue, parsed by script_req.h into whole requests for
 * issue_req, delay() before a new string, response() per answer); done()
 * on the main thread at the end.
 *
 * A script's failure during set-up is one line and exit 2; during the
 * load an error of kind SHB_ERRK_SCRIPT with the engine's line as sample:
 * a request() that fails or returns bytes that do not parse costs one
 * request (charged to -n like one sent, so a script that fails every time
 * still ends the run), a response() that fails makes its request an
 * error. */
#ifndef SHB_CORE_SCRIPT_RUN_H
#define SHB_CORE_SCRIPT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "engine/run.h"
#include "engine/script_req.h"
#include "results/hist.h"

/* Response bodies kept for a script's response() at most. */
#define SHB_SCRIPT_BODY_MAX ((uint64_t)4 << 20)
/* How often a worker samples its request rate for done()'s `requests`
 * (wrk's interval). */
#define SHB_SCRIPT_RATE_NS 100000000ull

struct worker;
struct shb_conn;

/* One worker's script thread: written by that worker only during the
 * load, read by the main thread after it is joined. */
struct shb_script_worker {
	void *thread;
	uint32_t hooks;    /* enum shb_script_hooks */
	struct shb_sreq_set set; /* the requests of the last string */
	size_t next;       /* the next one of set to issue */
	/* -s without -p (plan.h `strings`): the connection the string under
	 * way went to (index and generation), when it was due, and whether a
	 * connection was turned away meanwhile (woken at its end). */
	uint32_t owner, owner_gen;
	uint64_t due;
	int turned_away;
	/* thread.addr: the worker's own view of the origin, connecting
	 * there only; own_addr 0 when the script left it alone. */
	int own_addr;
	struct shb_addr addr;
	struct shb_run_origin ro;
	/* response() failed for this cookie: its request is an error. */
	uint64_t failed_cookie;
	int failed;
	char err[SHB_SAMPLE_LEN];
	/* done()'s `requests`: the request rate every SHB_SCRIPT_RATE_NS. */
	struct shb_histo rates;
	uint64_t rate_done;
	uint64_t rate_at;
};

struct shb_script_run {
	const struct shb_script_handle *h;
	void *script;
	uint32_t threads;
	struct shb_script_worker *w; /* threads of them */
	uint32_t run_flags; /* SHB_RUN_WANT_RESPONSE / _BODY for the module */
};

/* [main] Without -s: 0. Else run->script set up (the script loaded, each
 * thread's setup() and init() run, a script without request() has its
 * request parsed). 0, or -1 with one line in err: nothing runs (exit 2). */
int shb_script_run_setup(struct shb_run *run, char *err, size_t errlen);
/* [main] The script's done() with the run's results; -1 with one line in
 * err when it failed. 0 without -s. */
int shb_script_run_done(struct shb_run *run, const struct shb_results *r,
			char *err, size_t errlen);
void shb_script_run_free(struct shb_run *run);

/* [worker] At the end of worker set-up: w->script, and thread.addr. */
int shb_script_worker_setup(struct worker *w);
/* [worker] Before a new request on c: 1 when c waits for the script's
 * delay() (its TK_DELAY timer wakes it), 0 to go on. */
int shb_script_hold(struct shb_conn *c);
/* [worker] Issues the script's next request on c with `cookie`: the
 * protocol's answer (SHB_OK, SHB_E_BUSY, ...), or SHB_SCRIPT_FAILED when
 * the script failed (w->script->err says why; nothing was issued). Without
 * -p a string goes whole to a connection with nothing in flight, and one
 * over SHB_SCRIPT_PIPE_MAX requests is the script's error. */
#define SHB_SCRIPT_FAILED (-1000)
int shb_script_issue(struct shb_conn *c, uint64_t cookie);
/* [worker] -s without -p: 1 while the string under way has requests
 * left to issue (its first went out), else 0. Inline: asked before
 * every request of such a run. */
static inline int shb_script_midstring(const struct shb_script_worker *sw)
{
	return sw->next > 0 && sw->next < sw->set.count;
}
/* [worker] -s without -p: whether c must wait before a new request. A
 * connection asks for a new string (request(), delay()) only with
 * nothing in flight, as a wrk connection does, so a response() that
 * changes what comes next (auth.lua) comes first; its last completion
 * wakes it. */
static inline int shb_script_string_wait(const struct shb_script_worker *sw,
					 uint32_t nused)
{
	return nused && !shb_script_midstring(sw);
}
/* [worker] The periodic sample of the request rate. */
void shb_script_tick(struct worker *w);
/* [conn] host->req_response: hands the response to response(). */
void shb_script_response(struct shb_conn *c, uint64_t cookie,
			 const struct shb_response *resp);
/* [conn] Whether response() failed for cookie (once): *msg its line. */
int shb_script_response_failed(struct worker *w, uint64_t cookie,
			       const char **msg);

#endif
