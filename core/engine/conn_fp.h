/* Fingerprints of shb's own connections as the protocol module encodes
 * them (host->conn_fingerprint, enum shb_conn_fp_kind): the HTTP/2 Akamai
 * string, the QUIC transport parameter ids, the HTTP/3 SETTINGS. The first
 * text of each kind of the run is kept, written once by whichever worker's
 * connection hands one first and read on the main thread for the report,
 * like the ClientHello of tls_fp.h. */
#ifndef SHB_CORE_CONN_FP_H
#define SHB_CORE_CONN_FP_H

#include <stdatomic.h>
#include <stdint.h>

#include <shb/host.h>

/* The kinds kept, 1 to SHB_CONN_FP_KINDS (enum shb_conn_fp_kind). */
#define SHB_CONN_FP_KINDS 3

struct shb_conn_fp {
	atomic_int state; /* 0 empty, 1 being written, 2 kept */
	char text[SHB_CONN_FP_MAX + 1];
};

/* The run's; zero it before the workers start. */
struct shb_conn_fps {
	struct shb_conn_fp fp[SHB_CONN_FP_KINDS];
};

/* [any] Keeps text (borrowed for the call) as kind's fingerprint if it is
 * the first of the run; every later call, an unknown kind and a text that
 * is empty, longer than SHB_CONN_FP_MAX or not printable ASCII return at
 * once. */
void shb_conn_fp_keep(struct shb_conn_fps *f, uint32_t kind, const char *text);

/* [main] The kept text of kind, or NULL (none kept yet, unknown kind). */
const char *shb_conn_fp_get(struct shb_conn_fps *f, uint32_t kind);

struct shb_results;
/* [main] Sets r's h2_fingerprint, quic_tp_fingerprint and
 * h3_settings_fingerprint from f (pointers into f). */
void shb_conn_fp_results(struct shb_conn_fps *f, struct shb_results *r);

#endif
