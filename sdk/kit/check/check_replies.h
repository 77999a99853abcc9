/* shb-plugin-check: what the reply groups share (check_replies.c,
 * check_cancel.c): a module at some -p, the corpus, the connection set-up
 * that issues requests, and the bytes that answer them. */
#ifndef SHB_CHECK_REPLIES_H
#define SHB_CHECK_REPLIES_H

#include "check.h"

/* STREAM: split in two at every offset up to this many bytes, at this
 * many offsets spread evenly above. */
#define CHK_SPLIT_OFFSETS 4096
/* DGRAM: the most datagrams in one train fed. */
#define CHK_TRAIN_MAX 64

struct chk_rig {
	struct chk *k;
	struct shb_kit_module m;
	struct chk_corpus c;
	char check[96]; /* "GROUP NAME" */
	int dgram;      /* DGRAM transport */
	uint32_t p;      /* the -p running (resolved from max) */
	uint32_t want;   /* requests to issue per connection */
	uint32_t issued; /* how many the last set-up issued */
	char plist[96];  /* the -p values run, "1,4" */
	uint64_t feeds, results, conns;
};

/* The bytes fed for one check: STREAM, back to back; DGRAM, the
 * datagrams back to back with their lengths. p is malloc'd. */
struct chk_data {
	uint8_t *p;
	size_t len;
	size_t dgram[CHK_TRAIN_MAX];
	size_t ndgrams;
};

/* Loads the plugin (random_secure answering zeros) and the corpus for
 * protocol k->index; r->check is "GROUP NAME". 0, or -1 after a FAIL. */
int chk_rig_open(struct chk_rig *r, struct chk *k, const char *group);
/* A module at -p p (0: the most a connection takes, at most 64) with a
 * request timeout (0: none). 0, or -1 after a FAIL line. */
int chk_rig_module(struct chk_rig *r, uint32_t p, shb_tstamp timeout);
/* A connection with the handshake fed and r->want requests issued. */
int chk_rig_conn(struct chk_rig *r, struct shb_kit_conn *c);
/* Feeds a stream chunk or one datagram, then flushes the output. */
int chk_rig_feed(struct chk_rig *r, struct shb_kit_conn *c,
		 const uint8_t *p, size_t len);
/* The bytes answering r->issued requests with one reply (chk_data). */
int chk_rig_data(struct chk_rig *r, const struct chk_reply *rep,
		 struct chk_data *d);
/* DGRAM: a train of one datagram per request, replies first, first+1... */
int chk_rig_train(struct chk_rig *r, size_t first, struct chk_data *d);
/* Runs fn with a module at each -p of --parallel (r->m open). */
int chk_rig_each_p(struct chk_rig *r, int (*fn)(struct chk_rig *r));
/* A WARN line and 1 when there is no reply to check with. */
int chk_rig_nothing(struct chk_rig *r);
/* A FAIL line for the first violation after `before`, with ctx; 1, or 0
 * when there is none. */
int chk_violation_ctx_rig(struct chk_rig *r, size_t before, const char *ctx);

/* DGRAM: the train whole, one datagram per call, and in calls of 2 and
 * 3: the same results (ref: the whole train's). 0 same, 1 different
 * (mismatch says how), -1 a connection could not be set up. */
int chk_split_dgrams(struct chk_rig *r, const struct chk_data *d,
		     struct shb_kit_outcome *ref, char *mismatch, size_t n);

#endif
