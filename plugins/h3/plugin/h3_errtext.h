/* Words for the ways an HTTP/3 connection or stream ends: transport error
 * names (RFC 9000 Section 20.1), TLS alert names, and the one-line reason
 * plus SHB_E_* class the core gets when a QUIC connection ends badly. */
#ifndef SHB_H3_ERRTEXT_H
#define SHB_H3_ERRTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "quic_conn.h"

/* "PROTOCOL_VIOLATION" for a transport error code 0x00..0x10, else
 * NULL. */
const char *shb_h3_transport_error_name(uint64_t code);

/* Writes the TLS alert's name ("bad_certificate") into out[cap]; a number
 * when GnuTLS does not know it. Returns out. */
const char *shb_h3_alert_name(uint8_t alert, char *out, size_t cap);

/* Writes "NAME (0xCODE)" for an HTTP/3 application error code, or
 * "application error 0xCODE" for an unknown one. Returns out. */
const char *shb_h3_app_code_text(uint64_t code, char *out, size_t cap);

/* Timeouts the descriptions quote, ns. */
struct shb_h3_close_ctx {
	uint64_t handshake_timeout;
	uint64_t idle_timeout;
	int handshake_done;
	int has_cert; /* --cert was given */
};

/* How a connection that ended other than by our own close failed: writes
 * one line into out[cap] ("QUIC handshake failed: TLS alert 42
 * (bad_certificate)", "idle timeout after 30 s", "peer closed:
 * H3_INTERNAL_ERROR (0x102): reason", ...) and returns the SHB_E_* class:
 * SHB_E_TLS for TLS alerts either way, SHB_E_TIMEOUT for the handshake
 * and idle timeouts, SHB_E_CLOSED for the peer's close and stateless
 * resets, SHB_E_PROTO for errors we detected and version mismatch. For
 * origin LOCAL or NONE returns 0 and writes "". */
int shb_h3_close_describe(const struct shb_quic_close_info *ci,
			  const struct shb_h3_close_ctx *ctx, char *out,
			  size_t cap);

#endif
