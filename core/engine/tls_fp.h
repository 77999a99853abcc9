/* Fingerprints of shb's own ClientHello: JA3 (Salesforce) and JA4 (FoxIO),
 * so that a report says what a server or a middlebox sees of the client.
 * The first ClientHello of a run is kept (core/engine/tls.c hands the one the
 * core's TLS sends, a QUIC module hands its own through
 * host->tls_client_hello), parsed by a small bounded parser and hashed on
 * the main thread when a report needs it. */
#ifndef SHB_CORE_TLS_FP_H
#define SHB_CORE_TLS_FP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The largest ClientHello kept: shb's are about 300 to 600 bytes; a larger
 * one is not fingerprinted (the report says nothing rather than guess). */
#define SHB_HELLO_MAX 4096

/* Caps of the parser: a ClientHello with more entries than these in one
 * list is refused (no fingerprint) instead of being cut. */
#define SHB_FP_MAX_CIPHERS 256
#define SHB_FP_MAX_EXTS 64
#define SHB_FP_MAX_GROUPS 64
#define SHB_FP_MAX_POINT_FORMATS 16
#define SHB_FP_MAX_SIGALGS 64

/* The fields JA3 and JA4 read, GREASE values (RFC 8701) already left out.
 * alpn points into the parsed message. */
struct shb_client_hello {
	uint16_t legacy_version;
	uint16_t version;   /* highest of supported_versions, else legacy */
	int has_sni;
	const uint8_t *alpn; /* the first ALPN protocol, NULL without */
	size_t alpn_len;
	size_t n_ciphers, n_exts, n_groups, n_pf, n_sigalgs;
	uint16_t ciphers[SHB_FP_MAX_CIPHERS];
	uint16_t exts[SHB_FP_MAX_EXTS];
	uint16_t groups[SHB_FP_MAX_GROUPS];
	uint8_t pf[SHB_FP_MAX_POINT_FORMATS];
	uint16_t sigalgs[SHB_FP_MAX_SIGALGS];
};

/* Parses a ClientHello handshake message (from its type byte on, len
 * bytes, never read beyond). Returns 0, or -1 if it is not one whole
 * well-formed ClientHello or exceeds a cap above. */
int shb_client_hello_parse(const uint8_t *msg, size_t len,
			   struct shb_client_hello *ch);

/* JA3: the MD5 of "version,ciphers,extensions,groups,point formats" as 32
 * lower-case hex digits and a NUL. Returns 0, or -1 (no MD5 available). */
#define SHB_JA3_LEN 33
int shb_ja3(const struct shb_client_hello *ch, char out[SHB_JA3_LEN]);

/* JA4, e.g. "t13d1516h2_8daaf6152771_e5627efa2ab1": quic selects the
 * 'q' prefix instead of 't'. Returns 0, or -1 (no SHA-256). */
#define SHB_JA4_LEN 37
int shb_ja4(const struct shb_client_hello *ch, int quic, char out[SHB_JA4_LEN]);

/* Takes the ClientHello handshake message out of the TLS records the core
 * wrote first (`rec`, len bytes: handshake records, possibly a message
 * split over several). Copies it into out (cap bytes). Returns its length,
 * or 0 if the records do not hold one whole ClientHello within cap. */
size_t shb_hello_from_records(const uint8_t *rec, size_t len, uint8_t *out,
			      size_t cap);

/* The run's first ClientHello. Zero it before the workers start. */
struct shb_hello {
	atomic_int state;  /* 0 empty, 1 being written, 2 kept */
	int quic;          /* set with the message */
	size_t len;
	uint8_t msg[SHB_HELLO_MAX];
	/* [main] worked out from msg at the first shb_hello_fingerprints
	 * call after it was kept */
	int done;
	char ja3[SHB_JA3_LEN];
	char ja4[SHB_JA4_LEN];
};

/* [any] Keeps msg (len bytes, borrowed for the call) if it is the first
 * ClientHello of the run; every later call returns at once. */
void shb_hello_keep(struct shb_hello *h, const uint8_t *msg, size_t len,
		    int quic);

/* [main] The fingerprints of the kept ClientHello: *ja3 and *ja4 point
 * into h (valid while h lives), or both are NULL when none was kept yet
 * or it could not be parsed. */
void shb_hello_fingerprints(struct shb_hello *h, const char **ja3,
			    const char **ja4);

#endif
