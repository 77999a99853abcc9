/* :status values: see http_status.h. */
#include "http_status.h"

#include "http_huffman.h"

int shb_http_status_digits(const uint8_t *s, size_t len)
{
	if (len != 3)
		return -1;
	for (size_t i = 0; i < 3; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	if (s[0] == '0')
		return -1;
	return (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
}

int shb_http_status_decode(const uint8_t *s, size_t len, int huffman)
{
	uint8_t digits[4];
	size_t n = 0;

	if (!huffman)
		return shb_http_status_digits(s, len);
	/* Digits have 5- and 6-bit codes: three fit in 3 octets. */
	if (len > 3 ||
	    shb_huff_decode(s, len, digits, sizeof(digits), &n) != SHB_HUFF_OK)
		return -1;
	return shb_http_status_digits(digits, n);
}
