/* Lookups that survive a plugin that crashes while it loads: every file a
 * lookup would load is loaded first in a probe child (core/loader/loader_probe.c),
 * so a crash in init() or in get_factory() is a refusal with one line,
 * the scan by descriptor skips such a file and loads only its match, and
 * the extension scan does the same.
 *
 * The crashing fixtures (crash-init.so.fx, crash-factory.so.fx: SIGILL)
 * come from SHB_TEST_FIXTURES like test_loader.c's; the test links them
 * into a scratch directory under .so names. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "loader/loader.h"

#define D 256
#define P 4096

static char fixdir[D], root[D], sysdir[D];
static char crashy[D]; /* crash, crashf, good, prom */
static char crashext[D]; /* crash, provider */
static struct shb_loader *ext_loader;
static int inits_here; /* init() calls that logged in this process */

static void fake_log(uint32_t level, const char *plugin_id, const char *msg)
{
	(void)level;
	(void)plugin_id;
	if (!strcmp(msg, "init"))
		inits_here++;
}

static const void *fake_get_extension(const char *id)
{
	return shb_loader_extension(ext_loader, id);
}

static const struct shb_host fake_host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "test",
	.log = fake_log,
	.get_extension = fake_get_extension,
};

static void pjoin(char *buf, size_t n, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n)
		abort();
}

static int link_in(const char *dir, const char *as, const char *fx)
{
	char from[P], to[P];

	pjoin(from, P, fixdir, fx);
	pjoin(to, P, dir, as);
	return symlink(from, to);
}

static int make_dir(char *buf, const char *name)
{
	pjoin(buf, D, root, name);
	return mkdir(buf, 0700);
}

static int suite_init(void)
{
	const char *fx = getenv("SHB_TEST_FIXTURES");
	const char *tmp = getenv("TMPDIR");
	int rc = 0;

	if (!fx || strlen(fx) >= D / 2 || (tmp && strlen(tmp) >= D / 2))
		return 1;
	snprintf(fixdir, D, "%s", fx);
	snprintf(root, D, "%s/shb-probe-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(root))
		return 1;
	rc |= make_dir(sysdir, "sys") | make_dir(crashy, "crashy") |
	      make_dir(crashext, "crashext");
	rc |= link_in(crashy, "shb-proto-crash.so", "crash-init.so.fx");
	rc |= link_in(crashy, "shb-proto-crashf.so", "crash-factory.so.fx");
	rc |= link_in(crashy, "shb-proto-good.so", "shb-proto-good.so");
	rc |= link_in(crashy, "shb-report-prom.so", "prom.so.fx");
	rc |= link_in(crashext, "shb-proto-crash.so", "crash-init.so.fx");
	rc |= link_in(crashext, "shb-proto-provider.so", "provider.so.fx");
	rc |= setenv("SHB_PLUGIN_SYSTEM_PATH", sysdir, 1);
	rc |= unsetenv("SHB_PLUGIN_PATH");
	if (rc)
		fprintf(stderr, "cannot build %s: %s\n", root, strerror(errno));
	return rc ? 1 : 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int suite_clean(void)
{
	return root[0] && nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void open_loader(struct shb_loader *l, const char *dir)
{
	char *const dirs[] = { (char *)dir };

	inits_here = 0;
	shb_loader_init(l, &fake_host, dirs, 1);
	CU_ASSERT_FATAL(!l->failed);
	l->warn = NULL;
	ext_loader = l;
}

/* No file of the two crashing fixtures was loaded into this process. */
static int crash_loaded(const struct shb_loader *l)
{
	for (const struct shb_plugin_file *f = l->files; f; f = f->next)
		if (strstr(f->path, "/shb-proto-crash"))
			return 1;
	return 0;
}

/* By file name and by descriptor, with two crashing files ahead in the
 * directory: both lookups succeed and only their files are loaded. */
static void test_probe_lookups_survive(void)
{
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;
	char err[P] = "", want[P];

	open_loader(&l, crashy);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, P), 0);
	CU_ASSERT_STRING_EQUAL(h.desc->name, "good");
	/* "md" is no file name: the scan probes crash, crashf (both die in
	 * their child), good (no reporter md), then prom. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, "md", &r, err, P), 0);
	CU_ASSERT_STRING_EQUAL(r.desc->name, "md");
	pjoin(want, P, crashy, "shb-report-prom.so");
	CU_ASSERT_STRING_EQUAL(r.file->path, want);
	CU_ASSERT_EQUAL(l.file_count, 2);
	CU_ASSERT_FALSE(crash_loaded(&l));
	/* good and prom, once each, here. */
	CU_ASSERT_EQUAL(inits_here, 2);
	/* An extension nobody offers: the scan probes every file again. */
	CU_ASSERT_PTR_NULL(shb_loader_extension(&l, "org.example.none/1"));
	CU_ASSERT_EQUAL(l.file_count, 2);
	shb_loader_fini(&l);
}

/* Naming a crashing plugin, by name or by path: one line, the step. */
static void test_probe_named_crash(void)
{
	struct shb_loader l;
	struct shb_proto_handle h;
	char err[P] = "", want[P], path[P];

	open_loader(&l, crashy);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "crash", &h, err, P), -1);
	snprintf(want, P, "%s/shb-proto-crash.so: crashed (signal 4) in init()",
		 crashy);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "crashf", &h, err, P), -1);
	snprintf(want, P, "%s/shb-proto-crashf.so: crashed (signal 4) in "
		 "get_factory() or a descriptor", crashy);
	CU_ASSERT_STRING_EQUAL(err, want);
	pjoin(path, P, crashy, "shb-proto-crashf.so");
	CU_ASSERT_EQUAL(shb_loader_proto(&l, path, &h, err, P), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* An unknown name: the scan's first crash is named after the path. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "h9", &h, err, P), -1);
	snprintf(want, P, "unknown protocol \"h9\" (found: crash, crashf, "
		 "good): no shb-proto-h9.so in %s, %s; skipped "
		 "%s/shb-proto-crash.so: crashed (signal 4) in init()", crashy,
		 sysdir, crashy);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(l.file_count, 0);
	CU_ASSERT_EQUAL(inits_here, 0);
	shb_loader_fini(&l);
}

/* The extension scan skips a crashing file and loads the provider. */
static void test_probe_extension(void)
{
	struct shb_loader l;

	open_loader(&l, crashext);
	CU_ASSERT_PTR_NOT_NULL(shb_loader_extension(&l, "org.shb.test.ext/1"));
	CU_ASSERT_EQUAL(l.file_count, 1);
	CU_ASSERT_EQUAL(inits_here, 1);
	CU_ASSERT_FALSE(crash_loaded(&l));
	shb_loader_fini(&l);
}

static CU_TestInfo probe_tests[] = {
	{ "lookups_survive", test_probe_lookups_survive },
	{ "named_crash", test_probe_named_crash },
	{ "extension", test_probe_extension },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "loader_probe", suite_init, suite_clean, NULL, NULL, probe_tests },
	CU_SUITE_INFO_NULL,
};
