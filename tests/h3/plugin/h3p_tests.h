/* Tests of the HTTP/3 plugin glue: the test kit's fake host that records
 * what the plugin reports and checks the host's rules, and a scripted fake QUIC connection under the plugin
 * (struct shb_h3_quic_ops) that records what the plugin asks of it and
 * delivers queued events from inside the plugin's recv_dgrams and
 * on_timer calls, as the real connection does. */
#ifndef SHB_H3P_TESTS_H
#define SHB_H3P_TESTS_H

#include <CUnit/CUnit.h>

#include <shb/shb.h>
#include <shb/kit.h>

#include "h3_conn.h"
#include "h3_request.h"

/* The plugin's entry, linked in from h3_plugin.c. */
extern const struct shb_plugin_entry shb_plugin_entry_v1;

extern CU_TestInfo shb_h3p_reqtab_tests[];
extern CU_TestInfo shb_h3p_errtext_tests[];
extern CU_TestInfo shb_h3p_module_tests[];
extern CU_TestInfo shb_h3p_conn_tests[];
extern CU_TestInfo shb_h3p_stream_tests[];
extern CU_TestInfo shb_h3p_end_tests[];
extern CU_TestInfo shb_h3p_live_tests[];
extern CU_TestInfo shb_h3p_var_tests[];
extern CU_TestInfo shb_h3p_resp_tests[];
extern CU_TestInfo shb_h3p_prio_tests[];
extern CU_TestInfo shb_h3p_qpack_tests[];
extern CU_TestInfo shb_h3p_profile_tests[];

/* ---- fake host (the plugin test kit's, shb/kit.h) ------------------------ */

/* Records every req_done (done[], done_count), conn_event (events[].ev,
 * event_count) and log line since h3p_reset(), and every rule of the host
 * the plugin broke (violations; h3p_close asserts there is none). */
extern struct shb_kit_host h3p_kit;

/* Clears what was seen; `debug` turns SHB_LOG_DEBUG on. */
void h3p_reset(int debug);
/* The result recorded for `cookie`, or NULL. */
const struct shb_kit_done *h3p_done_for(uint64_t cookie);
/* Non-zero when some log line, as "LEVEL MESSAGE", contains `text`. */
int h3p_logged(const char *text);

/* ---- fake QUIC connection ------------------------------------------------ */

#define FQ_MAX_STREAMS 512
#define FQ_MAX_OPS 256
#define FQ_MAX_QUEUE 64

struct fq_stream_send {
	uint64_t id;
	const uint8_t *data; /* borrowed, as the real call */
	size_t len;
	int fin;
};

struct fq_op {
	char what; /* 'r' reset, 's' stop_sending, 't' retire */
	uint64_t id;
	uint64_t code;
};

struct fq_uni {
	uint64_t id;
	uint8_t bytes[256];
	size_t len;
	/* For each uni_send (the first 8): its end in bytes[] and how many
	 * bidi_send calls came before it, to check what went first. */
	size_t nsend;
	size_t end_at[8];
	size_t bidi_before[8];
};

struct shb_quic_conn {
	struct shb_quic_conn_config cfg;
	uint32_t state;
	uint32_t credit;      /* bidi streams the server allows in total */
	uint32_t opened;      /* bidi streams opened */
	uint64_t next_uni;
	uint64_t deadline;
	/* what on_timeout does at the deadline: a close origin or 0 */
	uint32_t timeout_origin;
	int dirty;            /* write() has something */
	struct fq_stream_send sends[FQ_MAX_STREAMS];
	size_t send_count;
	/* bidi_buffer's buffers, by stream index (id / 4); freed with q */
	uint8_t *own[FQ_MAX_STREAMS];
	struct fq_op ops[FQ_MAX_OPS];
	size_t op_count;
	struct fq_uni uni[4];
	size_t uni_count;
	struct shb_quic_close_info close;
	char close_reason[128];
	int closed_locally;
	int close_writes; /* a queued CLOSED leaves a frame to write */
	uint64_t close_code;
	/* events delivered by the next recv() */
	struct shb_quic_event queue[FQ_MAX_QUEUE];
	uint8_t qdata[FQ_MAX_QUEUE][2048];
	size_t qcount;
	uint64_t recv_calls, write_calls;
};

extern const struct shb_h3_quic_ops fq_ops;
/* The fake behind the last connection created. */
extern struct shb_quic_conn *fq_last;
/* Bidi credit of connections created from now on. */
extern uint32_t fq_default_credit;

/* Queue events for the next recv(). */
void fq_q_handshake(struct shb_quic_conn *q);
void fq_q_data(struct shb_quic_conn *q, uint64_t id, const void *data,
	       size_t len, int fin);
void fq_q_opened(struct shb_quic_conn *q, uint64_t id);
void fq_q_reset(struct shb_quic_conn *q, uint64_t id, uint64_t code);
void fq_q_stop(struct shb_quic_conn *q, uint64_t id, uint64_t code);
void fq_q_available(struct shb_quic_conn *q);
/* A close by the server or by the connection itself (origin ERROR, PEER,
 * IDLE, STATELESS_RESET ...). `closing`: state CLOSING (a close frame to
 * write) instead of CLOSED. */
void fq_q_closed(struct shb_quic_conn *q, uint32_t origin, uint32_t app,
		 uint64_t code, const char *reason, int closing);

/* The recorded op of kind `what` on `id`, or NULL. */
const struct fq_op *fq_op_find(const struct shb_quic_conn *q, char what,
			       uint64_t id);
size_t fq_op_count(const struct shb_quic_conn *q, char what);

/* ---- a connection driven through the vtable -------------------------------- */

struct h3p_fx {
	/* The kit's module and connection: every call below goes through
	 * them, so the host knows which [conn] call is in progress. */
	struct shb_kit_module km;
	struct shb_kit_conn kc;
	const struct shb_proto_vtable *vt;
	struct shb_h3_module *mod;
	struct shb_h3_request *prep;
	struct shb_h3_conn *c; /* kc.mem */
	struct shb_quic_conn *q;
	uint64_t next_cookie;
	shb_tstamp now;
};

/* Module (with the fake ops), request, connection, transport ready.
 * run_flags as in shb_run_config; body NULL for a GET. */
void h3p_open(struct h3p_fx *f, uint32_t run_flags, uint32_t parallel,
	      const char *body, int debug);
/* ... and the handshake completes (one recv call). */
void h3p_open_ready(struct h3p_fx *f, uint32_t parallel);
/* The run config's response_body_max for h3p_open (0 unless a test sets
 * it, and resets it). */
extern uint64_t h3p_body_max;
/* The QPACK table and blocked streams for h3p_open (0 unless a test sets
 * them, and resets them). */
extern struct shb_h3_conn_config h3p_qpack;
/* --proto-opt profile= for h3p_open; NULL: none (tests reset it). */
extern const char *h3p_profile;
void h3p_close(struct h3p_fx *f);
/* Delivers the queued events through recv_dgrams (now += 1 ms); returns
 * its result. */
int h3p_recv(struct h3p_fx *f);
/* Issues one request; returns its cookie (fatal if refused). */
uint64_t h3p_issue(struct h3p_fx *f);
/* write_dgrams once; returns its result. */
shb_ssize h3p_write(struct h3p_fx *f);

/* The vtable's [conn] members on f's connection through the kit, `now`
 * set on the kit's clock first. */
uint32_t h3p_vt_state(struct h3p_fx *f);
uint32_t h3p_vt_capacity(struct h3p_fx *f);
shb_tstamp h3p_vt_next_deadline(struct h3p_fx *f);
const char *h3p_vt_error_detail(struct h3p_fx *f);
int h3p_vt_issue(struct h3p_fx *f, const void *prep, uint64_t cookie,
		 shb_tstamp now);
void h3p_vt_cancel(struct h3p_fx *f, uint64_t cookie, shb_tstamp now);
void h3p_vt_shutdown(struct h3p_fx *f, uint32_t mode, shb_tstamp now);
int h3p_vt_on_timer(struct h3p_fx *f, shb_tstamp now);
int h3p_vt_recv_dgrams(struct h3p_fx *f, struct shb_vec *v, size_t n,
		       shb_tstamp now);
shb_ssize h3p_vt_write_dgrams(struct h3p_fx *f, uint8_t *buf, size_t cap,
			      size_t *seg, shb_tstamp now);

/* ---- server bytes -------------------------------------------------------- */

/* HEADERS frame with a one-line field section: static :status index
 * (e.g. 25 for 200) */
size_t h3p_headers_status_idx(uint8_t *out, unsigned index);
/* A DATA frame with payload `text`. */
size_t h3p_data(uint8_t *out, const char *text);

#endif
