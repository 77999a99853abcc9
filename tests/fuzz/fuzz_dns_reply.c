/* The DNS reply reader of sdk/examples/dns (dns_msg.c, Sans-I/O, built
 * here from the example's source): one UDP datagram as a server, or
 * anyone who can reach the client's port, sends it. Input: the datagram,
 * whole (a datagram arrives whole or not at all).
 *
 * Checked besides memory safety (the reader follows compression pointers
 * anywhere in the datagram): a datagram shorter than a header or with QR
 * clear is not a reply (1); a refusal names its reason; a reply read has
 * at most one question and a question hash exactly when it has a
 * question, and its outcome is what its header says (TC: truncated;
 * NOERROR without answers: nodata; else its RCODE); a reply read whole
 * (not truncated) ends exactly at the datagram's end: one byte more
 * ("bytes after the last record") or one byte less is refused; and
 * reading is deterministic. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "dns_msg.h"

static void check_read(const uint8_t *p, size_t n, int rc, const struct dns_reply *r)
{
	if (n < DNS_HEADER || !(p[2] & 0x80)) {
		FZ_CHECK(rc == 1);
		return;
	}
	FZ_CHECK(rc == 0 || rc == -1);
	FZ_CHECK(r->id == (uint16_t)(p[0] << 8 | p[1]));
	if (rc < 0) {
		FZ_CHECK(r->err != NULL && r->err[0]);
		return;
	}
	FZ_CHECK(r->err == NULL && r->qdcount <= 1);
	FZ_CHECK((r->qhash != 0) == (r->qdcount == 1));
	FZ_CHECK(r->rcode == (p[3] & 0x0f) && r->tc == ((p[2] & 2) != 0));
	if (r->tc)
		FZ_CHECK(r->outcome == DNS_TRUNCATED);
	else if (r->rcode == DNS_NOERROR && r->ancount == 0)
		FZ_CHECK(r->outcome == DNS_NODATA);
	else
		FZ_CHECK(r->outcome == r->rcode);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dns_reply r, again;
	int rc = dns_reply_read(data, size, &r);

	check_read(data, size, rc, &r);
	FZ_CHECK(dns_reply_read(data, size, &again) == rc &&
		 memcmp(&r, &again, sizeof r) == 0);
	if (rc != 0 || r.tc)
		return 0;
	/* Read whole: exactly to the end. */
	uint8_t *more = malloc(size + 1);
	if (!more)
		return 0;
	memcpy(more, data, size);
	more[size] = 0;
	FZ_CHECK(dns_reply_read(more, size + 1, &again) == -1 &&
		 strcmp(again.err, "bytes after the last record") == 0);
	if (size > DNS_HEADER)
		FZ_CHECK(dns_reply_read(more, size - 1, &again) == -1);
	free(more);
	return 0;
}
