/* An in-process QUIC-mode GnuTLS *server* session and a self-signed ECDSA
 * certificate, for driving the client glue through real handshakes with
 * CRYPTO bytes exchanged in memory, level by level. Shared by the crypto tests
 * and the connection tests' in-process server, hence room for a real
 * server's transport parameters and certificates spanning several packets. */
#ifndef SHB_TEST_TLS_PEER_H
#define SHB_TEST_TLS_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

struct tp_cert {
	gnutls_x509_crt_t crt;
	gnutls_x509_privkey_t key;
	gnutls_datum_t pem;	/* the certificate, PEM */
};

/* A fresh P-256 key and a self-signed certificate for DNS name `name`.
 * Returns 0 or a GnuTLS error. */
int tp_cert_make(struct tp_cert *c, const char *name);
/* The same with `extra_names` additional DNS names (name0.example ...),
 * which makes the certificate about 20 bytes longer per name. */
int tp_cert_make_big(struct tp_cert *c, const char *name, unsigned extra_names);
void tp_cert_free(struct tp_cert *c);

/* Writes the certificate's PEM to a new temporary file; path receives its
 * name (cap bytes). Returns 0 or -1. The caller unlinks it. */
int tp_cert_write_temp(const struct tp_cert *c, char *path, size_t cap);

/* One direction's handshake bytes at one level, delivered in order. */
struct tp_stream {
	uint8_t data[32768];
	size_t len;
	size_t sent;	/* delivered to the peer so far */
	unsigned msgs;	/* handshake messages appended */
};

/* Secrets seen at one level. */
struct tp_secrets {
	uint8_t rx[48], tx[48];
	size_t len;
	bool has_rx, has_tx;
	gnutls_cipher_algorithm_t cipher;
	gnutls_mac_algorithm_t hash;
};

struct tp_server_opts {
	const char *priority;	/* NULL: the QUIC default */
	bool no_alpn;		/* select no ALPN at all */
	bool no_params;		/* do not register extension 0x39 */
};

struct tp_server {
	gnutls_session_t s;
	gnutls_certificate_credentials_t cred;
	struct tp_stream out[4];
	struct tp_secrets sec[4];
	uint8_t params[512];
	size_t params_len;
	uint8_t peer_params[1100];
	size_t peer_params_len;
	unsigned peer_params_calls;
	unsigned params_sent;
	bool complete;
	int error;		/* first fatal GnuTLS error, 0 if none */
	int alert;		/* last alert raised, -1 if none */
};

int tp_server_init(struct tp_server *sv, const struct tp_cert *cert,
		   const struct tp_server_opts *opts);
/* gnutls_handshake_write, then gnutls_handshake while not complete.
 * Returns 0 or the fatal GnuTLS error (also kept in sv->error). */
int tp_server_recv(struct tp_server *sv, int level, const uint8_t *data,
		   size_t len);
void tp_server_deinit(struct tp_server *sv);

/* Appends to a stream; returns -1 if full. */
int tp_stream_append(struct tp_stream *st, const void *data, size_t len);

#endif
