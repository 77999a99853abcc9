/* The connection tests' harness: a client connection and a ts_server
 * joined by two in-memory links (one per direction) with a one-way delay,
 * seeded loss / duplication / reordering and scripted drops, on a virtual
 * clock that jumps to the next delivery or deadline. A small client
 * "application" records every event and checks stream data as it comes. */
#ifndef SHB_TEST_CONN_HARNESS_H
#define SHB_TEST_CONN_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic_conn.h"
#include "quic_conn_int.h"
#include "ts_server.h"

#define H_MS UINT64_C(1000000)
#define H_MAX_STREAMS 512

struct h_dgram {
	uint64_t at;
	size_t len;
	uint8_t data[1500];
};

struct h_link {
	struct h_dgram *q;
	size_t n, cap;
	uint64_t sent;        /* datagrams offered */
	uint64_t delivered;
	uint64_t delay;       /* one-way, ns */
	uint32_t loss_pct, dup_pct, reorder_pct;
	uint64_t drop_first;  /* drop datagrams 0 .. drop_first-1 */
	uint64_t drop_list[8]; /* drop these indices (+1; 0 = unused) */
	bool drop_all;
	uint64_t rng;
	/* The first datagram offered, kept for tests that replay it. */
	uint8_t first[1500];
	size_t first_len;
};

/* What the client application saw on one stream. */
struct h_stream {
	uint64_t id;
	uint8_t *data;
	size_t len, cap;
	bool fin, reset, stop, opened;
	uint64_t reset_code, stop_code, final_size;
	uint64_t bad_bytes;   /* bytes that differ from ts_byte() */
	uint64_t bad_offsets; /* events whose offset was not the next */
	uint32_t fin_events;
};

struct harness;
typedef void (*h_hook)(struct harness *h, const struct shb_quic_event *ev);

struct harness {
	struct shb_quic_conn *c;
	struct ts_server *s;
	struct shb_quic_tls_ctx tls;
	struct h_link up, down; /* client -> server, server -> client */
	uint64_t now;
	/* client events */
	uint32_t hs_done, closed, streams_available, events;
	struct shb_quic_close_info close;
	char close_reason[160];
	struct h_stream st[H_MAX_STREAMS];
	size_t nst;
	bool check_bytes; /* compare bidi stream data with ts_byte() */
	h_hook hook;      /* called for every event, after recording */
	void *hook_ctx;
	/* train checks */
	uint64_t trains, datagrams, bad_trains, short_initials, oversize;
	uint64_t max_train;
	uint64_t probe_trains, probe_train_max; /* trains written with a probe owed */
	/* auto-retire finished bidi streams from the client app */
	bool auto_retire;
};

/* Sets up both ends. cfg / scfg may be NULL for defaults; cfg's tls,
 * on_event and user are filled in. Returns 0 or -1. */
int h_init(struct harness *h, const struct shb_quic_conn_config *cfg,
	   const struct ts_config *scfg, uint64_t seed);
void h_fini(struct harness *h);

/* Runs until cond(h) is true or `max` ns of virtual time passed. Returns
 * cond(h) at the end. cond may be NULL (run for `max`). */
bool h_run(struct harness *h, bool (*cond)(struct harness *h), uint64_t max);

/* Conditions. */
bool h_cond_handshake(struct harness *h);
bool h_cond_closed(struct harness *h);
bool h_cond_quiet(struct harness *h); /* nothing in flight, no deadline soon */

struct h_stream *h_stream(struct harness *h, uint64_t id);
/* Opens a request stream and sends data[0..len) with FIN. Returns the ID
 * or a negative code. */
int64_t h_request(struct harness *h, const uint8_t *data, size_t len);
/* A datagram straight to the client now (e.g. a stateless reset). */
void h_inject(struct harness *h, uint8_t *d, size_t len);

/* The shared certificate of the suite (made once). */
void h_dump(struct harness *h);
const struct tp_cert *h_cert(void);
const struct tp_cert *h_big_cert(void);
int h_suite_init(void);
int h_suite_clean(void);

#endif
