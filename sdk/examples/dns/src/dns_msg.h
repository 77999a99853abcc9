/* DNS messages (RFC 1035 section 4): the query a run sends, built once
 * from the options and encoded per request with its id and placeholders,
 * and the bounded reader of a reply datagram. Sans-I/O, no allocation.
 *
 * Thread: a struct dns_query is built [main] and read-only after, read by
 * every worker; dns_reply_read works on its caller's memory only. */
#ifndef DNS_MSG_H
#define DNS_MSG_H

#include <stddef.h>
#include <stdint.h>

#define DNS_HEADER 12u
#define DNS_NAME_MAX 255u    /* wire bytes of a name, RFC 1035 3.1 */
#define DNS_LABEL_MAX 63u
#define DNS_TEXT_MAX 1024u   /* bytes of the name option, placeholders in */
#define DNS_PH_MAX 8u        /* {seq} and {rand} in the name */
#define DNS_OPT_RR 11u       /* an EDNS OPT record without options */
/* The longest query: header, name, type and class, an OPT record. */
#define DNS_QUERY_MAX (DNS_HEADER + DNS_NAME_MAX + 4u + DNS_OPT_RR)
/* Compression pointers followed in one name at most: a name has at most
 * 127 labels, so an honest one never needs more. */
#define DNS_JUMPS_MAX 128u

/* Reply codes (RFC 1035 4.1.1, RFC 2136), the outcome codes of a reply;
 * DNS_TRUNCATED and DNS_NODATA are this plugin's own. */
enum dns_rcode {
	DNS_NOERROR = 0,
	DNS_FORMERR = 1,
	DNS_SERVFAIL = 2,
	DNS_NXDOMAIN = 3,
	DNS_NOTIMP = 4,
	DNS_REFUSED = 5,
	DNS_TRUNCATED = 16, /* TC set: the answer did not fit the datagram */
	DNS_NODATA = 17,    /* NOERROR without an answer record */
};

/* The query template: the name's text with {seq} and {rand} where they
 * were, split into the parts between them. */
struct dns_query {
	char text[DNS_TEXT_MAX + 1];
	uint16_t type, qclass;
	uint16_t edns;   /* EDNS UDP payload size offered, 0: no OPT record */
	uint8_t rd;      /* recursion desired */
	uint8_t vars;    /* 1: the name has a placeholder */
	uint32_t range;  /* {rand} is 0 .. range - 1 */
};

/* Builds the query of `name` (dots between labels, a final dot allowed,
 * "." the root). The longest expansion of its placeholders must still be
 * a valid name. 0, or -1 with one line in err[errlen]. */
int dns_query_build(struct dns_query *q, const char *name, uint16_t type,
		    uint16_t qclass, uint16_t edns, int rd, uint32_t range,
		    char *err, size_t errlen);

/* Encodes the query with `id`, {seq} as `seq` and {rand} as `rnd` into
 * out[DNS_QUERY_MAX]. Returns its length (the query fits by
 * construction; 0 only if it somehow would not). `qhash` gets the hash
 * of its question (dns_question_hash). */
size_t dns_query_encode(const struct dns_query *q, uint8_t *out, uint16_t id,
			uint64_t seq, uint64_t rnd, uint64_t *qhash);

/* What a reply says, as far as a load generator needs. */
struct dns_reply {
	uint16_t id;
	uint8_t rcode;     /* the header's 4 bits */
	uint8_t tc;        /* TC set */
	uint16_t qdcount, ancount;
	uint64_t qhash;    /* of its question; 0 without one */
	uint32_t outcome;  /* enum dns_rcode, TRUNCATED, NODATA or rcode */
	const char *err;   /* why the reply was refused (static text) */
};

/* Reads one reply datagram: header, question, then every record's name
 * (compression pointers followed backwards only, at most DNS_JUMPS_MAX),
 * type, class, TTL and data length, all inside the datagram. A truncated
 * reply (TC) is read up to its question only. Returns 0, 1 when the
 * datagram is not a reply at all (shorter than a header, QR clear: then
 * only `id` may be set), or -1 with r->err when it is a malformed
 * reply (r->id is its id). */
int dns_reply_read(const uint8_t *p, size_t n, struct dns_reply *r);

/* The hash of a question: its name's labels lower-cased, type, class. */
uint64_t dns_question_hash(const uint8_t *name, size_t name_len, uint16_t type,
			   uint16_t qclass);

/* Type and class names: "A", "AAAA", "IN"... or a number 0..65535. 0, or
 * -1 when it is neither. */
int dns_type_parse(const char *s, uint16_t *out);
int dns_class_parse(const char *s, uint16_t *out);

#endif
