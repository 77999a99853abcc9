/* Connections that fail, one policy whatever the transport (TCP, TLS,
 * connected UDP): a connection that ends before any response ended on it
 * makes its slot back off before connecting again, exponentially; when
 * every slot of a worker failed GIVE_UP_FAILS times in a row and no
 * connection of the run ever carried a response, the run stops with one
 * line. A connection that takes no request at all (no stream granted,
 * no capacity) for the connect timeout is such a failure. All [worker]. */
#ifndef SHB_CORE_CONN_BUDGET_H
#define SHB_CORE_CONN_BUDGET_H

struct shb_conn;

/* c closed (its slot goes idle): a failure in a row of its slot, with a
 * backoff, unless a response (or a timed-out request) ended on it. */
void shb_conn_note_outcome(struct shb_conn *c);
/* A response ended on c: its slot and the run got through. */
void shb_conn_succeeded(struct shb_conn *c);
/* A ready connection that could take no request while there was one to
 * send, and had none in flight, for the connect timeout is failed (a
 * server that grants no stream, or never finishes its protocol's
 * set-up, would otherwise hold the run forever). */
void shb_conn_check_grant(struct shb_conn *c);

#endif
