/* gRPC over HTTP/2, the parts that are gRPC's own (the HTTP/2 under them
 * is the h2 plugin's): length-prefixed messages, grpc-status and
 * grpc-message. Sans-I/O, no allocation.
 *
 * A message on the wire (gRPC PROTOCOL-HTTP2, "Length-Prefixed-Message"):
 * one octet compressed flag, a 4-octet big-endian length, the octets. */
#ifndef GRPC_WIRE_H
#define GRPC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define GRPC_PREFIX_LEN 5
/* gRPC's own default for the largest message a client receives. */
#define GRPC_DEFAULT_MAX_MESSAGE (4u * 1024u * 1024u)

/* The reader of a response body: messages are counted and measured, their
 * octets are not kept (a load generator needs no more), so it holds no
 * buffer whatever the server sends. */
struct grpc_reader {
	uint32_t max_message; /* a longer message is an error */
	uint8_t prefix[GRPC_PREFIX_LEN];
	uint8_t have;     /* prefix octets of the current message */
	uint32_t left;    /* message octets still to come */
	uint32_t messages; /* complete messages */
	uint64_t message_bytes; /* their octets, prefixes excluded */
};

enum grpc_read_result {
	GRPC_READ_OK = 0,
	GRPC_READ_E_COMPRESSED = -1, /* compressed flag set: we asked for none */
	GRPC_READ_E_FLAG = -2,       /* flag other than 0 or 1 */
	GRPC_READ_E_TOO_LARGE = -3,  /* length above max_message */
};

void grpc_reader_init(struct grpc_reader *r, uint32_t max_message);
/* Feeds body octets split anywhere: GRPC_READ_OK or an error, after which
 * the reader must not be fed again. */
int grpc_reader_feed(struct grpc_reader *r, const uint8_t *p, size_t n);
/* Non-zero when the body ended inside a message. */
int grpc_reader_partial(const struct grpc_reader *r);
/* The length of the message being read when feed failed with TOO_LARGE. */
uint32_t grpc_reader_bad_length(const struct grpc_reader *r);
const char *grpc_read_strerror(int err);

/* Writes the 5-octet prefix of an uncompressed message of `len` octets. */
void grpc_prefix(uint8_t out[GRPC_PREFIX_LEN], uint32_t len);

/* grpc-status: 1 to 10 decimal digits, at most UINT32_MAX. 0 and *code,
 * or -1. */
int grpc_parse_status(const uint8_t *v, size_t n, uint32_t *code);

/* grpc-message is percent-encoded (PROTOCOL-HTTP2): decodes v[n] into
 * out[cap] (NUL-terminated, cut to fit), printable ASCII kept, any other
 * octet written as '?'. Returns the length written. */
size_t grpc_decode_message(const uint8_t *v, size_t n, char *out, size_t cap);

/* The canonical name of a status code ("INVALID_ARGUMENT"), or NULL. */
const char *grpc_code_name(uint32_t code);

/* A response without grpc-status: the status gRPC clients derive from its
 * HTTP status (gRPC "HTTP to gRPC Status Code Mapping"). */
uint32_t grpc_code_from_http(uint32_t http_status);

/* Non-zero when a content-type value is gRPC's: "application/grpc",
 * alone or followed by '+' or ';' (application/grpc+proto). */
int grpc_content_type_ok(const uint8_t *v, size_t n);

#endif
