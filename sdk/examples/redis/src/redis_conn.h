/* One Redis connection: AUTH and SELECT first when asked for, then
 * commands pipelined up to -p deep, their replies matched in order.
 * Also the module, worker and prepared-request state the connections
 * read (built in redis_plugin.c). */
#ifndef REDIS_CONN_H
#define REDIS_CONN_H

#include <shb/shb.h>

#include "redis_cmd.h"
#include "resp.h"

#define REDIS_PLUGIN_ID "org.shb.example.redis"
/* The outcome space of every reply: its codes are enum resp_kind. */
#define REDIS_SPACE (SHB_APPSPACE_PRIVATE + 6379u)

/* The plugin's metrics (ABI 1.4, redis_desc.metrics), by index. */
enum redis_metric {
	REDIS_METRIC_DEPTH = 0, /* VALUE: commands in flight as one is sent */
	REDIS_METRIC_COUNT = 1,
};
#define REDIS_PIPE_MAX 1024u /* -p at most */
#define REDIS_RANGE_DEFAULT 1000000u

/* [main] built by module_create, read-only after; read by every worker. */
struct redis_module {
	const struct shb_host *host;
	uint32_t parallel; /* replies awaited per connection, at most */
	uint32_t threads;
	uint32_t once;     /* one request per connection (--no-keepalive) */
	uint32_t reserved;
	uint64_t max_bulk;
	uint64_t range;    /* {rand} is 0 .. range - 1 */
	int64_t database;  /* the database option, -1 without one */
	char *auth;        /* password, or NULL; never printed */
	char *user;        /* ACL user name for AUTH, or NULL */
	struct redis_cmd cmd;
};

/* [main] from prepare_request: what each connection sends first. */
struct redis_prepared {
	struct redis_buf hello;  /* AUTH and SELECT, or empty */
	uint32_t hello_count;    /* commands in it */
	const char *hello_names[2]; /* "AUTH", "SELECT", in order */
};

/* [worker] worker_size bytes: {seq} and {rand} of its connections. */
struct redis_worker {
	uint64_t next; /* requests this worker has issued */
	uint64_t rng;  /* xorshift64* state, never 0 */
	uint32_t index;
	uint32_t threads;
};

struct redis_slot {
	uint64_t cookie;
	uint32_t cancelled; /* the core gave up: its reply is dropped */
	uint32_t reserved;
};

/* [conn] conn_size bytes. */
struct redis_conn {
	const struct redis_module *m;
	struct redis_worker *w;
	struct shb_conn *h;
	const struct redis_prepared *hello;
	struct redis_slot *ring; /* m->parallel slots, oldest at head */
	uint32_t head, count;
	uint32_t hello_left; /* replies to AUTH/SELECT still to come */
	uint32_t ready, closed, issued;
	/* out[cur] is what pull_send handed out (sent up to off); issue
	 * appends to the other, swapped in once out[cur] is all sent. */
	struct redis_buf out[2];
	uint32_t cur;
	size_t off;
	struct resp_parser rp;
	shb_tstamp first; /* `now` of the current reply's first byte */
	char err[160];
};

int redis_conn_init(void *module, void *worker, void *conn,
		    struct shb_conn *handle, shb_tstamp now);
void redis_conn_fini(void *conn);
int redis_conn_ready(void *conn, const struct shb_transport_info *info,
		     shb_tstamp now);
shb_ssize redis_conn_recv(void *conn, const uint8_t *data, size_t len,
			  shb_tstamp now);
int redis_conn_recv_eof(void *conn, shb_tstamp now);
shb_ssize redis_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
			       shb_tstamp now);
void redis_conn_sent(void *conn, size_t n, shb_tstamp now);
uint32_t redis_conn_state(const void *conn);
uint32_t redis_conn_capacity(const void *conn);
int redis_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		     shb_tstamp now);
void redis_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now);
void redis_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now);
const char *redis_conn_error_detail(const void *conn);

#endif
