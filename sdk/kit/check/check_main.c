/* shb-plugin-check [OPTIONS] MODULE.so (options: check_args.c)
 *
 * Checks a plugin against the ABI it declares, with the test kit: one line
 * per check (PASS, FAIL, WARN, INFO), exit 1 when any check failed, 2 for
 * bad usage. Each group of checks runs in a child process, so that a
 * plugin that crashes or hangs is reported as such ("crashed (signal N)")
 * and the other groups still run. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define GROUP_TIMEOUT_S 120
#define MAX_DESCS 256
#define NAME_MAX_LEN 64

/* ---- helpers shared by the groups ------------------------------------------ */

void chk_line(struct chk *k, const char *status, const char *check,
	      const char *fmt, ...)
{
	va_list ap;

	if (!strcmp(status, "FAIL"))
		k->fails++;
	printf("%s %s: ", status, check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void chk_name(char *out, size_t n, const char *name)
{
	size_t i = 0;

	for (; name && name[i] && i + 1 < n && i < 48; i++)
		out[i] = name[i] > ' ' && name[i] < 127 ? name[i] : '?';
	out[i] = '\0';
	if (!i)
		snprintf(out, n, "#unnamed");
}

/* Opens and inits the --extensions-from plugins, each a provider of the
 * host, in order. */
static int load_providers(struct chk *k, const char *check)
{
	char err[512];
	int rc;

	for (unsigned i = 0; i < k->next; i++) {
		struct shb_kit_plugin *pp = &k->providers[i];
		const char *path = k->ext_paths[i];

		if (shb_kit_plugin_open(pp, path, err, sizeof err)) {
			chk_line(k, "FAIL", check, "--extensions-from %s: %s",
				 path, err);
			return -1;
		}
		rc = shb_kit_plugin_init(pp, &k->kh);
		if (rc != SHB_OK) {
			chk_line(k, "FAIL", check, "--extensions-from %s: init "
				 "failed: %s (%d)", path,
				 k->kh.host.strerror(rc), rc);
			shb_kit_plugin_close(pp);
			return -1;
		}
		k->nprovided++;
		if (shb_kit_plugin_provide(pp, &k->kh)) {
			chk_line(k, "FAIL", check, "--extensions-from %s: the "
				 "plugin offers no extensions (no "
				 "entry->get_extension)", path);
			return -1;
		}
	}
	return 0;
}

static void unload_providers(struct chk *k)
{
	while (k->nprovided > 0)
		shb_kit_plugin_close(&k->providers[--k->nprovided]);
}

int chk_load(struct chk *k, const char *check)
{
	char err[512];
	int rc;

	shb_kit_host_init(&k->kh, SHB_ABI_MINOR);
	k->kh.seed = k->seed;
	if (load_providers(k, check)) {
		unload_providers(k);
		return -1;
	}
	if (shb_kit_plugin_open(&k->p, k->path, err, sizeof err)) {
		chk_line(k, "FAIL", check, "%s", err);
		unload_providers(k);
		return -1;
	}
	rc = shb_kit_plugin_init(&k->p, &k->kh);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "init failed: %s (%d)",
			 k->kh.host.strerror(rc), rc);
		shb_kit_plugin_close(&k->p);
		unload_providers(k);
		return -1;
	}
	return 0;
}

/* The plugin first: a provider's tables stay valid until its deinit. */
void chk_unload(struct chk *k)
{
	shb_kit_plugin_close(&k->p);
	unload_providers(k);
	shb_kit_host_fini(&k->kh);
}

const struct shb_proto_factory *chk_proto_factory(struct chk *k)
{
	return k->p.entry->get_factory(SHB_FACTORY_PROTOCOL);
}

const struct shb_report_factory *chk_report_factory(struct chk *k)
{
	return k->p.entry->get_factory(SHB_FACTORY_REPORTER);
}

const struct shb_proto_desc *chk_proto(struct chk *k, unsigned i)
{
	const struct shb_proto_factory *f = chk_proto_factory(k);

	return f && i < f->count ? f->get(i) : NULL;
}

const struct shb_report_desc *chk_report(struct chk *k, unsigned i)
{
	const struct shb_report_factory *f = chk_report_factory(k);

	return f && i < f->count ? f->get(i) : NULL;
}

int chk_violations(struct chk *k, const char *check)
{
	size_t n = k->kh.violation_count;

	if (n == 0)
		return 0;
	if (n == 1)
		chk_line(k, "FAIL", check, "%s", k->kh.violations[0]);
	else
		chk_line(k, "FAIL", check, "%s (and %zu more)",
			 k->kh.violations[0], n - 1);
	return 1;
}

/* ---- running groups in children --------------------------------------------- */

typedef int (*group_fn)(struct chk *k, int fd);

/* Runs fn in a child. 0 passed, 1 failed (FAIL lines printed). */
static int run_group(struct chk *k, const char *check, group_fn fn,
		     unsigned index, int fd)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		chk_line(k, "FAIL", check, "fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		int fails;

		alarm(GROUP_TIMEOUT_S);
		k->index = index;
		k->fails = 0;
		fails = fn(k, fd);
		/* Every failing exit says why. */
		if (fails != 0 && k->fails == 0)
			chk_line(k, "FAIL", check, "stopped without saying why "
				 "(a bug of shb-plugin-check)");
		fflush(stdout);
		_exit(fails != 0 ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			chk_line(k, "FAIL", check, "waitpid: %s",
				 strerror(errno));
			return 1;
		}
	}
	if (WIFSIGNALED(st)) {
		if (WTERMSIG(st) == SIGALRM)
			chk_line(k, "FAIL", check, "timed out after %d s",
				 GROUP_TIMEOUT_S);
		else
			chk_line(k, "FAIL", check, "crashed (signal %d)",
				 WTERMSIG(st));
		return 1;
	}
	if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1) {
		/* A sanitizer's report ends the child this way. */
		chk_line(k, "FAIL", check, "exited with status %d",
			 WEXITSTATUS(st));
		return 1;
	}
	return WEXITSTATUS(st);
}

static int g_entry(struct chk *k, int fd) { return chk_group_entry(k); }
static int g_init(struct chk *k, int fd) { return chk_group_init(k, fd); }
static int g_pdesc(struct chk *k, int fd) { return chk_group_proto_desc(k); }
static int g_rdesc(struct chk *k, int fd) { return chk_group_report_desc(k); }
static int g_module(struct chk *k, int fd) { return chk_group_module(k); }
static int g_random(struct chk *k, int fd) { return chk_group_random(k); }
static int g_trunc(struct chk *k, int fd) { return chk_group_truncated(k); }
static int g_deadl(struct chk *k, int fd) { return chk_group_deadlines(k); }
static int g_rrun(struct chk *k, int fd) { return chk_group_report_run(k); }
static int g_replies(struct chk *k, int fd) { return chk_group_replies(k); }
static int g_cancel(struct chk *k, int fd) { return chk_group_cancel(k); }
static int g_tmo(struct chk *k, int fd) { return chk_group_timeouts(k); }

/* What the init group found: the descriptors' names. */
struct found {
	char proto[MAX_DESCS][NAME_MAX_LEN];
	char report[MAX_DESCS][NAME_MAX_LEN];
	unsigned nproto, nreport;
};

static void read_found(int fd, struct found *f)
{
	FILE *in = fdopen(fd, "r");
	char line[NAME_MAX_LEN + 16];

	memset(f, 0, sizeof *f);
	if (!in)
		return;
	while (fgets(line, sizeof line, in)) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (!strncmp(line, "proto ", 6) && f->nproto < MAX_DESCS)
			snprintf(f->proto[f->nproto++], NAME_MAX_LEN, "%.*s",
				 NAME_MAX_LEN - 1, line + 6);
		else if (!strncmp(line, "report ", 7) && f->nreport < MAX_DESCS)
			snprintf(f->report[f->nreport++], NAME_MAX_LEN, "%.*s",
				 NAME_MAX_LEN - 1, line + 7);
	}
	fclose(in);
}

/* The protocol groups for descriptor i, named "GROUP NAME". */
static int run_proto(struct chk *k, unsigned i, const char *name)
{
	static const struct {
		const char *group;
		group_fn fn;
	} groups[] = {
		{"module", g_module},
		{"random", g_random},
		{"truncated", g_trunc},
		{"deadlines", g_deadl},
		{"replies", g_replies},
		{"cancel", g_cancel},
		{"timeouts", g_tmo},
	};
	char check[NAME_MAX_LEN + 32];
	int failed = 0;

	snprintf(check, sizeof check, "desc %s", name);
	if (run_group(k, check, g_pdesc, i, -1))
		return 1; /* the core would refuse it: nothing more to run */
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		snprintf(check, sizeof check, "%s %s", groups[g].group, name);
		failed |= run_group(k, check, groups[g].fn, i, -1) != 0;
	}
	return failed;
}

static int run_report(struct chk *k, unsigned i, const char *name)
{
	char check[NAME_MAX_LEN + 32];

	snprintf(check, sizeof check, "desc %s", name);
	if (run_group(k, check, g_rdesc, i, -1))
		return 1;
	snprintf(check, sizeof check, "reporter %s", name);
	return run_group(k, check, g_rrun, i, -1) != 0;
}

int main(int argc, char **argv)
{
	static struct found found;
	/* Static: what it points to (the replies of --replies) is kept for
	 * the process. */
	static struct chk k;
	int rc, failed = 0, pfd[2], matched = 0;

	memset(&k, 0, sizeof k);
	k.seed = 1;
	k.iterations = 200;
	k.parallel[0] = 1;
	k.parallel[1] = CHK_PARALLEL_MAX;
	k.nparallel = 2;
	rc = chk_parse_args(&k, argc, argv);
	if (rc)
		return rc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (chk_sanitizer_reexec(&k, argv))
		return 1;
	signal(SIGPIPE, SIG_IGN);

	if (run_group(&k, "entry", g_entry, 0, -1))
		return 1; /* nothing else can be loaded */
	if (pipe(pfd)) {
		chk_line(&k, "FAIL", "init", "pipe: %s", strerror(errno));
		return 1;
	}
	rc = run_group(&k, "init", g_init, 0, pfd[1]);
	close(pfd[1]);
	read_found(pfd[0], &found);
	if (rc)
		return 1;
	for (unsigned i = 0; i < found.nproto; i++) {
		if (k.proto && strcmp(k.proto, found.proto[i]))
			continue;
		matched++;
		failed |= run_proto(&k, i, found.proto[i]);
	}
	if (k.proto && !matched) {
		fprintf(stderr, "shb-plugin-check: %s has no protocol '%s'\n",
			k.path, k.proto);
		return 2;
	}
	for (unsigned i = 0; i < found.nreport && !k.proto; i++)
		failed |= run_report(&k, i, found.report[i]);
	return failed ? 1 : 0;
}
