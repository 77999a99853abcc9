/* Cost of protecting and unprotecting one full-size (1200-byte) QUIC
 * packet: AEAD seal + header-protection mask (shb_quic_protect), and
 * header-protection removal + AEAD open, per suite; plus the per-connection
 * Initial key derivation. Prints the best of several rounds in ns/op, next
 * to the bare GnuTLS AEAD call as a baseline.
 *
 *   bench_quic_crypto [iterations per round]      (default 200000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quic_keys.h"

#define PKT 1200
#define ROUNDS 7

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A 1-RTT packet: short header, 8-byte DCID, 2-byte packet number. */
static const size_t pn_off = 9, hdr_len = 11, payload = PKT - 11 - 16;

static double bench_protect(const struct shb_quic_keys *k, long iters, uint8_t *pkt)
{
	double best = 1e30;

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			pkt[0] = 0x41;
			if (shb_quic_protect(k, (uint64_t)i, pkt, pn_off, payload, PKT) != PKT)
				abort();
		}
		double dt = (now_ns() - t0) / (double)iters;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* Baseline: the bare GnuTLS call that shb_quic_seal wraps, same buffer,
 * same sizes, so that wrapper overhead and machine noise can be told apart. */
static double bench_raw_seal(gnutls_cipher_algorithm_t cipher, size_t key_len,
			     long iters, uint8_t *pkt)
{
	uint8_t key[32] = { 7 }, nonce[12] = { 0 };
	gnutls_datum_t kd = { key, (unsigned)key_len };
	gnutls_aead_cipher_hd_t h;
	double best = 1e30;

	if (gnutls_aead_cipher_init(&h, cipher, &kd) < 0)
		abort();
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			size_t out = PKT - hdr_len;
			nonce[11] = (uint8_t)i;
			if (gnutls_aead_cipher_encrypt(h, nonce, 12, pkt, hdr_len, 16,
						       pkt + hdr_len, payload, pkt + hdr_len,
						       &out) < 0)
				abort();
		}
		double dt = (now_ns() - t0) / (double)iters;
		if (dt < best)
			best = dt;
	}
	gnutls_aead_cipher_deinit(h);
	return best;
}

/* Open needs a fresh valid packet each time (in place destroys it), so
 * this times copy + unprotect and reports the copy separately. */
static double bench_unprotect(const struct shb_quic_keys *k, long iters,
			      const uint8_t *sealed, uint8_t *pkt, double *copy_ns)
{
	double best = 1e30, best_copy = 1e30;
	uint64_t tpn;

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			memcpy(pkt, sealed, PKT);
			__asm__ volatile("" : : "r"(pkt) : "memory");
		}
		double t1 = now_ns();
		for (long i = 0; i < iters; i++) {
			memcpy(pkt, sealed, PKT);
			if (shb_quic_hp_remove(k, pkt, PKT, pn_off, &tpn) != 2 ||
			    shb_quic_open(k, 7, pkt, hdr_len, PKT) != (int)payload)
				abort();
		}
		double t2 = now_ns();
		if ((t1 - t0) / (double)iters < best_copy)
			best_copy = (t1 - t0) / (double)iters;
		if ((t2 - t1) / (double)iters < best)
			best = (t2 - t1) / (double)iters;
	}
	*copy_ns = best_copy;
	return best - best_copy;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		gnutls_cipher_algorithm_t cipher;
		gnutls_mac_algorithm_t hash;
	} suites[] = {
		{ "AES-128-GCM", GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_SHA256 },
		{ "AES-256-GCM", GNUTLS_CIPHER_AES_256_GCM, GNUTLS_MAC_SHA384 },
		{ "CHACHA20-POLY1305", GNUTLS_CIPHER_CHACHA20_POLY1305, GNUTLS_MAC_SHA256 },
		{ "AES-128-CCM", GNUTLS_CIPHER_AES_128_CCM, GNUTLS_MAC_SHA256 },
	};
	static uint8_t pkt[PKT], sealed[PKT];
	long iters = argc > 1 ? atol(argv[1]) : 200000;
	uint8_t secret[48], dcid[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, sample[16] = { 0 }, mask[5];

	if (iters <= 0) {
		fprintf(stderr, "usage: %s [iterations > 0]\n", argv[0]);
		return 2;
	}
	memset(secret, 0x5a, sizeof(secret));
	printf("%-18s %12s %12s %10s %16s\n", "suite", "protect ns", "unprotect ns",
	       "mask ns", "raw GnuTLS seal");
	for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		struct shb_quic_keys k = SHB_QUIC_KEYS_EMPTY;
		double copy_ns, best_mask = 1e30;
		long n = suites[s].cipher == GNUTLS_CIPHER_AES_128_GCM ||
			 suites[s].cipher == GNUTLS_CIPHER_AES_256_GCM ? iters : iters / 10;

		if (shb_quic_keys_init(&k, suites[s].cipher, suites[s].hash, secret,
				       shb_quic_hash_len(suites[s].hash)) != 0) {
			fprintf(stderr, "%s: cannot install keys\n", suites[s].name);
			return 1;
		}
		memset(pkt, 0, sizeof(pkt));
		double p = bench_protect(&k, n, pkt);
		memset(sealed, 0, sizeof(sealed));
		sealed[0] = 0x41;
		sealed[pn_off + 1] = 7;
		if (shb_quic_protect(&k, 7, sealed, pn_off, payload, PKT) != PKT)
			return 1;
		double u = bench_unprotect(&k, n, sealed, pkt, &copy_ns);
		for (int r = 0; r < ROUNDS; r++) {
			double t0 = now_ns();
			for (long i = 0; i < n; i++) {
				sample[0] = (uint8_t)i;
				shb_quic_hp_mask(&k, sample, mask);
				__asm__ volatile("" : : "r"(mask) : "memory");
			}
			double dt = (now_ns() - t0) / (double)n;
			if (dt < best_mask)
				best_mask = dt;
		}
		double raw = bench_raw_seal(suites[s].cipher, shb_quic_cipher_key_len(suites[s].cipher),
					    n, pkt);
		printf("%-18s %12.1f %12.1f %10.1f %16.1f\n", suites[s].name, p, u, best_mask, raw);
		shb_quic_keys_deinit(&k);
	}

	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (int i = 0; i < 2000; i++) {
			struct shb_quic_keys c = SHB_QUIC_KEYS_EMPTY, sv = SHB_QUIC_KEYS_EMPTY;
			dcid[0] = (uint8_t)i;
			if (shb_quic_keys_init_initial(&c, &sv, dcid, sizeof(dcid)) != 0)
				return 1;
			shb_quic_keys_deinit(&c);
			shb_quic_keys_deinit(&sv);
		}
		double dt = (now_ns() - t0) / 2000.0;
		if (dt < best)
			best = dt;
	}
	printf("Initial keys, both directions (derive + init + deinit): %.0f ns\n", best);
	printf("(%ld iterations per round for AES-GCM, a tenth for the others; best of %d"
	       " rounds; unprotect excludes the packet copy it needs)\n", iters, ROUNDS);
	return 0;
}
