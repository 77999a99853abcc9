/* The reporters of a run, once the plan has loaded them and checked their
 * options (plan_reports.h): created on their sinks, renewed between the
 * runs of a comparison, closed. Used by a run (main.c) and by `shb merge`
 * (shb_report_results). [main] thread. */
#include "results/reporters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/config.h"
#include "plan/plan_reports.h"

static shb_ssize file_write(void *ctx, const void *buf, size_t len)
{
	FILE *f = ctx;
	if (len && fwrite(buf, 1, len, f) != len)
		return SHB_E_CLOSED;
	return (shb_ssize)len;
}

static int create_reporter(const struct shb_host *host, struct shb_reporter *r,
			   char *err, size_t errlen)
{
	char rerr[256] = "";
	if (r->h.vt.create(host, &r->os, r->opts, &r->rep, rerr, sizeof(rerr)) < 0) {
		snprintf(err, errlen, "reporter %s: %s", r->name,
			 rerr[0] ? rerr : "could not be created");
		r->rep = NULL;
		return -1;
	}
	return 0;
}

int shb_reporters_open(const struct shb_plan_report *pr, size_t n,
		       const struct shb_host *host, struct shb_reporter *reps,
		       char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const struct shb_plan_report *s = &pr[i];
		struct shb_reporter *r = &reps[i];
		r->h = s->h;
		r->name = s->name;
		r->samples = s->samples;
		if (s->opts && !(r->opts = strdup(s->opts))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (s->path) {
			r->f = fopen(s->path, "w");
			if (!r->f) {
				snprintf(err, errlen, "--report %s: cannot write %s: %s",
					 s->name, s->path, strerror(errno));
				return -1;
			}
			r->own_file = 1;
		} else {
			r->f = stdout;
		}
		r->os.struct_size = sizeof(r->os);
		r->os.is_terminal = (uint32_t)isatty(fileno(r->f));
		r->os.ctx = r->f;
		r->os.write = file_write;
		r->fresh = r->h.file && r->h.file->entry &&
			   r->h.file->entry->abi_minor < 3;
		if (create_reporter(host, r, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* A comparison's next run: reporters older than ABI 1.3 know of one run
 * per instance, so each gets a new one on the same sink. */
int shb_reporters_renew(const struct shb_host *host, struct shb_reporter *reps,
			   size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		struct shb_reporter *r = &reps[i];
		if (!r->fresh)
			continue;
		if (r->rep)
			r->h.vt.destroy(r->rep);
		r->rep = NULL;
		fflush(r->f);
		if (create_reporter(host, r, err, errlen) < 0)
			return -1;
	}
	return 0;
}

void shb_reporters_close(struct shb_reporter *reps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct shb_reporter *r = &reps[i];
		if (r->rep)
			r->h.vt.destroy(r->rep);
		free(r->opts);
		if (r->own_file && r->f)
			fclose(r->f);
		else if (r->f)
			fflush(r->f);
	}
}

/* shb merge's reporting (merge.h): the reporters of a run, over results
 * that no run produced. */
int shb_report_results(const struct shb_plan_report *pr, size_t n,
		       const struct shb_host *host,
		       const struct shb_run_info *info,
		       const struct shb_results *r, char *err, size_t errlen)
{
	struct shb_reporter *reps = calloc(n + 1, sizeof(*reps));
	int rc = 0;
	if (!reps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (shb_reporters_open(pr, n, host, reps, err, errlen) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < n; i++)
		reps[i].h.vt.begin(reps[i].rep, info);
	for (size_t i = 0; rc >= 0 && i < n; i++)
		if (reps[i].h.vt.end(reps[i].rep, r) < 0) {
			fprintf(stderr, "shb: reporter %s failed to write its report\n",
				reps[i].name);
			rc = 1;
		}
	shb_reporters_close(reps, n);
	free(reps);
	return rc;
}
