/* One DNS-over-UDP connection: up to -p queries in flight, each with an
 * id of its own, matched by id and question when replies come, in any
 * order. Also the module and worker state the connections read (built in
 * dns_plugin.c). */
#ifndef DNS_CONN_H
#define DNS_CONN_H

#include <shb/shb.h>

#include "dns_msg.h"

#define DNS_PLUGIN_ID "org.shb.example.dns"
/* The outcome space of every reply: its codes are enum dns_rcode. */
#define DNS_SPACE (SHB_APPSPACE_PRIVATE + 53u)
#define DNS_PARALLEL_MAX 1024u /* -p at most: ids are 16 bits */
#define DNS_RANGE_DEFAULT 1000000u
#define DNS_WAIT_DEFAULT_MS 5000u
/* Queries per write_dgrams_v train at most (the descriptor's max_train). */
#define DNS_TRAIN_MAX 64u

/* [main] built by module_create, read-only after; read by every worker. */
struct dns_module {
	const struct shb_host *host;
	uint32_t parallel; /* queries in flight per connection, at most */
	uint32_t slots;    /* parallel rounded up to a power of two */
	uint32_t threads;
	uint32_t once;     /* one query per connection (--no-keepalive) */
	shb_tstamp wait_ns; /* a query unanswered this long is a timeout */
	struct dns_query q;
};

/* [worker] worker_size bytes: {seq}, {rand} and ids of its connections. */
struct dns_worker {
	uint64_t next; /* queries this worker has issued */
	uint64_t rng;  /* xorshift64* state, never 0 */
	uint32_t index;
	uint32_t threads;
};

/* A query in flight: slot k's id is k in its low bits (slots is a power
 * of two), random above, so a reply finds its slot at once. */
struct dns_slot {
	uint64_t cookie;
	uint64_t qhash;  /* its question's, to tell a stale reply */
	shb_tstamp sent; /* when issued: the wait is counted from there */
	uint16_t id;
	uint8_t used;
	uint8_t reserved[5];
	uint16_t len;    /* bytes of the query in `wire` */
	uint8_t wire[DNS_QUERY_MAX];
};

/* [conn] dns_conn_size() bytes (conn_size_for): this struct, then the
 * slots and the send queue. */
struct dns_conn {
	const struct dns_module *m;
	struct dns_worker *w;
	struct shb_conn *h;
	struct dns_slot *slot;  /* m->slots of them, after the struct */
	uint16_t *sendq;        /* 2 x m->slots slot numbers to send, oldest
				 * at sq_head, after the slots */
	uint32_t sq_head, sq_count;
	uint32_t inflight, issued;
	uint32_t ready, closed;
	uint32_t max_dgram;
	shb_tstamp deadline;    /* the earliest a query may time out, or NONE */
	uint64_t stray;         /* replies that matched no query in flight */
	char err[160];
};

size_t dns_conn_size(const struct dns_module *m);
int dns_conn_init(void *module, void *worker, void *conn,
		  struct shb_conn *handle, shb_tstamp now);
void dns_conn_fini(void *conn);
int dns_conn_ready(void *conn, const struct shb_transport_info *info,
		   shb_tstamp now);
int dns_conn_recv_dgrams(void *conn, struct shb_vec *dgrams, size_t count,
			 shb_tstamp now);
shb_ssize dns_conn_write_dgrams_v(void *conn, uint8_t *buf, size_t cap,
				  uint16_t *sizes, size_t max_count,
				  size_t *count, shb_tstamp now);
shb_tstamp dns_conn_next_deadline(const void *conn);
int dns_conn_on_timer(void *conn, shb_tstamp now);
uint32_t dns_conn_state(const void *conn);
uint32_t dns_conn_capacity(const void *conn);
int dns_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		   shb_tstamp now);
void dns_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now);
void dns_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now);
const char *dns_conn_error_detail(const void *conn);

#endif
