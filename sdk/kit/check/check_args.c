/* shb-plugin-check: the command line. Bad usage is one line on stderr
 * naming the option and what is wrong, exit 2, before any check runs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define MAX_PARALLEL_ARG 1024 /* the core's -p limit */

static const char usage_text[] =
	"usage: shb-plugin-check [OPTIONS] MODULE.so\n"
	"Checks an shb plugin: entry, factories, descriptors, a module's life\n"
	"cycle, random and truncated input, replies whole and split at every\n"
	"offset, replies after a cancel, timers and timeouts, reporters.\n"
	"MODULE.so is a path; a bare name.so is looked up in the current\n"
	"directory.\n"
	"  --proto NAME         check only the protocol NAME (reporters are\n"
	"                       then skipped)\n"
	"  --replies DIR        the replies a server sends, one file each (see\n"
	"                       REPLIES in shb-plugin-check(1)); without it the\n"
	"                       HTTP/1.1 and HTTP/2 replies the checker knows,\n"
	"                       by the protocol's ALPN\n"
	"  --parallel LIST      the pipelining depths (shb's --parallel) the\n"
	"                       reply checks run at: values 1.." STR(MAX_PARALLEL_ARG) "\n"
	"                       or max (the most a connection takes, at most\n"
	"                       64), comma-separated; default 1,max\n"
	"  --proto-opt KEY[=VALUE]  an option for module_create, as shb's\n"
	"                       --proto-opt (repeatable, at most " STR(CHK_MAX_OPTS) ")\n"
	"  --seed N             seed of the random input (default 1)\n"
	"  --iterations N       connections of random input per protocol,\n"
	"                       1..100000 (default 200)\n"
	"  --extensions-from P  load and init plugin P first, and answer the\n"
	"                       plugin's host->get_extension with P's\n"
	"                       extensions (repeatable, asked in order)\n"
	"  --path PATH          the request path the modules are prepared\n"
	"                       with (default /)\n"
	"  --help               this text (also -h)\n"
	"  --version            the checker's version and ABI\n"
	"Output: one line per check, PASS, FAIL, WARN or INFO.\n"
	"Exit status: 0 all passed, 1 a check failed, 2 bad usage.\n";

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* A request target: starts with '/', visible ASCII only. */
static int path_ok(const char *s)
{
	if (s[0] != '/')
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s >= 127)
			return 0;
	return 1;
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("shb-plugin-check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	return 2;
}

/* A plugin file: readable; a bare name that exists in the current
 * directory becomes ./name, since dlopen would search the library path
 * for a name without a slash. The result is `a` or a static copy. */
static int module_path(const char *a, const char **out)
{
	static char bare[CHK_MAX_PROVIDERS + 1][256];
	static unsigned nbare;

	if (access(a, R_OK))
		return usage_error("cannot read '%s'", a);
	*out = a;
	if (strchr(a, '/'))
		return 0;
	if (strlen(a) + 3 > sizeof bare[0] || nbare == CHK_MAX_PROVIDERS + 1)
		return usage_error("'%s': give a path with a slash", a);
	snprintf(bare[nbare], sizeof bare[0], "./%s", a);
	*out = bare[nbare++];
	return 0;
}

/* --parallel 1,4,max */
static int parallel_list(struct chk *k, const char *v)
{
	const char *s = v;

	k->nparallel = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		char word[16];
		uint64_t p;

		if (n == 0 || n >= sizeof word || k->nparallel == CHK_MAX_PARALLEL)
			return usage_error("--parallel '%s' is not a list of at "
					   "most %d values 1..%d or max", v,
					   CHK_MAX_PARALLEL, MAX_PARALLEL_ARG);
		memcpy(word, s, n);
		word[n] = '\0';
		if (!strcmp(word, "max"))
			p = CHK_PARALLEL_MAX;
		else if (parse_u64(word, &p) || p < 1 || p > MAX_PARALLEL_ARG)
			return usage_error("--parallel: '%s' is not 1..%d or max",
					   word, MAX_PARALLEL_ARG);
		k->parallel[k->nparallel++] = (uint32_t)p;
		s += n;
		if (*s == ',' && !*++s)
			return usage_error("--parallel '%s' ends with a comma", v);
	}
	return k->nparallel ? 0 : usage_error("%s", "--parallel is empty");
}

/* KEY=VALUE, or KEY alone (a flag: value ""). argv stays as typed (it
 * may be run again, check_san.c): the key is a copy kept static. */
static int proto_opt(struct chk *k, const char *v)
{
	static char *keys[CHK_MAX_OPTS];
	const char *eq = strchr(v, '=');
	size_t n = eq ? (size_t)(eq - v) : strlen(v);

	if (k->nopts == CHK_MAX_OPTS)
		return usage_error("at most %d --proto-opt", CHK_MAX_OPTS);
	if (n == 0)
		return usage_error("--proto-opt '%s' has no key", v);
	keys[k->nopts] = strndup(v, n);
	if (!keys[k->nopts])
		return usage_error("%s", "out of memory");
	k->opts[k->nopts].key = keys[k->nopts];
	k->opts[k->nopts].value = eq ? eq + 1 : "";
	k->nopts++;
	return 0;
}

/* An option with a value, argv[i + 1]. */
static int valued(struct chk *k, const char *a, const char *v)
{
	uint64_t n;

	if (!strcmp(a, "--extensions-from")) {
		if (k->next == CHK_MAX_PROVIDERS)
			return usage_error("at most %d --extensions-from",
					   CHK_MAX_PROVIDERS);
		return module_path(v, &k->ext_paths[k->next++]);
	}
	if (!strcmp(a, "--path")) {
		if (!path_ok(v))
			return usage_error("--path '%s' is not a request path "
					   "(/..., printable, no spaces)", v);
		k->req_path = v;
		return 0;
	}
	if (!strcmp(a, "--proto")) {
		k->proto = v;
		return 0;
	}
	if (!strcmp(a, "--replies")) {
		k->replies_dir = v;
		return 0;
	}
	if (!strcmp(a, "--parallel"))
		return parallel_list(k, v);
	if (!strcmp(a, "--proto-opt"))
		return proto_opt(k, v);
	if (parse_u64(v, &n))
		return usage_error("bad number '%s'", v);
	if (!strcmp(a, "--seed")) {
		k->seed = n;
		return 0;
	}
	if (n == 0 || n > 100000)
		return usage_error("--iterations '%s' is not in 1..100000", v);
	k->iterations = (unsigned)n;
	return 0;
}

static int is_valued(const char *a)
{
	static const char *const names[] = {
		"--proto", "--seed", "--iterations", "--extensions-from",
		"--path", "--replies", "--parallel", "--proto-opt",
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(a, names[i]))
			return 1;
	return 0;
}

int chk_parse_args(struct chk *k, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			printf("shb-plugin-check %s (ABI %d.%d)\n",
			       SHB_VERSION_STRING, SHB_ABI_MAJOR, SHB_ABI_MINOR);
			exit(0);
		} else if (is_valued(a)) {
			if (i + 1 >= argc)
				return usage_error("%s needs a value", a);
			rc = valued(k, a, argv[++i]);
			if (rc)
				return rc;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else if (k->path) {
			return usage_error("one module at a time ('%s' too)", a);
		} else if ((rc = module_path(a, &k->path))) {
			return rc;
		}
	}
	if (!k->path)
		return usage_error("%s", "no MODULE.so given");
	if (k->replies_dir && chk_corpus_load(k))
		return 2;
	return 0;
}
