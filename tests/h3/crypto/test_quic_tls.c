/* Real TLS 1.3 handshakes between the client glue and an in-process GnuTLS
 * QUIC-mode server, CRYPTO bytes exchanged in memory level by level and cut
 * into pieces of every size; the keys both sides derive must agree. Then
 * every failure the glue must turn into one CONNECTION_CLOSE code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gnutls/gnutls.h>

#include "crypto_test_util.h"
#include "quic_keys.h"
#include "quic_tls.h"
#include "test_certs.h"
#include "tls_test_peer.h"

static struct tp_cert cert;	/* CN/SAN localhost */
static struct tp_cert other;	/* an unrelated certificate */

struct client {
	struct shb_quic_tls tls;
	struct tp_stream out[4];
	struct tp_secrets sec[4];
	unsigned secret_calls[4];
	uint8_t params[40];
	uint8_t peer_params[64];
	size_t peer_params_len;
	unsigned peer_params_calls;
	bool reject_params;
	int alert;
	unsigned alerts;
	bool suite_mismatch;
};

static int cl_secret(void *user, enum shb_quic_level level,
		     gnutls_cipher_algorithm_t cipher, gnutls_mac_algorithm_t hash,
		     const uint8_t *rx, const uint8_t *tx, size_t len)
{
	struct client *c = user;
	struct tp_secrets *e = &c->sec[level];
	gnutls_cipher_algorithm_t c2;
	gnutls_mac_algorithm_t h2;

	c->secret_calls[level]++;
	e->cipher = cipher;
	e->hash = hash;
	e->len = len;
	if (shb_quic_tls_level_suite(&c->tls, level, &c2, &h2) != 0 || c2 != cipher ||
	    h2 != hash || len != shb_quic_hash_len(hash))
		c->suite_mismatch = true;
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

static int cl_send(void *user, enum shb_quic_level level, const uint8_t *data, size_t len)
{
	struct client *c = user;

	return tp_stream_append(&c->out[level], data, len);
}

static int cl_params(void *user, const uint8_t *data, size_t len)
{
	struct client *c = user;

	c->peer_params_calls++;
	if (len > sizeof(c->peer_params))
		return -1;
	memcpy(c->peer_params, data, len);
	c->peer_params_len = len;
	return c->reject_params ? -1 : 0;
}

static void cl_alert(void *user, enum shb_quic_level level, uint8_t desc)
{
	struct client *c = user;

	c->alert = desc;
	c->alerts++;
}

static const struct shb_quic_tls_callbacks cbs = {
	.secret = cl_secret,
	.crypto_send = cl_send,
	.peer_params = cl_params,
	.alert = cl_alert,
};

static int client_init(struct client *c, const struct shb_quic_tls_ctx *ctx,
		       const char *host)
{
	memset(c, 0, sizeof(*c));
	c->alert = -1;
	for (size_t i = 0; i < sizeof(c->params); i++)
		c->params[i] = (uint8_t)(0x10 + i);
	return shb_quic_tls_init(&c->tls, ctx, host, c->params, sizeof(c->params), &cbs, c);
}

static uint32_t rng_state;

static size_t next_piece(size_t piece)
{
	if (piece)
		return piece;
	rng_state = rng_state * 1103515245u + 12345u;
	return 1 + (rng_state >> 16) % 40;
}

/* Delivers everything pending in both directions, lower levels first, in
 * pieces of `piece` bytes (0: random 1..40), until nothing moves. Returns
 * the first client error, or 0. */
static int exchange(struct client *c, struct tp_server *sv, size_t piece)
{
	for (int round = 0; round < 64; round++) {
		bool moved = false;

		for (int lv = 0; lv < 4; lv++) {
			struct tp_stream *st = &sv->out[lv];
			while (st->sent < st->len) {
				size_t n = next_piece(piece);
				if (n > st->len - st->sent)
					n = st->len - st->sent;
				int rc = shb_quic_tls_recv(&c->tls, (enum shb_quic_level)lv,
							   st->data + st->sent, n);
				st->sent += n;
				moved = true;
				if (rc != 0)
					return rc;
			}
		}
		for (int lv = 0; lv < 4; lv++) {
			struct tp_stream *st = &c->out[lv];
			while (st->sent < st->len) {
				size_t n = next_piece(piece);
				if (n > st->len - st->sent)
					n = st->len - st->sent;
				tp_server_recv(sv, lv, st->data + st->sent, n);
				st->sent += n;
				moved = true;
			}
		}
		if (!moved)
			return 0;
	}
	return -100;
}

static void default_ctx(struct shb_quic_tls_ctx *ctx, const struct shb_quic_tls_config *cfg)
{
	char err[256] = "";
	int rc = shb_quic_tls_ctx_init(ctx, cfg, err, sizeof(err));

	if (rc != 0)
		fprintf(stderr, "ctx: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* Keys from both sides' secrets at `level` open each other's packets. */
static void check_keys_agree(const struct client *c, const struct tp_server *sv, int level)
{
	const struct tp_secrets *cs = &c->sec[level], *ss = &sv->sec[level];
	struct shb_quic_keys ctx_ = SHB_QUIC_KEYS_EMPTY, srx = SHB_QUIC_KEYS_EMPTY;
	struct shb_quic_keys stx = SHB_QUIC_KEYS_EMPTY, crx = SHB_QUIC_KEYS_EMPTY;
	struct shb_quic_keys n1 = SHB_QUIC_KEYS_EMPTY, n2 = SHB_QUIC_KEYS_EMPTY;
	uint8_t pkt[200], plain[200];
	uint64_t tpn;

	CU_ASSERT_FATAL(cs->has_rx && cs->has_tx && ss->has_rx && ss->has_tx);
	CU_ASSERT_EQUAL(cs->cipher, ss->cipher);
	CU_ASSERT_EQUAL(cs->hash, ss->hash);
	CU_ASSERT_EQUAL_FATAL(cs->len, ss->len);
	CU_ASSERT_EQUAL(memcmp(cs->tx, ss->rx, cs->len), 0);
	CU_ASSERT_EQUAL(memcmp(cs->rx, ss->tx, cs->len), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(cs->rx, cs->tx, cs->len), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&ctx_, cs->cipher, cs->hash, cs->tx, cs->len), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&crx, cs->cipher, cs->hash, cs->rx, cs->len), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&srx, ss->cipher, ss->hash, ss->rx, ss->len), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_keys_init(&stx, ss->cipher, ss->hash, ss->tx, ss->len), 0);

	for (size_t i = 0; i < sizeof(plain); i++)
		plain[i] = (uint8_t)(i * 7 + (size_t)level);
	plain[0] = 0x41; /* short header, 2-byte pn */
	/* client -> server */
	memcpy(pkt, plain, sizeof(pkt));
	pkt[9] = 0, pkt[10] = 77;
	CU_ASSERT_EQUAL(shb_quic_protect(&ctx_, 77, pkt, 9, 100, sizeof(pkt)), 127);
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&srx, pkt, 127, 9, &tpn), 2);
	CU_ASSERT_EQUAL(tpn, 77);
	CU_ASSERT_EQUAL(shb_quic_open(&srx, 77, pkt, 11, 127), 100);
	CU_ASSERT_EQUAL(memcmp(pkt + 11, plain + 11, 100), 0);
	/* server -> client */
	memcpy(pkt, plain, sizeof(pkt));
	CU_ASSERT_EQUAL(shb_quic_protect(&stx, 78, pkt, 9, 100, sizeof(pkt)), 127);
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&crx, pkt, 127, 9, &tpn), 2);
	CU_ASSERT_EQUAL(tpn, plain[9] << 8 | plain[10]);
	CU_ASSERT_EQUAL(shb_quic_open(&crx, 78, pkt, 11, 127), 100);
	CU_ASSERT_EQUAL(memcmp(pkt, plain, 111), 0);
	/* the client's key cannot open the server's packets */
	memcpy(pkt, plain, sizeof(pkt));
	CU_ASSERT_EQUAL(shb_quic_protect(&stx, 79, pkt, 9, 100, sizeof(pkt)), 127);
	CU_ASSERT_EQUAL(shb_quic_hp_remove(&crx, pkt, 127, 9, &tpn), 2);
	CU_ASSERT_EQUAL(shb_quic_open(&ctx_, 79, pkt, 11, 127), SHB_QUIC_CRYPTO_E_AUTH);
	/* and after one key update on both ends they still agree */
	if (level == SHB_QUIC_LEVEL_APPLICATION) {
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_update(&n1, &ctx_), 0);
		CU_ASSERT_EQUAL_FATAL(shb_quic_keys_update(&n2, &srx), 0);
		memcpy(pkt, plain, sizeof(pkt));
		pkt[0] |= 0x04; /* key phase 1 */
		CU_ASSERT_EQUAL(shb_quic_protect(&n1, 80, pkt, 9, 100, sizeof(pkt)), 127);
		CU_ASSERT_EQUAL(shb_quic_hp_remove(&n2, pkt, 127, 9, &tpn), 2);
		CU_ASSERT_EQUAL(pkt[0], plain[0] | 0x04);
		CU_ASSERT_EQUAL(shb_quic_open(&n2, 80, pkt, 11, 127), 100);
	}
	shb_quic_keys_deinit(&ctx_);
	shb_quic_keys_deinit(&crx);
	shb_quic_keys_deinit(&srx);
	shb_quic_keys_deinit(&stx);
	shb_quic_keys_deinit(&n1);
	shb_quic_keys_deinit(&n2);
}

/* One full handshake; checks everything a completed one must show. */
static void handshake_ok(const struct shb_quic_tls_config *cfg,
			 const struct tp_server_opts *sopts, const char *host,
			 size_t piece, gnutls_cipher_algorithm_t want_cipher,
			 unsigned want_client_hellos)
{
	struct shb_quic_tls_ctx ctx;
	static struct client c;
	static struct tp_server sv;
	const uint8_t *alpn;
	size_t alen;
	gnutls_datum_t sd;
	gnutls_cipher_algorithm_t ci;
	gnutls_mac_algorithm_t hi;

	default_ctx(&ctx, cfg);
	CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &cert, sopts), 0);
	CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, host), 0);
	CU_ASSERT_EQUAL(shb_quic_tls_level_suite(&c.tls, SHB_QUIC_LEVEL_HANDSHAKE, &ci, &hi),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_INITIAL,
					  (const uint8_t *)"x", 1), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
	CU_ASSERT_EQUAL(shb_quic_tls_start(&c.tls), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_INITIAL].msgs, 1);
	CU_ASSERT_TRUE(c.out[SHB_QUIC_LEVEL_INITIAL].len > 100);
	CU_ASSERT_FALSE(shb_quic_tls_complete(&c.tls));

	int xrc = exchange(&c, &sv, piece);
	if (xrc != 0 || sv.error)
		fprintf(stderr, "exchange %d close 0x%llx server %s alert %d\n", xrc,
			(unsigned long long)shb_quic_tls_close_code(&c.tls),
			gnutls_strerror(sv.error), sv.alert);
	CU_ASSERT_EQUAL(xrc, 0);
	CU_ASSERT_EQUAL(sv.error, 0);
	CU_ASSERT_TRUE(sv.complete);
	CU_ASSERT_TRUE(shb_quic_tls_complete(&c.tls));
	CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), 0);
	CU_ASSERT_FALSE(c.suite_mismatch);
	CU_ASSERT_EQUAL(c.alerts, 0);
	/* ALPN h3 on both sides */
	CU_ASSERT_FATAL(shb_quic_tls_alpn(&c.tls, &alpn, &alen));
	CU_ASSERT_EQUAL(alen, 2);
	CU_ASSERT_EQUAL(memcmp(alpn, "h3", 2), 0);
	CU_ASSERT_EQUAL_FATAL(gnutls_alpn_get_selected_protocol(sv.s, &sd), 0);
	CU_ASSERT_EQUAL(sd.size, 2);
	/* transport parameters, byte for byte both ways */
	CU_ASSERT_EQUAL(c.peer_params_calls, 1);
	CU_ASSERT_EQUAL_FATAL(c.peer_params_len, sv.params_len);
	CU_ASSERT_EQUAL(memcmp(c.peer_params, sv.params, sv.params_len), 0);
	CU_ASSERT_EQUAL(sv.peer_params_calls, want_client_hellos);
	CU_ASSERT_EQUAL_FATAL(sv.peer_params_len, sizeof(c.params));
	CU_ASSERT_EQUAL(memcmp(sv.peer_params, c.params, sizeof(c.params)), 0);
	CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_INITIAL].msgs, want_client_hellos);
	/* the suite, and no secrets or bytes at levels that have none */
	CU_ASSERT_EQUAL(c.sec[SHB_QUIC_LEVEL_APPLICATION].cipher, want_cipher);
	CU_ASSERT_EQUAL(shb_quic_tls_level_suite(&c.tls, SHB_QUIC_LEVEL_APPLICATION,
						 &ci, &hi), 0);
	CU_ASSERT_EQUAL(ci, want_cipher);
	CU_ASSERT_EQUAL(hi, want_cipher == GNUTLS_CIPHER_AES_256_GCM ? GNUTLS_MAC_SHA384
								   : GNUTLS_MAC_SHA256);
	CU_ASSERT_EQUAL(shb_quic_tls_level_suite(&c.tls, SHB_QUIC_LEVEL_INITIAL, &ci, &hi), 0);
	CU_ASSERT_EQUAL(ci, GNUTLS_CIPHER_AES_128_GCM);
	CU_ASSERT_EQUAL(c.secret_calls[SHB_QUIC_LEVEL_INITIAL], 0);
	CU_ASSERT_EQUAL(c.secret_calls[SHB_QUIC_LEVEL_EARLY], 0);
	CU_ASSERT_TRUE(c.secret_calls[SHB_QUIC_LEVEL_HANDSHAKE] >= 1);
	CU_ASSERT_TRUE(c.secret_calls[SHB_QUIC_LEVEL_APPLICATION] >= 1);
	CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_EARLY].len, 0);
	CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_HANDSHAKE].msgs, 1); /* Finished */
	CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_APPLICATION].len, 0);
	check_keys_agree(&c, &sv, SHB_QUIC_LEVEL_HANDSHAKE);
	check_keys_agree(&c, &sv, SHB_QUIC_LEVEL_APPLICATION);
	/* SNI only for a DNS name */
	char name[256];
	size_t nlen = sizeof(name);
	unsigned type;
	int src = gnutls_server_name_get(sv.s, name, &nlen, &type, 0);
	if (host && strchr(host, ':') == NULL && strcmp(host, "127.0.0.1") != 0) {
		CU_ASSERT_EQUAL(src, 0);
		CU_ASSERT_STRING_EQUAL(name, host);
	} else {
		CU_ASSERT_NOT_EQUAL(src, 0);
	}
	/* nothing more goes out, and a stray empty feed changes nothing */
	CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_APPLICATION, NULL, 0), 0);
	CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_APPLICATION].len, 0);

	shb_quic_tls_deinit(&c.tls);
	shb_quic_tls_deinit(&c.tls);
	tp_server_deinit(&sv);
	shb_quic_tls_ctx_deinit(&ctx);
}

static void test_handshake_pieces(void)
{
	static const size_t pieces[] = { 1, 2, 3, 5, 7, 13, 64, 300, 100000 };

	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++)
		handshake_ok(NULL, NULL, "localhost", pieces[i], GNUTLS_CIPHER_AES_128_GCM, 1);
}

static void test_handshake_random_pieces(void)
{
	for (uint32_t seed = 1; seed <= 10; seed++) {
		rng_state = seed;
		handshake_ok(NULL, NULL, "localhost", 0, GNUTLS_CIPHER_AES_128_GCM, 1);
	}
}

/* The other three suites, chosen by a server that allows only one. */
static void test_handshake_suites(void)
{
	static const struct {
		const char *cipher;
		gnutls_cipher_algorithm_t id;
	} s[] = {
		{ "AES-256-GCM", GNUTLS_CIPHER_AES_256_GCM },
		{ "CHACHA20-POLY1305", GNUTLS_CIPHER_CHACHA20_POLY1305 },
		{ "AES-128-CCM", GNUTLS_CIPHER_AES_128_CCM },
	};
	char prio[256];

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		snprintf(prio, sizeof(prio),
			 "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+%s:"
			 "%%DISABLE_TLS13_COMPAT_MODE", s[i].cipher);
		struct tp_server_opts o = { .priority = prio };
		handshake_ok(NULL, &o, "localhost", 3, s[i].id, 1);
	}
}

/* A server that wants P-384 makes the client send a second ClientHello
 * (HelloRetryRequest); the transport parameters go out again. GnuTLS 3.7.9
 * alone fails when the HRR arrives in pieces of 38 bytes or fewer. */
static void test_handshake_hrr(void)
{
	static const size_t pieces[] = { 1, 2, 3, 4, 7, 16, 38, 39, 40, 100000 };
	struct tp_server_opts o = {
		.priority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-GROUP-ALL:+GROUP-SECP384R1:"
			    "%DISABLE_TLS13_COMPAT_MODE",
	};
	struct shb_quic_tls_config top = { .key_share_top = true };

	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		handshake_ok(&top, &o, "localhost", pieces[i], GNUTLS_CIPHER_AES_128_GCM, 2);
		handshake_ok(NULL, &o, "localhost", pieces[i], GNUTLS_CIPHER_AES_128_GCM, 2);
	}
	for (uint32_t seed = 1; seed <= 5; seed++) {
		rng_state = seed;
		handshake_ok(&top, &o, "localhost", 0, GNUTLS_CIPHER_AES_128_GCM, 2);
	}
}

static void test_handshake_hosts(void)
{
	handshake_ok(NULL, NULL, "127.0.0.1", 9, GNUTLS_CIPHER_AES_128_GCM, 1);
	handshake_ok(NULL, NULL, "::1", 9, GNUTLS_CIPHER_AES_128_GCM, 1);
	handshake_ok(NULL, NULL, NULL, 9, GNUTLS_CIPHER_AES_128_GCM, 1);
	handshake_ok(NULL, NULL, "example.com", 9, GNUTLS_CIPHER_AES_128_GCM, 1);
}

/* The priority string offers what RFC 9001 allows, AES-128-GCM first, with
 * no compatibility mode: the ClientHello's legacy_session_id is empty. */
static void test_client_hello_shape(void)
{
	struct shb_quic_tls_ctx ctx;
	static struct client c;
	const uint8_t *ch;

	default_ctx(&ctx, NULL);
	CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, "localhost"), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
	ch = c.out[0].data;
	/* type 1, uint24 length, version 0x0303, 32 random, session id length */
	CU_ASSERT_EQUAL(ch[0], 1);
	CU_ASSERT_EQUAL((size_t)(ch[1] << 16 | ch[2] << 8 | ch[3]) + 4, c.out[0].len);
	CU_ASSERT_EQUAL(ch[4 + 2 + 32], 0);
	/* cipher suites: 0x1301 first, then 0x1302, 0x1303, 0x1304 */
	const uint8_t *cs = ch + 4 + 2 + 32 + 1;
	CU_ASSERT_EQUAL(cs[0] << 8 | cs[1], 8);
	CU_ASSERT_EQUAL(cs[2] << 8 | cs[3], 0x1301);
	CU_ASSERT_EQUAL(cs[4] << 8 | cs[5], 0x1302);
	CU_ASSERT_EQUAL(cs[6] << 8 | cs[7], 0x1303);
	CU_ASSERT_EQUAL(cs[8] << 8 | cs[9], 0x1304);
	/* our transport parameters appear verbatim after 00 39 00 28 */
	const uint8_t hdr[4] = { 0x00, 0x39, 0x00, sizeof(c.params) };
	CU_ASSERT_PTR_NOT_NULL(memmem(ch, c.out[0].len, hdr, 4));
	CU_ASSERT_PTR_NOT_NULL(memmem(ch, c.out[0].len, c.params, sizeof(c.params)));
	CU_ASSERT_PTR_NOT_NULL(memmem(ch, c.out[0].len, "\x02h3", 3));
	shb_quic_tls_deinit(&c.tls);
	shb_quic_tls_ctx_deinit(&ctx);
}

/* ---- failures ---------------------------------------------------------- */

/* Runs a handshake expected to fail on the client with `code`. */
/* verify: the GnuTLS status bits verification must have refused the
 * certificate with (shb_quic_tls_verify_failed), 0 when it must not
 * have been verification that failed. */
static void handshake_fails_v(const struct shb_quic_tls_config *cfg,
			      const struct tp_server_opts *sopts,
			      const char *host, bool reject_params,
			      uint64_t code, unsigned verify)
{
	unsigned status = 0;

	struct shb_quic_tls_ctx ctx;
	static struct client c;
	static struct tp_server sv;

	default_ctx(&ctx, cfg);
	CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &cert, sopts), 0);
	CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, host), 0);
	c.reject_params = reject_params;
	CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
	CU_ASSERT_EQUAL(exchange(&c, &sv, 5), SHB_QUIC_CRYPTO_E_TLS);
	CU_ASSERT_FALSE(shb_quic_tls_complete(&c.tls));
	CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), code);
	/* Sticky: every later call fails the same way. */
	CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_HANDSHAKE,
					  (const uint8_t *)"\x14", 1), SHB_QUIC_CRYPTO_E_TLS);
	CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), code);
	CU_ASSERT_EQUAL(shb_quic_tls_verify_failed(&c.tls, &status), verify != 0);
	CU_ASSERT_EQUAL(status & verify, verify);
	shb_quic_tls_deinit(&c.tls);
	tp_server_deinit(&sv);
	shb_quic_tls_ctx_deinit(&ctx);
}

static void handshake_fails(const struct shb_quic_tls_config *cfg,
			    const struct tp_server_opts *sopts, const char *host,
			    bool reject_params, uint64_t code)
{
	handshake_fails_v(cfg, sopts, host, reject_params, code, 0);
}

static void test_no_alpn(void)
{
	struct tp_server_opts o = { .no_alpn = true };

	handshake_fails(NULL, &o, "localhost", false, 0x178);
}

static void test_no_transport_params(void)
{
	struct tp_server_opts o = { .no_params = true };

	handshake_fails(NULL, &o, "localhost", false, 0x16d);
}

static void test_params_rejected(void)
{
	handshake_fails(NULL, NULL, "localhost", true, SHB_QUIC_ERR_TRANSPORT_PARAMETER);
}

static void test_verify(void)
{
	char path[512], path2[512];
	struct shb_quic_tls_config cfg = { .verify = true };
	struct shb_quic_tls_ctx ctx;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(tp_cert_write_temp(&cert, path, sizeof(path)), 0);
	CU_ASSERT_EQUAL_FATAL(tp_cert_write_temp(&other, path2, sizeof(path2)), 0);
	/* trusted, right name */
	cfg.ca_file = path;
	handshake_ok(&cfg, NULL, "localhost", 11, GNUTLS_CIPHER_AES_128_GCM, 1);
	/* trusted, wrong name: bad_certificate, and why */
	handshake_fails_v(&cfg, NULL, "example.com", false, 0x12a,
			  GNUTLS_CERT_UNEXPECTED_OWNER);
	/* not trusted (another certificate with the same name as the only
	 * CA: its signature fails): bad_certificate, alert reported to the
	 * callback, and why */
	cfg.ca_file = path2;
	handshake_fails_v(&cfg, NULL, "localhost", false, 0x12a,
			  GNUTLS_CERT_INVALID | GNUTLS_CERT_SIGNATURE_FAILURE);
	unlink(path);
	unlink(path2);
	/* an unreadable trust file is one clear error */
	cfg.ca_file = path;
	err[0] = 0;
	CU_ASSERT_EQUAL(shb_quic_tls_ctx_init(&ctx, &cfg, err, sizeof(err)),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot load CA file"));
	CU_ASSERT_PTR_NULL(ctx.cred);
	/* without verification the unknown certificate is fine */
	handshake_ok(NULL, NULL, "example.com", 11, GNUTLS_CIPHER_AES_128_GCM, 1);
}

/* One handshake against a server presenting `leaf`, verified against the
 * CA in `ca_path`: the close code (0 when it completed). */
static uint64_t verify_leaf(const struct test_cert *leaf, const char *ca_path,
			    const char *host)
{
	struct shb_quic_tls_config cfg = { .verify = true, .ca_file = ca_path };
	struct tp_cert tc = { .crt = leaf->crt, .key = leaf->key };
	struct shb_quic_tls_ctx ctx;
	static struct client c;
	static struct tp_server sv;
	uint64_t code;

	default_ctx(&ctx, &cfg);
	CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &tc, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, host), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
	int rc = exchange(&c, &sv, 100000);
	code = shb_quic_tls_close_code(&c.tls);
	if (rc == 0) {
		CU_ASSERT_TRUE(shb_quic_tls_complete(&c.tls));
		CU_ASSERT_EQUAL(code, 0);
	} else {
		CU_ASSERT_EQUAL(rc, SHB_QUIC_CRYPTO_E_TLS);
		CU_ASSERT_FALSE(shb_quic_tls_complete(&c.tls));
		CU_ASSERT_NOT_EQUAL(code, 0);
	}
	shb_quic_tls_deinit(&c.tls);
	tp_server_deinit(&sv);
	shb_quic_tls_ctx_deinit(&ctx);
	return code;
}

/* The certificate must be valid for the host: a DNS name against the DNS
 * SANs, an IPv4 or IPv6 literal against the iPAddress SANs only (a
 * DNS-only certificate never matches an address). A wrong name is
 * bad_certificate (0x12a), as an untrusted chain. */
static void test_verify_names(void)
{
	static const char *const dns[] = { "DNS:foo.example", NULL };
	static const char *const ip4[] = { "IP:127.0.0.1", NULL };
	static const char *const ip6[] = { "IP:::1", NULL };
	struct test_cert ca, dns_leaf, ip4_leaf, ip6_leaf;
	char path[512];

	CU_ASSERT_EQUAL_FATAL(test_cert_ca(&ca, "shb test CA"), 0);
	CU_ASSERT_EQUAL_FATAL(test_cert_leaf(&dns_leaf, &ca, dns), 0);
	CU_ASSERT_EQUAL_FATAL(test_cert_leaf(&ip4_leaf, &ca, ip4), 0);
	CU_ASSERT_EQUAL_FATAL(test_cert_leaf(&ip6_leaf, &ca, ip6), 0);
	CU_ASSERT_EQUAL_FATAL(test_cert_write_temp(&ca, path, sizeof(path)), 0);

	CU_ASSERT_EQUAL(verify_leaf(&dns_leaf, path, "127.0.0.1"), 0x12a);
	CU_ASSERT_EQUAL(verify_leaf(&dns_leaf, path, "::1"), 0x12a);
	CU_ASSERT_EQUAL(verify_leaf(&ip4_leaf, path, "127.0.0.1"), 0);
	CU_ASSERT_EQUAL(verify_leaf(&ip4_leaf, path, "127.0.0.2"), 0x12a);
	CU_ASSERT_EQUAL(verify_leaf(&ip4_leaf, path, "::1"), 0x12a);
	CU_ASSERT_EQUAL(verify_leaf(&ip4_leaf, path, "::ffff:127.0.0.1"), 0x12a);
	CU_ASSERT_EQUAL(verify_leaf(&ip6_leaf, path, "::1"), 0);
	CU_ASSERT_EQUAL(verify_leaf(&ip6_leaf, path, "0:0:0:0:0:0:0:1"), 0);
	CU_ASSERT_EQUAL(verify_leaf(&ip6_leaf, path, "127.0.0.1"), 0x12a);
	CU_ASSERT_EQUAL(verify_leaf(&dns_leaf, path, "foo.example"), 0);
	CU_ASSERT_EQUAL(verify_leaf(&dns_leaf, path, "localhost"), 0x12a);
	CU_ASSERT_EQUAL(verify_leaf(&ip4_leaf, path, "localhost"), 0x12a);

	unlink(path);
	test_cert_free(&ca);
	test_cert_free(&dns_leaf);
	test_cert_free(&ip4_leaf);
	test_cert_free(&ip6_leaf);
}

/* The alert for a verification failure also reaches the alert callback. */
static void test_alert_callback(void)
{
	char path[512];
	struct shb_quic_tls_config cfg = { .verify = true };
	struct shb_quic_tls_ctx ctx;
	static struct client c;
	static struct tp_server sv;

	CU_ASSERT_EQUAL_FATAL(tp_cert_write_temp(&other, path, sizeof(path)), 0);
	cfg.ca_file = path;
	default_ctx(&ctx, &cfg);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &cert, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, "localhost"), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
	CU_ASSERT_EQUAL(exchange(&c, &sv, 100000), SHB_QUIC_CRYPTO_E_TLS);
	CU_ASSERT_EQUAL(c.alerts, 1);
	CU_ASSERT_EQUAL(c.alert, 42);
	CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), 0x12a);
	shb_quic_tls_deinit(&c.tls);
	tp_server_deinit(&sv);
	shb_quic_tls_ctx_deinit(&ctx);
}

/* Server bytes offered at the wrong level are a PROTOCOL_VIOLATION before
 * GnuTLS sees them; so is new data at a level already left behind. */
static void test_wrong_level(void)
{
	struct shb_quic_tls_ctx ctx;
	static struct client c;
	static struct tp_server sv;

	default_ctx(&ctx, NULL);
	/* ServerHello bytes sent as Handshake data */
	CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &cert, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, "localhost"), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
	tp_server_recv(&sv, 0, c.out[0].data, c.out[0].len);
	CU_ASSERT_TRUE_FATAL(sv.out[0].len > 0);
	CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_HANDSHAKE, sv.out[0].data,
					  sv.out[0].len), SHB_QUIC_CRYPTO_E_TLS);
	CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), SHB_QUIC_ERR_PROTOCOL_VIOLATION);
	CU_ASSERT_EQUAL(c.secret_calls[SHB_QUIC_LEVEL_HANDSHAKE], 0);
	shb_quic_tls_deinit(&c.tls);
	tp_server_deinit(&sv);

	/* Initial data again after the ServerHello */
	CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &cert, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, "localhost"), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
	tp_server_recv(&sv, 0, c.out[0].data, c.out[0].len);
	CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_INITIAL, sv.out[0].data,
					  sv.out[0].len), 0);
	CU_ASSERT_EQUAL(c.secret_calls[SHB_QUIC_LEVEL_HANDSHAKE], 1);
	CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_INITIAL, sv.out[0].data, 1),
			SHB_QUIC_CRYPTO_E_TLS);
	CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), SHB_QUIC_ERR_PROTOCOL_VIOLATION);
	/* out-of-range level */
	CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, (enum shb_quic_level)7, sv.out[0].data, 1),
			SHB_QUIC_CRYPTO_E_TLS);
	shb_quic_tls_deinit(&c.tls);
	tp_server_deinit(&sv);
	shb_quic_tls_ctx_deinit(&ctx);
}

/* A TLS KeyUpdate from the server after the handshake (QUIC forbids it) is
 * refused with unexpected_message, whatever the fragmentation. */
static void test_peer_key_update(void)
{
	struct shb_quic_tls_ctx ctx;
	static struct client c;
	static struct tp_server sv;

	default_ctx(&ctx, NULL);
	for (size_t piece = 1; piece <= 6; piece += 5) {
		CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &cert, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, "localhost"), 0);
		CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
		CU_ASSERT_EQUAL(exchange(&c, &sv, piece), 0);
		CU_ASSERT_TRUE_FATAL(shb_quic_tls_complete(&c.tls));
		unsigned calls = c.secret_calls[SHB_QUIC_LEVEL_APPLICATION];
		size_t before = sv.out[3].len;
		CU_ASSERT_EQUAL(gnutls_session_key_update(sv.s, GNUTLS_KU_PEER), 0);
		CU_ASSERT_EQUAL_FATAL(sv.out[3].len - before, 5);
		CU_ASSERT_EQUAL(sv.out[3].data[before], 24);
		CU_ASSERT_EQUAL(exchange(&c, &sv, piece), SHB_QUIC_CRYPTO_E_TLS);
		CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), 0x10a);
		CU_ASSERT_EQUAL(c.secret_calls[SHB_QUIC_LEVEL_APPLICATION], calls);
		CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_APPLICATION].len, 0);
		shb_quic_tls_deinit(&c.tls);
		tp_server_deinit(&sv);
	}
	shb_quic_tls_ctx_deinit(&ctx);
}

/* Post-handshake messages other than KeyUpdate pass through
 * gnutls_handshake_write in any fragmentation; a KeyUpdate hidden after
 * them is still spotted at its message boundary. */
static void test_post_handshake_framing(void)
{
	struct shb_quic_tls_ctx ctx;
	static struct client c;
	static struct tp_server sv;
	/* NewSessionTicket with lifetime, age_add, nonce, ticket, no
	 * extensions, then KeyUpdate(update_not_requested). */
	static const uint8_t nst[] = {
		4, 0, 0, 17,
		0, 0, 0, 60,		/* lifetime */
		1, 2, 3, 4,		/* age_add */
		1, 9,			/* nonce */
		0, 3, 0xaa, 0xbb, 0xcc,	/* ticket */
		0, 0,			/* extensions */
	};
	static const uint8_t ku[] = { 24, 0, 0, 1, 0 };

	default_ctx(&ctx, NULL);
	for (size_t piece = 1; piece <= sizeof(nst); piece++) {
		CU_ASSERT_EQUAL_FATAL(tp_server_init(&sv, &cert, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(client_init(&c, &ctx, "localhost"), 0);
		CU_ASSERT_EQUAL_FATAL(shb_quic_tls_start(&c.tls), 0);
		CU_ASSERT_EQUAL(exchange(&c, &sv, 100000), 0);
		CU_ASSERT_TRUE_FATAL(shb_quic_tls_complete(&c.tls));
		for (size_t off = 0; off < sizeof(nst); off += piece) {
			size_t n = sizeof(nst) - off < piece ? sizeof(nst) - off : piece;
			CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_APPLICATION,
							  nst + off, n), 0);
		}
		CU_ASSERT_TRUE(shb_quic_tls_complete(&c.tls));
		CU_ASSERT_EQUAL(shb_quic_tls_recv(&c.tls, SHB_QUIC_LEVEL_APPLICATION, ku, 1),
				SHB_QUIC_CRYPTO_E_TLS);
		CU_ASSERT_EQUAL(shb_quic_tls_close_code(&c.tls), 0x10a);
		CU_ASSERT_FALSE(shb_quic_tls_complete(&c.tls));
		CU_ASSERT_EQUAL(c.out[SHB_QUIC_LEVEL_APPLICATION].len, 0);
		shb_quic_tls_deinit(&c.tls);
		tp_server_deinit(&sv);
	}
	shb_quic_tls_ctx_deinit(&ctx);
}

static void test_bad_setup(void)
{
	struct shb_quic_tls_ctx ctx, empty = { 0 };
	struct shb_quic_tls_config cfg = { .priority = "NORMAL:+NOPE" };
	static struct client c;
	struct shb_quic_tls_callbacks partial = cbs;
	uint8_t big[SHB_QUIC_TLS_PARAMS_MAX + 1] = { 0 };
	char err[256] = "";

	CU_ASSERT_EQUAL(shb_quic_tls_ctx_init(&ctx, &cfg, err, sizeof(err)),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "NOPE"));
	CU_ASSERT_EQUAL(shb_quic_tls_ctx_init(NULL, NULL, NULL, 0), SHB_QUIC_CRYPTO_E_INVAL);
	shb_quic_tls_ctx_deinit(&empty);
	shb_quic_tls_ctx_deinit(NULL);
	default_ctx(&ctx, NULL);
	CU_ASSERT_EQUAL(shb_quic_tls_init(&c.tls, &ctx, "h", big, 0, &cbs, &c),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_tls_init(&c.tls, &ctx, "h", big, sizeof(big), &cbs, &c),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_tls_init(&c.tls, &empty, "h", big, 8, &cbs, &c),
			SHB_QUIC_CRYPTO_E_INVAL);
	partial.peer_params = NULL;
	CU_ASSERT_EQUAL(shb_quic_tls_init(&c.tls, &ctx, "h", big, 8, &partial, &c),
			SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_PTR_NULL(c.tls.session);
	CU_ASSERT_EQUAL(shb_quic_tls_start(&c.tls), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_tls_start(NULL), SHB_QUIC_CRYPTO_E_INVAL);
	CU_ASSERT_FALSE(shb_quic_tls_complete(NULL));
	CU_ASSERT_EQUAL(shb_quic_tls_close_code(NULL), 0);
	shb_quic_tls_deinit(NULL);
	CU_ASSERT_EQUAL(shb_quic_tls_error_to_code(GNUTLS_E_NO_APPLICATION_PROTOCOL), 0x178);
	CU_ASSERT_EQUAL(shb_quic_tls_error_to_code(GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR),
			0x12a);
	CU_ASSERT_EQUAL(shb_quic_tls_error_to_code(GNUTLS_E_MEMORY_ERROR), 0x150);
	shb_quic_tls_ctx_deinit(&ctx);
}

int shb_test_quic_tls_init(void)
{
	if (tp_cert_make(&cert, "localhost") != 0 || tp_cert_make(&other, "localhost") != 0)
		return 1;
	return 0;
}

int shb_test_quic_tls_clean(void)
{
	tp_cert_free(&cert);
	tp_cert_free(&other);
	return 0;
}

CU_TestInfo shb_test_quic_tls[] = {
	{ "ClientHello shape", test_client_hello_shape },
	{ "handshake in fixed-size pieces", test_handshake_pieces },
	{ "handshake in random pieces", test_handshake_random_pieces },
	{ "handshake AES-256-GCM, ChaCha20, AES-128-CCM", test_handshake_suites },
	{ "handshake with HelloRetryRequest", test_handshake_hrr },
	{ "SNI only for DNS names", test_handshake_hosts },
	{ "server without ALPN: 0x178", test_no_alpn },
	{ "server without transport parameters: 0x16d", test_no_transport_params },
	{ "transport parameters refused: 0x08", test_params_rejected },
	{ "certificate verification", test_verify },
	{ "certificate names: DNS, IPv4, IPv6", test_verify_names },
	{ "alert callback", test_alert_callback },
	{ "CRYPTO at the wrong level: 0x0a", test_wrong_level },
	{ "peer KeyUpdate: 0x10a", test_peer_key_update },
	{ "post-handshake framing", test_post_handshake_framing },
	{ "bad setup", test_bad_setup },
	CU_TEST_INFO_NULL,
};
