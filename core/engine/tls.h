/* TLS over TCP for stream protocols, run by the core with GnuTLS entirely in
 * memory: ciphertext in from the ring's receive buffers, ciphertext out into
 * a buffer the core sends. No file descriptor ever reaches GnuTLS. */
#ifndef SHB_CORE_TLS_H
#define SHB_CORE_TLS_H

#include <stddef.h>
#include <stdint.h>
#include <gnutls/gnutls.h>

#include "common/buf.h"

struct shb_hello;

/* Shared, read-only after shb_tls_ctx_init: credentials, priorities, ALPN,
 * and the name the server's certificate must be valid for. */
struct shb_tls_ctx {
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	gnutls_datum_t alpn[8];
	unsigned alpn_count;
	const char *host; /* the URL host, IPv6 without brackets */
	const char *sni;  /* host, or NULL for IP literals (no SNI then) */
	int verify;       /* 0 none, 1 system store, 2 CA file */
	/* For an IP literal the certificate must hold that address in an
	 * iPAddress subjectAltName: GnuTLS keeps a pointer to this, so it
	 * lives here, as long as every session. */
	unsigned char ip[16];
	gnutls_typed_vdata_st ip_vdata;
	/* Where the first ClientHello of the run goes (tls_fp.h), or NULL.
	 * Set after shb_tls_ctx_init; the sessions of every worker write to
	 * it, the first one wins. */
	struct shb_hello *hello;
	int has_cert; /* a client certificate is set */
	/* --tls-resume: sessions take tickets (set after init, before
	 * any session). */
	int resume;
};

/* --tls-resume: the session data of a worker's last connection to one
 * origin that got one (gnutls_session_get_data2), offered by the next.
 * Owned by the worker; [worker] only. */
struct shb_tls_ticket {
	gnutls_datum_t d; /* size 0: none yet */
};

/* [worker] Frees the data; the ticket is empty again. */
void shb_tls_ticket_free(struct shb_tls_ticket *tk);

/* verify: 0 none, 1 system trust store, 2 cafile. host: the URL host (kept
 * by pointer; IPv6 without brackets): sent as SNI unless an IP literal, and
 * with verify on, the certificate must be valid for it (a DNS name, or an
 * IP address SAN for an IPv4 or IPv6 literal). alpn: NULL-terminated.
 * Returns 0 or -1 with one line in err. */
int shb_tls_ctx_init(struct shb_tls_ctx *c, int verify, const char *cafile,
		     const char *host, const char *const *alpn, char *err,
		     size_t errlen);
void shb_tls_ctx_free(struct shb_tls_ctx *c);

/* [main] Replaces the context's default priorities with `prio`, a string
 * shb_tls_priority built (and checked). Returns 0 or -1 with err. */
int shb_tls_ctx_set_priority(struct shb_tls_ctx *c, const char *prio,
			     char *err, size_t errlen);
/* [main] Presents the client certificate in cert_file (PEM chain) with the
 * private key in key_file (PEM) when a server asks for one (mTLS). Check
 * them first with shb_tls_check_client_cert. Returns 0 or -1 with err. */
int shb_tls_ctx_set_client_cert(struct shb_tls_ctx *c, const char *cert_file,
				const char *key_file, char *err, size_t errlen);

/* [main] --cert/--key at start, before any traffic: both files readable,
 * a PEM certificate (chain) in one, an unencrypted PEM private key in the
 * other, and the key the certificate's. Returns 0, or -1 with one line
 * in err naming the file and what is wrong. */
int shb_tls_check_client_cert(const char *cert_file, const char *key_file,
			      char *err, size_t errlen);

/* [main] The GnuTLS priority string for --ciphers (a priority string, or
 * NULL) and --tls-version (0x0303, 0x0304, or 0 for any), checked with
 * gnutls_priority_init. quic: for a protocol that runs TLS 1.3 itself
 * (--tls-version 1.2 is refused, and the string must leave a TLS 1.3
 * suite). *out receives a malloc'd string, or NULL when shb's default
 * stays (neither option, or only --tls-version 1.3 with quic). Returns 0,
 * or -1 with one line in err (a bad string names the part GnuTLS
 * rejected). */
int shb_tls_priority(const char *ciphers, uint32_t version, int quic,
		     char **out, char *err, size_t errlen);
/* [main] A priority string from elsewhere (a protocol's tls_priority),
 * checked with gnutls_priority_init. Returns 0, or -1 with err saying
 * where GnuTLS rejects it: `is refused by GnuTLS at "PART" (why)`. */
int shb_tls_priority_check(const char *prio, char *err, size_t errlen);

struct shb_tls {
	gnutls_session_t s;
	const uint8_t *in; /* ciphertext being fed, borrowed for one call */
	size_t in_len, in_off;
	/* Ciphertext produced, to be sent: the connection keeps two buffers
	 * and swaps them, so the one in the kernel never moves. An append
	 * past its cap or out of memory fails the write (ENOMEM). */
	struct shb_buf *out;
	int handshake_done;
	int hello_seen; /* the first flight went by ctx->hello */
	const struct shb_tls_ctx *ctx;
	struct shb_tls_ticket *ticket; /* --tls-resume: kept up to date */
	int ticket_saved; /* this session's data is in *ticket */
};

/* Creates a client session writing its records into *out. */
int shb_tls_new(struct shb_tls *t, const struct shb_tls_ctx *c,
		struct shb_buf *out, char *err, size_t errlen);
void shb_tls_free(struct shb_tls *t);
/* [worker] --tls-resume, after shb_tls_new and before the handshake: the
 * session offers tk's data if it holds any, and once it has its own (a
 * TLS 1.3 ticket after the handshake, TLS 1.2's session at its end)
 * replaces tk's with it. tk outlives the session. */
void shb_tls_resume(struct shb_tls *t, struct shb_tls_ticket *tk);
/* 1 when the finished handshake resumed a session. */
int shb_tls_resumed(const struct shb_tls *t);
void shb_tls_set_out(struct shb_tls *t, struct shb_buf *out);

/* Makes `data` the ciphertext that the next handshake/read calls consume. */
static inline void shb_tls_feed(struct shb_tls *t, const uint8_t *data,
				size_t len)
{
	t->in = data;
	t->in_len = len;
	t->in_off = 0;
}

/* 1 done, 0 needs more input, -1 failed (err filled: for a certificate
 * issued to other names "certificate is not valid for HOST"; for a
 * server's alert "alert N (name)"; for an answer that is no TLS record,
 * a hint that the port may speak plain HTTP). */
int shb_tls_handshake(struct shb_tls *t, char *err, size_t errlen);
/* [any] Whether a handshake that failed with `msg` (core/engine/tls.c's, or a
 * protocol's own TLS: the h3 plugin writes "[server sent ]TLS alert N
 * (name)") may have failed for want of SNI: a server that picks its
 * certificate by name refuses one without it with internal_error (alert
 * 80, Caddy) or unrecognized_name (112, nginx's ssl_reject_handshake);
 * and a certificate verified at an address it does not hold ("not valid
 * for", or h3's own bad_certificate, 42, which names no reason) passes
 * with --sni NAME, which names what is verified. Other alerts
 * (handshake_failure 40: no common cipher or group; a server's 42 about
 * our certificate) and answers that are not TLS have other causes, so the
 * SNI hint would mislead there. */
int shb_tls_sni_may_matter(const char *msg);
/* Decrypts one record into buf. Returns bytes (> 0), 0 when input is
 * exhausted, SHB_TLS_EOF on close_notify, or -1 with err. */
#define SHB_TLS_EOF (-2)
long shb_tls_read(struct shb_tls *t, uint8_t *buf, size_t cap, char *err,
		  size_t errlen);
/* Encrypts len bytes into the out buffer. Returns 0 or -1 with err. */
int shb_tls_write(struct shb_tls *t, const void *data, size_t len, char *err,
		  size_t errlen);
/* Queues close_notify into the out buffer (best effort). */
void shb_tls_bye(struct shb_tls *t);
/* The negotiated ALPN id copied into buf (empty if none). */
void shb_tls_alpn(struct shb_tls *t, char *buf, size_t cap);
/* 0x0303 / 0x0304 */
uint32_t shb_tls_version(struct shb_tls *t);

#endif
