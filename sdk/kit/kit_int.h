/* Kit internals shared by host.c, driver.c and split.c; not installed. */
#ifndef SHB_KIT_INT_H
#define SHB_KIT_INT_H

#include <shb/kit.h>

/* Grows *arr (elements of `size` bytes, *cap of them) to hold `need`.
 * 0, or -1 when out of memory. */
int shb_kit_grow(void *arr, size_t *cap, size_t need, size_t size);

/* Registers a connection with the host: returns its handle (never NULL). */
struct shb_conn *shb_kit_host_attach(struct shb_kit_host *kh,
				     struct shb_kit_conn *c);
/* conn_fini returned: later callbacks on the handle are violations. */
void shb_kit_host_detach(struct shb_kit_host *kh, struct shb_conn *handle);

/* Marks the [conn] call `call` on `c` in progress; leave ends it. */
void shb_kit_enter(struct shb_kit_conn *c, const char *call);
void shb_kit_leave(struct shb_kit_conn *c);

/* Cookie bookkeeping of a connection. */
int shb_kit_conn_add_outstanding(struct shb_kit_conn *c, uint64_t cookie);
/* Removes `cookie` from outstanding and retires it; 1 if it was there. */
int shb_kit_conn_retire(struct shb_kit_conn *c, uint64_t cookie,
			int cancelled);
/* -1: never retired; else its `cancelled` flag. */
int shb_kit_conn_retired(const struct shb_kit_conn *c, uint64_t cookie);

/* driver.c, for driver_dgram.c: the host clock's now; appending to what
 * a connection sent (0, or -1 when out of memory). */
shb_tstamp shb_kit_now_of(const struct shb_kit_conn *c);
int shb_kit_append_out(struct shb_kit_conn *c, const void *p, size_t n);

/* Marks the [conn] call `name` on c, runs `expr`, re-reads the state as
 * the core does. */
#define SHB_KIT_CALL(c, name, expr)                                            \
	do {                                                                   \
		shb_kit_enter(c, name);                                        \
		expr;                                                          \
		shb_kit_leave(c);                                              \
		shb_kit_conn_poll(c);                                          \
	} while (0)

/* The connection a host callback named, if the rules allow a callback
 * now (inside a [conn] call on it, on that thread); NULL after recording
 * the violation otherwise. `tag` ends the message (" (cookie 7)"). */
struct shb_kit_conn *shb_kit_callback_conn(struct shb_kit_host *kh,
					   struct shb_conn *handle,
					   const char *what, const char *tag);

/* Metrics (metrics.c): the table of descriptor d (NULL: none) becomes the
 * host's, with nothing recorded; _clear forgets what was recorded. */
void shb_kit_metrics_use(struct shb_kit_host *kh,
			 const struct shb_proto_desc *d);
void shb_kit_metrics_clear(struct shb_kit_host *kh);
/* host->metric_add and host->metric_record of a 1.4 host. */
void shb_kit_host_metric_add(struct shb_conn *handle, uint32_t index,
			     uint64_t n);
void shb_kit_host_metric_record(struct shb_conn *handle, uint32_t index,
				uint64_t value);

#endif
