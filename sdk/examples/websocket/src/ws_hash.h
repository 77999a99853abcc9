/* SHA-1 and base64, only as much as the opening handshake needs
 * (RFC 6455 4.1: Sec-WebSocket-Accept is base64(SHA-1(key + GUID))). */
#ifndef WS_HASH_H
#define WS_HASH_H

#include <stddef.h>
#include <stdint.h>

#define WS_SHA1_LEN 20
/* base64 of 16 bytes (the key) and of 20 bytes (the accept value), with
 * the NUL. */
#define WS_KEY_B64_LEN 25
#define WS_ACCEPT_B64_LEN 29

void ws_sha1(const void *data, size_t len, uint8_t out[WS_SHA1_LEN]);

/* Writes base64 (RFC 4648, padded) of in[len] and a NUL into out, which
 * holds 4 * ((len + 2) / 3) + 1 bytes. Returns the length written. */
size_t ws_base64(const uint8_t *in, size_t len, char *out);

/* The Sec-WebSocket-Accept value the server must answer to `key` (the
 * base64 text sent as Sec-WebSocket-Key, NUL-terminated, at most 24
 * characters). */
void ws_accept_for_key(const char *key, char out[WS_ACCEPT_B64_LEN]);

#endif
