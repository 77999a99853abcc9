/* Hex decoding for the test vectors, and the suite table. */
#include "crypto_test_util.h"

#include <string.h>

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t th_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > cap)
		return 0;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return 0;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return n / 2;
}

CU_SuiteInfo shb_test_suites[] = {
	{ "quic_keys", NULL, NULL, NULL, NULL, shb_test_quic_keys },
	{ "quic_retry", NULL, NULL, NULL, NULL, shb_test_quic_retry },
	{ "quic_tls", shb_test_quic_tls_init, shb_test_quic_tls_clean, NULL, NULL,
	  shb_test_quic_tls },
	CU_SUITE_INFO_NULL,
};
