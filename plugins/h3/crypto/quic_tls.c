/* TLS 1.3 for a QUIC client over GnuTLS's QUIC hooks. GnuTLS names the hooks
 * from its record layer's point of view, so they read backwards: the "read
 * function" is our outgoing path and gnutls_handshake_write() our incoming
 * one. */
#include "quic_tls.h"
#include "quic_hkdf.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

_Static_assert(SHB_QUIC_LEVEL_INITIAL == (int)GNUTLS_ENCRYPTION_LEVEL_INITIAL &&
	       SHB_QUIC_LEVEL_EARLY == (int)GNUTLS_ENCRYPTION_LEVEL_EARLY &&
	       SHB_QUIC_LEVEL_HANDSHAKE == (int)GNUTLS_ENCRYPTION_LEVEL_HANDSHAKE &&
	       SHB_QUIC_LEVEL_APPLICATION == (int)GNUTLS_ENCRYPTION_LEVEL_APPLICATION,
	       "QUIC levels must match GnuTLS encryption levels");

#define ALERT_UNEXPECTED_MESSAGE 10
#define ALERT_INTERNAL_ERROR 80
#define ALERT_MISSING_EXTENSION 109
#define ALERT_NO_APPLICATION_PROTOCOL 120

static const char alpn_h3[] = "h3";

static struct shb_quic_tls *tls_of(gnutls_session_t s)
{
	return gnutls_session_get_ptr(s);
}

/* Records the first failure cause; later ones never override it. */
static void set_close_code(struct shb_quic_tls *t, uint64_t code)
{
	if (t->close_code == 0)
		t->close_code = code;
}

/* ---- shared context ---------------------------------------------------- */

static void put_err(char *err, size_t err_len, const char *what, int rc)
{
	if (err && err_len)
		snprintf(err, err_len, "%s: %s", what, gnutls_strerror(rc));
}

int shb_quic_tls_ctx_init(struct shb_quic_tls_ctx *ctx,
			  const struct shb_quic_tls_config *cfg,
			  char *err, size_t err_len)
{
	static const struct shb_quic_tls_config defaults;
	const char *errpos = NULL;
	int rc;

	if (!ctx)
		return SHB_QUIC_CRYPTO_E_INVAL;
	memset(ctx, 0, sizeof(*ctx));
	if (!cfg)
		cfg = &defaults;
	rc = gnutls_certificate_allocate_credentials(&ctx->cred);
	if (rc < 0) {
		put_err(err, err_len, "cannot allocate TLS credentials", rc);
		ctx->cred = NULL;
		return SHB_QUIC_CRYPTO_E_LIB;
	}
	if (cfg->verify) {
		rc = cfg->ca_file
		     ? gnutls_certificate_set_x509_trust_file(ctx->cred, cfg->ca_file,
							      GNUTLS_X509_FMT_PEM)
		     : gnutls_certificate_set_x509_system_trust(ctx->cred);
		if (rc <= 0) {
			put_err(err, err_len, cfg->ca_file ? "cannot load CA file"
							   : "cannot load system trust store",
				rc < 0 ? rc : GNUTLS_E_NO_CERTIFICATE_FOUND);
			shb_quic_tls_ctx_deinit(ctx);
			return SHB_QUIC_CRYPTO_E_INVAL;
		}
	}
	if (cfg->cert_file) {
		rc = gnutls_certificate_set_x509_key_file2(ctx->cred, cfg->cert_file,
			cfg->key_file ? cfg->key_file : cfg->cert_file,
			GNUTLS_X509_FMT_PEM, NULL, 0);
		if (rc < 0) {
			put_err(err, err_len, "cannot load the client certificate", rc);
			shb_quic_tls_ctx_deinit(ctx);
			return SHB_QUIC_CRYPTO_E_INVAL;
		}
	}
	rc = gnutls_priority_init(&ctx->prio, cfg->priority ? cfg->priority
							    : SHB_QUIC_TLS_PRIORITY, &errpos);
	if (rc < 0) {
		if (err && err_len)
			snprintf(err, err_len, "bad TLS priority string near \"%s\": %s",
				 errpos ? errpos : "", gnutls_strerror(rc));
		ctx->prio = NULL;
		shb_quic_tls_ctx_deinit(ctx);
		return SHB_QUIC_CRYPTO_E_INVAL;
	}
	ctx->verify = cfg->verify;
	ctx->init_flags = GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA |
			  GNUTLS_NO_TICKETS | GNUTLS_NO_AUTO_REKEY |
			  (cfg->key_share_top ? GNUTLS_KEY_SHARE_TOP : 0);
	return SHB_QUIC_CRYPTO_OK;
}

void shb_quic_tls_ctx_deinit(struct shb_quic_tls_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->prio)
		gnutls_priority_deinit(ctx->prio);
	if (ctx->cred)
		gnutls_certificate_free_credentials(ctx->cred);
	memset(ctx, 0, sizeof(*ctx));
}

/* ---- GnuTLS hooks ------------------------------------------------------ */

static int hook_secret(gnutls_session_t s, gnutls_record_encryption_level_t level,
		       const void *rx, const void *tx, size_t len)
{
	struct shb_quic_tls *t = tls_of(s);
	gnutls_cipher_algorithm_t cipher;
	gnutls_mac_algorithm_t hash;

	if (level == GNUTLS_ENCRYPTION_LEVEL_APPLICATION) {
		/* A second APPLICATION secret can only come from a TLS
		 * KeyUpdate, which QUIC forbids (RFC 9001 6). */
		if ((rx && t->app_rx_seen) || (tx && t->app_tx_seen)) {
			set_close_code(t, SHB_QUIC_ERR_CRYPTO_BASE + ALERT_UNEXPECTED_MESSAGE);
			return GNUTLS_E_UNEXPECTED_HANDSHAKE_PACKET;
		}
		t->app_rx_seen |= rx != NULL;
		t->app_tx_seen |= tx != NULL;
	}
	if (shb_quic_tls_level_suite(t, (enum shb_quic_level)level, &cipher, &hash) != 0 ||
	    t->cb->secret(t->user, (enum shb_quic_level)level, cipher, hash,
			  rx, tx, len) < 0) {
		set_close_code(t, SHB_QUIC_ERR_CRYPTO_BASE + ALERT_INTERNAL_ERROR);
		return GNUTLS_E_INTERNAL_ERROR;
	}
	if (rx && (uint8_t)level > t->rx_level)
		t->rx_level = (uint8_t)level;
	return 0;
}

static int hook_send(gnutls_session_t s, gnutls_record_encryption_level_t level,
		     gnutls_handshake_description_t htype, const void *data,
		     size_t len)
{
	struct shb_quic_tls *t = tls_of(s);

	if (htype == GNUTLS_HANDSHAKE_CHANGE_CIPHER_SPEC)
		return 0;
	/* Only a second gnutls_handshake() after completion makes GnuTLS
	 * emit a KeyUpdate, and this layer never does that. */
	if (htype == GNUTLS_HANDSHAKE_KEY_UPDATE ||
	    t->cb->crypto_send(t->user, (enum shb_quic_level)level, data, len) < 0) {
		set_close_code(t, SHB_QUIC_ERR_CRYPTO_BASE + ALERT_INTERNAL_ERROR);
		return GNUTLS_E_INTERNAL_ERROR;
	}
	return 0;
}

static int hook_alert(gnutls_session_t s, gnutls_record_encryption_level_t level,
		      gnutls_alert_level_t alert_level,
		      gnutls_alert_description_t desc)
{
	struct shb_quic_tls *t = tls_of(s);

	if (alert_level == GNUTLS_AL_FATAL)
		set_close_code(t, SHB_QUIC_ERR_CRYPTO_BASE + (uint8_t)desc);
	if (t->cb->alert)
		t->cb->alert(t->user, (enum shb_quic_level)level, (uint8_t)desc);
	return 0;
}

static int hook_tp_send(gnutls_session_t s, gnutls_buffer_t buf)
{
	struct shb_quic_tls *t = tls_of(s);
	int rc = gnutls_buffer_append_data(buf, t->params, t->params_len);

	return rc < 0 ? rc : (int)t->params_len;
}

static int hook_tp_recv(gnutls_session_t s, const unsigned char *data, size_t len)
{
	struct shb_quic_tls *t = tls_of(s);

	t->peer_params_seen = true;
	if (t->cb->peer_params(t->user, data, len) < 0) {
		set_close_code(t, SHB_QUIC_ERR_TRANSPORT_PARAMETER);
		return GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER;
	}
	return 0;
}

/* ---- session ----------------------------------------------------------- */

/* SNI may only carry a DNS name (RFC 6066 3). */
static bool is_ip_literal(const char *host)
{
	struct in_addr a4;

	return strchr(host, ':') != NULL || inet_pton(AF_INET, host, &a4) == 1;
}

static int session_setup(struct shb_quic_tls *t, const struct shb_quic_tls_ctx *ctx,
			 const char *host)
{
	gnutls_session_t s = t->session;
	gnutls_datum_t alpn = { .data = (unsigned char *)alpn_h3,
				.size = sizeof(alpn_h3) - 1 };

	if (gnutls_priority_set(s, ctx->prio) < 0 ||
	    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, ctx->cred) < 0)
		return SHB_QUIC_CRYPTO_E_LIB;
	gnutls_session_set_ptr(s, t);
	/* All three hooks before the first gnutls_handshake(): without a read
	 * function GnuTLS would use its transport functions. */
	gnutls_handshake_set_secret_function(s, hook_secret);
	gnutls_handshake_set_read_function(s, hook_send);
	gnutls_alert_set_read_function(s, hook_alert);
	if (gnutls_session_ext_register(s, "quic_transport_parameters",
					SHB_QUIC_TLS_EXT_TRANSPORT_PARAMS, GNUTLS_EXT_TLS,
					hook_tp_recv, hook_tp_send, NULL, NULL, NULL,
					GNUTLS_EXT_FLAG_TLS | GNUTLS_EXT_FLAG_CLIENT_HELLO |
					GNUTLS_EXT_FLAG_EE) < 0)
		return SHB_QUIC_CRYPTO_E_LIB;
	if (gnutls_alpn_set_protocols(s, &alpn, 1, GNUTLS_ALPN_MANDATORY) < 0)
		return SHB_QUIC_CRYPTO_E_LIB;
	if (host && host[0] && !is_ip_literal(host) &&
	    gnutls_server_name_set(s, GNUTLS_NAME_DNS, host, strlen(host)) < 0)
		return SHB_QUIC_CRYPTO_E_LIB;
	if (ctx->verify)
		gnutls_session_set_verify_cert(s, host && host[0] ? host : NULL, 0);
	return SHB_QUIC_CRYPTO_OK;
}

int shb_quic_tls_init(struct shb_quic_tls *t, const struct shb_quic_tls_ctx *ctx,
		      const char *host, const uint8_t *params, size_t params_len,
		      const struct shb_quic_tls_callbacks *cbs, void *user)
{
	int rc;

	if (!t)
		return SHB_QUIC_CRYPTO_E_INVAL;
	memset(t, 0, sizeof(*t));
	if (!ctx || !ctx->cred || !ctx->prio || !params || params_len == 0 ||
	    params_len > SHB_QUIC_TLS_PARAMS_MAX || !cbs || !cbs->secret ||
	    !cbs->crypto_send || !cbs->peer_params)
		return SHB_QUIC_CRYPTO_E_INVAL;
	t->cb = cbs;
	t->user = user;
	memcpy(t->params, params, params_len);
	t->params_len = (uint16_t)params_len;
	t->rx_level = SHB_QUIC_LEVEL_INITIAL;
	if (gnutls_init(&t->session, ctx->init_flags) < 0) {
		memset(t, 0, sizeof(*t));
		return SHB_QUIC_CRYPTO_E_LIB;
	}
	rc = session_setup(t, ctx, host);
	if (rc != SHB_QUIC_CRYPTO_OK)
		shb_quic_tls_deinit(t);
	return rc;
}

void shb_quic_tls_deinit(struct shb_quic_tls *t)
{
	if (!t)
		return;
	if (t->session)
		gnutls_deinit(t->session);
	memset(t, 0, sizeof(*t));
}

static int tls_fail(struct shb_quic_tls *t, int gnutls_err)
{
	t->failed = true;
	if (gnutls_err == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
		t->verify_failed = true;
		t->verify_status = gnutls_session_get_verify_cert_status(t->session);
	}
	if (t->close_code == 0) {
		/* In QUIC mode this reports the alert through hook_alert. */
		gnutls_alert_send_appropriate(t->session, gnutls_err);
		set_close_code(t, shb_quic_tls_error_to_code(gnutls_err));
	}
	return SHB_QUIC_CRYPTO_E_TLS;
}

static int fail_with(struct shb_quic_tls *t, uint64_t code)
{
	set_close_code(t, code);
	t->failed = true;
	return SHB_QUIC_CRYPTO_E_TLS;
}

/* GnuTLS accepts a handshake without ALPN or without extension 0x39;
 * QUIC does not (RFC 9001 8.1, 8.2). */
static int check_completion(struct shb_quic_tls *t)
{
	const uint8_t *alpn;
	size_t len;

	if (!shb_quic_tls_alpn(t, &alpn, &len) || len != sizeof(alpn_h3) - 1 ||
	    memcmp(alpn, alpn_h3, len) != 0)
		return fail_with(t, SHB_QUIC_ERR_CRYPTO_BASE + ALERT_NO_APPLICATION_PROTOCOL);
	if (!t->peer_params_seen)
		return fail_with(t, SHB_QUIC_ERR_CRYPTO_BASE + ALERT_MISSING_EXTENSION);
	t->complete = true;
	return SHB_QUIC_CRYPTO_OK;
}

static int drive(struct shb_quic_tls *t)
{
	int ret = gnutls_handshake(t->session);

	if (t->close_code != 0)	/* a hook refused, or GnuTLS raised an alert */
		return tls_fail(t, ret);
	if (ret == 0)
		return check_completion(t);
	if (!gnutls_error_is_fatal(ret))	/* E_AGAIN: wait for more bytes */
		return SHB_QUIC_CRYPTO_OK;
	return tls_fail(t, ret);
}

int shb_quic_tls_start(struct shb_quic_tls *t)
{
	if (!t || !t->session || t->started)
		return SHB_QUIC_CRYPTO_E_INVAL;
	t->started = true;
	return drive(t);
}

/* Follows the 4-byte headers of post-handshake messages (type, uint24
 * length) across calls; false when a KeyUpdate begins. */
static bool app_scan(struct shb_quic_tls *t, const uint8_t *p, size_t len)
{
	while (len) {
		if (t->ph_left) {
			size_t take = len < t->ph_left ? len : t->ph_left;
			t->ph_left -= (uint32_t)take;
			p += take;
			len -= take;
			continue;
		}
		uint8_t b = *p++;
		len--;
		if (t->ph_hdr_got == 0) {
			if (b == GNUTLS_HANDSHAKE_KEY_UPDATE)
				return false;
			t->ph_len = 0;
		} else {
			t->ph_len = (t->ph_len << 8) | b;
		}
		if (++t->ph_hdr_got == 4) {
			t->ph_hdr_got = 0;
			t->ph_left = t->ph_len;
		}
	}
	return true;
}

/* GnuTLS 3.7.9 (lib/buffers.c, parse_handshake_header) tells a
 * HelloRetryRequest from a ServerHello by its special random value, but
 * looks only at the buffered piece in which the message starts; if that
 * piece ends before the random does, the HRR is parsed as a ServerHello and
 * the handshake fails with decode_error. CRYPTO frames may split the
 * server's Initial flight anywhere, so the head of every INITIAL-level
 * message is collected here and handed over in one piece of
 * SHB_QUIC_TLS_INITIAL_HEAD bytes (or the whole message if shorter); the
 * rest passes straight through. */
static int write_initial(struct shb_quic_tls *t, const uint8_t *p, size_t len)
{
	int ret = 0;

	while (len && ret >= 0) {
		if (t->init_left && t->init_head_len == 0) {
			size_t take = len < t->init_left ? len : t->init_left;
			ret = gnutls_handshake_write(t->session, GNUTLS_ENCRYPTION_LEVEL_INITIAL,
						     p, take);
			t->init_left -= (uint32_t)take;
			p += take;
			len -= take;
			continue;
		}
		t->init_head[t->init_head_len++] = *p++;
		len--;
		if (t->init_head_len == 4)
			t->init_msg_len = 4 + ((uint32_t)t->init_head[1] << 16 |
					       (uint32_t)t->init_head[2] << 8 | t->init_head[3]);
		if (t->init_head_len >= 4 && (t->init_head_len == SHB_QUIC_TLS_INITIAL_HEAD ||
					      t->init_head_len == t->init_msg_len)) {
			ret = gnutls_handshake_write(t->session, GNUTLS_ENCRYPTION_LEVEL_INITIAL,
						     t->init_head, t->init_head_len);
			t->init_left = t->init_msg_len - t->init_head_len;
			t->init_head_len = 0;
		}
	}
	return ret;
}

int shb_quic_tls_recv(struct shb_quic_tls *t, enum shb_quic_level level,
		      const uint8_t *data, size_t len)
{
	int ret;

	if (!t || !t->session || !t->started || (!data && len))
		return SHB_QUIC_CRYPTO_E_INVAL;
	if (t->failed)
		return SHB_QUIC_CRYPTO_E_TLS;
	if (len == 0)
		return SHB_QUIC_CRYPTO_OK;
	/* New data at another level than the one TLS reads: GnuTLS would
	 * reject data for a retired level as a fatal decryption error and
	 * silently accept data for a future one. */
	if ((unsigned)level != t->rx_level)
		return fail_with(t, SHB_QUIC_ERR_PROTOCOL_VIOLATION);
	if (level == SHB_QUIC_LEVEL_APPLICATION && !app_scan(t, data, len))
		return fail_with(t, SHB_QUIC_ERR_CRYPTO_BASE + ALERT_UNEXPECTED_MESSAGE);
	if (level == SHB_QUIC_LEVEL_INITIAL)
		ret = write_initial(t, data, len);
	else
		ret = gnutls_handshake_write(t->session,
					     (gnutls_record_encryption_level_t)level, data, len);
	if (t->close_code != 0 || (ret < 0 && gnutls_error_is_fatal(ret)))
		return tls_fail(t, ret);
	if (t->complete)	/* post-handshake: E_AGAIN means "partial message" */
		return SHB_QUIC_CRYPTO_OK;
	return drive(t);
}

bool shb_quic_tls_complete(const struct shb_quic_tls *t)
{
	return t && t->complete && !t->failed;
}

uint64_t shb_quic_tls_close_code(const struct shb_quic_tls *t)
{
	return t ? t->close_code : 0;
}

bool shb_quic_tls_verify_failed(const struct shb_quic_tls *t, unsigned *status)
{
	if (!t || !t->verify_failed)
		return false;
	if (status)
		*status = t->verify_status;
	return true;
}

bool shb_quic_tls_alpn(const struct shb_quic_tls *t, const uint8_t **alpn,
		       size_t *len)
{
	gnutls_datum_t d;

	if (!t || !t->session || !alpn || !len ||
	    gnutls_alpn_get_selected_protocol(t->session, &d) < 0 || d.size == 0)
		return false;
	*alpn = d.data;
	*len = d.size;
	return true;
}

int shb_quic_tls_level_suite(const struct shb_quic_tls *t,
			     enum shb_quic_level level,
			     gnutls_cipher_algorithm_t *cipher,
			     gnutls_mac_algorithm_t *hash)
{
	gnutls_cipher_algorithm_t c;
	gnutls_mac_algorithm_t h;

	if (!t || !t->session || !cipher || !hash)
		return SHB_QUIC_CRYPTO_E_INVAL;
	switch (level) {
	case SHB_QUIC_LEVEL_INITIAL:
		c = GNUTLS_CIPHER_AES_128_GCM;
		h = GNUTLS_MAC_SHA256;
		break;
	case SHB_QUIC_LEVEL_EARLY:
		c = gnutls_early_cipher_get(t->session);
		h = (gnutls_mac_algorithm_t)gnutls_early_prf_hash_get(t->session);
		break;
	case SHB_QUIC_LEVEL_HANDSHAKE:
	case SHB_QUIC_LEVEL_APPLICATION:
		c = gnutls_cipher_get(t->session);
		/* GNUTLS_DIG_SHA256 == GNUTLS_MAC_SHA256, likewise SHA-384. */
		h = (gnutls_mac_algorithm_t)gnutls_prf_hash_get(t->session);
		break;
	default:
		return SHB_QUIC_CRYPTO_E_INVAL;
	}
	if (shb_quic_cipher_key_len(c) == 0 || shb_quic_hash_len(h) == 0)
		return SHB_QUIC_CRYPTO_E_INVAL;
	*cipher = c;
	*hash = h;
	return SHB_QUIC_CRYPTO_OK;
}

uint64_t shb_quic_tls_error_to_code(int gnutls_err)
{
	int alert = gnutls_error_to_alert(gnutls_err, NULL);

	if (alert < 0 || alert > 255)
		alert = ALERT_INTERNAL_ERROR;
	return SHB_QUIC_ERR_CRYPTO_BASE + (uint64_t)alert;
}
