#include "tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* AES-128-GCM first: what browsers offer, and the cheapest on x86 with
 * AES-NI. TLS 1.3 and 1.2 only. */
static const char prio_string[] =
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:"
	"-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305";

int shb_bytes_append(struct shb_bytes *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		while (cap < b->len + len)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

/* An IPv4 or IPv6 literal becomes the binary address its certificate must
 * list as an iPAddress SAN (RFC 6125 6.2.1; a DNS SAN never matches it);
 * anything else is a DNS name, sent as SNI (RFC 6066 3 allows only DNS
 * names there) and checked against the DNS SANs. */
static void set_host(struct shb_tls_ctx *c, const char *host)
{
	c->host = host;
	if (!host)
		return;
	if (inet_pton(AF_INET, host, c->ip) == 1)
		c->ip_vdata.size = 4;
	else if (inet_pton(AF_INET6, host, c->ip) == 1)
		c->ip_vdata.size = 16;
	else {
		c->sni = host;
		return;
	}
	c->ip_vdata.type = GNUTLS_DT_IP_ADDRESS;
	c->ip_vdata.data = c->ip;
}

int shb_tls_ctx_init(struct shb_tls_ctx *c, int verify, const char *cafile,
		     const char *host, const char *const *alpn, char *err,
		     size_t errlen)
{
	int r;

	memset(c, 0, sizeof(*c));
	c->verify = verify;
	set_host(c, host);
	r = gnutls_certificate_allocate_credentials(&c->cred);
	if (r < 0)
		goto fail;
	if (verify == 1) {
		r = gnutls_certificate_set_x509_system_trust(c->cred);
		if (r <= 0) {
			snprintf(err, errlen, "--verify: no system trust store (%s)",
				 r < 0 ? gnutls_strerror(r) : "no certificates");
			gnutls_certificate_free_credentials(c->cred);
			return -1;
		}
	} else if (verify == 2) {
		r = gnutls_certificate_set_x509_trust_file(c->cred, cafile,
							   GNUTLS_X509_FMT_PEM);
		if (r <= 0) {
			snprintf(err, errlen, "--cacert %s: %s", cafile,
				 r < 0 ? gnutls_strerror(r) : "no certificates in file");
			gnutls_certificate_free_credentials(c->cred);
			return -1;
		}
	}
	r = gnutls_priority_init(&c->prio, prio_string, NULL);
	if (r < 0) {
		gnutls_certificate_free_credentials(c->cred);
		goto fail;
	}
	for (; alpn && alpn[c->alpn_count] && c->alpn_count < 8; c->alpn_count++) {
		c->alpn[c->alpn_count].data = (unsigned char *)alpn[c->alpn_count];
		c->alpn[c->alpn_count].size = (unsigned)strlen(alpn[c->alpn_count]);
	}
	return 0;
fail:
	snprintf(err, errlen, "TLS setup: %s", gnutls_strerror(r));
	return -1;
}

void shb_tls_ctx_free(struct shb_tls_ctx *c)
{
	if (c->prio)
		gnutls_priority_deinit(c->prio);
	if (c->cred)
		gnutls_certificate_free_credentials(c->cred);
	memset(c, 0, sizeof(*c));
}

static ssize_t push_fn(gnutls_transport_ptr_t ptr, const void *data, size_t len)
{
	struct shb_tls *t = ptr;
	if (shb_bytes_append(t->out, data, len) < 0) {
		gnutls_transport_set_errno(t->s, ENOMEM);
		return -1;
	}
	return (ssize_t)len;
}

static ssize_t pull_fn(gnutls_transport_ptr_t ptr, void *data, size_t len)
{
	struct shb_tls *t = ptr;
	size_t avail = t->in_len - t->in_off;
	if (avail == 0) {
		gnutls_transport_set_errno(t->s, EAGAIN);
		return -1;
	}
	if (len > avail)
		len = avail;
	memcpy(data, t->in + t->in_off, len);
	t->in_off += len;
	return (ssize_t)len;
}

int shb_tls_new(struct shb_tls *t, const struct shb_tls_ctx *c,
		struct shb_bytes *out, char *err, size_t errlen)
{
	int r;

	memset(t, 0, sizeof(*t));
	t->ctx = c;
	t->out = out;
	/* No session tickets: every connection costs the server a full
	 * handshake, as with wrk and h2load. */
	r = gnutls_init(&t->s, GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_TICKETS);
	if (r < 0)
		goto fail;
	if ((r = gnutls_priority_set(t->s, c->prio)) < 0 ||
	    (r = gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE, c->cred)) < 0)
		goto fail_session;
	if (c->sni &&
	    (r = gnutls_server_name_set(t->s, GNUTLS_NAME_DNS, c->sni,
					strlen(c->sni))) < 0)
		goto fail_session;
	if (c->alpn_count &&
	    (r = gnutls_alpn_set_protocols(t->s, c->alpn, c->alpn_count, 0)) < 0)
		goto fail_session;
	if (c->verify && c->ip_vdata.size)
		gnutls_session_set_verify_cert2(t->s,
			(gnutls_typed_vdata_st *)&c->ip_vdata, 1, 0);
	else if (c->verify)
		gnutls_session_set_verify_cert(t->s, c->sni, 0);
	gnutls_transport_set_ptr(t->s, t);
	gnutls_transport_set_push_function(t->s, push_fn);
	gnutls_transport_set_pull_function(t->s, pull_fn);
	return 0;
fail_session:
	gnutls_deinit(t->s);
	t->s = NULL;
fail:
	snprintf(err, errlen, "TLS session: %s", gnutls_strerror(r));
	return -1;
}

void shb_tls_free(struct shb_tls *t)
{
	if (t->s)
		gnutls_deinit(t->s);
	t->s = NULL;
}

void shb_tls_set_out(struct shb_tls *t, struct shb_bytes *out)
{
	t->out = out;
}

/* Says why the certificate was refused: the name first, as curl does,
 * since a certificate for another host is the likeliest mistake, then
 * whatever else GnuTLS found. Returns 0, or -1 if GnuTLS has no words. */
static int verify_error(struct shb_tls *t, char *err, size_t errlen)
{
	const unsigned name = GNUTLS_CERT_UNEXPECTED_OWNER;
	unsigned status = gnutls_session_get_verify_cert_status(t->s);
	const char *host = t->ctx->host;
	gnutls_datum_t txt;

	if ((status & name) && host) {
		status &= ~(name | GNUTLS_CERT_INVALID);
		if (!status) {
			snprintf(err, errlen,
				 "TLS handshake: certificate is not valid for %s", host);
			return 0;
		}
		if (gnutls_certificate_verification_status_print(
			    status | GNUTLS_CERT_INVALID, GNUTLS_CRT_X509, &txt, 0) < 0)
			return -1;
		snprintf(err, errlen,
			 "TLS handshake: certificate is not valid for %s; %s",
			 host, txt.data);
		gnutls_free(txt.data);
		return 0;
	}
	if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509,
							 &txt, 0) < 0)
		return -1;
	snprintf(err, errlen, "TLS handshake: %s", txt.data);
	gnutls_free(txt.data);
	return 0;
}

int shb_tls_handshake(struct shb_tls *t, char *err, size_t errlen)
{
	int r = gnutls_handshake(t->s);
	if (r == GNUTLS_E_SUCCESS) {
		t->handshake_done = 1;
		return 1;
	}
	if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
		return 0;
	if (!gnutls_error_is_fatal(r))
		return 0;
	if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR &&
	    verify_error(t, err, errlen) == 0)
		return -1;
	if (r == GNUTLS_E_WARNING_ALERT_RECEIVED || r == GNUTLS_E_FATAL_ALERT_RECEIVED)
		snprintf(err, errlen, "TLS handshake: alert %s",
			 gnutls_alert_get_name(gnutls_alert_get(t->s)));
	else
		snprintf(err, errlen, "TLS handshake: %s", gnutls_strerror(r));
	return -1;
}

long shb_tls_read(struct shb_tls *t, uint8_t *buf, size_t cap, char *err,
		  size_t errlen)
{
	size_t last_off = t->in_off;
	for (;;) {
		ssize_t r = gnutls_record_recv(t->s, buf, cap);
		if (r > 0)
			return (long)r;
		if (r == 0)
			return SHB_TLS_EOF;
		if (r == GNUTLS_E_AGAIN) {
			/* After a post-handshake message (a TLS 1.3
			 * NewSessionTicket) GnuTLS returns AGAIN although
			 * records may still wait in the input: keep going
			 * while it consumes, or they would be lost. */
			if (t->in_off < t->in_len && t->in_off != last_off) {
				last_off = t->in_off;
				continue;
			}
			return 0;
		}
		if (r == GNUTLS_E_INTERRUPTED || r == GNUTLS_E_REHANDSHAKE ||
		    !gnutls_error_is_fatal((int)r))
			continue; /* e.g. a TLS 1.3 NewSessionTicket: keep going */
		snprintf(err, errlen, "TLS read: %s", gnutls_strerror((int)r));
		return -1;
	}
}

int shb_tls_write(struct shb_tls *t, const void *data, size_t len, char *err,
		  size_t errlen)
{
	const uint8_t *p = data;
	while (len) {
		ssize_t r = gnutls_record_send(t->s, p, len);
		if (r < 0) {
			if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
				continue; /* push never blocks: retry */
			snprintf(err, errlen, "TLS write: %s", gnutls_strerror((int)r));
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

void shb_tls_bye(struct shb_tls *t)
{
	if (t->s && t->handshake_done)
		(void)gnutls_bye(t->s, GNUTLS_SHUT_WR);
}

void shb_tls_alpn(struct shb_tls *t, char *buf, size_t cap)
{
	gnutls_datum_t p;
	buf[0] = 0;
	if (gnutls_alpn_get_selected_protocol(t->s, &p) == 0 && p.size < cap) {
		memcpy(buf, p.data, p.size);
		buf[p.size] = 0;
	}
}

uint32_t shb_tls_version(struct shb_tls *t)
{
	switch (gnutls_protocol_get_version(t->s)) {
	case GNUTLS_TLS1_2: return 0x0303;
	case GNUTLS_TLS1_3: return 0x0304;
	default: return 0;
	}
}
