/* The frame codec's tests (test_ws_frames.c), run by test_ws.c. */
#ifndef TEST_WS_FRAMES_H
#define TEST_WS_FRAMES_H

/* The encoder against RFC 6455 5.7; the decoder fed a server's stream
 * split at every offset (and every pair of offsets), a 64-bit length,
 * and each way a server frame can be malformed. */
void test_ws_frames(void);

#endif
