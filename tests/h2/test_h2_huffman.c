/* The HTTP Huffman code against RFC 7541 Appendix B, and the decoder's
 * EOS and padding rules (Section 5.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_tests.h"
#include "http_huffman.h"
#include "http_status.h"

static void test_table_matches_rfc(void)
{
	static struct shb_h2_vec_huff rfc[257];

	shb_h2_vec_huffman(rfc);
	for (unsigned s = 0; s < 257; s++) {
		uint32_t code = (uint32_t)strtoul(rfc[s].bits, NULL, 2);

		CU_ASSERT_EQUAL(shb_huff_codes[s].len, rfc[s].len);
		CU_ASSERT_EQUAL(shb_huff_codes[s].code, code);
	}
}

/* The decoder's tables describe the same code: every length's count, and
 * symbols in (length, symbol) order with consecutive codes. */
static void test_canonical_tables(void)
{
	unsigned count[31] = {0}, idx = 0;
	uint32_t next = 0;
	unsigned prev_sym = 0;

	for (unsigned s = 0; s < 257; s++)
		count[shb_huff_codes[s].len]++;
	for (unsigned l = 0; l <= 30; l++)
		CU_ASSERT_EQUAL(shb_huff_len_count[l], count[l]);
	for (unsigned l = 1; l <= 30; l++) {
		for (unsigned k = 0; k < count[l]; k++, idx++) {
			unsigned sym = shb_huff_canon_syms[idx];

			CU_ASSERT_EQUAL(shb_huff_codes[sym].len, l);
			if (k > 0)
				CU_ASSERT(sym > prev_sym);
			CU_ASSERT_EQUAL(shb_huff_codes[sym].code, next);
			prev_sym = sym;
			next++;
		}
		next <<= 1;
	}
	CU_ASSERT_EQUAL(idx, 257);
}

/* Encode each octet with the RFC table by hand, decode back. Code
 * lengths 5..30 leave 0..7 bits of padding, so every padding length is
 * exercised. */
static void test_every_symbol_round_trip(void)
{
	static struct shb_h2_vec_huff rfc[257];

	shb_h2_vec_huffman(rfc);
	for (unsigned s = 0; s < 256; s++) {
		uint8_t buf[8] = {0}, out[4];
		size_t nbits = 0, n, got = 0;

		/* Symbol, then the EOS prefix as padding. */
		for (unsigned i = 0; i < rfc[s].len; i++, nbits++)
			if (rfc[s].bits[i] == '1')
				buf[nbits / 8] |= (uint8_t)(0x80 >> (nbits % 8));
		for (; nbits % 8; nbits++)
			buf[nbits / 8] |= (uint8_t)(0x80 >> (nbits % 8));
		n = nbits / 8;
		CU_ASSERT_EQUAL(shb_huff_decode(buf, n, out, sizeof(out), &got),
				SHB_HUFF_OK);
		CU_ASSERT_EQUAL(got, 1);
		CU_ASSERT_EQUAL(out[0], s);
		/* The encoder produces the same octets. */
		uint8_t enc[8];
		uint8_t sym = (uint8_t)s;
		CU_ASSERT_EQUAL(shb_huff_encoded_len(&sym, 1), n);
		CU_ASSERT_EQUAL(shb_huff_encode(&sym, 1, enc, sizeof(enc)), n);
		CU_ASSERT_EQUAL(memcmp(enc, buf, n), 0);
	}
}

/* All 256 octets in one string, then every prefix of it. */
static void test_all_octets_string(void)
{
	uint8_t in[256], enc[1024], out[256];
	size_t n, got;

	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t)(255 - i);
	n = shb_huff_encode(in, sizeof(in), enc, sizeof(enc));
	CU_ASSERT(n > 0);
	CU_ASSERT_EQUAL(n, shb_huff_encoded_len(in, sizeof(in)));
	CU_ASSERT_EQUAL(shb_huff_decode(enc, n, out, sizeof(out), &got),
			SHB_HUFF_OK);
	CU_ASSERT_EQUAL(got, 256);
	CU_ASSERT_EQUAL(memcmp(in, out, 256), 0);
	for (size_t k = 0; k <= 256; k++) {
		size_t m = shb_huff_encode(in, k, enc, sizeof(enc));

		CU_ASSERT_EQUAL(shb_huff_decode(enc, m, out, sizeof(out), &got),
				SHB_HUFF_OK);
		CU_ASSERT_EQUAL(got, k);
		CU_ASSERT_EQUAL(memcmp(in, out, k), 0);
	}
	/* Too small an output buffer is an error, not an overflow. */
	CU_ASSERT_EQUAL(shb_huff_decode(enc, n, out, 255, &got),
			SHB_HUFF_E_SPACE);
	CU_ASSERT_EQUAL(shb_huff_encode(in, sizeof(in), enc, n - 1), 0);
}

static void test_eos_and_padding(void)
{
	uint8_t out[8];
	size_t got = 99;
	/* '0' is 00000: "0" padded with 111 -> 0x07. */
	static const uint8_t zero_ok[] = {0x07};
	/* padding with a zero bit */
	static const uint8_t zero_bad_pad[] = {0x06};
	/* "0" then a full octet of ones: 11 bits of padding */
	static const uint8_t long_pad[] = {0x07, 0xff};
	/* EOS itself: 30 ones, then 2 ones of padding */
	static const uint8_t eos[] = {0xff, 0xff, 0xff, 0xff};
	/* EOS after "0" (5 + 30 bits + 5 padding) */
	static const uint8_t zero_eos[] = {0x07, 0xff, 0xff, 0xff, 0xff};
	/* an all-ones octet alone: 8 bits of padding */
	static const uint8_t ones[] = {0xff};

	CU_ASSERT_EQUAL(shb_huff_decode(zero_ok, 1, out, sizeof(out), &got),
			SHB_HUFF_OK);
	CU_ASSERT_EQUAL(got, 1);
	CU_ASSERT_EQUAL(out[0], '0');
	CU_ASSERT_EQUAL(shb_huff_decode(zero_bad_pad, 1, out, sizeof(out), &got),
			SHB_HUFF_E_PADDING);
	CU_ASSERT_EQUAL(shb_huff_decode(long_pad, 2, out, sizeof(out), &got),
			SHB_HUFF_E_PADDING);
	CU_ASSERT_EQUAL(shb_huff_decode(eos, 4, out, sizeof(out), &got),
			SHB_HUFF_E_EOS);
	CU_ASSERT_EQUAL(shb_huff_decode(zero_eos, 5, out, sizeof(out), &got),
			SHB_HUFF_E_EOS);
	CU_ASSERT_EQUAL(shb_huff_decode(ones, 1, out, sizeof(out), &got),
			SHB_HUFF_E_PADDING);
	/* The empty string is valid. */
	CU_ASSERT_EQUAL(shb_huff_decode(NULL, 0, out, sizeof(out), &got),
			SHB_HUFF_OK);
	CU_ASSERT_EQUAL(got, 0);
	/* "000" is 15 bits: one bit of padding. */
	static const uint8_t three_zeros[] = {0x00, 0x01};
	CU_ASSERT_EQUAL(shb_huff_decode(three_zeros, 2, out, sizeof(out), &got),
			SHB_HUFF_OK);
	CU_ASSERT_EQUAL(got, 3);
	CU_ASSERT_EQUAL(memcmp(out, "000", 3), 0);
}

/* Every Huffman-coded string of the C.4 and C.6 examples decodes to the
 * text the RFC lists (checked field by field in the HPACK tests); here a
 * few literal strings straight from RFC 7541 C.4.1 and C.6.1. */
static void test_rfc_strings(void)
{
	static const struct {
		const char *hex, *text;
	} v[] = {
		{"f1e3c2e5f23a6ba0ab90f4ff", "www.example.com"},
		{"a8eb10649cbf", "no-cache"},
		{"25a849e95ba97d7f", "custom-key"},
		{"25a849e95bb8e8b4bf", "custom-value"},
		{"6402", "302"},
		{"aec3771a4b", "private"},
		{"d07abe941054d444a8200595040b8166e082a62d1bff",
		 "Mon, 21 Oct 2013 20:13:21 GMT"},
		{"9d29ad171863c78f0b97c8e9ae82ae43d3", "https://www.example.com"},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t in[64], out[64], enc[64];
		long n = shb_h2_unhex(v[i].hex, strlen(v[i].hex), in, sizeof(in));
		size_t got = 0, t = strlen(v[i].text);

		CU_ASSERT_FATAL(n > 0);
		CU_ASSERT_EQUAL(shb_huff_decode(in, (size_t)n, out, sizeof(out),
						&got),
				SHB_HUFF_OK);
		CU_ASSERT_EQUAL(got, t);
		CU_ASSERT_EQUAL(memcmp(out, v[i].text, t), 0);
		CU_ASSERT_EQUAL(shb_huff_encode((const uint8_t *)v[i].text, t,
						enc, sizeof(enc)),
				(size_t)n);
		CU_ASSERT_EQUAL(memcmp(enc, in, (size_t)n), 0);
	}
}

/* The counter's uppercase check: every letter has a code of at most 8
 * bits (the counter looks only there), each symbol alone flags exactly
 * 'A'..'Z', and a name split anywhere gives the same answer. Off unless
 * asked. */
static void test_count_uppercase(void)
{
	static const char *const names[] = {
		"x-custom", "X-custom", "x-customZ", "content-type",
		"a-long-name-with-one-Q-in-the-middle-of-it", "0123456789_~!",
	};

	for (unsigned c = 'A'; c <= 'Z'; c++)
		CU_ASSERT(shb_huff_codes[c].len <= 8);
	for (unsigned sym = 0; sym < 256; sym++) {
		uint8_t in = (uint8_t)sym, enc[8];
		size_t n = shb_huff_encode(&in, 1, enc, sizeof(enc));
		struct shb_huff_count h;

		shb_huff_count_begin(&h);
		h.check_upper = 1;
		CU_ASSERT_EQUAL(shb_huff_count_feed(&h, enc, n), SHB_HUFF_OK);
		CU_ASSERT_EQUAL(shb_huff_count_end(&h), SHB_HUFF_OK);
		CU_ASSERT_EQUAL(h.len, 1);
		CU_ASSERT_EQUAL(h.upper, sym >= 'A' && sym <= 'Z');
		shb_huff_count_begin(&h);
		CU_ASSERT_EQUAL(shb_huff_count_feed(&h, enc, n), SHB_HUFF_OK);
		CU_ASSERT_EQUAL(h.upper, 0);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = strlen(names[i]), n;
		uint8_t enc[64];
		int want = 0;

		for (size_t k = 0; k < len; k++)
			want |= names[i][k] >= 'A' && names[i][k] <= 'Z';
		n = shb_huff_encode((const uint8_t *)names[i], len, enc,
				    sizeof(enc));
		for (size_t cut = 0; cut <= n; cut++) {
			struct shb_huff_count h;

			shb_huff_count_begin(&h);
			h.check_upper = 1;
			CU_ASSERT_EQUAL(shb_huff_count_feed(&h, enc, cut),
					SHB_HUFF_OK);
			CU_ASSERT_EQUAL(shb_huff_count_feed(&h, enc + cut, n - cut),
					SHB_HUFF_OK);
			CU_ASSERT_EQUAL(shb_huff_count_end(&h), SHB_HUFF_OK);
			CU_ASSERT_EQUAL(h.len, len);
			CU_ASSERT_EQUAL(h.upper, want);
		}
	}
}

/* Random names of mostly short codes (which the counter takes several at
 * a time) with a letter now and then, up to 48 octets: length and
 * uppercase flag against the plain text, every split into two pieces. */
static void test_count_random_names(void)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789-_"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ:;,. /\\\x7f";
	uint32_t seed = 11;

	for (int iter = 0; iter < 400; iter++) {
		uint8_t plain[48], enc[128];
		size_t len = 1 + (size_t)iter % sizeof(plain), n;
		int want = 0;

		for (size_t k = 0; k < len; k++) {
			seed = seed * 1103515245u + 12345u;
			plain[k] = (uint8_t)alphabet[(seed >> 16) %
						     (sizeof(alphabet) - 1)];
			/* some strings lower case only */
			if (iter % 4 == 0 && plain[k] >= 'A' && plain[k] <= 'Z')
				plain[k] = (uint8_t)(plain[k] + 32);
			want |= plain[k] >= 'A' && plain[k] <= 'Z';
		}
		n = shb_huff_encode(plain, len, enc, sizeof(enc));
		for (size_t cut = 0; cut <= n; cut++) {
			struct shb_huff_count h;

			shb_huff_count_begin(&h);
			h.check_upper = 1;
			CU_ASSERT_EQUAL(shb_huff_count_feed(&h, enc, cut),
					SHB_HUFF_OK);
			CU_ASSERT_EQUAL(shb_huff_count_feed(&h, enc + cut, n - cut),
					SHB_HUFF_OK);
			CU_ASSERT_EQUAL(shb_huff_count_end(&h), SHB_HUFF_OK);
			CU_ASSERT_EQUAL(h.len, len);
			CU_ASSERT_EQUAL(h.upper, want);
		}
	}
}

static void test_status_values(void)
{
	uint8_t enc[8];
	size_t n;

	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)"200", 3), 200);
	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)"999", 3), 999);
	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)"100", 3), 100);
	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)"099", 3), -1);
	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)"20", 2), -1);
	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)"2000", 4), -1);
	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)"2a0", 3), -1);
	CU_ASSERT_EQUAL(shb_http_status_digits((const uint8_t *)" 20", 3), -1);
	/* Every status 100..999 survives Huffman coding. */
	for (int code = 100; code <= 999; code++) {
		char d[4];

		snprintf(d, sizeof(d), "%d", code);
		n = shb_huff_encode((const uint8_t *)d, 3, enc, sizeof(enc));
		CU_ASSERT(n > 0 && n <= 3);
		CU_ASSERT_EQUAL(shb_http_status_decode(enc, n, 1), code);
		CU_ASSERT_EQUAL(shb_http_status_decode((const uint8_t *)d, 3, 0),
				code);
	}
	/* Huffman text that is not three digits. */
	n = shb_huff_encode((const uint8_t *)"20x", 3, enc, sizeof(enc));
	CU_ASSERT_EQUAL(shb_http_status_decode(enc, n, 1), -1);
	n = shb_huff_encode((const uint8_t *)"2000", 4, enc, sizeof(enc));
	CU_ASSERT_EQUAL(shb_http_status_decode(enc, n, 1), -1);
	CU_ASSERT_EQUAL(shb_http_status_decode((const uint8_t *)"\xff", 1, 1), -1);
}

/* The length limits the counter uses are the canonical code's. */
static void test_len_limits(void)
{
	uint64_t first = 0;

	for (unsigned l = 1; l <= SHB_HUFF_MAX_LEN; l++) {
		uint64_t next = first + shb_huff_len_count[l];

		CU_ASSERT_EQUAL(shb_huff_len_limit[l], next << (32 - l));
		first = next << 1;
	}
	CU_ASSERT_EQUAL(shb_huff_len_limit[SHB_HUFF_MAX_LEN], UINT64_C(1) << 32);
}

/* The counting decoder fed in[n] at every split into two pieces and one
 * octet at a time: each way must give `rc` and, when OK, `len`. */
static void count_all_ways(const uint8_t *in, size_t n, int rc, size_t len)
{
	struct shb_huff_count h;
	uint64_t got = 99;

	CU_ASSERT_EQUAL(shb_huff_decoded_len(in, n, &got), rc);
	CU_ASSERT_EQUAL(got, rc == SHB_HUFF_OK ? len : 0);
	for (size_t cut = 0; cut <= n; cut++) {
		int r;

		shb_huff_count_begin(&h);
		r = shb_huff_count_feed(&h, in, cut);
		if (r == SHB_HUFF_OK)
			r = shb_huff_count_feed(&h, in + cut, n - cut);
		if (r == SHB_HUFF_OK)
			r = shb_huff_count_end(&h);
		CU_ASSERT_EQUAL(r, rc);
		if (r == SHB_HUFF_OK)
			CU_ASSERT_EQUAL(h.len, len);
	}
	{
		int r = SHB_HUFF_OK;

		shb_huff_count_begin(&h);
		for (size_t i = 0; i < n && r == SHB_HUFF_OK; i++)
			r = shb_huff_count_feed(&h, in + i, 1);
		if (r == SHB_HUFF_OK)
			r = shb_huff_count_end(&h);
		CU_ASSERT_EQUAL(r, rc);
		if (r == SHB_HUFF_OK)
			CU_ASSERT_EQUAL(h.len, len);
	}
}

/* The counting decoder agrees with the decoder: on every prefix of a
 * string of all octets, on the padding and EOS cases, and on random
 * octets (mostly invalid), split every way. */
static void test_decoded_length(void)
{
	uint8_t in[256], enc[1024], out[512];
	uint32_t seed = 7;
	size_t n, got;

	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t)(i * 37 + 11);
	for (size_t k = 0; k <= 256; k += (k < 40 ? 1 : 23)) {
		n = shb_huff_encode(in, k, enc, sizeof(enc));
		count_all_ways(enc, n, SHB_HUFF_OK, k);
	}
	count_all_ways((const uint8_t *)"\x07", 1, SHB_HUFF_OK, 1);
	count_all_ways((const uint8_t *)"\x06", 1, SHB_HUFF_E_PADDING, 0);
	count_all_ways((const uint8_t *)"\x07\xff", 2, SHB_HUFF_E_PADDING, 0);
	count_all_ways((const uint8_t *)"\xff", 1, SHB_HUFF_E_PADDING, 0);
	count_all_ways((const uint8_t *)"\xff\xff\xff\xff", 4,
		       SHB_HUFF_E_EOS, 0);
	count_all_ways((const uint8_t *)"\x07\xff\xff\xff\xff", 5,
		       SHB_HUFF_E_EOS, 0);
	count_all_ways((const uint8_t *)"\x00\x01", 2, SHB_HUFF_OK, 3);
	count_all_ways(NULL, 0, SHB_HUFF_OK, 0);
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = (size_t)(iter % 24);
		int rc;

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			/* ones-heavy octets reach the long codes and EOS */
			enc[i] = (uint8_t)(seed >> 16) | (iter % 3 ? 0 : 0xf0);
		}
		rc = shb_huff_decode(enc, len, out, sizeof(out), &got);
		count_all_ways(enc, len, rc, rc == SHB_HUFF_OK ? got : 0);
	}
}

CU_TestInfo shb_h2_huffman_tests[] = {
	{"code table equals RFC 7541 Appendix B", test_table_matches_rfc},
	{"decoder tables are the canonical form", test_canonical_tables},
	{"all 257 symbols: encode, decode back", test_every_symbol_round_trip},
	{"all octets in one string, every prefix", test_all_octets_string},
	{"EOS and padding rules", test_eos_and_padding},
	{"RFC 7541 Appendix C strings", test_rfc_strings},
	{":status digits, plain and Huffman", test_status_values},
	{"length limits of the canonical code", test_len_limits},
	{"decoded length, streaming, every split", test_decoded_length},
	{"uppercase letters in names, every split", test_count_uppercase},
	{"random names: length and uppercase, every split",
	 test_count_random_names},
	CU_TEST_INFO_NULL,
};
