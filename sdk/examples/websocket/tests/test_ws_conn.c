/* Connections through the SDK's test kit (test_ws_conn.h): the upgrade,
 * pipelined echoes split at every offset, the kit's split driver, close
 * codes, a shutdown during the upgrade, oversized messages, random input;
 * no host rule broken on any connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/ws.h"
#include "test_ws.h"
#include "test_ws_conn.h"
#include "ws_rig.h"

static void test_conn_handshake(void)
{
	struct rig r;
	static const char want[] =
		"GET /echo HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
		"Upgrade: websocket\r\nConnection: Upgrade\r\n"
		"Sec-WebSocket-Version: 13\r\n"
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
	const struct shb_proto_desc *d = ws_desc;
	struct shb_kit_module m;

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(strcmp(d->name, "ws") == 0);
	CHECK(d->vt->next_deadline == NULL && d->vt->on_timer == NULL);
	CHECK(d->scheme_defs && strcmp(d->scheme_defs[1].name, "wss") == 0 &&
	      d->scheme_defs[1].default_port == 443 &&
	      d->scheme_defs[1].flags == SHB_SCHEME_TLS &&
	      d->scheme_defs[0].default_port == 80 && d->scheme_defs[2].name == NULL);
	CHECK(shb_plugin_entry_v1.abi_minor == 2);

	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(r.c.state == SHB_CS_WANT_WRITE);
	drain(&r);
	CHECK(r.out_len == sizeof want - 1 && memcmp(r.out, want, r.out_len) == 0);
	/* A wrong accept ends the connection before any request. */
	{
		static const char bad[] =
			"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
			"Connection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n";
		size_t i;

		/* Fed a byte at a time: the end of the head is found across reads. */
		for (i = 0; i < sizeof bad - 2; i++)
			CHECK(shb_kit_conn_recv(&r.c, bad + i, 1) == 1);
		CHECK(shb_kit_conn_recv(&r.c, bad + i, 1) == SHB_E_PROTO);
		CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
			     "ws: Sec-WebSocket-Accept is missing or wrong") == 0);
		CHECK(handshakes() == 0);
	}
	CHECK(rig_close(&r) == 0);

	/* Options: unknown keys and bad sizes are one line each. */
	CHECK(create_with(&m, "frame", "1") == SHB_E_INVAL);
	CHECK(strcmp(m.err, "unknown option 'frame' (known: max-message)") == 0);
	CHECK(create_with(&m, "max-message", "0") == SHB_E_INVAL);
	CHECK(strcmp(m.err, "max-message must be 1 to 1073741824 bytes, not '0'") == 0);
	CHECK(create_with(&m, "max-message", "64") == SHB_OK);
	CHECK(((struct ws_module *)m.module)->max_message == 64);
	shb_kit_module_destroy(&m);
	/* A message longer than the bound is refused before any run. */
	CHECK(create_with(&m, "max-message", "4") == SHB_OK);
	{
		struct shb_request req = {.struct_size = sizeof(req),
					  .flags = SHB_REQUEST_HAS_BODY,
					  .method = "GET",
					  .path = "/",
					  .body = (const uint8_t *)"hello",
					  .body_len = 5};
		char err[160];
		void *pr = NULL;

		/* The vtable member itself: what it leaves in *prepared. */
		CHECK(m.vt->prepare_request(m.module, &req, &pr, err, sizeof err) == SHB_E_INVAL);
		CHECK(strcmp(err, "the message (5 bytes) is longer than max-message (4)") == 0);
		CHECK(pr == NULL);
	}
	shb_kit_module_destroy(&m);
	CHECK(violations() == 0);
}

/* Three echoes, a ping among them and the second answer fragmented. */
static const uint8_t pipelined[] = "\x81\x05/echo"            /* 1st answer */
				   "\x89\x02hi"               /* ping */
				   "\x01\x02/e\x80\x03" "cho" /* 2nd, fragmented */
				   "\x81\x05/echo";           /* 3rd answer */

/* The three pipelined echoes answered in two reads, cut at every offset
 * of the stream: the requests on the wire, the results with the clock's
 * time of each read, and the pong. */
static void test_conn_pipelined_every_split(void)
{
	const size_t n = sizeof pipelined - 1;
	int bad = 0;

	for (size_t cut = 0; cut <= n; cut++) {
		struct rig r;
		uint32_t op;
		char payload[64];
		size_t at = 0;

		if (rig_open(&r, NULL, NULL, 3, NULL)) {
			bad++;
			continue;
		}
		if (handshakes() != 1 || r.c.capacity != 3)
			bad++;
		for (uint64_t k = 1; k <= 3; k++)
			if (shb_kit_conn_issue(&r.c, NULL, k * 10) != SHB_OK)
				bad++;
		if (r.c.capacity != 0 ||
		    shb_kit_conn_issue(&r.c, NULL, 99) != SHB_E_BUSY)
			bad++;
		drain(&r);
		/* Three masked text frames "/echo" (the path: no body). */
		for (int k = 0; k < 3; k++) {
			at += client_frame(r.out, at, &op, payload);
			if (op != WS_OP_TEXT || strcmp(payload, "/echo") != 0 ||
			    r.out[at - 5 - 4] != 1)
				bad++;
		}
		if (at != r.out_len)
			bad++;
		r.out_len = 0;
		shb_kit_clock_set(&kh.clock, 3);
		if (shb_kit_conn_recv(&r.c, pipelined, cut) != (shb_ssize)cut)
			bad++;
		shb_kit_clock_set(&kh.clock, 4);
		if (shb_kit_conn_recv(&r.c, pipelined + cut, n - cut) !=
		    (shb_ssize)(n - cut))
			bad++;
		if (kh.done_count != 3)
			bad++;
		for (size_t k = 0; k < 3 && k < kh.done_count; k++) {
			const struct shb_req_result *res = &kh.done[k].res;

			if (kh.done[k].cookie != (k + 1) * 10 ||
			    res->outcome != SHB_REQ_OK || res->status != 0 ||
			    res->app_space != SHB_APPSPACE_WEBSOCKET ||
			    res->app_code != 1000 || res->app_ok != 1 ||
			    res->rx_body_bytes != 5 ||
			    res->rx_header_bytes != (k == 1 ? 4u : 2u) ||
			    kh.done[k].has_detail)
				bad++;
		}
		/* The first answer began (its 2-byte header complete) in the
		 * first read when that read had the header. */
		if (kh.done_count && kh.done[0].res.ts_first_byte != (cut >= 2 ? 3u : 4u))
			bad++;
		/* The metrics (ABI 1.4): three messages out, three whole
		 * ones back (the fragmented one once, the ping not at all),
		 * each timed from its issue at 1 to the read that ended it
		 * (3, or 4 when the cut left its end for the second read). */
		static const size_t ends[3] = {7, 20, 27};
		uint64_t sum = 0;
		for (int k = 0; k < 3; k++)
			sum += (cut >= ends[k] ? 3u : 4u) - 1u;
		const struct shb_kit_metric *lat = shb_kit_metric(&kh, "ws_msg_latency");
		if (shb_kit_metric_count(&kh, "ws_msgs_sent") != 3 ||
		    shb_kit_metric_count(&kh, "ws_msgs_received") != 3 ||
		    !lat || lat->count != 3 || lat->sum != sum ||
		    lat->min != (cut >= 7 ? 2u : 3u) || lat->max != (cut >= 27 ? 2u : 3u))
			bad++;
		/* The ping was answered: a masked pong "hi". */
		drain(&r);
		at = client_frame(r.out, 0, &op, payload);
		if (op != WS_OP_PONG || strcmp(payload, "hi") != 0 || at != r.out_len)
			bad++;
		if (r.c.capacity != 3 || r.c.state != 0)
			bad++;
		if (rig_close(&r))
			bad++;
	}
	CHECK(bad == 0);
}

/* The kit's split driver's set-up: the upgrade and its 101, then
 * *(uint64_t *)user requests (cookies 10, 20, ...) on the wire. */
static int upgraded_with_requests(struct shb_kit_conn *c, void *user)
{
	uint64_t requests = *(const uint64_t *)user;

	shb_kit_conn_flush(c, 0);
	if (shb_kit_conn_feed(c, upgrade_answer, upgrade_answer_len) != SHB_OK ||
	    c->capacity != 3)
		return 1;
	for (uint64_t k = 1; k <= requests; k++)
		if (shb_kit_conn_issue(c, NULL, k * 10) != SHB_OK)
			return 1;
	shb_kit_conn_flush(c, 0);
	return 0;
}

/* The server's bytes through the split driver: whole, in two at every
 * offset and one byte at a time, always the same results. */
static void test_conn_split_driver(void)
{
	static const uint8_t close1011[] = "\x81\x05/echo" "\x88\x06\x03\xf3" "oops";
	const size_t n = sizeof pipelined - 1;
	struct shb_kit_module m;
	struct shb_kit_split s = {0};
	uint64_t requests = 3;

	if (module_open(&m, NULL, NULL, 3, NULL)) {
		CHECK(!"module_open");
		return;
	}
	s.m = &m;
	s.setup = upgraded_with_requests;
	s.user = &requests;
	CHECK(shb_kit_split_check(&s, pipelined, n) == 0);
	if (s.mismatch[0])
		fprintf(stderr, "split: %s\n", s.mismatch);
	CHECK(s.feeds == n + 1); /* whole, n - 1 cuts, 1-byte pieces */
	CHECK(s.ref.rc == SHB_OK && s.ref.closed == 0 && s.ref.outstanding == 0);
	CHECK(s.ref.result_count == 3);
	for (size_t k = 0; k < 3 && k < s.ref.result_count; k++) {
		const struct shb_kit_done *d = &s.ref.results[k];

		CHECK(d->cookie == (k + 1) * 10 && d->res.outcome == SHB_REQ_OK &&
		      d->res.app_space == SHB_APPSPACE_WEBSOCKET &&
		      d->res.app_code == 1000 && d->res.app_ok == 1 &&
		      d->res.rx_body_bytes == 5 &&
		      d->res.rx_header_bytes == (k == 1 ? 4u : 2u) && !d->has_detail);
	}
	shb_kit_split_fini(&s);

	/* One echo, then a close 1011: the other two end with its code. */
	CHECK(shb_kit_split_check(&s, close1011, sizeof close1011 - 1) == 0);
	if (s.mismatch[0])
		fprintf(stderr, "split: %s\n", s.mismatch);
	CHECK(s.feeds == sizeof close1011);
	CHECK(s.ref.rc == SHB_OK && s.ref.outstanding == 0);
	CHECK(s.ref.result_count == 3);
	if (s.ref.result_count == 3) {
		CHECK(s.ref.results[0].res.app_code == 1000 && !s.ref.results[0].has_detail);
		for (size_t k = 1; k < 3; k++) {
			const struct shb_kit_done *d = &s.ref.results[k];

			CHECK(d->cookie == (k + 1) * 10 && d->res.outcome == SHB_REQ_OK &&
			      d->res.app_code == 1011 && d->res.app_ok == 0);
			CHECK(strcmp(d->detail, "ws: closed by the server with 1011 (oops)") == 0);
		}
	}
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);
	CHECK(violations() == 0);
}

/* The run ends during the upgrade. Once the upgrade is out, the server may
 * accept it: no close frame may go before its 101 (RFC 6455 4.1), so the
 * connection says DRAINING alone until the 101 comes, then sends close
 * 1000 and ends. An upgrade never handed out is dropped, never sent. */
static void test_conn_shutdown_in_upgrade(void)
{
	struct rig r;
	struct shb_vec v[4];
	uint32_t op;
	char payload[128];

	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	drain(&r);
	r.out_len = 0;
	shb_kit_conn_shutdown(&r.c, SHB_SHUT_GRACEFUL);
	CHECK(r.c.state == SHB_CS_DRAINING && r.c.capacity == 0);
	CHECK(shb_kit_conn_pull_send(&r.c, v, 4) == 0);
	CHECK(shb_kit_conn_recv(&r.c, upgrade_answer, upgrade_answer_len) ==
	      (shb_ssize)upgrade_answer_len);
	CHECK(handshakes() == 1);
	CHECK(r.c.state == (SHB_CS_WANT_WRITE | SHB_CS_DRAINING) && r.c.capacity == 0);
	drain(&r);
	CHECK(r.out_len == 8 && client_frame(r.out, 0, &op, payload) == 8);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[0] == 0x03 &&
	      (uint8_t)payload[1] == 0xe8);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(kh.done_count == 0);
	CHECK(rig_close(&r) == 0);

	/* The upgrade still queued: nothing goes out, the connection ends. */
	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(r.c.state == SHB_CS_WANT_WRITE);
	shb_kit_conn_shutdown(&r.c, SHB_SHUT_GRACEFUL);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(shb_kit_conn_pull_send(&r.c, v, 4) == 0);
	CHECK(rig_close(&r) == 0);

	/* An abort in the upgrade ends it at once, whatever was sent. */
	CHECK(rig_connect(&r, NULL, NULL, 1, NULL) == 0);
	drain(&r);
	shb_kit_conn_shutdown(&r.c, SHB_SHUT_ABORT);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(rig_close(&r) == 0);
}

/* A message with a body is sent as binary; a close 1011 ends what is in
 * flight as an application error, 1001 as refused (never answered: shb
 * resends it). */
static void test_conn_close_codes(void)
{
	struct rig r;
	uint32_t op;
	char payload[64];
	static const uint8_t close1011[] = "\x88\x06\x03\xf3" "oops";
	/* A close 1001, then a frame that must be ignored. */
	static const uint8_t close1001[] = "\x88\x02\x03\xe9" "\x81\x01x";

	if (rig_open(&r, NULL, NULL, 2, "hello body")) {
		CHECK(!"rig_open");
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 1) == SHB_OK);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 2) == SHB_OK);
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_BINARY && strcmp(payload, "hello body") == 0);
	r.out_len = 0;
	CHECK(shb_kit_conn_recv(&r.c, close1011, sizeof close1011 - 1) ==
	      (shb_ssize)(sizeof close1011 - 1));
	CHECK(kh.done_count == 2);
	if (kh.done_count == 2) {
		const struct shb_req_result *res = &kh.done[0].res;

		CHECK(res->outcome == SHB_REQ_OK && res->status == 0 &&
		      res->app_space == SHB_APPSPACE_WEBSOCKET &&
		      res->app_code == 1011 && res->app_ok == 0);
		CHECK(strcmp(kh.done[0].detail, "ws: closed by the server with 1011 (oops)") == 0);
		CHECK(kh.done[1].cookie == 2 && kh.done[1].res.app_code == 1011);
	}
	/* Our close answers with the same code, then the connection ends. */
	CHECK(r.c.state == (SHB_CS_WANT_WRITE | SHB_CS_DRAINING));
	CHECK(r.c.capacity == 0);
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[0] == 0x03 &&
	      (uint8_t)payload[1] == 0xf3);
	CHECK(r.c.state == (SHB_CS_DRAINING | SHB_CS_CLOSED));
	CHECK(shb_kit_conn_recv_eof(&r.c) == SHB_OK);
	CHECK(rig_close(&r) == 0);

	if (rig_open(&r, NULL, NULL, 1, NULL)) {
		CHECK(!"rig_open");
		return;
	}
	CHECK(shb_kit_conn_issue(&r.c, NULL, 7) == SHB_OK);
	CHECK(shb_kit_conn_recv(&r.c, close1001, sizeof close1001 - 1) ==
	      (shb_ssize)(sizeof close1001 - 1));
	CHECK(kh.done_count == 1 &&
	      kh.done[0].res.outcome == SHB_REQ_REFUSED &&
	      kh.done[0].res.app_space == SHB_APPSPACE_NONE);
	CHECK(kh.done_count == 1 &&
	      strcmp(kh.done[0].detail, "ws: closed by the server with 1001") == 0);
	CHECK(shb_kit_conn_error_detail(&r.c) == NULL);
	CHECK(rig_close(&r) == 0);
}

/* max-message bounds a message across its fragments: exceeding it is a
 * protocol error, answered with close 1009. */
static void test_conn_oversized(void)
{
	struct rig r;
	uint32_t op;
	char payload[64];
	static const uint8_t frags[] = "\x01\x04" "abcd" "\x80\x04" "efgh";
	static const uint8_t big[] = "\x82\x7e\x01\x00";

	CHECK(rig_open(&r, "max-message", "6", 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 3) == SHB_OK);
	drain(&r);
	r.out_len = 0;
	CHECK(shb_kit_conn_recv(&r.c, frags, sizeof frags - 1) == SHB_E_PROTO);
	CHECK(kh.done_count == 1 && kh.done[0].cookie == 3 &&
	      kh.done[0].res.outcome == SHB_REQ_PROTO_ERROR);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: a message longer than max-message (6 bytes)") == 0);
	CHECK(r.c.state == (SHB_CS_WANT_WRITE | SHB_CS_DRAINING | SHB_CS_CLOSED));
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[0] == 0x03 &&
	      (uint8_t)payload[1] == 0xf1); /* 1009 */
	CHECK(rig_close(&r) == 0);

	/* One frame over the bound is refused at its header, before any
	 * payload; a malformed frame is a 1002. */
	CHECK(rig_open(&r, "max-message", "255", 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 4) == SHB_OK);
	CHECK(shb_kit_conn_recv(&r.c, big, sizeof big - 1) == SHB_E_PROTO);
	CHECK(kh.done_count == 1 && kh.done[0].res.outcome == SHB_REQ_PROTO_ERROR);
	CHECK(rig_close(&r) == 0);
	CHECK(rig_open(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 5) == SHB_OK);
	drain(&r);
	r.out_len = 0;
	CHECK(shb_kit_conn_recv(&r.c, "\x81\x85", 2) == SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: a masked frame from the server") == 0);
	drain(&r);
	client_frame(r.out, 0, &op, payload);
	CHECK(op == WS_OP_CLOSE && (uint8_t)payload[1] == 0xea); /* 1002 */
	CHECK(rig_close(&r) == 0);
	/* An answer nobody asked for, and an end in mid-request. */
	CHECK(rig_open(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(shb_kit_conn_recv(&r.c, "\x81\x00", 2) == SHB_E_PROTO);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: a message with no request in flight") == 0);
	CHECK(rig_close(&r) == 0);
	CHECK(rig_open(&r, NULL, NULL, 1, NULL) == 0);
	CHECK(shb_kit_conn_issue(&r.c, NULL, 6) == SHB_OK);
	CHECK(shb_kit_conn_recv_eof(&r.c) == SHB_E_CLOSED);
	CHECK(strcmp(shb_kit_conn_error_detail(&r.c),
		     "ws: the server closed the connection with requests in flight (1)") == 0);
	CHECK(rig_close(&r) == 0);
}

/* Random bytes after the upgrade, in random pieces: whatever they say,
 * each request in flight is reported at most once and in order, a refused
 * stream is refused with CLOSED set, and the kit sees no host rule broken.
 * (Run it under ASan too: the kit hands recv a private copy.) */
static void test_conn_random_input(void)
{
	uint32_t x = 12345;
	int bad = 0;

	for (int round = 0; round < 2000; round++) {
		struct rig r;
		uint8_t in[256];
		size_t n = 0;
		int refused = 0;

		if (rig_open(&r, "max-message", "300", 4, NULL)) {
			bad++;
			continue;
		}
		for (uint64_t k = 1; k <= 4; k++)
			shb_kit_conn_issue(&r.c, NULL, k);
		/* Some rounds start with a valid answer, to get deeper. */
		if (round % 2)
			memcpy(in, "\x81\x01x", 3), n = 3;
		for (; n < sizeof in; n++) {
			x = x * 1103515245 + 12345;
			in[n] = (uint8_t)(x >> 16);
		}
		for (size_t at = 0; at < sizeof in && !refused;) {
			size_t k;
			shb_ssize rc;

			x = x * 1103515245 + 12345;
			k = 1 + (x >> 16) % 40;
			if (k > sizeof in - at)
				k = sizeof in - at;
			rc = shb_kit_conn_recv(&r.c, in + at, k);
			if (rc < 0) {
				refused = 1;
				if (!(r.c.state & SHB_CS_CLOSED))
					bad++;
			} else if (rc != (shb_ssize)k) {
				bad++;
			}
			at += k;
		}
		if (kh.done_count > 4)
			bad++;
		for (size_t i = 0; i < kh.done_count && i < 4; i++)
			if (kh.done[i].cookie != (uint64_t)i + 1)
				bad++;
		drain(&r);
		if (rig_close(&r))
			bad++;
	}
	CHECK(bad == 0);
}

void test_ws_conn(void)
{
	test_conn_handshake();
	test_conn_pipelined_every_split();
	test_conn_split_driver();
	test_conn_close_codes();
	test_conn_shutdown_in_upgrade();
	test_conn_oversized();
	test_conn_random_input();
}
