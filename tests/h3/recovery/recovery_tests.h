/* The recovery test executable: suites (one array per source file) and a
 * scripted harness around struct shb_quic_recovery that records every
 * acked/lost callback. */
#ifndef SHB_RECOVERY_TESTS_H
#define SHB_RECOVERY_TESTS_H

#include <CUnit/CUnit.h>

#include "quic_recovery.h"

extern CU_TestInfo shb_rec_ackrx_tests[];
extern CU_TestInfo shb_rec_rtt_tests[];
extern CU_TestInfo shb_rec_cc_tests[];
extern CU_TestInfo shb_rec_sent_tests[];
extern CU_TestInfo shb_rec_loss_tests[];
extern CU_TestInfo shb_rec_pto_tests[];
extern CU_TestInfo shb_rec_pacer_tests[];

#define MS SHB_QUIC_MS
#define T0 (1000 * MS) /* scripts start at 1 s, never at 0 */
#define SZ 1200u       /* a full packet */

#define RH_MAX_EVENTS 4096

enum rh_kind { RH_ACKED = 1, RH_LOST = 2 };

struct rh_event {
	int kind;
	int space;
	uint64_t pn;
	uint64_t tag;
	uint64_t time_sent;
	uint32_t size;
	uint32_t nrefs;
	struct shb_quic_frame_ref ref0; /* first reference, if any */
};

struct rh {
	struct shb_quic_recovery r;
	uint32_t nev;
	struct rh_event ev[RH_MAX_EVENTS];
};

/* cfg may be NULL. Aborts the test run on failure. */
void rh_init(struct rh *h, const struct shb_quic_recovery_config *cfg);
void rh_free(struct rh *h);

/* Sends one packet of `size` at `now`; tag = pn; one reference
 * (kind 7, id = pn, offset = pn * 100, len = size) for ack-eliciting ones.
 * Returns the packet number; the on_sent() result goes to *rc if not NULL. */
uint64_t rh_send(struct rh *h, enum shb_quic_pns sp, uint32_t size,
		 int eliciting, uint64_t now, int *rc);
/* ACK frame with one range. */
int rh_ack(struct rh *h, enum shb_quic_pns sp, uint64_t lo, uint64_t hi,
	   uint64_t delay, uint64_t now);

/* Events of `kind` (0: any) since rh_init / rh_clear_events. */
uint32_t rh_count(const struct rh *h, int kind);
/* 1 if an event of `kind` for pn in space sp was recorded. */
int rh_has(const struct rh *h, int kind, int sp, uint64_t pn);
void rh_clear_events(struct rh *h);

/* Deterministic PRNG for the randomised comparisons. */
uint64_t rh_rand(uint64_t *state);

#endif
