/* The fake core the HTTP/1.1 plugin's connection targets (h1_pipe,
 * h1_proxy) drive it through: one host table, the plugin's descriptor,
 * modules made once per depth and trace setting, a request's result as
 * the targets compare it, and the recv() feeder of a split plan. Each
 * target keeps its own checks of which request may end when
 * (h1fz_host_init's `done`). */
#ifndef SHB_FUZZ_H1_HOST_H
#define SHB_FUZZ_H1_HOST_H

#include <shb/host.h>
#include <shb/plugin.h>
#include <shb/proto.h>

/* Deepest pipeline a module is made for (-p 1..H1FZ_MAX_DEPTH). */
#define H1FZ_MAX_DEPTH 8

/* What a target compares between a split run and a whole one. */
struct h1fz_result {
	uint64_t cookie;
	uint32_t outcome, status;
	uint64_t head, body;
};

/* Called by the host's req_done once the handle and the result's size
 * were checked: the target checks the cookie's state, then records. */
typedef void (*h1fz_done_fn)(uint64_t cookie, const struct shb_req_result *res);

/* Before anything else: the handle every call must carry, the target's
 * req_done, and the origin conn_origin answers (NULL: none, so the
 * plugin sends origin-form). `origin` is the target's for the process. */
void h1fz_host_init(struct shb_conn *handle, h1fz_done_fn done,
		    const struct shb_origin *origin);
/* The plugin's one protocol, its entry initialised with the host. */
const struct shb_proto_desc *h1fz_desc(void);
/* The module of a run with -p `parallel` (1..H1FZ_MAX_DEPTH), protocol
 * traces on or off; made once (modules are read only), and the host's
 * log_enabled follows `debug` from this call on. */
void *h1fz_module(uint32_t parallel, int debug);
/* Fills *r from res: a failure's byte counts depend on where the input
 * was cut (the scanner counts a malformed line up to where the piece or
 * the line ended, as fuzz_h1_scan.c notes), so only an OK keeps them;
 * an OK's status is checked to be three digits. */
void h1fz_record(struct h1fz_result *r, uint64_t cookie,
		 const struct shb_req_result *res);

/* fz_feed_plan's callback: offers a piece to recv(), which must take all
 * of it or fail; stops at the first failure (kept in rc) or once the
 * connection says CLOSED. */
struct h1fz_feed_ctx {
	void *c;
	int rc;
};
int h1fz_feed(void *ctx, const uint8_t *p, size_t n, int last);

#endif
