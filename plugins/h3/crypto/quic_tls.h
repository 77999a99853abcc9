/* TLS 1.3 for a QUIC v1 client on GnuTLS 3.7.9's QUIC API (RFC 9001
 * section 4): a thin layer over one gnutls_session_t that never touches a
 * socket. It turns GnuTLS's hooks into four plain callbacks and enforces the
 * rules GnuTLS leaves to its caller, so the connection cannot get them wrong:
 *
 *  - gnutls_handshake() is never called again once it returned 0 (a second
 *    call would start a TLS KeyUpdate); later CRYPTO bytes only go through
 *    gnutls_handshake_write();
 *  - CRYPTO data must arrive at the level GnuTLS currently reads (INITIAL
 *    until the ServerHello, HANDSHAKE until completion, APPLICATION after);
 *    anything else is PROTOCOL_VIOLATION (0x0a) before GnuTLS sees it;
 *  - a TLS KeyUpdate from the peer is refused (RFC 9001 6: 0x10a);
 *  - INITIAL-level messages reach GnuTLS with at least their first 39 bytes
 *    in one piece, because GnuTLS 3.7.9 mistakes a HelloRetryRequest fed in
 *    smaller pieces for a ServerHello and fails with decode_error;
 *  - ChangeCipherSpec is never forwarded (compatibility mode is off anyway);
 *  - at completion the server must have selected ALPN "h3" (else 0x178,
 *    no_application_protocol) and sent the transport-parameters extension
 *    (else 0x16d, missing_extension): GnuTLS checks neither on a client;
 *  - a failed handshake always yields one QUIC error code for
 *    CONNECTION_CLOSE: 0x100 + the TLS alert GnuTLS chose
 *    (gnutls_alert_send_appropriate, else gnutls_error_to_alert), or the
 *    transport code named above.
 *
 * Use (the connection owns a struct shb_quic_tls; it must not move between
 * init and deinit, because GnuTLS keeps its address):
 *
 *   once per process:  shb_quic_tls_ctx_init(&ctx, &cfg, err, sizeof err);
 *   per connection:    shb_quic_tls_init(&t, &ctx, host, params, n, &cbs, conn);
 *                      shb_quic_keys_init_initial(...)          (Initial keys)
 *                      shb_quic_tls_start(&t);   -> crypto_send(INITIAL, ClientHello)
 *   per CRYPTO frame:  reassemble by offset per level, then hand the newly
 *                      contiguous bytes, once and in order, to
 *                      shb_quic_tls_recv(&t, level of the packet, bytes, n);
 *                      callbacks fire inside: secret() with new keys,
 *                      crypto_send() with bytes to send, peer_params();
 *                      after it returns, shb_quic_tls_complete(&t) says
 *                      whether the handshake is done;
 *   on a negative return: send CONNECTION_CLOSE with
 *                      shb_quic_tls_close_code(&t) and stop using t;
 *   finally:           shb_quic_tls_deinit(&t);
 *
 * Threads: the ctx is created on one thread and then only read, so all
 * workers may share it; a struct shb_quic_tls belongs to one thread.
 * Allocation: gnutls_init() and the handshake allocate (about 28 KiB per
 * session); nothing here is on the per-packet path.
 */
#ifndef SHB_QUIC_TLS_H
#define SHB_QUIC_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gnutls/gnutls.h>

#include "quic_crypto_err.h"

/* RFC 9001 section 5 cipher suites, AES-128-GCM first (cheapest and
 * mandatory to implement); TLS 1.3 only; no compatibility mode (RFC 9001
 * 8.4: no legacy_session_id, no ChangeCipherSpec). */
#define SHB_QUIC_TLS_PRIORITY                                                  \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:" \
	"+CHACHA20-POLY1305:+AES-128-CCM:-GROUP-ALL:+GROUP-X25519:"           \
	"+GROUP-SECP256R1:+GROUP-SECP384R1:%DISABLE_TLS13_COMPAT_MODE"

/* The TLS extension that carries QUIC transport parameters (RFC 9001 8.2). */
#define SHB_QUIC_TLS_EXT_TRANSPORT_PARAMS 0x39

/* Largest encoded local transport parameters accepted. */
#define SHB_QUIC_TLS_PARAMS_MAX 1024

/* GnuTLS 3.7.9 recognises a HelloRetryRequest only when the first piece it
 * is given of that message holds more than header + version + random
 * (4 + 2 + 32) bytes; see shb_quic_tls_recv. */
#define SHB_QUIC_TLS_INITIAL_HEAD 39

/* QUIC transport error codes this layer produces besides 0x100 + alert. */
#define SHB_QUIC_ERR_PROTOCOL_VIOLATION 0x0a
#define SHB_QUIC_ERR_TRANSPORT_PARAMETER 0x08
#define SHB_QUIC_ERR_CRYPTO_BASE 0x100

/* Encryption levels, numerically equal to gnutls_record_encryption_level_t.
 * Packet types map to them as: Initial -> INITIAL, 0-RTT -> EARLY,
 * Handshake -> HANDSHAKE, 1-RTT (short header) -> APPLICATION. */
enum shb_quic_level {
	SHB_QUIC_LEVEL_INITIAL = 0,
	SHB_QUIC_LEVEL_EARLY = 1,
	SHB_QUIC_LEVEL_HANDSHAKE = 2,
	SHB_QUIC_LEVEL_APPLICATION = 3,
};
#define SHB_QUIC_LEVEL_COUNT 4

struct shb_quic_tls_config {
	/* GnuTLS priority string; NULL selects SHB_QUIC_TLS_PRIORITY. Whatever
	 * it says, only TLS 1.3 with a QUIC suite can complete. */
	const char *priority;
	/* Verify the server's certificate chain and its name (the host given
	 * to shb_quic_tls_init). Off by default, as suits a load generator:
	 * without it any certificate is accepted. */
	bool verify;
	/* With verify: PEM file of trusted certificates; NULL uses the
	 * system trust store. Ignored without verify. */
	const char *ca_file;
	/* A client certificate chain and its private key (PEM files) for a
	 * server that asks for one (mTLS); both NULL: none. */
	const char *cert_file;
	const char *key_file;
	/* Send one key share (the first group, X25519) instead of two: saves
	 * one key generation per connection, costs a HelloRetryRequest round
	 * trip with servers that do not accept X25519. */
	bool key_share_top;
};

/* Per-process state shared read-only by every session: certificate
 * credentials (required even without verification: without them GnuTLS
 * offers no TLS 1.3 key share) and the parsed priority. */
struct shb_quic_tls_ctx {
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	unsigned int init_flags;
	bool verify;
};

/* Creates the shared state. On failure returns SHB_QUIC_CRYPTO_E_INVAL (bad
 * priority string, unreadable or empty CA file, a client certificate or
 * key that does not load) or _E_LIB, leaves ctx
 * empty and writes one line saying why into err (err_len bytes, may be 0). */
int shb_quic_tls_ctx_init(struct shb_quic_tls_ctx *ctx,
			  const struct shb_quic_tls_config *cfg,
			  char *err, size_t err_len);

/* Frees the shared state once no session uses it. Safe on an empty ctx. */
void shb_quic_tls_ctx_deinit(struct shb_quic_tls_ctx *ctx);

/* What a session reports to its connection. Every pointer argument is
 * valid only during the call: copy what you keep. `user` is the pointer
 * given to shb_quic_tls_init. The callbacks run inside shb_quic_tls_start
 * and shb_quic_tls_recv, never at any other time; they must not call
 * shb_quic_tls_* on the same session. */
struct shb_quic_tls_callbacks {
	/* New traffic secrets for `level` (HANDSHAKE, APPLICATION; EARLY never
	 * happens without 0-RTT). rx_secret (to open the peer's packets) and
	 * tx_secret (to seal ours) may each be NULL: they can come in separate
	 * calls. Both are secret_len bytes; cipher and hash are the suite to
	 * pass to shb_quic_keys_init(). Return 0, or negative to fail the
	 * handshake with internal_error (0x150). Required. */
	int (*secret)(void *user, enum shb_quic_level level,
		      gnutls_cipher_algorithm_t cipher, gnutls_mac_algorithm_t hash,
		      const uint8_t *rx_secret, const uint8_t *tx_secret,
		      size_t secret_len);
	/* Handshake bytes to send: append them to `level`'s CRYPTO send stream
	 * (each level has its own offsets) and keep them until that level's
	 * keys are discarded, so a PTO can resend them. One call per handshake
	 * message. Return 0, or negative to fail with internal_error.
	 * Required. */
	int (*crypto_send)(void *user, enum shb_quic_level level,
			   const uint8_t *data, size_t len);
	/* The server's transport parameters, raw (the body of extension 0x39,
	 * to be decoded by the caller). Called at most once, while the
	 * server's EncryptedExtensions is processed. Return 0 to accept, or
	 * negative to fail the handshake with TRANSPORT_PARAMETER_ERROR (0x08).
	 * Required. */
	int (*peer_params)(void *user, const uint8_t *data, size_t len);
	/* The TLS alert GnuTLS raised (for logging; the code to send is
	 * shb_quic_tls_close_code()). May be NULL. */
	void (*alert)(void *user, enum shb_quic_level level,
		      uint8_t description);
};

/* One client session. Fields are private. */
struct shb_quic_tls {
	gnutls_session_t session;
	const struct shb_quic_tls_callbacks *cb;
	void *user;
	uint64_t close_code;	/* 0 until a failure */
	uint8_t rx_level;	/* level CRYPTO data is accepted at */
	bool started;
	bool complete;
	bool failed;
	bool peer_params_seen;
	bool app_rx_seen;
	bool app_tx_seen;
	/* Head of the current INITIAL-level message, held back until GnuTLS
	 * can tell a HelloRetryRequest from a ServerHello (see quic_tls.c). */
	uint8_t init_head[SHB_QUIC_TLS_INITIAL_HEAD];
	uint8_t init_head_len;
	uint32_t init_msg_len;	/* whole message incl. header, once known */
	uint32_t init_left;	/* bytes of the message still to pass on */
	/* Framing of post-handshake messages, to spot a KeyUpdate before
	 * GnuTLS acts on it. */
	uint8_t ph_hdr_got;	/* header bytes seen of the current message */
	uint32_t ph_len;	/* its length, as far as seen */
	uint32_t ph_left;	/* body bytes still to come */
	uint16_t params_len;
	uint8_t params[SHB_QUIC_TLS_PARAMS_MAX];
	/* Set when the handshake failed because verification refused the
	 * server's certificate: GnuTLS's reasons. */
	bool verify_failed;
	unsigned verify_status;	/* gnutls_certificate_status_t bits */
};

/* Creates a client session for QUIC on `ctx`:
 *  - flags GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA | GNUTLS_NO_TICKETS
 *    | GNUTLS_NO_AUTO_REKEY (| GNUTLS_KEY_SHARE_TOP per config);
 *  - the cached priority and the shared credentials;
 *  - ALPN "h3" only;
 *  - SNI = host, unless host is NULL, empty or an IP literal (a string
 *    with ':' or a dotted IPv4 address), for which SNI is not allowed;
 *  - with ctx verification on, certificate checks against `host` (no
 *    brackets around an IPv6 literal);
 *  - the local transport parameters `params` (params_len bytes, 1 ..
 *    SHB_QUIC_TLS_PARAMS_MAX, already encoded), copied, sent in the
 *    ClientHello (again after a HelloRetryRequest);
 *  - `cbs` (kept by pointer: it must outlive the session; a static const
 *    table is the usual choice) and `user`.
 * Returns SHB_QUIC_CRYPTO_OK; _E_INVAL (bad argument, t left empty) or
 * _E_LIB (GnuTLS failure, t left empty). */
int shb_quic_tls_init(struct shb_quic_tls *t, const struct shb_quic_tls_ctx *ctx,
		      const char *host, const uint8_t *params, size_t params_len,
		      const struct shb_quic_tls_callbacks *cbs, void *user);

/* Starts the handshake: the ClientHello is handed to crypto_send at
 * INITIAL before this returns. Call once, after the Initial keys exist.
 * Returns SHB_QUIC_CRYPTO_OK, _E_INVAL (called twice) or _E_TLS. */
int shb_quic_tls_start(struct shb_quic_tls *t);

/* Hands received CRYPTO bytes to TLS: `data` (len bytes) continues
 * `level`'s receive stream exactly where the previous call for that level
 * stopped (no gaps, no duplicates: de-duplicate by offset first). Any
 * fragmentation is fine. During the handshake this also advances it, so
 * callbacks may fire. Returns SHB_QUIC_CRYPTO_OK (also when more bytes are
 * needed), _E_INVAL (not started, NULL data) or _E_TLS (fatal: see
 * shb_quic_tls_close_code; every later call returns _E_TLS too). */
int shb_quic_tls_recv(struct shb_quic_tls *t, enum shb_quic_level level,
		      const uint8_t *data, size_t len);

/* True once the handshake completed and passed the ALPN and transport-
 * parameter checks (the 1-RTT keys have been delivered by then). */
bool shb_quic_tls_complete(const struct shb_quic_tls *t);

/* The QUIC error code for CONNECTION_CLOSE after a failure (0x100 + TLS
 * alert, 0x0a or 0x08); 0 while nothing failed. Send it at the highest
 * level that has keys. */
uint64_t shb_quic_tls_close_code(const struct shb_quic_tls *t);

/* After a failure: true when certificate verification (config `verify`)
 * refused the server's certificate, with GnuTLS's reasons in *status
 * (gnutls_certificate_status_t bits; common/tls_verify_text.h words
 * them); the close code is then alert 42, bad_certificate, which alone
 * says nothing of why. */
bool shb_quic_tls_verify_failed(const struct shb_quic_tls *t, unsigned *status);

/* The ALPN protocol the server selected: true with *alpn and *len pointing into
 * the session (valid until deinit), false if none (yet). */
bool shb_quic_tls_alpn(const struct shb_quic_tls *t, const uint8_t **alpn,
		       size_t *len);

/* The AEAD and hash that protect packets at `level`: AES-128-GCM/SHA-256
 * for INITIAL, the negotiated suite otherwise. Returns SHB_QUIC_CRYPTO_OK,
 * or _E_INVAL while the suite is not known yet (before the ServerHello). */
int shb_quic_tls_level_suite(const struct shb_quic_tls *t,
			     enum shb_quic_level level,
			     gnutls_cipher_algorithm_t *cipher,
			     gnutls_mac_algorithm_t *hash);

/* Maps a GnuTLS error to the QUIC code 0x100 + gnutls_error_to_alert(err)
 * (internal_error, 0x150, when GnuTLS has no better alert). */
uint64_t shb_quic_tls_error_to_code(int gnutls_err);

/* Frees the session and wipes t. Safe on an empty or failed t and on NULL. */
void shb_quic_tls_deinit(struct shb_quic_tls *t);

#endif
