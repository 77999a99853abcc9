/* The sender thread and its bounded queue (prom_push.h). */
#include "prom_push.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct item {
	uint8_t *body;
	size_t len;
	int final;
};

struct shb_prom_push {
	struct shb_prom_target t;
	uint64_t timeout_ns;
	shb_prom_warn_fn warn;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct item q[SHB_PROM_QUEUE]; /* a ring: head, count */
	size_t head, count;
	int closing;
	int last_failed; /* the last POST failed */
	struct shb_prom_stats st; /* under mu */
	int warned[SHB_PROM_FAIL_KINDS]; /* [sender] */
};

static const char *const fail_names[SHB_PROM_FAIL_KINDS] = {
	"", "connect", "timeout", "I/O", "answer", "status",
};

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* [sender] One body to the receiver, with the final body's tries. */
static int deliver(struct shb_prom_push *p, const struct item *it)
{
	static const long backoff_ms[SHB_PROM_FINAL_TRIES] = {0, 250, 500};
	int tries = it->final ? SHB_PROM_FINAL_TRIES : 1, kind = 0;
	char why[256];
	for (int i = 0; i < tries; i++) {
		sleep_ms(backoff_ms[i]);
		kind = shb_prom_post(&p->t, it->body, it->len, p->timeout_ns, why,
				     sizeof(why));
		pthread_mutex_lock(&p->mu);
		if (kind == SHB_PROM_POST_OK)
			p->st.sent++;
		else {
			p->st.failed++;
			p->st.fails[kind]++;
		}
		pthread_mutex_unlock(&p->mu);
		if (kind == SHB_PROM_POST_OK)
			return 1;
		if (!p->warned[kind]) {
			char line[SHB_PROM_URL_MAX + 512];
			p->warned[kind] = 1;
			snprintf(line, sizeof(line), "push to %s failed: %s (further "
				 "%s failures are counted, not shown)", p->t.url,
				 why, fail_names[kind]);
			p->warn(p->ctx, line);
		}
		if (kind == SHB_PROM_FAIL_STATUS && strncmp(why, "answered 5", 10) != 0)
			return 0; /* the receiver refused the data: no retry */
	}
	return 0;
}

/* [sender] under mu: when closing after a failed POST, only the final
 * body is still worth one; the others waiting are dropped, so that end()
 * waits for no more than the final body's tries. */
static void drop_before_final(struct shb_prom_push *p)
{
	while (p->closing && p->last_failed && p->count > 1 &&
	       !p->q[p->head].final) {
		free(p->q[p->head].body);
		p->head = (p->head + 1) % SHB_PROM_QUEUE;
		p->count--;
		p->st.dropped++;
	}
}

static void *sender(void *arg)
{
	struct shb_prom_push *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->count == 0 && !p->closing)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->count == 0)
			break;
		drop_before_final(p);
		struct item it = p->q[p->head];
		p->head = (p->head + 1) % SHB_PROM_QUEUE;
		p->count--;
		pthread_mutex_unlock(&p->mu);
		int ok = deliver(p, &it);
		free(it.body);
		pthread_mutex_lock(&p->mu);
		p->last_failed = !ok;
		if (it.final)
			p->st.final_sent = ok;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct shb_prom_push *shb_prom_push_start(const struct shb_prom_target *t,
					  uint64_t timeout_ns,
					  shb_prom_warn_fn warn, void *ctx)
{
	struct shb_prom_push *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->t = *t;
	p->timeout_ns = timeout_ns;
	p->warn = warn;
	p->ctx = ctx;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, sender, p) != 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	return p;
}

void shb_prom_push_queue(struct shb_prom_push *p, uint8_t *body, size_t len,
			 int final)
{
	pthread_mutex_lock(&p->mu);
	if (p->count == SHB_PROM_QUEUE) { /* full: the oldest waiting goes */
		free(p->q[p->head].body);
		p->head = (p->head + 1) % SHB_PROM_QUEUE;
		p->count--;
		p->st.dropped++;
	}
	p->q[(p->head + p->count) % SHB_PROM_QUEUE] = (struct item){body, len, final};
	p->count++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void shb_prom_push_finish(struct shb_prom_push *p, struct shb_prom_stats *st)
{
	pthread_mutex_lock(&p->mu);
	p->closing = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	for (; p->count > 0; p->count--) { /* none left: the thread drained */
		free(p->q[p->head].body);
		p->head = (p->head + 1) % SHB_PROM_QUEUE;
	}
	*st = p->st;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
