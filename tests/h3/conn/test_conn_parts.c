/* The connection's buffer modules on their own: CRYPTO reassembly and
 * the reorder store, with input split at every offset, reordered and
 * duplicated. And the connection against damaged datagrams. */
#include <stdlib.h>
#include <string.h>

#include "conn_harness.h"
#include "conn_tests.h"
#include "quic_crecv.h"
#include "quic_reorder.h"

struct sink {
	uint8_t out[8192];
	size_t len;
	unsigned calls;
};

static int sink_fn(void *ctx, const uint8_t *d, size_t n)
{
	struct sink *k = ctx;

	if (k->len + n > sizeof(k->out))
		return -1;
	memcpy(k->out + k->len, d, n);
	k->len += n;
	k->calls++;
	return 0;
}

static void fill(uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)(i * 13 + 5);
}

/* Two pieces split at every offset, in both orders, plus a duplicate of
 * the first: the output is the input, exactly once. */
static void test_crecv_split(void)
{
	static uint8_t store[SHB_QUIC_CRECV_STORAGE(1024)];
	uint8_t in[700];

	fill(in, sizeof(in));
	for (size_t cut = 0; cut <= sizeof(in); cut++) {
		for (int order = 0; order < 2; order++) {
			struct shb_quic_crecv r;
			struct sink k = {0};

			shb_quic_crecv_init(&r, store, 1024);
			if (order == 0) {
				CU_ASSERT_EQUAL(shb_quic_crecv_feed(&r, 0, in, cut, sink_fn, &k), 0);
				CU_ASSERT_EQUAL(shb_quic_crecv_feed(&r, cut, in + cut, sizeof(in) - cut, sink_fn, &k), 0);
			} else {
				CU_ASSERT_EQUAL(shb_quic_crecv_feed(&r, cut, in + cut, sizeof(in) - cut, sink_fn, &k), 0);
				CU_ASSERT_EQUAL(shb_quic_crecv_feed(&r, 0, in, cut, sink_fn, &k), 0);
			}
			CU_ASSERT_EQUAL(shb_quic_crecv_feed(&r, 0, in, cut, sink_fn, &k), 0);
			CU_ASSERT_EQUAL(k.len, sizeof(in));
			CU_ASSERT_EQUAL(memcmp(k.out, in, sizeof(in)), 0);
			CU_ASSERT_EQUAL(r.held, 0);
			CU_ASSERT_EQUAL(r.off, sizeof(in));
		}
	}
}

/* Random pieces, random order, overlaps and duplicates, across the ring
 * boundary several times; data beyond the window is refused. */
static void test_crecv_random(void)
{
	static uint8_t store[SHB_QUIC_CRECV_STORAGE(512)];
	static uint8_t in[5000];
	struct shb_quic_crecv r;
	struct sink k = {0};
	uint64_t seed = 7;

	fill(in, sizeof(in));
	shb_quic_crecv_init(&r, store, 512);
	CU_ASSERT_EQUAL(shb_quic_crecv_feed(&r, 600, in + 600, 10, sink_fn, &k),
			SHB_QUIC_CRECV_E_FULL);
	while (r.off < sizeof(in)) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		uint64_t off = r.off + (seed >> 33) % 300;
		size_t len = 1 + (seed >> 20) % 200;

		if (off >= sizeof(in))
			continue;
		if (off + len > sizeof(in))
			len = sizeof(in) - off;
		if (off + len > r.off + 512)
			len = (size_t)(r.off + 512 - off);
		CU_ASSERT_EQUAL_FATAL(shb_quic_crecv_feed(&r, off, in + off, len, sink_fn, &k), 0);
	}
	CU_ASSERT_EQUAL(k.len, sizeof(in));
	CU_ASSERT_EQUAL(memcmp(k.out, in, sizeof(in)), 0);
}

/* The reorder store: every permutation-ish order of 40 pieces with
 * duplicates rebuilds the stream, costs no more blocks than the bytes
 * need, and gives every block back. */
static void test_reorder_store(void)
{
	static struct shb_quic_ro_block blocks[64];
	static uint8_t in[6000], out[6000];
	struct shb_quic_ro_pool p;

	fill(in, sizeof(in));
	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct shb_quic_ro_list l = {0};
		size_t cuts[41], n = 0;
		uint32_t bound = 0;
		uint64_t x = seed, rx = 0;

		shb_quic_ro_init(&p, blocks, 64);
		cuts[0] = 0;
		for (int i = 1; i < 40; i++)
			cuts[i] = (size_t)i * 150 + (seed * i) % 100;
		cuts[40] = sizeof(in);
		for (int i = 1; i < 40; i++)
			bound += SHB_QUIC_RO_BLOCKS_FOR(cuts[i + 1] - cuts[i]);
		/* Insert pieces 1..39 in a scrambled order, some twice; piece
		 * 0 (the gap) last. */
		for (int k = 0; k < 80; k++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			int i = 1 + (int)((x >> 33) % 39);
			size_t off = cuts[i], len = cuts[i + 1] - cuts[i];
			uint32_t need = shb_quic_ro_needed(&p, &l, off, len);
			uint32_t before = p.nfree;

			CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &l, off, in + off, len), 0);
			CU_ASSERT_TRUE(before - p.nfree <= need);
		}
		for (int i = 1; i < 40; i++)
			CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &l, cuts[i], in + cuts[i],
							   cuts[i + 1] - cuts[i]), 0);
		/* Held once: never more blocks than the pieces need apart. */
		CU_ASSERT_TRUE(l.blocks <= bound);
		CU_ASSERT_EQUAL(shb_quic_ro_needed(&p, &l, cuts[1], sizeof(in) - cuts[1]), 0);
		memcpy(out, in, cuts[1]);
		rx = cuts[1];
		const struct shb_quic_ro_block *b;

		while ((b = shb_quic_ro_first(&p, &l)) && b->off <= rx) {
			uint32_t idx = shb_quic_ro_detach(&p, &l);

			if (b->off + b->len > rx) {
				memcpy(out + rx, b->data + (rx - b->off),
				       (size_t)(b->off + b->len - rx));
				rx = b->off + b->len;
			}
			shb_quic_ro_release(&p, idx);
			n++;
		}
		CU_ASSERT_EQUAL(rx, sizeof(in));
		CU_ASSERT_EQUAL(memcmp(out, in, sizeof(in)), 0);
		CU_ASSERT_EQUAL(p.nfree, 64);
		CU_ASSERT_PTR_NULL(shb_quic_ro_first(&p, &l));
	}
}

/* Out of blocks: insert says so and keeps what fitted. */
static void test_reorder_full(void)
{
	static struct shb_quic_ro_block blocks[4];
	static uint8_t in[2000];
	struct shb_quic_ro_pool p;
	struct shb_quic_ro_list l = {0}, m = {0};

	fill(in, sizeof(in));
	shb_quic_ro_init(&p, blocks, 4);
	CU_ASSERT_EQUAL(shb_quic_ro_needed(&p, &l, 100, 1000), 5);
	CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &l, 100, in, 1000), -1);
	CU_ASSERT_EQUAL(p.nfree, 0);
	CU_ASSERT_EQUAL(l.blocks, 4);
	CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &m, 0, in, 1), -1);
	shb_quic_ro_clear(&p, &l);
	CU_ASSERT_EQUAL(p.nfree, 4);
	CU_ASSERT_EQUAL(l.head, 0);
	/* Contiguous small frames share blocks. */
	for (int i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &m, 500 + i * 10, in, 10), 0);
	CU_ASSERT_EQUAL(m.blocks, 1);
}

/* Blocks are written only when handed out, lowest first; trim gives the
 * written span once the pool is empty, and then starts again at block 0. */
static void test_reorder_trim(void)
{
	static struct shb_quic_ro_block blocks[16], marked;
	static uint8_t in[4000];
	struct shb_quic_ro_pool p;
	struct shb_quic_ro_list l = {0}, m = {0};

	fill(in, sizeof(in));
	memset(blocks, 0xa5, sizeof(blocks));
	memset(&marked, 0xa5, sizeof(marked));
	shb_quic_ro_init(&p, blocks, 16);
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(memcmp(&blocks[i], &marked, sizeof(marked)), 0);
	/* Two runs of two blocks each, in two lists; block 4 on is
	 * untouched. */
	CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &l, 100, in, 300), 0);
	CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &m, 50, in, 400), 0);
	CU_ASSERT_EQUAL(p.nfree, 12);
	for (int i = 4; i < 16; i++)
		CU_ASSERT_EQUAL(memcmp(&blocks[i], &marked, sizeof(marked)), 0);
	CU_ASSERT_EQUAL(shb_quic_ro_trim(&p), 0);
	shb_quic_ro_clear(&p, &l);
	CU_ASSERT_EQUAL(shb_quic_ro_trim(&p), 0);
	/* A released block is reused before a fresh one. */
	CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &l, 900, in, 10), 0);
	CU_ASSERT_EQUAL(p.fresh, 4);
	shb_quic_ro_clear(&p, &l);
	shb_quic_ro_clear(&p, &m);
	CU_ASSERT_EQUAL(p.nfree, 16);
	CU_ASSERT_EQUAL(shb_quic_ro_trim(&p), 4 * sizeof(struct shb_quic_ro_block));
	CU_ASSERT_EQUAL(p.nfree, 16);
	CU_ASSERT_EQUAL(shb_quic_ro_trim(&p), 0);
	/* After a trim the pool starts again from block 0 and can still
	 * hand out all 16 blocks. */
	memset(blocks, 0xa5, sizeof(blocks));
	CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &l, 10, in, 16 * 240 + 1), -1);
	CU_ASSERT_EQUAL(shb_quic_ro_insert(&p, &l, 10, in, 16 * 240), 0);
	CU_ASSERT_EQUAL(p.nfree, 0);
	CU_ASSERT_PTR_EQUAL(shb_quic_ro_first(&p, &l), &blocks[0]);
	CU_ASSERT_EQUAL(l.blocks, 16);
	CU_ASSERT_EQUAL(memcmp(shb_quic_ro_first(&p, &l)->data, in, 240), 0);
}

/* The server's first datagram cut at every length, and with every 7th
 * byte flipped, before the real one: the client survives every damaged
 * copy (dropping what does not authenticate) and completes the
 * handshake. */
static void test_damaged_datagrams(void)
{
	struct harness h;
	uint8_t orig[1500], copy[1500];
	size_t len;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 51) == 0);
	/* Client Initial to the server, server's first datagram out. */
	h.down.drop_all = true;
	h_run(&h, NULL, 15 * H_MS);
	len = h.down.first_len;
	CU_ASSERT_FATAL(len > 0);
	memcpy(orig, h.down.first, len);
	for (size_t cut = 0; cut < len; cut++) {
		memcpy(copy, orig, cut);
		h_inject(&h, copy, cut);
	}
	for (size_t i = 0; i < len; i += 7) {
		memcpy(copy, orig, len);
		copy[i] ^= 0x20;
		h_inject(&h, copy, len);
	}
	/* Copies damaged only after the Initial packet delivered it. */
	CU_ASSERT_EQUAL(h.closed, 0);
	memcpy(copy, orig, len);
	h_inject(&h, copy, len);
	CU_ASSERT_TRUE(h.c->got_server);
	CU_ASSERT_TRUE(shb_quic_keys_ready(&h.c->sp[QC_HANDSHAKE].rx));
	h.down.drop_all = false;
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

/* Random bytes as datagrams, long and short headers: never a crash,
 * never a close. */
static void test_garbage(void)
{
	struct harness h;
	uint8_t d[1300];
	uint64_t x = 99;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 52) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	for (int k = 0; k < 2000; k++) {
		size_t n = 1 + (size_t)(k * 37 % 1299);

		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			d[i] = (uint8_t)(x >> 56);
		}
		if (k & 1) /* our DCID, so the packet reaches decryption */
			memcpy(d + 1, h.c->scid.id, n > 9 ? 8 : n - 1);
		h_inject(&h, d, n);
	}
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(h_request(&h, (const uint8_t *)"x", 1), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
	CU_ASSERT_TRUE(h_stream(&h, 0)->fin);
	h_fini(&h);
}

CU_TestInfo shb_test_conn_parts[] = {
	{"CRYPTO reassembly split at every offset", test_crecv_split},
	{"CRYPTO reassembly random pieces", test_crecv_random},
	{"reorder store rebuilds scrambled data", test_reorder_store},
	{"reorder store out of blocks", test_reorder_full},
	{"reorder store touches blocks lazily, trim", test_reorder_trim},
	{"damaged server datagrams", test_damaged_datagrams},
	{"garbage datagrams", test_garbage},
	CU_TEST_INFO_NULL,
};
