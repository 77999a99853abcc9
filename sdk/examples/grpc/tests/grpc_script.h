/* What the gRPC example's kit tests share: their checks, the plugins on
 * the kit host, and a scripted gRPC server that writes HTTP/2 frames (a
 * header block of literals, length-prefixed messages) for the client to
 * read. */
#ifndef GRPC_SCRIPT_H
#define GRPC_SCRIPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <shb/kit.h>

/* Checks that failed, in every file of the test. */
extern int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			failures++;                                            \
		}                                                              \
	} while (0)

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (strcmp(a_, b_) != 0) {                                     \
			fprintf(stderr, "%s:%d: '%s' != '%s'\n", __FILE__,     \
				__LINE__, a_, b_);                             \
			failures++;                                            \
		}                                                              \
	} while (0)

/* The kit host, the h2 plugin (its extension's provider) and ours. */
extern struct shb_kit_host kh;
extern struct shb_kit_plugin h2p, gp;
extern const struct shb_proto_desc *gdesc;

/* Loads SHB_H2_PLUGIN and GRPC_PLUGIN on the kit host, or exits. */
void load_plugins(void);
/* No ABI rule broken so far; the host's records cleared. */
void check_no_violations(void);
/* A module for `path` with body `msg` (NULL: none) and the options given
 * (NULL-ended key, value pairs, at most 4): its code. */
int make_module(struct shb_kit_module *m, const char *path, const char *msg,
		const char *const *opts);

/* ---- a scripted gRPC server ---- */

struct bytes {
	uint8_t p[4096];
	size_t len;
};

enum { DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4 };
enum { END_STREAM = 1, END_HEADERS = 4 };

/* ":status" 200 and content-type application/grpc. */
extern const char *const head_ok[];

void frame(struct bytes *b, uint8_t type, uint8_t flags, uint32_t sid,
	   const void *payload, size_t len);
/* A header block of `fields` (NULL-ended name, value pairs). */
size_t block(uint8_t *blk, const char *const *fields);
void headers(struct bytes *b, uint32_t sid, uint8_t flags,
	     const char *const *fields);
/* DATA with one message `msg` (flag 0). */
void message(struct bytes *b, uint32_t sid, uint8_t flags, const char *msg);
/* Issues cookies 1 and 2 (streams 1 and 3): 0, or 1 when one failed. */
int issue_two(struct shb_kit_conn *c, void *user);
/* The frame of `type` on stream `sid` in what the client sent, or NULL;
 * *len its payload length. */
const uint8_t *sent_frame(const struct shb_kit_conn *c, uint8_t type,
			  uint32_t sid, size_t *len);
int contains(const uint8_t *p, size_t n, const char *s);
/* The server's empty SETTINGS, then everything the client sends. */
void server_settings(struct shb_kit_conn *c);

#endif
