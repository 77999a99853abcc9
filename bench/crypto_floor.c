/* The crypto floor of the HTTP/3 receive path: what removing QUIC packet
 * protection costs per packet with the h3 plugin's own code
 * (plugins/h3/crypto: GnuTLS AEAD, nettle header protection), in a tight
 * loop with nothing else around it. Whatever shb spends per MB received
 * beyond this is the rest of the stack (kernel, core, QUIC, HTTP/3).
 *
 * Per packet, as the receive path does it: header protection removed
 * (one AES block or ChaCha20 block for the mask), then AEAD open in place
 * (AAD = the unprotected header). The packets are sealed once up front;
 * opening in place destroys the ciphertext, so each packet is first
 * copied from the pool into a work buffer. That copy is timed apart and
 * subtracted, so the figure is the crypto alone.
 *
 * Built only when asked: ninja -C BUILD bench/crypto_floor.
 * Usage: crypto_floor [-c aes128gcm|aes256gcm|chacha20] [-s BYTES]
 *                     [-n PACKETS] [-r ROUNDS]
 * Times are process CPU time (CLOCK_PROCESS_CPUTIME_ID), so that other
 * work on a shared machine does not count; the median of the rounds is
 * reported, with the fastest next to it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quic_keys.h"

#define POOL 64		/* distinct packets, small enough to stay in cache */
#define DCID_LEN 8	/* a typical server-chosen connection ID */
#define PN_LEN 2
#define MAX_PKT 1500

struct suite {
	const char *name;
	gnutls_cipher_algorithm_t cipher;
	gnutls_mac_algorithm_t hash;
	size_t secret_len;
};

static const struct suite suites[] = {
	{ "aes128gcm", GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_SHA256, 32 },
	{ "aes256gcm", GNUTLS_CIPHER_AES_256_GCM, GNUTLS_MAC_SHA384, 48 },
	{ "chacha20", GNUTLS_CIPHER_CHACHA20_POLY1305, GNUTLS_MAC_SHA256, 32 },
};

static uint8_t pool[POOL][MAX_PKT];
static uint8_t work[MAX_PKT] __attribute__((aligned(64)));
static volatile uint64_t sink;	/* keeps the loops from being optimised out */

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "crypto_floor: %s failed (%d)\n", what, rc);
	exit(1);
}

/* A 1-RTT packet of `size` bytes: short header, DCID, 2-byte packet
 * number, payload of a pattern the check below recognises, tag. */
static void make_packets(const struct shb_quic_keys *k, size_t size)
{
	size_t pn_off = 1 + DCID_LEN, hdr = pn_off + PN_LEN;
	size_t payload = size - hdr - SHB_QUIC_TAG_LEN;

	for (unsigned i = 0; i < POOL; i++) {
		uint8_t *p = pool[i];

		p[0] = 0x40 | (PN_LEN - 1);
		memset(p + 1, 0xc1, DCID_LEN);
		p[pn_off] = (uint8_t)(i >> 8);
		p[pn_off + 1] = (uint8_t)i;
		for (size_t j = 0; j < payload; j++)
			p[hdr + j] = (uint8_t)(i + j);
		int n = shb_quic_protect(k, i, p, pn_off, payload, MAX_PKT);

		if (n != (int)size)
			die("shb_quic_protect", n);
	}
}

/* The receive side of one packet; returns the plaintext length. */
static int open_one(const struct shb_quic_keys *k, uint8_t *p, size_t size)
{
	uint64_t pn;
	int pn_len = shb_quic_hp_remove(k, p, size, 1 + DCID_LEN, &pn);

	if (pn_len < 0)
		return pn_len;
	return shb_quic_open(k, pn, p, 1 + DCID_LEN + (size_t)pn_len, size);
}

/* Every packet of the pool opens to exactly the payload it was sealed
 * with: the loop below times real decryption, not a failing one. */
static void check(const struct shb_quic_keys *k, size_t size)
{
	size_t hdr = 1 + DCID_LEN + PN_LEN;

	for (unsigned i = 0; i < POOL; i++) {
		memcpy(work, pool[i], size);
		int n = open_one(k, work, size);

		if (n != (int)(size - hdr - SHB_QUIC_TAG_LEN))
			die("shb_quic_open", n);
		for (int j = 0; j < n; j++)
			if (work[hdr + (size_t)j] != (uint8_t)(i + (unsigned)j))
				die("plaintext check", j);
	}
}

static uint64_t time_copy(size_t size, unsigned npkts)
{
	uint64_t t0 = cpu_ns();

	for (unsigned i = 0; i < npkts; i++) {
		memcpy(work, pool[i % POOL], size);
		__asm__ volatile("" : : "r"(work) : "memory");
	}
	sink += work[size - 1];
	return cpu_ns() - t0;
}

static uint64_t time_open(const struct shb_quic_keys *k, size_t size,
			  unsigned npkts)
{
	uint64_t t0 = cpu_ns(), total = 0;

	for (unsigned i = 0; i < npkts; i++) {
		memcpy(work, pool[i % POOL], size);
		total += (uint64_t)open_one(k, work, size);
	}
	sink += total;
	if (total != (uint64_t)npkts * (size - 1 - DCID_LEN - PN_LEN -
					SHB_QUIC_TAG_LEN))
		die("timed open", -1);
	return cpu_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: crypto_floor [-c aes128gcm|aes256gcm|chacha20] "
			"[-s BYTES (64..1500)] [-n PACKETS] [-r ROUNDS (1..99)]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const struct suite *su = &suites[0];
	unsigned long size = 1200, npkts = 500000, rounds = 7;
	uint64_t net[99], secret_bytes[SHB_QUIC_SECRET_MAX];
	struct shb_quic_keys k = SHB_QUIC_KEYS_EMPTY;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!v)
			usage();
		if (!strcmp(argv[i], "-c")) {
			su = NULL;
			for (size_t j = 0; j < sizeof(suites) / sizeof(suites[0]); j++)
				if (!strcmp(v, suites[j].name))
					su = &suites[j];
			if (!su)
				usage();
		} else if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "-n") ||
			   !strcmp(argv[i], "-r")) {
			unsigned long x = strtoul(v, &end, 10);

			if (*end || end == v)
				usage();
			*(argv[i][1] == 's' ? &size : argv[i][1] == 'n' ? &npkts : &rounds) = x;
		} else {
			usage();
		}
		i++;
	}
	if (size < 64 || size > MAX_PKT || npkts < POOL || npkts > 100000000 ||
	    rounds < 1 || rounds > 99)
		usage();

	memset(secret_bytes, 0x5a, sizeof(secret_bytes));
	int rc = shb_quic_keys_init(&k, su->cipher, su->hash,
				    (const uint8_t *)secret_bytes, su->secret_len);
	if (rc != SHB_QUIC_CRYPTO_OK)
		die("shb_quic_keys_init", rc);
	make_packets(&k, size);
	check(&k, size);
	(void)time_open(&k, size, (unsigned)npkts / 10); /* warm-up */

	uint64_t copy = UINT64_MAX;
	for (unsigned long r = 0; r < rounds; r++) {
		uint64_t c = time_copy(size, (unsigned)npkts);
		uint64_t o = time_open(&k, size, (unsigned)npkts);

		if (c < copy)
			copy = c;
		net[r] = o > c ? o - c : 0;
	}
	qsort(net, rounds, sizeof(net[0]), cmp_u64);

	double med = (double)net[rounds / 2] / (double)npkts;
	double best = (double)net[0] / (double)npkts;
	double per_mb = 1e6 / (double)size;	/* packets per 10^6 bytes */

	printf("suite %s, %lu-byte packets, %lu packets x %lu rounds\n",
	       su->name, size, npkts, rounds);
	printf("open + header protection: %.1f ns/packet (fastest round %.1f), "
	       "%.3f ms/MB of packets\n", med, best, med * per_mb / 1e6);
	printf("copy into the work buffer, excluded: %.1f ns/packet\n",
	       (double)copy / (double)npkts);
	shb_quic_keys_deinit(&k);
	return sink == 0xdeadbeef; /* never: keeps sink alive */
}
