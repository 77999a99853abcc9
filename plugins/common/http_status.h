/* The :status pseudo-header value (HTTP/2 and HTTP/3): exactly three
 * digits, 100..999, possibly Huffman-coded. */
#ifndef SHB_HTTP_STATUS_H
#define SHB_HTTP_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* Returns 100..999, or -1 unless s[len] is exactly three ASCII digits
 * with a non-zero first digit. */
int shb_http_status_digits(const uint8_t *s, size_t len);

/* The same for a string literal as it appears on the wire: plain, or
 * Huffman-coded when `huffman` is non-zero. */
int shb_http_status_decode(const uint8_t *s, size_t len, int huffman);

#endif
