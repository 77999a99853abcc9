/* One HTTP/2 connection driven through the protocol vtable as the core
 * drives it, with a fake host that checks the plugin's promises: every
 * request reported exactly once, no report of a request that was never
 * issued or was cancelled, no host call from conn_fini. */
#ifndef SHB_FUZZ_H2_HOST_H
#define SHB_FUZZ_H2_HOST_H

#include <shb/host.h>
#include <shb/plugin.h>
#include <shb/proto.h>

#define H2FZ_MAX_COOKIES 1024

struct h2fz {
	const struct shb_proto_vtable *vt;
	void *mod;
	void *prep;
	void *c;
	shb_tstamp now;
	uint64_t next_cookie; /* cookies are 1..next_cookie-1 */
	int broken;           /* a call returned a negative code */
};

/* A connection of a run with -p `parallel`, GET or a small POST, with
 * protocol traces on or off; transport up and the preface sent. */
void h2fz_open(struct h2fz *z, uint32_t parallel, int post, int debug);
/* Before h2fz_open: non-zero makes the next connections' module observed
 * through org.shb.h2.proto/1 by an observer that checks every call, reads
 * every octet it is shown, stops a request whose DATA starts with 'Z' or
 * whose field value does, and sets an app outcome. */
void h2fz_observe(int on);
/* Before h2fz_open: non-zero gives the next connections' module
 * --proto-opt profile=firefox (h2_profile.h). */
void h2fz_profile(int firefox);
/* Drops the connection (conn_fini) and checks what it reported. */
void h2fz_close(struct h2fz *z);

/* Offers p[n] until all of it was taken, sending output whenever recv
 * takes less; stops after an error (z->broken). */
void h2fz_recv(struct h2fz *z, const uint8_t *p, size_t n);
/* Sends everything queued, at most `chunk` octets per send (0: any). */
void h2fz_flush(struct h2fz *z, size_t chunk);
/* Issues up to `count` requests while capacity() allows. */
void h2fz_issue(struct h2fz *z, unsigned count);
/* The core gives up on the i-th issued request if it is still open. */
void h2fz_cancel(struct h2fz *z, unsigned i);
/* Moves the clock and fires the timer if due. */
void h2fz_advance(struct h2fz *z, shb_tstamp ns);
void h2fz_eof(struct h2fz *z);
void h2fz_shutdown(struct h2fz *z, uint32_t mode);

#endif
