/* shb plugin ABI: script engines (since 1.4).
 *
 * A script engine runs a user's script (`shb -s FILE [-- ARGS]`) that
 * shapes the load the way wrk's scripts do: it sees the target, builds
 * each request, reads responses and writes its own summary at the end.
 * The core picks the engine by the file's extension (descriptor
 * `extensions`), loads it like any plugin (factory SHB_FACTORY_SCRIPT)
 * and drives it; the engine never sees sockets or the io_uring.
 *
 * Life cycle (tags as in plugin.h):
 *   [main]   create -> thread_create (once per worker, in worker order;
 *            runs the script's setup(thread)) -> thread_addr ->
 *            thread_init (runs init(args)) -> thread_hooks
 *   [worker] { delay | request | response }* on the worker's own thread
 *            object only, never two calls at once on one thread object
 *   [main]   done -> thread_destroy (each) -> destroy
 * Between set-up and done a thread object belongs to its worker; the
 * main thread touches it again only after the workers are joined.
 *
 * Requests are HTTP/1.1 request bytes ("GET / HTTP/1.1\r\nHost: ...
 * \r\n\r\n", several back to back for a pipeline): the core parses them
 * into method, path, headers and body and issues each as one request of
 * the run on whatever protocol runs (issue_req, proto.h).
 *
 * Errors: a call that fails returns a negative SHB_E_* and writes one
 * line into err[errlen] naming the script's file and line where the
 * language knows them ("auth.lua:12: attempt to index a nil value").
 * During set-up that line ends the run before any traffic (exit 2);
 * during the load it is an error of kind SHB_ERRK_SCRIPT with the line as
 * sample, and the run goes on. A call must return in bounded time and
 * memory whatever the script does (an engine enforces budgets of its
 * own: a script that loops forever or builds huge strings costs errors,
 * never the run). */
#ifndef SHB_SCRIPT_H
#define SHB_SCRIPT_H

#include <shb/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_host;
struct shb_hist;
struct shb_response; /* proto.h, since 1.4 */
struct sockaddr;

/* Factory id understood by get_factory() since 1.4. */
#define SHB_FACTORY_SCRIPT "shb.script/1" /* struct shb_script_factory */

/* The longest request string the core takes from one request() call; a
 * longer one is an error of kind SHB_ERRK_SCRIPT, not a request. */
#define SHB_SCRIPT_REQUEST_MAX ((size_t)64 << 20)

/* The hooks a thread's script defines after init (thread_hooks). The core
 * calls a [worker] member only when its bit is set: without
 * SHB_SCRIPT_HOOK_RESPONSE no response is copied for the script, without
 * SHB_SCRIPT_HOOK_REQUEST the thread's one request (request() called once
 * after init) is issued again and again. */
enum shb_script_hooks {
	SHB_SCRIPT_HOOK_REQUEST = 1u << 0,  /* request() per request */
	SHB_SCRIPT_HOOK_RESPONSE = 1u << 1, /* response() per response */
	SHB_SCRIPT_HOOK_DELAY = 1u << 2,    /* delay() before each request */
	SHB_SCRIPT_HOOK_BODY = 1u << 3,     /* response() reads the body */
};

/* Positive bits the [worker] calls may return instead of SHB_OK. */
enum shb_script_ret {
	/* The script stopped its thread (wrk's thread:stop()): the worker
	 * sends nothing more, lets what is in flight end and stops; the
	 * other workers run on. */
	SHB_SCRIPT_STOP = 1,
};

/* [main] Given to create; borrowed for that call only (the engine copies
 * what it keeps). What wrk's `wrk` table starts with. */
struct shb_script_config {
	uint32_t struct_size;
	uint32_t threads;     /* workers: thread_create is called this often */
	const char *file;     /* the script's path as given to -s */
	const char *const *args; /* the arguments after "--", for init() */
	size_t arg_count;
	const char *scheme;   /* as typed: "http", "https" */
	const char *host;     /* without brackets */
	uint32_t port;        /* the port connections go to */
	uint32_t port_given;  /* 1: the URL names the port (else wrk.port is
			       * nil) */
	const char *method;   /* -m, "GET" by default */
	const char *path;     /* path and query, starts with '/' */
	const struct shb_kv *headers; /* -H, in order */
	size_t header_count;
	const uint8_t *body; /* -d, or NULL */
	size_t body_len;
};

/* [main] Given to done; borrowed for that call only. What wrk's done()
 * receives: times in microseconds, counts of the measured part of the
 * run. */
struct shb_script_summary {
	uint32_t struct_size;
	uint32_t reserved0;
	uint64_t duration_us; /* the measured load, in microseconds */
	uint64_t requests;    /* completed requests (answered or failed) */
	uint64_t bytes;       /* bytes received */
	uint64_t errors_connect;
	uint64_t errors_read;
	uint64_t errors_write;
	uint64_t errors_status;  /* responses with a status above 399 */
	uint64_t errors_timeout;
	/* Latency of the answered requests, nanoseconds (the engine shows
	 * microseconds); read through host->hist, valid for the call. */
	const struct shb_hist *latency;
	/* Each worker's request rate, requests per second, sampled every
	 * 100 ms of the load while it completed any (wrk's `requests`);
	 * read through host->hist, valid for the call. */
	const struct shb_hist *rates;
};

struct shb_script_vtable {
	uint32_t struct_size;
	uint32_t reserved0;

	/* [main] Loads and compiles the script (its top level runs here)
	 * into the set-up state, where setup() and done() run. `cfg` is
	 * borrowed. *script is engine-owned until destroy. */
	int (*create)(const struct shb_host *host,
		      const struct shb_script_config *cfg, void **script,
		      char *err, size_t errlen);
	/* [main] The state worker `index` runs (the script loaded once more,
	 * as wrk does per thread), then the script's setup(thread) in the
	 * set-up state. `addr` (borrowed) is where the worker connects
	 * unless the script changes it (thread.addr). *thread is
	 * engine-owned until thread_destroy. */
	int (*thread_create)(void *script, uint32_t index,
			     const struct sockaddr *addr, uint32_t addr_len,
			     void **thread, char *err, size_t errlen);
	/* [main] After thread_create: the address the script set with
	 * thread.addr, copied into addr[cap]; returns its length, or 0
	 * when the script left it alone. */
	uint32_t (*thread_addr)(void *thread, struct sockaddr *addr,
				uint32_t cap);
	/* [main] The script's init(args) in the thread's state, then the
	 * thread's first request prepared (request() once when the script
	 * has none of its own). */
	int (*thread_init)(void *thread, char *err, size_t errlen);
	/* [main] After thread_init: enum shb_script_hooks bits. */
	uint32_t (*thread_hooks)(void *thread);

	/* [worker] The next request string: out->base/out->len stay valid,
	 * engine-owned and unchanged, until the next call on this thread.
	 * SHB_OK, SHB_SCRIPT_STOP, or a negative SHB_E_* with err set. */
	int (*request)(void *thread, struct shb_vec *out, char *err,
		       size_t errlen);
	/* [worker] Milliseconds to wait before the thread's next request on
	 * the connection about to send it. SHB_OK, SHB_SCRIPT_STOP, or a
	 * negative SHB_E_* with err set. */
	int (*delay)(void *thread, uint64_t *ms, char *err, size_t errlen);
	/* [worker] A response the thread's connection received; `resp` and
	 * what it points to are borrowed for the call. SHB_OK,
	 * SHB_SCRIPT_STOP, or a negative SHB_E_* with err set. */
	int (*response)(void *thread, const struct shb_response *resp,
			char *err, size_t errlen);

	/* [main] After the workers are joined: the script's done() in the
	 * set-up state, when it has one. `sum` is borrowed. */
	int (*done)(void *script, const struct shb_script_summary *sum,
		    char *err, size_t errlen);
	/* [main] Frees a thread's state; after done. Never fails. */
	void (*thread_destroy)(void *thread);
	/* [main] After every thread_destroy. Never fails. */
	void (*destroy)(void *script);
};

struct shb_script_desc {
	uint32_t struct_size;
	uint32_t reserved0;  /* 0 */
	const char *name;    /* the language: "lua" */
	const char *summary; /* one line for --list-plugins */
	/* File extensions it runs, without the dot, NULL-terminated,
	 * static: {"lua", NULL}. */
	const char *const *extensions;
	const struct shb_script_vtable *vt;
};

/* SHB_FACTORY_SCRIPT: the script engines a plugin provides. */
struct shb_script_factory {
	uint32_t struct_size;
	uint32_t count;
	/* [main] index < count; returns a static descriptor. */
	const struct shb_script_desc *(*get)(uint32_t index);
};

/* Every member of the vtable is mandatory; the loader refuses an engine
 * that lacks one with one line naming it. */

#ifdef __cplusplus
}
#endif
#endif
