/* shb plugin test kit: the split driver.
 *
 * A parser must give the same outcome however the transport cuts its
 * input. shb_kit_split_check feeds one byte vector to a fresh connection
 * several times: whole, split in two at every offset, and one byte at a
 * time; for each it records the outcome (the results in order, the first
 * negative return code, the CLOSED bit, the requests still outstanding)
 * and compares it with the whole feed's. Timestamps are not compared (the
 * clock does not move while feeding).
 *
 * Ownership: the caller's structs; shb_kit_split_fini frees the outcome.
 * Thread: the test thread. */
#ifndef SHB_KIT_SPLIT_H
#define SHB_KIT_SPLIT_H

#include <shb/kit/driver.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What one feed of the vector produced. `results` are copies of the
 * host's records (detail included) in the order they came. */
struct shb_kit_outcome {
	struct shb_kit_done *results;
	size_t result_count;
	int rc;            /* SHB_OK or the first negative code (recv, eof) */
	uint32_t closed;   /* state() & SHB_CS_CLOSED at the end */
	size_t outstanding; /* cookies still outstanding at the end */
};

/* Puts a fresh connection where the input applies: typically issue one or
 * more requests and flush their bytes. Called after conn_init and
 * on_transport_ready; a non-zero return aborts the check. */
typedef int (*shb_kit_split_setup_fn)(struct shb_kit_conn *c, void *user);

struct shb_kit_split {
	struct shb_kit_module *m;     /* created and prepared */
	shb_kit_split_setup_fn setup; /* may be NULL */
	void *user;
	int eof;       /* 1: recv_eof after the input */
	size_t max_len; /* vectors longer than this are split at this many
			 * offsets only, spread evenly (0: every offset) */

	/* Results. */
	struct shb_kit_outcome ref; /* the whole feed's outcome */
	size_t feeds;               /* how many feeds ran */
	char mismatch[512];         /* the first difference, "" when none */
};

/* Runs every split of data[len] (STREAM modules). Returns 0 when every
 * split gave the whole feed's outcome; 1 with s->mismatch describing the
 * first that did not (e.g. "split at 17: result 0 status 404, whole feed
 * gave 200"); -1 when a connection could not be set up (mismatch says
 * why). The host's records and violations accumulate over all feeds: a
 * test asserts there is no violation. */
int shb_kit_split_check(struct shb_kit_split *s, const void *data, size_t len);
void shb_kit_split_fini(struct shb_kit_split *s);

/* Feeds data[len] as pieces cut at cuts[0..ncuts-1] (ascending offsets)
 * to a fresh connection and fills `out`. 0, or -1 (set-up failed). */
int shb_kit_split_feed(struct shb_kit_split *s, const uint8_t *data,
		       size_t len, const size_t *cuts, size_t ncuts,
		       struct shb_kit_outcome *out);
void shb_kit_outcome_fini(struct shb_kit_outcome *o);

/* Describes the first difference of `o` from `ref` into buf[n] (results
 * in order: cookie, outcome, status, codes, bytes, detail; then the
 * return code, CLOSED and the requests outstanding), each prefixed with
 * `what`: "what: result 0 status 500, whole feed gave 200". 1, or 0 when
 * they are the same (buf untouched). For a test's own feeds, such as
 * datagram trains cut differently. */
int shb_kit_outcome_diff(const struct shb_kit_outcome *ref,
			 const struct shb_kit_outcome *o, const char *what,
			 char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
