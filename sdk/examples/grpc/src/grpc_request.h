/* What a gRPC call sends, decided once per run: the kind of call, the
 * request message and how many times it goes out, from --proto-opt and
 * -d. The wire format of one message is grpc_wire.h's. */
#ifndef GRPC_REQUEST_H
#define GRPC_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <shb/types.h>

/* The longest request body a call may send, all its messages together
 * (a request is built once, at start: this only bounds a typo). */
#define GRPC_MAX_REQUEST (64u * 1024u * 1024u)

/* The four kinds of gRPC method, as a .proto declares them. */
enum grpc_call_kind {
	GRPC_CALL_UNARY = 0,         /* one message each way */
	GRPC_CALL_SERVER_STREAM = 1, /* one message out, any number back */
	GRPC_CALL_CLIENT_STREAM = 2, /* `messages` out, one back */
	GRPC_CALL_BIDI = 3,          /* `messages` out, any number back */
};

/* The run's options; module-owned. */
struct grpc_opts {
	uint32_t kind;        /* enum grpc_call_kind (call=) */
	uint32_t messages;    /* request messages per call (messages=) */
	uint32_t max_message; /* largest response message (max-message=) */
	uint8_t *message;     /* message-hex= or message-bytes=, or NULL */
	size_t message_len;
	int has_message;
};

/* Reads --proto-opt pairs into `o` (initialised here): SHB_OK, or
 * SHB_E_INVAL with one line in err naming the option. */
int grpc_opts_parse(struct grpc_opts *o, const struct shb_kv *kv, size_t n,
		    char *err, size_t errlen);
void grpc_opts_fini(struct grpc_opts *o);

/* Non-zero when a call of this kind may answer any number of messages
 * (server-stream, bidi); otherwise exactly one is valid. */
int grpc_kind_streams_back(uint32_t kind);

/* The request body of every call: o->messages length-prefixed copies of
 * the message (o's own, else msg[len]), in *body (malloc'd, the
 * caller's to free). SHB_OK, or an error with one line in err. */
int grpc_body_build(const struct grpc_opts *o, const uint8_t *msg, size_t len,
		    uint8_t **body, size_t *body_len, char *err, size_t errlen);

#endif
