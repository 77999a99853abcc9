/* The run's options and the request body every call sends (see
 * grpc_request.h). Called on [main] from module_create and
 * prepare_request only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>

#include "grpc_request.h"
#include "grpc_wire.h"

#define OPTS_KNOWN "call, messages, message-bytes, message-hex, max-message"

static const char *const kind_names[] = {"unary", "server-stream",
					 "client-stream", "bidi"};

static int hexdigit(char c)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = c ? strchr(digits, c | 0x20) : NULL;

	return p ? (int)(p - digits) : -1;
}

static int unhex(const char *hex, struct grpc_opts *o)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > GRPC_MAX_REQUEST)
		return -1;
	o->message = malloc(n / 2 + 1);
	if (!o->message)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexdigit(hex[2 * i]), lo = hexdigit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		o->message[i] = (uint8_t)(hi << 4 | lo);
	}
	o->message_len = n / 2;
	return 0;
}

/* A whole number from lo to hi, nothing else: 0 and *out, or -1. */
static int number(const char *v, unsigned long long lo, unsigned long long hi,
		  unsigned long long *out)
{
	char *end;
	unsigned long long x;

	if (!v || *v < '0' || *v > '9')
		return -1;
	x = strtoull(v, &end, 10);
	if (*end || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int parse_kind(struct grpc_opts *o, const char *v)
{
	for (uint32_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (v && strcmp(v, kind_names[i]) == 0) {
			o->kind = i;
			return 0;
		}
	return -1;
}

/* message-hex and message-bytes: the message itself, given once. */
static int parse_message(struct grpc_opts *o, const char *k, const char *v,
			 char *err, size_t errlen)
{
	unsigned long long x;

	if (o->has_message) {
		snprintf(err, errlen, "grpc: give one of message-hex and message-bytes, once");
		return SHB_E_INVAL;
	}
	o->has_message = 1;
	if (strcmp(k, "message-hex") == 0) {
		if (!v || unhex(v, o) < 0) {
			snprintf(err, errlen, "grpc: message-hex must be an even number of hex digits");
			return SHB_E_INVAL;
		}
		return SHB_OK;
	}
	if (number(v, 0, GRPC_MAX_REQUEST, &x) < 0) {
		snprintf(err, errlen, "grpc: message-bytes must be a byte count from 0 to %u, not '%s'",
			 GRPC_MAX_REQUEST, v ? v : "");
		return SHB_E_INVAL;
	}
	/* A message of x octets 'x': any bytes do for a server that does
	 * not parse them, and protobuf's own are the user's (-d @file). */
	o->message = malloc(x + 1);
	if (!o->message) {
		snprintf(err, errlen, "grpc: out of memory");
		return SHB_E_NOMEM;
	}
	memset(o->message, 'x', x);
	o->message_len = x;
	return SHB_OK;
}

static int parse_one(struct grpc_opts *o, const char *k, const char *v,
		     char *err, size_t errlen)
{
	unsigned long long x;

	if (strcmp(k, "max-message") == 0) {
		if (number(v, 1, UINT32_MAX, &x) < 0) {
			snprintf(err, errlen, "grpc: max-message must be a byte count from 1 to 4294967295, not '%s'",
				 v ? v : "");
			return SHB_E_INVAL;
		}
		o->max_message = (uint32_t)x;
	} else if (strcmp(k, "call") == 0) {
		if (parse_kind(o, v) < 0) {
			snprintf(err, errlen, "grpc: call must be unary, server-stream, client-stream or bidi, not '%s'",
				 v ? v : "");
			return SHB_E_INVAL;
		}
	} else if (strcmp(k, "messages") == 0) {
		if (number(v, 1, GRPC_MAX_REQUEST / GRPC_PREFIX_LEN, &x) < 0) {
			snprintf(err, errlen, "grpc: messages must be a count from 1 to %u, not '%s'",
				 GRPC_MAX_REQUEST / GRPC_PREFIX_LEN, v ? v : "");
			return SHB_E_INVAL;
		}
		o->messages = (uint32_t)x;
	} else if (strcmp(k, "message-hex") == 0 || strcmp(k, "message-bytes") == 0) {
		return parse_message(o, k, v, err, errlen);
	} else {
		snprintf(err, errlen, "grpc: unknown option '%s' (known: " OPTS_KNOWN ")", k);
		return SHB_E_INVAL;
	}
	return SHB_OK;
}

int grpc_opts_parse(struct grpc_opts *o, const struct shb_kv *kv, size_t n,
		    char *err, size_t errlen)
{
	int messages_given = 0;

	memset(o, 0, sizeof(*o));
	o->kind = GRPC_CALL_UNARY;
	o->messages = 1;
	o->max_message = GRPC_DEFAULT_MAX_MESSAGE;
	for (size_t i = 0; i < n; i++) {
		int rc = parse_one(o, kv[i].key ? kv[i].key : "", kv[i].value,
				   err, errlen);

		if (rc < 0)
			return rc;
		messages_given |= kv[i].key && strcmp(kv[i].key, "messages") == 0;
	}
	/* A unary or server-streaming call sends exactly one message. */
	if (messages_given && o->kind != GRPC_CALL_CLIENT_STREAM &&
	    o->kind != GRPC_CALL_BIDI) {
		snprintf(err, errlen, "grpc: messages needs call=client-stream or call=bidi (a %s call sends one message)",
			 kind_names[o->kind]);
		return SHB_E_INVAL;
	}
	return SHB_OK;
}

void grpc_opts_fini(struct grpc_opts *o)
{
	free(o->message);
	o->message = NULL;
}

int grpc_kind_streams_back(uint32_t kind)
{
	return kind == GRPC_CALL_SERVER_STREAM || kind == GRPC_CALL_BIDI;
}

int grpc_body_build(const struct grpc_opts *o, const uint8_t *msg, size_t len,
		    uint8_t **body, size_t *body_len, char *err, size_t errlen)
{
	size_t one, total;
	uint8_t *p;

	if (o->has_message) {
		msg = o->message;
		len = o->message_len;
	}
	one = GRPC_PREFIX_LEN + len;
	if (len > GRPC_MAX_REQUEST || one > GRPC_MAX_REQUEST / o->messages) {
		snprintf(err, errlen, "grpc: a call's request messages above %u bytes in all",
			 GRPC_MAX_REQUEST);
		return SHB_E_INVAL;
	}
	total = one * o->messages;
	p = malloc(total);
	if (!p) {
		snprintf(err, errlen, "grpc: out of memory");
		return SHB_E_NOMEM;
	}
	for (uint32_t i = 0; i < o->messages; i++) {
		grpc_prefix(p + i * one, (uint32_t)len);
		if (len)
			memcpy(p + i * one + GRPC_PREFIX_LEN, msg, len);
	}
	*body = p;
	*body_len = total;
	return SHB_OK;
}
