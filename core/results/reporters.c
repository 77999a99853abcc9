/* The reporters of a run: loaded and their options checked before any
 * report file is created, created on their sinks, renewed between the
 * runs of a comparison, closed. Used by a run (main.c) and by `shb merge`
 * (shb_report_results). [main] thread. */
#include "results/reporters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/config.h"
#include "cli/plugin_opts.h"

static shb_ssize file_write(void *ctx, const void *buf, size_t len)
{
	FILE *f = ctx;
	if (len && fwrite(buf, 1, len, f) != len)
		return SHB_E_CLOSED;
	return (shb_ssize)len;
}

/* Loads every reporter and checks its --report-opt items before any
 * report file is created, so that a usage error truncates nothing. */
static int load_reporters(const struct shb_config *cfg, struct shb_loader *l,
			  struct shb_reporter *reps, char *err, size_t errlen)
{
	unsigned char *used = calloc(cfg->report_opt_count + 1, 1);
	int rc = 0;

	if (!used) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cfg->report_count && rc == 0; i++) {
		const struct shb_report_spec *s = &cfg->reports[i];
		struct shb_reporter *r = &reps[i];
		r->name = s->name;
		if (shb_loader_report(l, s->name, &r->h, err, errlen) < 0 ||
		    shb_report_opts(cfg, s->name, r->h.desc, &r->opts, used, err,
				    errlen) < 0)
			rc = -1;
	}
	if (rc == 0)
		rc = shb_report_opts_unused(cfg, used, err, errlen);
	free(used);
	return rc;
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

int shb_reporters_open(const struct shb_config *cfg, struct shb_loader *l,
			  const struct shb_host *host, struct shb_reporter *reps,
			  char *err, size_t errlen)
{
	if (load_reporters(cfg, l, reps, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < cfg->report_count; i++) {
		const struct shb_report_spec *s = &cfg->reports[i];
		struct shb_reporter *r = &reps[i];
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

/* --interval, or its default when a reporter wants samples; which
 * reporters get sample(). */
void shb_reporters_pick_intervals(struct shb_config *cfg, struct shb_reporter *reps)
{
	int given = cfg->interval_ns != 0;
	for (size_t i = 0; i < cfg->report_count; i++)
		if (!given && (reps[i].h.desc->flags & SHB_REPORT_WANTS_INTERVALS))
			cfg->interval_ns = SHB_INTERVAL_DEFAULT_NS;
	for (size_t i = 0; i < cfg->report_count; i++)
		reps[i].samples = cfg->interval_ns && reps[i].h.vt.sample &&
				  (given || (reps[i].h.desc->flags & SHB_REPORT_WANTS_INTERVALS));
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
int shb_report_results(const struct shb_config *cfg, struct shb_loader *l,
		       const struct shb_host *host,
		       const struct shb_run_info *info,
		       const struct shb_results *r, char *err, size_t errlen)
{
	struct shb_reporter *reps = calloc(cfg->report_count + 1, sizeof(*reps));
	int rc = 0;
	if (!reps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (shb_reporters_open(cfg, l, host, reps, err, errlen) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < cfg->report_count; i++)
		reps[i].h.vt.begin(reps[i].rep, info);
	for (size_t i = 0; rc >= 0 && i < cfg->report_count; i++)
		if (reps[i].h.vt.end(reps[i].rep, r) < 0) {
			fprintf(stderr, "shb: reporter %s failed to write its report\n",
				reps[i].name);
			rc = 1;
		}
	shb_reporters_close(reps, cfg->report_count);
	free(reps);
	return rc;
}
