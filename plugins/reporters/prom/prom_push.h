/* The prom reporter's sender: HTTP/1.1 POSTs of remote-write bodies to
 * one receiver, from a thread of its own, so that neither the workers nor
 * the main thread ever wait for Prometheus.
 *
 * The queue holds at most SHB_PROM_QUEUE bodies; a body queued when it is
 * full replaces the oldest one waiting (every body carries cumulative
 * values, so a dropped one costs a point of resolution, never a count).
 * Each POST is one connection (Connection: close) with one deadline for
 * connect, send and answer; the answer is read up to SHB_PROM_ANSWER_MAX
 * bytes. A failure is logged once per kind (connect, timeout, I/O, answer,
 * status); the others are only counted. Only the final body is retried:
 * SHB_PROM_FINAL_TRIES attempts, 250 ms then 500 ms apart. At the end,
 * the bodies still waiting are sent before the final one while the
 * receiver answers, and dropped once a POST failed: end() waits at most
 * (SHB_PROM_QUEUE + SHB_PROM_FINAL_TRIES) timeouts and 750 ms: the POST
 * in flight, the three bodies waiting before the final one, its tries. */
#ifndef SHB_PROM_PUSH_H
#define SHB_PROM_PUSH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SHB_PROM_QUEUE 4
#define SHB_PROM_ANSWER_MAX 4096
#define SHB_PROM_FINAL_TRIES 3
#define SHB_PROM_URL_MAX 512

/* The most addresses of the receiver's name a push tries. */
#define SHB_PROM_ADDRS 4u

/* Where to push: "http://HOST[:PORT][/PATH]", resolved once. */
struct shb_prom_target {
	char url[SHB_PROM_URL_MAX]; /* as given */
	char hostport[300];  /* the Host header */
	char path[512];      /* "/api/v1/write" when the URL has none */
	/* Every address the host resolved to, in getaddrinfo's order (the
	 * first SHB_PROM_ADDRS): a POST tries them in turn, so that a name
	 * such as localhost, ::1 first on a stock Debian, reaches a receiver
	 * that listens on 127.0.0.1 only. */
	struct sockaddr_storage addr[SHB_PROM_ADDRS];
	socklen_t addrlen[SHB_PROM_ADDRS];
	unsigned naddr; /* 1..SHB_PROM_ADDRS */
};

/* Parses and resolves url. 0, or -1 with one line in err. */
int shb_prom_target_parse(const char *url, struct shb_prom_target *t,
			  char *err, size_t errlen);

enum shb_prom_fail {
	SHB_PROM_POST_OK = 0,
	SHB_PROM_FAIL_CONNECT = 1,
	SHB_PROM_FAIL_TIMEOUT,
	SHB_PROM_FAIL_IO,
	SHB_PROM_FAIL_ANSWER, /* not an HTTP/1.x answer */
	SHB_PROM_FAIL_STATUS, /* an answer other than 2xx */
	SHB_PROM_FAIL_KINDS, /* fails[] is indexed by kind; [0] unused */
};

struct shb_prom_stats {
	uint64_t sent;    /* bodies the receiver took (2xx) */
	uint64_t failed;  /* POSTs that failed, retries included */
	uint64_t dropped; /* bodies replaced while queued, or left at end */
	uint64_t fails[SHB_PROM_FAIL_KINDS];
	int final_sent;   /* the final body was taken */
};

/* [any] One warning line, from the sender's thread. */
typedef void (*shb_prom_warn_fn)(void *ctx, const char *line);

struct shb_prom_push;

/* Starts the sender. NULL when no thread or memory could be had. */
struct shb_prom_push *shb_prom_push_start(const struct shb_prom_target *t,
					  uint64_t timeout_ns,
					  shb_prom_warn_fn warn, void *ctx);
/* [main] Queues body[0..len) (taken over: freed by the sender); `final`:
 * the last one, sent even if others wait (they are dropped) and retried. */
void shb_prom_push_queue(struct shb_prom_push *p, uint8_t *body, size_t len,
			 int final);
/* [main] Waits for the final body's fate (see above for how long),
 * stops the sender, frees it and fills *st. */
void shb_prom_push_finish(struct shb_prom_push *p, struct shb_prom_stats *st);

/* One POST, blocking until it is answered or `timeout_ns` passed: 0 when
 * answered 2xx, else the failure kind with one line in why. It connects
 * to the target's addresses in turn until one takes the connection (a
 * refused or unreachable one costs no wait); why then names the last
 * failure. */
int shb_prom_post(const struct shb_prom_target *t, const uint8_t *body,
		  size_t len, uint64_t timeout_ns, char *why, size_t whylen);

#endif
