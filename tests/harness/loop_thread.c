/* The stop request travels through a pipe whose read end is an event on
 * the base, so the loop thread itself calls event_base_loopbreak and the
 * base needs no locking. */
#include "harness/loop_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

struct shb_hloop {
	struct event_base *base;
	struct event *wake;
	int pipefd[2];
	pthread_t thread;
};

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct shb_hloop *l = arg;
	event_base_loopbreak(l->base);
}

static void *loop_main(void *arg)
{
	struct shb_hloop *l = arg;
	event_base_loop(l->base, 0);
	return NULL;
}

struct shb_hloop *shb_hloop_start(struct event_base *base, char *err,
				  size_t errlen)
{
	struct shb_hloop *l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->base = base;
	if (pipe2(l->pipefd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(l);
		return NULL;
	}
	l->wake = event_new(base, l->pipefd[0], EV_READ, on_wake, l);
	if (!l->wake || event_add(l->wake, NULL) < 0) {
		snprintf(err, errlen, "cannot add the wake-up event");
		goto fail;
	}
	int rc = pthread_create(&l->thread, NULL, loop_main, l);
	if (rc != 0) {
		snprintf(err, errlen, "pthread_create: %s", strerror(rc));
		goto fail;
	}
	return l;
fail:
	if (l->wake)
		event_free(l->wake);
	close(l->pipefd[0]);
	close(l->pipefd[1]);
	free(l);
	return NULL;
}

void shb_hloop_stop(struct shb_hloop *l)
{
	if (!l)
		return;
	ssize_t w;
	do
		w = write(l->pipefd[1], "x", 1);
	while (w < 0 && errno == EINTR);
	pthread_join(l->thread, NULL);
	event_free(l->wake);
	close(l->pipefd[0]);
	close(l->pipefd[1]);
	free(l);
}
