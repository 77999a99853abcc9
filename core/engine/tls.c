#include "engine/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/x509.h>

#include "common/quote.h"
#include "common/tls_verify_text.h"
#include "engine/tls_fp.h"

/* AES-128-GCM first: what browsers offer, and the cheapest on x86 with
 * AES-NI. TLS 1.3 and 1.2 only. */
#define PRIO_CIPHERS "-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305"
/* NORMAL's groups with X25519 moved first (NORMAL starts with P-256), as
 * browsers and OpenSSL-based clients order them: with one key share (see
 * shb_tls_new) that share is X25519, which costs a fraction of a P-256
 * key in GnuTLS's arithmetic and is what servers pick first. */
#define PRIO_GROUPS "-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:" \
	"+GROUP-SECP384R1:+GROUP-SECP521R1:+GROUP-X448:+GROUP-FFDHE2048:" \
	"+GROUP-FFDHE3072:+GROUP-FFDHE4096:+GROUP-FFDHE6144:+GROUP-FFDHE8192"
static const char prio_string[] =
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:" PRIO_CIPHERS ":" PRIO_GROUPS;

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

int shb_tls_ctx_set_priority(struct shb_tls_ctx *c, const char *prio,
			     char *err, size_t errlen)
{
	gnutls_priority_t p;
	int r = gnutls_priority_init(&p, prio, NULL);
	if (r < 0) {
		snprintf(err, errlen, "TLS priority: %s", gnutls_strerror(r));
		return -1;
	}
	gnutls_priority_deinit(c->prio);
	c->prio = p;
	return 0;
}

int shb_tls_ctx_set_client_cert(struct shb_tls_ctx *c, const char *cert_file,
				const char *key_file, char *err, size_t errlen)
{
	int r = gnutls_certificate_set_x509_key_file2(c->cred, cert_file,
		key_file, GNUTLS_X509_FMT_PEM, NULL, 0);
	if (r < 0) {
		snprintf(err, errlen, "--cert %s: %s", cert_file, gnutls_strerror(r));
		return -1;
	}
	c->has_cert = 1;
	return 0;
}

/* A whole small file (certificates and keys are a few KiB; 1 MiB caps a
 * wrong path such as a log file), with the reason it cannot be read. */
static int load_pem(const char *opt, const char *path, gnutls_datum_t *d,
		    char *err, size_t errlen)
{
	enum { CAP = 1 << 20 };
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
		return -1;
	}
	d->data = gnutls_malloc(CAP + 1);
	size_t n = d->data ? fread(d->data, 1, CAP + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!d->data || bad || n > CAP) {
		snprintf(err, errlen, "%s %s: %s", opt, path,
			 !d->data ? "out of memory" : bad ? "cannot be read" :
			 "larger than 1 MiB: not a PEM file");
		gnutls_free(d->data);
		d->data = NULL;
		return -1;
	}
	d->size = (unsigned)n;
	return 0;
}

int shb_tls_check_client_cert(const char *cert_file, const char *key_file,
			      char *err, size_t errlen)
{
	gnutls_datum_t cd = {0}, kd = {0};
	gnutls_x509_crt_t *crts = NULL;
	unsigned ncrt = 0;
	gnutls_x509_privkey_t key = NULL;
	gnutls_certificate_credentials_t cred = NULL;
	int rc = -1, r;

	if (load_pem("--cert", cert_file, &cd, err, errlen) < 0 ||
	    load_pem("--key", key_file, &kd, err, errlen) < 0)
		goto out;
	r = gnutls_x509_crt_list_import2(&crts, &ncrt, &cd, GNUTLS_X509_FMT_PEM, 0);
	if (r < 0 || ncrt == 0) {
		snprintf(err, errlen, "--cert %s: no PEM certificate in it (%s)",
			 cert_file, r < 0 ? gnutls_strerror(r) : "empty");
		goto out;
	}
	if ((r = gnutls_x509_privkey_init(&key)) < 0 ||
	    (r = gnutls_x509_privkey_import2(key, &kd, GNUTLS_X509_FMT_PEM,
					     NULL, 0)) < 0) {
		snprintf(err, errlen, "--key %s: %s", key_file,
			 r == GNUTLS_E_DECRYPTION_FAILED ?
			 "the key is encrypted; shb takes an unencrypted PEM key" :
			 "no PEM private key in it");
		goto out;
	}
	if ((r = gnutls_certificate_allocate_credentials(&cred)) < 0 ||
	    (r = gnutls_certificate_set_x509_key(cred, crts, ncrt, key)) < 0) {
		if (r == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
			snprintf(err, errlen, "--key %s is not the private key of "
				 "the certificate in --cert %s", key_file, cert_file);
		else
			snprintf(err, errlen, "--cert %s: %s", cert_file,
				 gnutls_strerror(r));
		goto out;
	}
	rc = 0;
out:
	if (cred)
		gnutls_certificate_free_credentials(cred);
	if (key)
		gnutls_x509_privkey_deinit(key);
	for (unsigned i = 0; i < ncrt; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	gnutls_free(cd.data);
	gnutls_free(kd.data);
	return rc;
}

/* Some TLS 1.3 suite (0x13xx) is left: QUIC has no other. */
static int has_tls13_suite(gnutls_priority_t p)
{
	unsigned sidx;
	unsigned char id[2];
	for (unsigned i = 0; i < 4096; i++) {
		int r = gnutls_priority_get_cipher_suite_index(p, i, &sidx);
		if (r == GNUTLS_E_UNKNOWN_CIPHER_SUITE)
			continue; /* a suite this GnuTLS lacks */
		if (r < 0)
			return 0; /* the end of the list */
		if (gnutls_cipher_suite_info(sidx, id, NULL, NULL, NULL, NULL) &&
		    id[0] == 0x13)
			return 1;
	}
	return 0;
}

int shb_tls_priority_check(const char *prio, char *err, size_t errlen)
{
	gnutls_priority_t p;
	const char *pos = NULL;
	int r = gnutls_priority_init(&p, prio, &pos);
	if (r >= 0) {
		gnutls_priority_deinit(p);
		return 0;
	}
	/* GnuTLS points at the part it rejected, when it can: up to ':'. */
	size_t at = pos && pos >= prio && pos < prio + strlen(prio) ?
		    (size_t)(pos - prio) : 0;
	snprintf(err, errlen, "is refused by GnuTLS at \"%s\" (%s)",
		 shb_quote_n(prio + at, strcspn(prio + at, ":")).s,
		 gnutls_strerror(r));
	return -1;
}

int shb_tls_priority(const char *ciphers, uint32_t version, int quic,
		     char **out, char *err, size_t errlen)
{
	const char *vers = version == 0x0303 ? ":-VERS-ALL:+VERS-TLS1.2" :
			   version == 0x0304 ? ":-VERS-ALL:+VERS-TLS1.3" : "";
	*out = NULL;
	if (quic && version == 0x0303) {
		snprintf(err, errlen, "--tls-version 1.2: QUIC (HTTP/3) runs "
			 "TLS 1.3 only");
		return -1;
	}
	if (!ciphers && (!version || quic))
		return 0;
	if (quic) /* what the module keeps on top, checked with it */
		vers = ":-VERS-ALL:+VERS-TLS1.3";
	const char *base = ciphers ? ciphers :
			   "NORMAL:" PRIO_CIPHERS ":" PRIO_GROUPS;
	size_t n = strlen(base) + strlen(vers) + 1;
	char *s = malloc(n);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(s, n, "%s%s", base, vers);
	gnutls_priority_t p;
	const char *pos = NULL;
	int r = gnutls_priority_init(&p, s, &pos);
	if (r == GNUTLS_E_NO_PRIORITIES_WERE_SET) {
		snprintf(err, errlen, "--ciphers \"%s\": no cipher suite left for "
			 "TLS %s", shb_quote(base).s, quic ? "1.3 (the only version QUIC runs)" :
			 version == 0x0304 ? "1.3" : version ? "1.2" : "1.2 or 1.3");
		free(s);
		return -1;
	}
	if (r < 0) {
		/* GnuTLS points at the part it rejected: name that part,
		 * up to the next ':'. */
		size_t at = pos && pos >= s && pos < s + strlen(base) ?
			    (size_t)(pos - s) : 0;
		size_t len = strcspn(base + at, ":");
		snprintf(err, errlen, "--ciphers: GnuTLS rejects \"%s\" at "
			 "offset %zu of \"%s\" (%s)", shb_quote_n(base + at, len).s,
			 at, shb_quote(base).s, gnutls_strerror(r));
		free(s);
		return -1;
	}
	int ok = !quic || has_tls13_suite(p);
	gnutls_priority_deinit(p);
	if (!ok) {
		snprintf(err, errlen, "--ciphers \"%s\": no TLS 1.3 cipher suite "
			 "left, and QUIC (HTTP/3) needs one", shb_quote(base).s);
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

static ssize_t push_fn(gnutls_transport_ptr_t ptr, const void *data, size_t len)
{
	struct shb_tls *t = ptr;
	if (shb_buf_put(t->out, data, len) != SHB_BUF_OK) {
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
		struct shb_buf *out, char *err, size_t errlen)
{
	int r;

	memset(t, 0, sizeof(*t));
	t->ctx = c;
	t->out = out;
	/* No session tickets unless --tls-resume: every connection costs the
	 * server a full handshake, as with wrk and h2load. One TLS 1.3 key
	 * share, for the
	 * priority's first group, as OpenSSL-based clients send: GnuTLS's
	 * default of two (P-256 and X25519) makes a key the server never
	 * uses: about 30 % of shb's CPU per new TLS connection (bench/
	 * churn.sh). A server without that group asks for another
	 * (HelloRetryRequest), which GnuTLS answers. */
	r = gnutls_init(&t->s, GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_KEY_SHARE_TOP |
			       (c->resume ? 0 : GNUTLS_NO_TICKETS));
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

void shb_tls_set_out(struct shb_tls *t, struct shb_buf *out)
{
	t->out = out;
}

/* GnuTLS ends its sentences with a blank ("... is unknown. "): an error
 * sample keeps none at its end. */
/* Says why the certificate was refused (common/tls_verify_text.h).
 * Returns 0, or -1 if GnuTLS has no words. */
static int verify_error(struct shb_tls *t, char *err, size_t errlen)
{
	return shb_tls_verify_text(gnutls_session_get_verify_cert_status(t->s),
				   t->ctx->host, err, errlen);
}

/* The first flight of the first session of the run is its ClientHello:
 * the records it wrote go to ctx->hello (tls_fp.h) for the report's JA3
 * and JA4. */
static void keep_hello(struct shb_tls *t, const struct shb_buf *out, size_t from)
{
	uint8_t msg[SHB_HELLO_MAX];
	t->hello_seen = 1;
	if (out->len <= from ||
	    atomic_load_explicit(&t->ctx->hello->state, memory_order_relaxed))
		return; /* nothing written, or another session's is kept */
	size_t n = shb_hello_from_records(out->p + from, out->len - from, msg,
					  sizeof(msg));
	if (n)
		shb_hello_keep(t->ctx->hello, msg, n, 0);
}

/* The server's alert by name. A server that requires a client
 * certificate says so in TLS 1.3 only after the client's handshake is
 * done, in the first read, with certificate_required (116) or, as Go's
 * TLS before 1.21 does, bad_certificate (42): a server's alert about a
 * certificate is about ours, so without one name the options. */
static void alert_error(struct shb_tls *t, const char *stage, char *err,
			size_t errlen)
{
	gnutls_alert_description_t a = gnutls_alert_get(t->s);
	const char *name = gnutls_alert_get_name(a);
	/* The number as the h3 plugin gives it, so that one alert reads the
	 * same over TCP and QUIC (and shb_tls_sni_may_matter finds it). */
	snprintf(err, errlen, "TLS %s: alert %u (%s)%s", stage, (unsigned)a,
		 name ? name : "unknown",
		 (a == GNUTLS_A_CERTIFICATE_REQUIRED ||
		  a == GNUTLS_A_BAD_CERTIFICATE) && !t->ctx->has_cert ?
		 ": the server wants a client certificate (--cert FILE --key FILE)" :
		 "");
}

void shb_tls_ticket_free(struct shb_tls_ticket *tk)
{
	gnutls_free(tk->d.data);
	tk->d.data = NULL;
	tk->d.size = 0;
}

void shb_tls_resume(struct shb_tls *t, struct shb_tls_ticket *tk)
{
	t->ticket = tk;
	/* Data GnuTLS refuses (expired, another origin's) is a full
	 * handshake, not an error. */
	if (tk->d.size)
		(void)gnutls_session_set_data(t->s, tk->d.data, tk->d.size);
}

int shb_tls_resumed(const struct shb_tls *t)
{
	return t->handshake_done && gnutls_session_is_resumed(t->s);
}

/* Keeps this session's data for the next connection once there is some
 * worth offering: TLS 1.3 sends tickets after the handshake (read with
 * the first records), TLS 1.2 has its session at the handshake's end. */
static void save_ticket(struct shb_tls *t)
{
	gnutls_datum_t d;
	if (!t->ticket || t->ticket_saved || !t->handshake_done)
		return;
	if (gnutls_protocol_get_version(t->s) == GNUTLS_TLS1_3 &&
	    !(gnutls_session_get_flags(t->s) & GNUTLS_SFLAGS_SESSION_TICKET))
		return;
	if (gnutls_session_get_data2(t->s, &d) < 0)
		return;
	shb_tls_ticket_free(t->ticket);
	t->ticket->d = d;
	t->ticket_saved = 1;
}

int shb_tls_handshake(struct shb_tls *t, char *err, size_t errlen)
{
	struct shb_buf *out = t->out;
	size_t from = out->len;
	int r = gnutls_handshake(t->s);
	if (!t->hello_seen && t->ctx->hello)
		keep_hello(t, out, from);
	if (r == GNUTLS_E_SUCCESS) {
		t->handshake_done = 1;
		save_ticket(t);
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
		alert_error(t, "handshake", err, errlen);
	else if (r == GNUTLS_E_UNEXPECTED_PACKET_LENGTH ||
		 r == GNUTLS_E_UNEXPECTED_PACKET ||
		 r == GNUTLS_E_UNSUPPORTED_VERSION_PACKET)
		/* The first bytes back are no TLS record: most often a server
		 * speaking plain HTTP ("HTTP/1.1 400 ..." to a ClientHello). */
		snprintf(err, errlen, "TLS handshake: %s (the answer is not TLS: "
			 "this port may speak plain HTTP; try http://)",
			 gnutls_strerror(r));
	else
		snprintf(err, errlen, "TLS handshake: %s", gnutls_strerror(r));
	return -1;
}

int shb_tls_sni_may_matter(const char *msg)
{
	return msg && (strstr(msg, "alert 80 (") || strstr(msg, "alert 112 (") ||
		       strstr(msg, "certificate is not valid for ") ||
		       strstr(msg, "failed: TLS alert 42 ("));
}

static long read_records(struct shb_tls *t, uint8_t *buf, size_t cap,
			 char *err, size_t errlen);

long shb_tls_read(struct shb_tls *t, uint8_t *buf, size_t cap, char *err,
		  size_t errlen)
{
	long n = read_records(t, buf, cap, err, errlen);
	save_ticket(t);
	return n;
}

static long read_records(struct shb_tls *t, uint8_t *buf, size_t cap,
			 char *err, size_t errlen)
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
		if (r == GNUTLS_E_FATAL_ALERT_RECEIVED)
			alert_error(t, "read", err, errlen);
		else
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
			if (t->out && t->out->err != SHB_BUF_OK)
				snprintf(err, errlen, "TLS write: ciphertext buffer %s",
					 shb_buf_strerror(t->out->err));
			else
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
