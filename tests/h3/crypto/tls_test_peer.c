/* The test server: a GnuTLS session in QUIC mode set up as RFC 9001 asks
 * of a server (ALPN h3 mandatory, extension 0x39 in EncryptedExtensions,
 * no compatibility mode). */
#include "tls_test_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>

#include "quic_tls.h"

static int cert_make(struct tp_cert *c, const char *name, unsigned extra);

int tp_cert_make(struct tp_cert *c, const char *name)
{
	return cert_make(c, name, 0);
}

int tp_cert_make_big(struct tp_cert *c, const char *name, unsigned extra_names)
{
	return cert_make(c, name, extra_names);
}

static int add_names(struct tp_cert *c, unsigned extra)
{
	char n[64];
	int rc;

	for (unsigned i = 0; i < extra; i++) {
		snprintf(n, sizeof(n), "name%u.example", i);
		rc = gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_DNSNAME,
							  n, strlen(n),
							  GNUTLS_FSAN_APPEND);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int cert_make(struct tp_cert *c, const char *name, unsigned extra)
{
	time_t now = time(NULL);
	unsigned char serial[8];
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = gnutls_x509_privkey_init(&c->key)) < 0 ||
	    (rc = gnutls_x509_privkey_generate(c->key, GNUTLS_PK_ECDSA,
		      GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) < 0 ||
	    (rc = gnutls_x509_crt_init(&c->crt)) < 0)
		return rc;
	if ((rc = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0)
		return rc;
	serial[0] &= 0x7f;
	if ((rc = gnutls_x509_crt_set_version(c->crt, 3)) < 0 ||
	    (rc = gnutls_x509_crt_set_serial(c->crt, serial, sizeof(serial))) < 0 ||
	    (rc = gnutls_x509_crt_set_activation_time(c->crt, now - 3600)) < 0 ||
	    (rc = gnutls_x509_crt_set_expiration_time(c->crt, now + 86400)) < 0 ||
	    (rc = gnutls_x509_crt_set_dn_by_oid(c->crt, GNUTLS_OID_X520_COMMON_NAME,
						 0, name, strlen(name))) < 0 ||
	    (rc = gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_DNSNAME,
							name, strlen(name),
							GNUTLS_FSAN_SET)) < 0 ||
	    (rc = add_names(c, extra)) < 0 ||
	    (rc = gnutls_x509_crt_set_key(c->crt, c->key)) < 0 ||
	    (rc = gnutls_x509_crt_set_basic_constraints(c->crt, 0, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(c->crt, GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_purpose_oid(c->crt, GNUTLS_KP_TLS_WWW_SERVER,
						      0)) < 0 ||
	    (rc = gnutls_x509_crt_sign2(c->crt, c->crt, c->key, GNUTLS_DIG_SHA256, 0)) < 0 ||
	    (rc = gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_PEM, &c->pem)) < 0)
		return rc;
	return 0;
}

void tp_cert_free(struct tp_cert *c)
{
	if (c->crt)
		gnutls_x509_crt_deinit(c->crt);
	if (c->key)
		gnutls_x509_privkey_deinit(c->key);
	gnutls_free(c->pem.data);
	memset(c, 0, sizeof(*c));
}

int tp_cert_write_temp(const struct tp_cert *c, char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || !dir[0])
		dir = P_tmpdir;
	if ((size_t)snprintf(path, cap, "%s/shb-test-ca-XXXXXX", dir) >= cap)
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, c->pem.data, c->pem.size) != (ssize_t)c->pem.size) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

int tp_stream_append(struct tp_stream *st, const void *data, size_t len)
{
	if (len > sizeof(st->data) - st->len)
		return -1;
	memcpy(st->data + st->len, data, len);
	st->len += len;
	st->msgs++;
	return 0;
}

static int sv_secret(gnutls_session_t s, gnutls_record_encryption_level_t level,
		     const void *rx, const void *tx, size_t len)
{
	struct tp_server *sv = gnutls_session_get_ptr(s);
	struct tp_secrets *e = &sv->sec[level];

	e->len = len;
	e->cipher = gnutls_cipher_get(s);
	e->hash = (gnutls_mac_algorithm_t)gnutls_prf_hash_get(s);
	if (rx) {
		memcpy(e->rx, rx, len);
		e->has_rx = true;
	}
	if (tx) {
		memcpy(e->tx, tx, len);
		e->has_tx = true;
	}
	return 0;
}

static int sv_send(gnutls_session_t s, gnutls_record_encryption_level_t level,
		   gnutls_handshake_description_t htype, const void *data, size_t len)
{
	struct tp_server *sv = gnutls_session_get_ptr(s);

	if (htype == GNUTLS_HANDSHAKE_CHANGE_CIPHER_SPEC)
		return 0;
	return tp_stream_append(&sv->out[level], data, len) < 0 ? GNUTLS_E_INTERNAL_ERROR : 0;
}

static int sv_alert(gnutls_session_t s, gnutls_record_encryption_level_t level,
		    gnutls_alert_level_t alevel, gnutls_alert_description_t desc)
{
	struct tp_server *sv = gnutls_session_get_ptr(s);

	sv->alert = (int)desc;
	return 0;
}

static int sv_tp_recv(gnutls_session_t s, const unsigned char *data, size_t len)
{
	struct tp_server *sv = gnutls_session_get_ptr(s);

	sv->peer_params_calls++;
	if (len > sizeof(sv->peer_params))
		return GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER;
	memcpy(sv->peer_params, data, len);
	sv->peer_params_len = len;
	return 0;
}

static int sv_tp_send(gnutls_session_t s, gnutls_buffer_t buf)
{
	struct tp_server *sv = gnutls_session_get_ptr(s);

	sv->params_sent++;
	return gnutls_buffer_append_data(buf, sv->params, sv->params_len);
}

int tp_server_init(struct tp_server *sv, const struct tp_cert *cert,
		   const struct tp_server_opts *opts)
{
	static const struct tp_server_opts none;
	gnutls_datum_t alpn = { .data = (unsigned char *)"h3", .size = 2 };
	gnutls_x509_crt_t crt = cert->crt;
	int rc;

	memset(sv, 0, sizeof(*sv));
	sv->alert = -1;
	if (!opts)
		opts = &none;
	for (size_t i = 0; i < sizeof(sv->params); i++)
		sv->params[i] = (uint8_t)(0xa0 + i);
	sv->params_len = 37;
	if ((rc = gnutls_certificate_allocate_credentials(&sv->cred)) < 0 ||
	    (rc = gnutls_certificate_set_x509_key(sv->cred, &crt, 1, cert->key)) < 0 ||
	    (rc = gnutls_init(&sv->s, GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA)) < 0 ||
	    (rc = gnutls_priority_set_direct(sv->s, opts->priority ? opts->priority
							       : SHB_QUIC_TLS_PRIORITY,
					     NULL)) < 0 ||
	    (rc = gnutls_credentials_set(sv->s, GNUTLS_CRD_CERTIFICATE, sv->cred)) < 0)
		return rc;
	gnutls_session_set_ptr(sv->s, sv);
	gnutls_handshake_set_secret_function(sv->s, sv_secret);
	gnutls_handshake_set_read_function(sv->s, sv_send);
	gnutls_alert_set_read_function(sv->s, sv_alert);
	if (!opts->no_params &&
	    (rc = gnutls_session_ext_register(sv->s, "quic_transport_parameters", 0x39,
					      GNUTLS_EXT_TLS, sv_tp_recv, sv_tp_send,
					      NULL, NULL, NULL,
					      GNUTLS_EXT_FLAG_TLS |
					      GNUTLS_EXT_FLAG_CLIENT_HELLO |
					      GNUTLS_EXT_FLAG_EE)) < 0)
		return rc;
	if (!opts->no_alpn &&
	    (rc = gnutls_alpn_set_protocols(sv->s, &alpn, 1, GNUTLS_ALPN_MANDATORY)) < 0)
		return rc;
	return 0;
}

int tp_server_recv(struct tp_server *sv, int level, const uint8_t *data, size_t len)
{
	int rc;

	if (sv->error)
		return sv->error;
	rc = gnutls_handshake_write(sv->s, (gnutls_record_encryption_level_t)level,
				    data, len);
	if (rc < 0 && gnutls_error_is_fatal(rc))
		return sv->error = rc;
	if (sv->complete)
		return 0;
	rc = gnutls_handshake(sv->s);
	if (rc == 0)
		sv->complete = true;
	else if (gnutls_error_is_fatal(rc))
		return sv->error = rc;
	return 0;
}

void tp_server_deinit(struct tp_server *sv)
{
	if (sv->s)
		gnutls_deinit(sv->s);
	if (sv->cred)
		gnutls_certificate_free_credentials(sv->cred);
	memset(sv, 0, sizeof(*sv));
}
