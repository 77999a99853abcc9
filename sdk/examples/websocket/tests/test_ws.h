/* What the WebSocket example's test files share (test_ws.c runs them
 * all): the check counter, and the nonce behind RFC 6455's example key. */
#ifndef TEST_WS_H
#define TEST_WS_H

#include <stdint.h>
#include <stdio.h>

extern int passed, failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                                       \
			failed++;                                              \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

/* "the sample nonce": the 16 bytes behind RFC 6455's example key
 * (dGhlIHNhbXBsZSBub25jZQ==), whose accept is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=. */
extern const uint8_t sample_nonce[16];

#endif
