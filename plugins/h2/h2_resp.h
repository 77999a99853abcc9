/* ABI 1.4 for HTTP/2: responses kept for host->req_response (runs with
 * SHB_RUN_WANT_RESPONSE only), and the requests issue_req encoded.
 *
 * Kept per stream slot: the final head's fields as the scanner decoded
 * them (h2_fields.h records, copied when the head is accepted; bounded by
 * the scanner's SHB_H2_HSCAN_MAX_LIST) and up to body_max octets of DATA
 * payload. Handed over, with pseudo-headers left out and names as the
 * wire has them (lower case), just before req_done. [conn]. */
#ifndef SHB_H2_RESP_H
#define SHB_H2_RESP_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct shb_h2_conn;
struct shb_h2_stream;
struct shb_h2_request;

struct shb_h2_keep {
	struct shb_buf *head;  /* per slot: the final head's records */
	struct shb_buf *body;  /* per slot: DATA payload, body_max at most */
	uint8_t *truncated;    /* per slot: more DATA than body_max came */
	struct shb_buf strs;   /* delivery: "name\0value\0" ... */
	struct shb_buf kvs;    /* delivery: struct shb_kv into strs */
};

/* conn_init: sets up c->keep when the run wants responses. SHB_OK or
 * SHB_E_NOMEM. */
int shb_h2_keep_init(struct shb_h2_conn *c);
void shb_h2_keep_free(struct shb_h2_conn *c);
/* Stream s's final head was accepted: its fields (c->fields) kept, its
 * body emptied. */
void shb_h2_keep_head(struct shb_h2_conn *c, const struct shb_h2_stream *s);
/* DATA payload p[n] of stream s. */
void shb_h2_keep_data(struct shb_h2_conn *c, const struct shb_h2_stream *s,
		      const uint8_t *p, size_t n);
/* Stream s ended with its response (outcome OK): req_response. */
void shb_h2_keep_deliver(struct shb_h2_conn *c, const struct shb_h2_stream *s);

/* issue_req: the request encoded for stream slot k (its header block and
 * body), owned by the connection until the slot's next one or conn_fini.
 * SHB_OK or SHB_E_NOMEM. */
int shb_h2_own_request(struct shb_h2_conn *c, uint32_t k,
		       struct shb_h2_request *r);
void shb_h2_own_free(struct shb_h2_conn *c);

#endif
