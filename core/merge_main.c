/* `shb merge [OPTIONS] FILE...`: the reports of several runs as one (see
 * merge.h). Options: those of a run that concern the report: --report,
 * --report-opt, -j/--json, --slo, --percentiles, --plugin-dir, -q (no
 * lines on stderr about each report merged). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/host.h"
#include "merge_main.h"
#include "results/merge.h"
#include "results/reporters.h"
#include "results/slo_check.h"
#include "results/merge_json.h"
#include "plan/plan_reports.h"
#include "common/quote.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
#define EXIT_SLO_FAILED 3

/* The options merge takes, and whether each takes a value. */
static const struct {
	const char *name;
	int has_arg;
} merge_opts[] = {
	{"--report", 1}, {"--report-opt", 1}, {"--json", 0}, {"-j", 0},
	{"--slo", 1}, {"--percentiles", 1}, {"--plugin-dir", 1},
	{"--quiet", 0}, {"-q", 0},
};

/* 0: not an option of merge; 1: one without value (or with "=value");
 * 2: one whose value is the next argument. */
static int opt_kind(const char *a)
{
	for (size_t i = 0; i < sizeof(merge_opts) / sizeof(merge_opts[0]); i++) {
		size_t n = strlen(merge_opts[i].name);
		if (strncmp(a, merge_opts[i].name, n))
			continue;
		if (a[n] == '\0')
			return merge_opts[i].has_arg ? 2 : 1;
		if (a[n] == '=' && merge_opts[i].has_arg)
			return 1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("Usage: shb merge [OPTIONS] FILE|DIR...\n"
	      "Merges the JSON reports (--report json:FILE) of runs with the same\n"
	      "options, such as the shards of one run, into one report: counts\n"
	      "summed, histograms merged bucket for bucket, intervals aligned on\n"
	      "the wall clock, a line per report and their start skew kept in the\n"
	      "report. A directory stands for its *.json files. Unless -q, one line\n"
	      "per report on stderr.\n"
	      "  --report LIST, --report-opt NAME.KEY[=VALUE], -j, --json\n"
	      "  --slo EXPR, --percentiles LIST, --plugin-dir DIR, -q\n"
	      "                 as for a run (see shb --help)\n"
	      "Exit status: 0 merged, 1 a reporter failed or nothing succeeded,\n"
	      "2 usage error or reports that do not merge, 3 an --slo failed.\n", f);
}

/* Splits argv into the options, given to shb_cli_parse with a URL that
 * is never used, and the files. */
static int split_args(int argc, char **argv, char **opts, int *nopts,
		      char **files, int *nfiles, char *err, size_t errlen)
{
	int only_files = 0;
	*nopts = 1;
	*nfiles = 0;
	opts[0] = (char *)"shb"; /* never written */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_files || a[0] != '-' || !a[1]) {
			files[(*nfiles)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_files = 1;
			continue;
		}
		int k = opt_kind(a);
		if (k == 0) {
			snprintf(err, errlen, "merge: unknown option %s", a);
			return -1;
		}
		opts[(*nopts)++] = argv[i];
		if (k == 2) {
			if (i + 1 == argc) {
				snprintf(err, errlen, "merge: %s needs a value", a);
				return -1;
			}
			opts[(*nopts)++] = argv[++i];
		}
	}
	if (*nfiles == 0) {
		snprintf(err, errlen, "merge: no report files given");
		return -1;
	}
	opts[(*nopts)++] = (char *)"http://merged.invalid/";
	return 0;
}

/* One line per report, shown once all of them merged: what each run
 * contributed, and the spread of their start times. */
struct part_lines {
	char *text;
	size_t len;
};

static void add_part_line(struct part_lines *pl, const char *name,
			  const json_t *doc)
{
	char line[512], shard[48] = "";
	const json_t *sh = json_object_get(doc, "shard");
	const json_t *req = json_object_get(doc, "requests");
	if (json_is_object(sh))
		snprintf(shard, sizeof(shard), "shard %lld/%lld, ",
			 (long long)json_integer_value(json_object_get(sh, "index")),
			 (long long)json_integer_value(json_object_get(sh, "count")));
	const char *start = json_string_value(json_object_get(doc, "startTime"));
	int n = snprintf(line, sizeof(line), "shb: merged %s: %s%lld requests "
			 "(%lld ok) in %.3fs, started %s\n", name, shard,
			 (long long)json_integer_value(json_object_get(req, "total")),
			 (long long)json_integer_value(json_object_get(req, "ok")),
			 json_number_value(json_object_get(doc, "durationSeconds")),
			 start ? start : "at an unknown time");
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	char *t = realloc(pl->text, pl->len + (size_t)n + 1);
	if (!t)
		return;
	memcpy(t + pl->len, line, (size_t)n + 1);
	pl->text = t;
	pl->len += (size_t)n;
}

static int read_one(struct shb_merge *m, const char *file,
		    struct part_lines *pl, char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc = json_load_file(file, 0, &je);
	if (!doc) {
		if (je.line > 0)
			snprintf(err, errlen, "merge: %s: line %d: %s", file,
				 je.line, je.text);
		else
			snprintf(err, errlen, "merge: %s", je.text);
		return -1;
	}
	int rc = shb_merge_add(m, file, doc, err, errlen);
	if (rc == 0)
		add_part_line(pl, file, doc);
	json_decref(doc);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory stands for its *.json files, in name order. */
static int read_dir(struct shb_merge *m, const char *dir,
		    struct part_lines *pl, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "merge: cannot read the directory %s", dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || e->d_name[0] == '.' ||
		    strcmp(e->d_name + len - 5, ".json"))
			continue;
		char **more = realloc(names, (n + 1) * sizeof(*names));
		size_t plen = strlen(dir) + len + 2;
		char *path = more ? malloc(plen) : NULL;
		if (more)
			names = more;
		if (!path) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		snprintf(path, plen, "%s/%s", dir, e->d_name);
		names[n++] = path;
	}
	closedir(d);
	if (rc == 0 && n == 0) {
		snprintf(err, errlen, "merge: no .json file in %s", dir);
		rc = -1;
	}
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = read_one(m, names[i], pl, err, errlen);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int read_all(struct shb_merge *m, char **files, int n,
		    struct part_lines *pl, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		struct stat st;
		int rc = stat(files[i], &st) == 0 && S_ISDIR(st.st_mode) ?
			 read_dir(m, files[i], pl, err, errlen) :
			 read_one(m, files[i], pl, err, errlen);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Shards of one run load together. Reports whose loads never overlapped
 * (the last to start started after the first to end had ended) are runs
 * one after another, whose summed requests/s describes no moment: said
 * even with -q, since the merged report cannot show it. */
static void warn_apart(const struct shb_merge *m)
{
	uint64_t last_start = 0, first_end = UINT64_MAX;
	size_t n = json_array_size(m->docs);
	for (size_t i = 0; i < n; i++) {
		const json_t *d = json_array_get(m->docs, i);
		uint64_t t = shb_merge_load_start(d);
		if (!t)
			return; /* a report without its load start: unknown */
		uint64_t end = t + shb_mj_ns(json_object_get(d, "warmupSeconds")) +
			       shb_mj_ns(json_object_get(d, "durationSeconds"));
		last_start = t > last_start ? t : last_start;
		first_end = end < first_end ? end : first_end;
	}
	if (n > 1 && last_start > first_end)
		fprintf(stderr, "shb: warning: these runs never loaded at the same "
			"time (one started %.3f s after another had ended); a "
			"merge sums shards of one run, whose loads overlap\n",
			(double)(last_start - first_end) / 1e9);
}

/* Each report's share, and how far apart the runs started (their clocks'
 * offsets are not measured: the span is as the clocks say). On stderr,
 * after the reports, so that a usage error stays one line. */
static void show_parts(const struct shb_merge *m, const struct part_lines *pl)
{
	uint64_t lo = 0, hi = 0;
	if (pl->text)
		fputs(pl->text, stderr);
	/* their load starts, as startSkewSeconds in the report */
	for (size_t i = 0; i < json_array_size(m->docs); i++) {
		uint64_t t = shb_merge_load_start(json_array_get(m->docs, i));
		if (!t) {
			lo = 0;
			break;
		}
		lo = !lo || t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	if (m->files > 1 && lo)
		fprintf(stderr, "shb: merged %zu reports; their start times span "
			"%.3f ms\n", m->files, (double)(hi - lo) / 1e6);
}

/* The json reporter writes the merged results as any run's; merge then
 * adds what only a merge knows (shb_merge_extend). Each json report goes
 * to a memory file first, then to where the user asked. */
struct json_out {
	const char *path; /* the user's file, or NULL: stdout */
	int fd;           /* the memory file, -1 when none */
	char *mem;        /* its /proc/self/fd path, the reporter's sink */
};

/* The json reporters write to memory files (pr[i].path, the plan's copy;
 * the configuration stays as parsed), completed by json_finish. */
static int json_redirect(struct shb_plan_report *pr, size_t n,
			 struct json_out *jo, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		jo[i].fd = -1;
		jo[i].path = pr[i].path;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(pr[i].name, "json"))
			continue;
		char mem[64];
		int fd = memfd_create("shb-merge-json", MFD_CLOEXEC);
		snprintf(mem, sizeof(mem), "/proc/self/fd/%d", fd);
		char *path = fd < 0 ? NULL : strdup(mem);
		if (!path) {
			snprintf(err, errlen, "cannot make a memory file: %s",
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		jo[i].fd = fd;
		jo[i].mem = path;
		pr[i].path = path;
	}
	return 0;
}

static int json_finish(const struct shb_merge *m, struct json_out *jo,
		       int write, char *err, size_t errlen)
{
	json_error_t je;
	int rc = 0;
	json_t *doc = NULL;
	FILE *in = NULL;
	if (write) {
		lseek(jo->fd, 0, SEEK_SET);
		in = fdopen(dup(jo->fd), "r");
		doc = in ? json_loadf(in, 0, &je) : NULL;
	}
	/* one line when json.compact asked for it */
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15);
	if (in) {
		char c;
		rewind(in);
		int lines = 0;
		while (fread(&c, 1, 1, in) == 1 && lines < 2)
			lines += c == '\n';
		flags |= lines < 2 ? JSON_COMPACT : JSON_INDENT(2);
		fclose(in);
	}
	if (write && !doc) {
		snprintf(err, errlen, "the json report of the merge: %s", je.text);
		rc = -1;
	}
	if (rc == 0 && write)
		rc = shb_merge_extend(m, doc, err, errlen);
	if (rc == 0 && write) {
		FILE *f = jo->path ? fopen(jo->path, "w") : stdout;
		if (!f || json_dumpf(doc, f, flags) < 0 || fputc('\n', f) == EOF ||
		    (jo->path ? fclose(f) : fflush(f)) != 0) {
			snprintf(err, errlen, "--report json: cannot write %s",
				 jo->path ? jo->path : "stdout");
			rc = -1;
		}
	}
	json_decref(doc);
	free(jo->mem);
	jo->mem = NULL;
	close(jo->fd);
	jo->fd = -1;
	return rc;
}

/* After the reporters: the json reports completed, the text reports'
 * lines about the shards. Returns 0, or -1 with one line in err. */
static int finish_reports(const struct shb_merge *m,
			  const struct shb_plan_report *pr, size_t n,
			  struct json_out *jo, int write, char *err,
			  size_t errlen)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		const char *path = jo[i].path;
		if (jo[i].fd >= 0) {
			if (json_finish(m, &jo[i], write && rc == 0, err,
					errlen) < 0)
				rc = -1;
		} else if (write && rc == 0 && !strcmp(pr[i].name, "text")) {
			FILE *f = path ? fopen(path, "a") : stdout;
			if (f) {
				shb_merge_text(m, f);
				path ? fclose(f) : fflush(f);
			}
		}
	}
	return rc;
}

static int merge_and_report(const struct shb_config *cfg, char **files,
			    int nfiles)
{
	char err[512] = "";
	struct shb_merge m;
	struct part_lines pl = {NULL, 0};
	if (shb_merge_init(&m) < 0) {
		fprintf(stderr, "shb: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	if (read_all(&m, files, nfiles, &pl, err, sizeof(err)) < 0) {
		shb_err_one_line(err, sizeof(err));
		fprintf(stderr, "shb: %s\n", err);
		free(pl.text);
		shb_merge_fini(&m);
		return EXIT_USAGE;
	}
	const struct shb_host *host = shb_core_host();
	struct shb_loader loader;
	shb_loader_init(&loader, host, cfg->plugin_dirs, cfg->plugin_dir_count);
	shb_host_set_extensions(shb_loader_extension, &loader);
	struct shb_results_buf rb;
	struct shb_run_info info;
	struct shb_target_info target;
	shb_merge_results(&m, &rb, &info, &target, cfg->percentiles,
			  cfg->percentile_count);
	size_t n = cfg->report_count;
	struct shb_plan_report *pr = NULL;
	struct json_out *jo = calloc(n + 1, sizeof(*jo));
	int rc = jo ? 0 : -1;
	if (!jo)
		snprintf(err, sizeof(err), "out of memory");
	for (size_t i = 0; jo && i < n; i++)
		jo[i].fd = -1;
	if (rc == 0)
		rc = shb_plan_reports(cfg, &loader, &pr, err, sizeof(err));
	if (rc == 0)
		rc = json_redirect(pr, n, jo, err, sizeof(err));
	if (rc == 0)
		rc = shb_report_results(pr, n, host, &info, &rb.r, err,
					sizeof(err));
	if (jo && pr && finish_reports(&m, pr, n, jo, rc >= 0, err,
				       sizeof(err)) < 0 && rc >= 0)
		rc = -1;
	shb_plan_reports_free(pr, n);
	free(jo);
	if (rc >= 0 && !cfg->quiet)
		show_parts(&m, &pl);
	if (rc >= 0)
		warn_apart(&m);
	free(pl.text);
	if (rc < 0) {
		shb_err_one_line(err, sizeof(err));
		fprintf(stderr, "shb: %s\n", err);
		rc = EXIT_USAGE;
	} else if (rc > 0 || rb.r.requests_ok == 0) {
		shb_slo_check_all(cfg, &rb.r, &m.stats.latency, "");
		rc = EXIT_RUN_FAILED;
	} else {
		rc = shb_slo_check_all(cfg, &rb.r, &m.stats.latency, "") ? EXIT_SLO_FAILED : 0;
	}
	shb_loader_fini(&loader);
	shb_host_set_extensions(NULL, NULL);
	shb_merge_fini(&m);
	return rc;
}

int shb_merge_main(int argc, char **argv)
{
	char err[512] = "";
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	char **opts = calloc((size_t)argc + 2, sizeof(*opts));
	char **files = calloc((size_t)argc + 1, sizeof(*files));
	int nopts, nfiles, rc = EXIT_USAGE;
	struct shb_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	if (!opts || !files) {
		fprintf(stderr, "shb: out of memory\n");
		rc = EXIT_RUN_FAILED;
	} else if (split_args(argc, argv, opts, &nopts, files, &nfiles, err,
			      sizeof(err)) < 0) {
		fprintf(stderr, "shb: %s (see shb merge --help)\n", err);
	} else if (shb_cli_parse(nopts, opts, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "shb: merge: %s (see shb merge --help)\n", err);
	} else {
		rc = merge_and_report(&cfg, files, nfiles);
	}
	shb_config_free(&cfg);
	free(opts);
	free(files);
	return rc;
}
