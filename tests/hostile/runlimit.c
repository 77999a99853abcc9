/* shb-hostile-run: runs a program with a time limit and reports its peak
 * RSS, with nothing more than wait4():
 *
 *   shb-hostile-run LIMIT_MS OUT_FILE PROGRAM ARGS...
 *
 * The program inherits stdin, stdout and stderr. Past LIMIT_MS it is
 * killed (SIGKILL). OUT_FILE receives one line "STATUS ELAPSED_MS
 * MAXRSS_KB HUNG": STATUS is the exit status, or 128 + the signal that
 * ended it; HUNG is 1 when the limit killed it. The exit status of
 * shb-hostile-run is 0 when that line was written, 2 on bad usage, 1
 * when the program could not be started. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_NS 2000000L /* 2 ms between looks at the child */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, POLL_NS };
	struct rusage ru;
	long long t0, limit;
	int status = 0, hung = 0;
	pid_t pid, r;
	FILE *out;

	if (argc < 4 || (limit = atoll(argv[1])) <= 0) {
		fprintf(stderr, "usage: shb-hostile-run LIMIT_MS OUT_FILE PROGRAM ARGS...\n");
		return 2;
	}
	t0 = now_ms();
	pid = fork();
	if (pid < 0) {
		perror("shb-hostile-run: fork");
		return 1;
	}
	if (pid == 0) {
		execv(argv[3], argv + 3);
		perror("shb-hostile-run: exec");
		_exit(127);
	}
	for (;;) {
		r = wait4(pid, &status, WNOHANG, &ru);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			perror("shb-hostile-run: wait4");
			return 1;
		}
		if (!hung && now_ms() - t0 > limit) {
			hung = 1;
			kill(pid, SIGKILL);
		}
		nanosleep(&nap, NULL);
	}
	out = fopen(argv[2], "w");
	if (!out) {
		perror("shb-hostile-run: output file");
		return 1;
	}
	fprintf(out, "%d %lld %ld %d\n",
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		now_ms() - t0, ru.ru_maxrss, hung);
	return fclose(out) == 0 ? 0 : 1;
}
