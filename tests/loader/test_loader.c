/* Loader tests: discovery order, every refusal with its exact message,
 * latest-layout vtable copies, one init per file, and --list-plugins.
 *
 * The fixture plugins come from the build directory named by
 * SHB_TEST_FIXTURES (see meson.build). The suite builds a scratch tree
 * under a fresh mkdtemp directory holding symlinks and copies of them, and
 * points SHB_PLUGIN_SYSTEM_PATH into it so that the compiled-in plugin
 * directory of the machine never leaks into a result. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "engine/host.h"
#include "loader/loader.h"
#include "engine/run.h"
#include "shb_build_config.h"

/* ---- what core/engine/host.c's table points to, never called here ---------------- */

void shb_worker_req_done(struct shb_conn *c, uint64_t cookie,
			 const struct shb_req_result *res)
{
	abort();
}

void shb_worker_conn_event(struct shb_conn *c, const struct shb_conn_event *ev)
{
	abort();
}

const struct shb_origin *shb_worker_conn_origin(struct shb_conn *c)
{
	abort();
}

void shb_worker_tls_client_hello(struct shb_conn *c, const uint8_t *msg,
				 size_t len)
{
	abort();
}

void shb_worker_conn_fingerprint(struct shb_conn *c, uint32_t kind,
				 const char *text)
{
	abort();
}

void shb_worker_metric_add(struct shb_conn *c, uint32_t index, uint64_t n)
{
	abort();
}

void shb_worker_req_response(struct shb_conn *c, uint64_t cookie,
			     const struct shb_response *resp)
{
	abort();
}

void shb_worker_metric_record(struct shb_conn *c, uint32_t index,
			      uint64_t value)
{
	abort();
}

uint64_t shb_now_ns(void)
{
	return 0;
}

/* ---- fake host: counts init/deinit per plugin id ------------------------- */

struct fx_count {
	char id[64];
	int init;
	int deinit;
};

static struct fx_count counts[32];

/* Every init and deinit in order, "deinit:ID;" (for the deinit order of
 * extension providers). */
static char events[1024];

static struct fx_count *count_of(const char *id)
{
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		if (!counts[i].id[0])
			snprintf(counts[i].id, sizeof counts[i].id, "%s", id);
		if (!strcmp(counts[i].id, id))
			return &counts[i];
	}
	return NULL;
}

static void fake_log(uint32_t level, const char *plugin_id, const char *msg)
{
	struct fx_count *c = count_of(plugin_id);

	if (!c)
		return;
	if (!strcmp(msg, "init"))
		c->init++;
	else if (!strcmp(msg, "deinit"))
		c->deinit++;
	else
		return;
	snprintf(events + strlen(events), sizeof events - strlen(events),
		 "%s:%s;", msg, plugin_id);
}

static int inits(const char *id)
{
	return count_of(id)->init;
}

static int deinits(const char *id)
{
	return count_of(id)->deinit;
}

static const char *fake_strerror(int code)
{
	return code == SHB_E_UNSUPPORTED ? "operation not supported"
					 : "some other error";
}

/* The loader host->get_extension reaches, as shb_host_set_extensions
 * arranges for the real host. */
static struct shb_loader *ext_loader;

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
	.strerror = fake_strerror,
	.get_extension = fake_get_extension,
};

/* ---- scratch tree --------------------------------------------------------- */

/* Directories fit in D bytes (checked), so every message built from a few
 * of them fits in P. */
#define D 256
#define P 4096

static char fixdir[D];  /* the fixtures, as built */
static char root[D];    /* mkdtemp */
static char sysdir[D];  /* empty: SHB_PLUGIN_SYSTEM_PATH by default */
static char garbage[D]; /* shb-proto-garbage.so, a text file */
static char shadow[D];  /* a copy of shb-proto-good.so */
/* shb-proto-other.so and shb-proto-good-dgram.so -> shb-proto-good.so: a
 * short name is a file name, so a second protocol of one plugin is reached
 * through a link named after it. */
static char misc[D];
static char empty[D];   /* nothing */
static char ord_cli[D], ord_env[D], ord_sys[D], ord_bad[D]; /* "order" */
/* ABI 1.2 cases, from the .so.fx fixtures (see meson.build). */
static char v12[D];    /* notimer, timerless11, ontimer */
static char defs[D];   /* shb-proto-defsN.so, shb-report-rdefs4.so */
static char byname[D]; /* shb-report-prom.so, any.so -> good */
static char probe[D];  /* --list-plugins: crashes, extra symbol, tables */
static char ext[D];    /* extension provider and consumer */
static char extc[D];   /* the consumer alone */
static char extp[D];   /* the provider alone */
static char scripts[D]; /* script engines (ABI 1.4): shb-script-*.so */

/* Paths are built into P-byte buffers; a longer one is a broken setup. */
static void pjoin(char *buf, size_t n, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n) {
		fprintf(stderr, "path too long: %s/%s\n", dir, name);
		abort();
	}
}

static void fixture(char *buf, const char *name)
{
	pjoin(buf, P, fixdir, name);
}

static int make_dir(char *buf, const char *name)
{
	pjoin(buf, D, root, name);
	return mkdir(buf, 0700);
}

static int link_fixture(const char *dir, const char *as, const char *fx)
{
	char from[P], to[P];

	fixture(from, fx);
	pjoin(to, P, dir, as);
	return symlink(from, to);
}

static int link_fx(const char *dir, const char *as, const char *fx)
{
	char name[P];

	snprintf(name, sizeof name, "%s.so.fx", fx);
	return link_fixture(dir, as, name);
}

static int copy_file(const char *from, const char *to)
{
	char buf[8192];
	ssize_t n;
	int in = open(from, O_RDONLY), out, rc = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	close(in);
	return close(out) || rc;
}

static int write_text(const char *dir, const char *name, const char *text)
{
	char path[P];
	FILE *f;

	pjoin(path, P, dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int suite_init(void)
{
	const char *fx = getenv("SHB_TEST_FIXTURES");
	const char *tmp = getenv("TMPDIR");
	char from[P], to[P];
	int rc = 0;

	if (!fx || !fx[0]) {
		fprintf(stderr, "SHB_TEST_FIXTURES is not set\n");
		return 1;
	}
	if (strlen(fx) >= D / 2 || (tmp && strlen(tmp) >= D / 2)) {
		fprintf(stderr, "fixture or temporary directory path too long\n");
		return 1;
	}
	snprintf(fixdir, D, "%s", fx);
	snprintf(root, D, "%s/shb-loader-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(root))
		return 1;
	rc |= make_dir(sysdir, "sys") | make_dir(garbage, "garbage") |
	      make_dir(shadow, "shadow") | make_dir(misc, "misc") |
	      make_dir(empty, "empty") | make_dir(ord_cli, "ord-cli") |
	      make_dir(ord_env, "ord-env") | make_dir(ord_sys, "ord-sys") |
	      make_dir(ord_bad, "ord-bad");
	/* Longer than an ELF header, so dlopen reads it and rejects it. */
	rc |= write_text(garbage, "shb-proto-garbage.so",
			 "This is a text file that only pretends to be a "
			 "plugin by its name; the loader must refuse it.\n");
	fixture(from, "shb-proto-good.so");
	pjoin(to, P, shadow, "shb-proto-good.so");
	rc |= copy_file(from, to);
	rc |= link_fixture(misc, "shb-proto-other.so", "shb-proto-good.so");
	rc |= link_fixture(misc, "shb-proto-good-dgram.so", "shb-proto-good.so");
	rc |= link_fixture(ord_cli, "shb-proto-order.so", "shb-proto-order-a.so");
	rc |= link_fixture(ord_env, "shb-proto-order.so", "shb-proto-order-b.so");
	rc |= link_fixture(ord_sys, "shb-proto-order.so", "shb-proto-order-c.so");
	rc |= link_fixture(ord_bad, "shb-proto-order.so", "shb-proto-abi2.so");
	rc |= make_dir(v12, "v12") | make_dir(defs, "defs") |
	      make_dir(byname, "byname") | make_dir(probe, "probe") |
	      make_dir(ext, "ext") | make_dir(extc, "extc") |
	      make_dir(extp, "extp");
	rc |= link_fx(v12, "shb-proto-notimer.so", "notimer");
	rc |= link_fx(v12, "shb-proto-timerless11.so", "timerless11");
	rc |= link_fx(v12, "shb-proto-ontimer.so", "ontimer");
	for (int i = 0; i <= 22; i++) {
		char as[64], fx2[16];

		snprintf(as, sizeof as, "shb-proto-defs%d.so", i);
		snprintf(fx2, sizeof fx2, "defs%d", i);
		rc |= link_fx(defs, as, fx2);
	}
	rc |= link_fx(defs, "shb-report-rdefs4.so", "rdefs4");
	rc |= link_fx(byname, "shb-report-prom.so", "prom");
	rc |= link_fixture(byname, "any.so", "shb-proto-good.so");
	rc |= link_fx(probe, "shb-proto-crash.so", "crash-init");
	rc |= link_fx(probe, "shb-proto-crashf.so", "crash-factory");
	rc |= link_fx(probe, "shb-proto-defs0.so", "defs0");
	rc |= link_fx(probe, "shb-proto-extrasym.so", "extrasym");
	rc |= link_fixture(probe, "shb-proto-good.so", "shb-proto-good.so");
	rc |= link_fx(probe, "shb-report-prom.so", "prom");
	rc |= link_fx(ext, "shb-proto-consumer.so", "consumer");
	rc |= link_fx(ext, "shb-proto-provider.so", "provider");
	rc |= link_fx(extc, "shb-proto-consumer.so", "consumer");
	rc |= link_fx(extp, "shb-proto-provider.so", "provider");
	rc |= make_dir(scripts, "scripts");
	rc |= link_fx(scripts, "shb-script-good.so", "sgood");
	rc |= link_fx(scripts, "shb-script-minor3.so", "sminor3");
	rc |= link_fx(scripts, "shb-script-noext.so", "snoext");
	rc |= link_fx(scripts, "shb-script-dotext.so", "sdotext");
	rc |= link_fx(scripts, "shb-script-nodone.so", "snodone");
	rc |= setenv("SHB_PLUGIN_SYSTEM_PATH", sysdir, 1);
	rc |= unsetenv("SHB_PLUGIN_PATH");
	if (rc)
		fprintf(stderr, "cannot build the scratch tree in %s: %s\n",
			root, strerror(errno));
	return rc ? 1 : 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

static int suite_clean(void)
{
	if (root[0] && nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS))
		return 1;
	return 0;
}

static void open_loader(struct shb_loader *l, const char *const *dirs,
			size_t n)
{
	memset(counts, 0, sizeof counts);
	events[0] = '\0';
	shb_loader_init(l, &fake_host, (char *const *)dirs, n);
	CU_ASSERT_FATAL(!l->failed);
	/* Tests that expect warnings capture them (warn_open). */
	l->warn = NULL;
	ext_loader = l;
}

/* ---- accepted plugins --------------------------------------------------------- */

static void test_loader_proto_by_name(void)
{
	const char *dirs[] = { fixdir, misc };
	struct shb_loader l;
	struct shb_proto_handle h, d;
	char err[P] = "", want[P];

	open_loader(&l, dirs, 2);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, sizeof err), 0);
	fixture(want, "shb-proto-good.so");
	CU_ASSERT_STRING_EQUAL(h.file->path, want);
	CU_ASSERT_STRING_EQUAL(h.file->entry->id, "org.shb.test.good");
	CU_ASSERT_STRING_EQUAL(h.desc->name, "good");
	CU_ASSERT_EQUAL(h.vt.struct_size, sizeof h.vt);
	CU_ASSERT_PTR_EQUAL(h.vt.recv, h.desc->vt->recv);
	CU_ASSERT_PTR_EQUAL(h.vt.issue, h.desc->vt->issue);
	CU_ASSERT_PTR_NOT_NULL(h.vt.cancel);
	CU_ASSERT_PTR_NOT_NULL(h.vt.error_detail);
	CU_ASSERT_PTR_NULL(h.vt.recv_dgrams);

	/* The second descriptor of the same file (through the link in misc),
	 * a datagram protocol that needs no stream members, and since 1.4
	 * no write_dgrams when it has write_dgrams_v. */
	CU_ASSERT_EQUAL_FATAL(
		shb_loader_proto(&l, "good-dgram", &d, err, sizeof err), 0);
	CU_ASSERT_EQUAL(d.desc->transport, SHB_TRANSPORT_DGRAM);
	CU_ASSERT_PTR_NULL(d.vt.recv);
	CU_ASSERT_PTR_NULL(d.vt.write_dgrams);
	CU_ASSERT_PTR_EQUAL(d.vt.write_dgrams_v, d.desc->vt->write_dgrams_v);
	CU_ASSERT_PTR_NOT_NULL(d.vt.write_dgrams_v);
	CU_ASSERT_PTR_EQUAL(d.vt.conn_size_for, d.desc->vt->conn_size_for);
	CU_ASSERT_PTR_NOT_NULL(d.vt.conn_size_for);
	CU_ASSERT_PTR_NULL(h.vt.write_dgrams_v);
	CU_ASSERT_PTR_EQUAL(d.file, h.file);
	shb_loader_fini(&l);
}

static void test_loader_by_path(void)
{
	const char *dirs[] = { empty };
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;
	char err[P] = "", path[P];

	open_loader(&l, dirs, 1);
	fixture(path, "shb-proto-good.so");
	/* A path selects the file's first descriptor of the kind asked. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, path, &h, err, sizeof err), 0);
	CU_ASSERT_STRING_EQUAL(h.desc->name, "good");
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, path, &r, err, sizeof err), 0);
	CU_ASSERT_STRING_EQUAL(r.desc->name, "goodrep");
	CU_ASSERT_PTR_EQUAL(r.file, h.file);
	shb_loader_fini(&l);
}

static void test_loader_report_by_name(void)
{
	const char *dirs[] = { fixdir };
	struct shb_loader l;
	struct shb_report_handle r;
	char err[P] = "", want[P];

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, "good", &r, err, sizeof err), 0);
	fixture(want, "shb-report-good.so");
	CU_ASSERT_STRING_EQUAL(r.file->path, want);
	CU_ASSERT_STRING_EQUAL(r.desc->name, "good");
	CU_ASSERT_EQUAL(r.vt.struct_size, sizeof r.vt);
	CU_ASSERT_PTR_EQUAL(r.vt.create, r.desc->vt->create);
	CU_ASSERT_PTR_EQUAL(r.vt.end, r.desc->vt->end);
	CU_ASSERT_PTR_NULL(r.vt.sample);
	shb_loader_fini(&l);
}

/* A vtable built against v1.0 (struct_size ends at `issue`): what lies
 * beyond is not the plugin's to give, even though the fixture's static table
 * has it set. */
static void test_loader_short_vtable(void)
{
	const char *dirs[] = { fixdir };
	struct shb_loader l;
	struct shb_proto_handle h;
	char err[P] = "";

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "oldvt", &h, err, sizeof err), 0);
	CU_ASSERT_EQUAL(h.desc->vt->struct_size,
			offsetof(struct shb_proto_vtable, issue) + sizeof(void *));
	CU_ASSERT_PTR_NOT_NULL(h.desc->vt->cancel);
	CU_ASSERT_EQUAL(h.vt.struct_size, sizeof h.vt);
	CU_ASSERT_PTR_EQUAL(h.vt.issue, h.desc->vt->issue);
	CU_ASSERT_PTR_EQUAL(h.vt.capacity, h.desc->vt->capacity);
	CU_ASSERT_PTR_NULL(h.vt.cancel);
	CU_ASSERT_PTR_NULL(h.vt.shutdown);
	CU_ASSERT_PTR_NULL(h.vt.error_detail);
	shb_loader_fini(&l);
}

/* ---- refusals --------------------------------------------------------------- */

struct refusal {
	const char *file;
	const char *reason;
};

static void test_loader_refusals(void)
{
	char minor[128], major[128];
	const struct refusal cases[] = {
		{ "abi2", major },
		{ "major2", major },
		{ "minor7", minor },
		{ "short", "entry struct too short (12 bytes)" },
		{ "liar", "entry struct too short (12 bytes)" },
		{ "nosym", "not an shb plugin (no shb_plugin_entry_v1 symbol)" },
		{ "undef", "dlopen failed: undefined symbol: "
			   "shb_fixture_missing_function" },
		{ "initfail", "init failed: operation not supported" },
		{ "norecv",
		  "protocol descriptor lacks a mandatory member (recv)" },
		{ "noconn", "protocol descriptor has conn_size 0" },
	};
	const char *dirs[] = { fixdir };
	struct shb_loader l;
	struct shb_proto_handle h;
	char err[P], want[P];

	snprintf(major, sizeof major,
		 "built for shb ABI 2, this shb provides ABI %d", SHB_ABI_MAJOR);
	snprintf(minor, sizeof minor, "needs shb ABI %d.%d, this shb provides %d.%d",
		 SHB_ABI_MAJOR, SHB_ABI_MINOR + 7, SHB_ABI_MAJOR, SHB_ABI_MINOR);
	open_loader(&l, dirs, 1);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		strcpy(err, "untouched");
		CU_ASSERT_EQUAL(shb_loader_proto(&l, cases[i].file, &h, err,
						 sizeof err), -1);
		snprintf(want, P, "%s/shb-proto-%s.so: %s", fixdir,
			 cases[i].file, cases[i].reason);
		CU_ASSERT_STRING_EQUAL(err, want);
		if (strcmp(err, want))
			fprintf(stderr, "\n  got  %s\n  want %s\n", err, want);
		CU_ASSERT_PTR_NULL(h.desc);
	}
	shb_loader_fini(&l);
}

static void test_loader_refused_reporter(void)
{
	const char *dirs[] = { fixdir };
	struct shb_loader l;
	struct shb_report_handle r;
	char err[P], want[P];

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL(shb_loader_report(&l, "noend", &r, err, sizeof err), -1);
	snprintf(want, P, "%s/shb-report-noend.so: reporter descriptor lacks "
		 "a mandatory member (end)", fixdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* A protocol-only plugin asked for by path as a reporter. */
	fixture(want, "shb-proto-oldvt.so");
	CU_ASSERT_EQUAL(shb_loader_report(&l, want, &r, err, sizeof err), -1);
	strcat(want, ": provides no reporter");
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_loader_fini(&l);
}

static void test_loader_garbage(void)
{
	const char *dirs[] = { garbage };
	struct shb_loader l;
	struct shb_proto_handle h;
	char err[P], want[P];

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "garbage", &h, err, sizeof err), -1);
	snprintf(want, P,
		 "%s/shb-proto-garbage.so: dlopen failed: invalid ELF header",
		 garbage);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_loader_fini(&l);
}

static void test_loader_bad_names(void)
{
	const char *dirs[] = { misc };
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;
	char err[P], want[P];

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "", &h, err, sizeof err), -1);
	CU_ASSERT_STRING_EQUAL(err, "empty protocol name");
	CU_ASSERT_EQUAL(shb_loader_report(&l, NULL, &r, err, sizeof err), -1);
	CU_ASSERT_STRING_EQUAL(err, "empty reporter name");

	fixture(want, "shb-proto-missing.so");
	CU_ASSERT_EQUAL(shb_loader_proto(&l, want, &h, err, sizeof err), -1);
	strcat(want, ": No such file or directory");
	CU_ASSERT_STRING_EQUAL(err, want);

	CU_ASSERT_EQUAL(shb_loader_proto(&l, empty, &h, err, sizeof err), -1);
	snprintf(want, P, "%s: not a regular file", empty);
	CU_ASSERT_STRING_EQUAL(err, want);

	/* The file is there and valid but lists no protocol of that name. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "other", &h, err, sizeof err), -1);
	snprintf(want, P, "%s/shb-proto-other.so: provides no protocol named "
		 "\"other\"", misc);
	CU_ASSERT_STRING_EQUAL(err, want);

	/* A tiny buffer gets a cut, terminated line. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "", &h, err, 6), -1);
	CU_ASSERT_STRING_EQUAL(err, "empty");
	shb_loader_fini(&l);
}

/* ---- search path -------------------------------------------------------------- */

static void test_loader_unknown(void)
{
	char env[P], envb[D + 1], want[P], err[P];
	const char *dirs[] = { fixdir, empty, "", fixdir };
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;

	/* Empty entries are skipped, a trailing '/' dropped, duplicates kept
	 * once (in first position). */
	snprintf(envb, sizeof envb, "%s/", ord_env);
	snprintf(env, P, "%s::%s:%s", ord_cli, envb, empty);
	CU_ASSERT_FATAL(!setenv("SHB_PLUGIN_PATH", env, 1));
	open_loader(&l, dirs, 4);
	CU_ASSERT_EQUAL_FATAL(l.dir_count, 5);
	CU_ASSERT_STRING_EQUAL(l.dirs[0], fixdir);
	CU_ASSERT_STRING_EQUAL(l.dirs[1], empty);
	CU_ASSERT_STRING_EQUAL(l.dirs[2], ord_cli);
	CU_ASSERT_STRING_EQUAL(l.dirs[3], ord_env);
	CU_ASSERT_STRING_EQUAL(l.dirs[4], sysdir);

	CU_ASSERT_EQUAL(shb_loader_proto(&l, "h9", &h, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "unknown protocol \"h9\" (found: abi2, good, initfail, liar, "
		 "major2, minor7, noconn, norecv, nosym, oldvt, order, order-a "
		 "and 4 more): no shb-proto-h9.so in %s, %s, %s, %s, %s", fixdir,
		 empty, ord_cli, ord_env, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_loader_report(&l, "x9", &r, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "unknown reporter \"x9\" (found: good, noend): no "
		 "shb-report-x9.so in %s, %s, %s, %s, %s", fixdir, empty, ord_cli,
		 ord_env, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* The second pass (by descriptor name) asked every file in a probe
	 * child and loaded none here: only a match is loaded into the
	 * process (test_loader_probe.c has the crashing files). */
	CU_ASSERT_EQUAL(l.file_count, 0);
	shb_loader_fini(&l);
	unsetenv("SHB_PLUGIN_PATH");
}

/* A protocol shb ships is "not installed", with the package that has it,
 * and so is the reporter tui (its own package); a reporter named like a
 * protocol, or a protocol named like that reporter, is still unknown. */
static void test_loader_not_installed(void)
{
	char want[P], err[P];
	const char *dirs[] = { empty };
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL_FATAL(l.dir_count, 2);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "h3", &h, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "the HTTP/3 plugin is not installed (Debian package "
		 "shb-plugin-h3): no shb-proto-h3.so in %s, %s", empty, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "h2", &h, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "the HTTP/2 plugin is not installed (Debian package "
		 "shb-plugin-h2): no shb-proto-h2.so in %s, %s", empty, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "h1", &h, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "the HTTP/1.1 plugin is not installed (Debian package shb): "
		 "no shb-proto-h1.so in %s, %s", empty, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_loader_report(&l, "h3", &r, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "unknown reporter \"h3\": no shb-report-h3.so in %s, %s", empty,
		 sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_loader_report(&l, "tui", &r, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "the tui reporter (--tui) plugin is not installed (Debian "
		 "package shb-plugin-tui): no shb-report-tui.so in %s, %s",
		 empty, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "tui", &h, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "unknown protocol \"tui\": no shb-proto-tui.so in %s, %s", empty,
		 sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* Only exact names: "h3x" is no shipped protocol. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "h3x", &h, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "unknown protocol \"h3x\": no shb-proto-h3x.so in %s, %s", empty,
		 sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* Cut to fit, the package is still named. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "h3", &h, err, 66), -1);
	CU_ASSERT_STRING_EQUAL(err, "the HTTP/3 plugin is not installed "
				    "(Debian package shb-plugin-h3)");
	shb_loader_fini(&l);
}

static void test_loader_compiled_in_dir(void)
{
	char saved[P];
	const char *dirs[] = { empty };
	struct shb_loader l;

	snprintf(saved, P, "%s", getenv("SHB_PLUGIN_SYSTEM_PATH"));
	unsetenv("SHB_PLUGIN_SYSTEM_PATH");
	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL(l.dir_count, 2);
	CU_ASSERT_STRING_EQUAL(l.dirs[0], empty);
	CU_ASSERT_STRING_EQUAL(l.dirs[l.dir_count - 1], SHB_PLUGINDIR);
	shb_loader_fini(&l);

	/* Set but empty: no system directory at all. */
	setenv("SHB_PLUGIN_SYSTEM_PATH", "", 1);
	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL(l.dir_count, 1);
	shb_loader_fini(&l);
	setenv("SHB_PLUGIN_SYSTEM_PATH", saved, 1);
}

static const char *order_id(const char *const *dirs, size_t n, char *err)
{
	static char id[64];
	struct shb_loader l;
	struct shb_proto_handle h;

	open_loader(&l, dirs, n);
	if (shb_loader_proto(&l, "order", &h, err, P))
		snprintf(id, sizeof id, "(error)");
	else
		snprintf(id, sizeof id, "%s", h.file->entry->id);
	shb_loader_fini(&l);
	return id;
}

static void test_loader_search_order(void)
{
	const char *cli[] = { ord_cli };
	const char *bad[] = { ord_bad };
	char err[P], want[P];

	CU_ASSERT_FATAL(!setenv("SHB_PLUGIN_PATH", ord_env, 1));
	CU_ASSERT_FATAL(!setenv("SHB_PLUGIN_SYSTEM_PATH", ord_sys, 1));
	CU_ASSERT_STRING_EQUAL(order_id(cli, 1, err), "org.shb.test.order.a");
	CU_ASSERT_STRING_EQUAL(order_id(NULL, 0, err), "org.shb.test.order.b");
	/* A refused file does not stop the search (with a warning: see
	 * test_loader_refused_warns)... */
	CU_ASSERT_STRING_EQUAL(order_id(bad, 1, err), "org.shb.test.order.b");
	unsetenv("SHB_PLUGIN_PATH");
	CU_ASSERT_STRING_EQUAL(order_id(NULL, 0, err), "org.shb.test.order.c");
	CU_ASSERT_STRING_EQUAL(order_id(bad, 1, err), "org.shb.test.order.c");

	/* ...but is what the user hears about when nothing else loads. */
	CU_ASSERT_FATAL(!setenv("SHB_PLUGIN_SYSTEM_PATH", sysdir, 1));
	CU_ASSERT_STRING_EQUAL(order_id(bad, 1, err), "(error)");
	snprintf(want, P, "%s/shb-proto-order.so: built for shb ABI 2, this "
		 "shb provides ABI %d", ord_bad, SHB_ABI_MAJOR);
	CU_ASSERT_STRING_EQUAL(err, want);
}

/* ---- one load, one init ------------------------------------------------------- */

static void test_loader_init_once(void)
{
	const char *dirs[] = { fixdir, misc };
	struct shb_loader l;
	struct shb_proto_handle a, b, c, d;
	struct shb_report_handle r;
	char err[P], path[P];

	open_loader(&l, dirs, 2);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &a, err, P), 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &b, err, P), 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good-dgram", &c, err, P), 0);
	fixture(path, "shb-proto-good.so");
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, path, &r, err, P), 0);
	/* The same inode through a symlink of another name. */
	pjoin(path, P, misc, "shb-proto-other.so");
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, path, &d, err, P), 0);
	CU_ASSERT_EQUAL(inits("org.shb.test.good"), 1);
	CU_ASSERT_EQUAL(l.file_count, 1);
	CU_ASSERT_PTR_EQUAL(a.file, b.file);
	CU_ASSERT_PTR_EQUAL(a.file, c.file);
	CU_ASSERT_PTR_EQUAL(a.file, r.file);
	CU_ASSERT_PTR_EQUAL(a.file, d.file);

	/* A refusal is remembered too: init is not retried, not even by the
	 * second pass, which loads no other fixture here (probe children). */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "initfail", &a, err, P), -1);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "initfail", &a, err, P), -1);
	CU_ASSERT_EQUAL(inits("org.shb.test.initfail"), 1);
	CU_ASSERT_EQUAL(inits("org.shb.test.good"), 1);
	CU_ASSERT_EQUAL(l.file_count, 2);

	CU_ASSERT_EQUAL(deinits("org.shb.test.good"), 0);
	shb_loader_fini(&l);
	CU_ASSERT_EQUAL(deinits("org.shb.test.good"), 1);
	CU_ASSERT_EQUAL(deinits("org.shb.test.initfail"), 0);
	CU_ASSERT_PTR_NULL(l.files);
	CU_ASSERT_EQUAL(l.dir_count, 0);
}

/* ---- --list-plugins ------------------------------------------------------------- */

static char *list_output(const char *const *dirs, size_t n, int *refused)
{
	struct shb_loader l;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_FATAL(out != NULL);
	open_loader(&l, dirs, n);
	*refused = shb_loader_list(&l, out);
	fclose(out);
	shb_loader_fini(&l);
	return text;
}

static void expect_in(const char *text, const char *want)
{
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	if (!strstr(text, want))
		fprintf(stderr, "\n  missing from the list:\n%s", want);
}

static void expect_refused(const char *text, const char *dir,
			   const char *file, const char *reason)
{
	char want[P * 2];

	snprintf(want, sizeof want, "\n%s/%s: REFUSED: %s\n", dir, file, reason);
	expect_in(text, want);
}

static void test_loader_list(void)
{
	const char *dirs[] = { fixdir, garbage, shadow };
	char want[P * 4], minor[128], major[128];
	int refused = -1;
	size_t files = 0;
	char *raw = list_output(dirs, 3, &refused), *text;
	const char *abi2, *good;

	/* expect_* look for "\n<path>", so make the first line match too. */
	CU_ASSERT_FATAL(raw && asprintf(&text, "\n%s", raw) > 0);
	free(raw);
	snprintf(major, sizeof major,
		 "built for shb ABI 2, this shb provides ABI %d", SHB_ABI_MAJOR);
	snprintf(minor, sizeof minor, "needs shb ABI %d.%d, this shb provides %d.%d",
		 SHB_ABI_MAJOR, SHB_ABI_MINOR + 7, SHB_ABI_MAJOR, SHB_ABI_MINOR);

	snprintf(want, sizeof want,
		 "\n%s/shb-proto-good.so: org.shb.test.good 1.2.3, ABI %d.%d\n"
		 "  protocol good         fixture protocol org.shb.test.good\n"
		 "  protocol good-dgram   fixture datagram protocol\n"
		 "  reporter goodrep      fixture reporter in a protocol plugin\n",
		 fixdir, SHB_ABI_MAJOR, SHB_ABI_MINOR);
	expect_in(text, want);
	snprintf(want, sizeof want,
		 "\n%s/shb-report-good.so: org.shb.test.report 1.2.3, ABI %d.%d\n"
		 "  reporter good         fixture reporter org.shb.test.report\n",
		 fixdir, SHB_ABI_MAJOR, SHB_ABI_MINOR);
	expect_in(text, want);
	snprintf(want, sizeof want,
		 "\n%s/shb-proto-good.so: org.shb.test.good 1.2.3, ABI %d.%d, "
		 "shadowed by %s/shb-proto-good.so\n", shadow, SHB_ABI_MAJOR,
		 SHB_ABI_MINOR, fixdir);
	expect_in(text, want);
	snprintf(want, sizeof want,
		 "\n%s/shb-proto-norecv.so: org.shb.test.norecv 1.2.3, ABI %d.%d\n"
		 "  protocol norecv       REFUSED: protocol descriptor lacks a "
		 "mandatory member (recv)\n", fixdir, SHB_ABI_MAJOR, SHB_ABI_MINOR);
	expect_in(text, want);
	snprintf(want, sizeof want,
		 "\n%s/shb-proto-noconn.so: org.shb.test.noconn 1.2.3, ABI %d.%d\n"
		 "  protocol noconn       REFUSED: protocol descriptor has "
		 "conn_size 0\n", fixdir, SHB_ABI_MAJOR, SHB_ABI_MINOR);
	expect_in(text, want);
	snprintf(want, sizeof want,
		 "\n%s/shb-report-noend.so: org.shb.test.noend 1.2.3, ABI %d.%d\n"
		 "  reporter noend        REFUSED: reporter descriptor lacks a "
		 "mandatory member (end)\n", fixdir, SHB_ABI_MAJOR, SHB_ABI_MINOR);
	expect_in(text, want);
	for (int i = 0; i < 3; i++) {
		snprintf(want, sizeof want,
			 "\n%s/shb-proto-order-%c.so: org.shb.test.order.%c "
			 "1.2.3, ABI %d.%d\n  protocol order        fixture "
			 "protocol org.shb.test.order.%c\n", fixdir, 'a' + i,
			 'a' + i, SHB_ABI_MAJOR, SHB_ABI_MINOR, 'a' + i);
		expect_in(text, want);
	}
	expect_refused(text, fixdir, "shb-proto-abi2.so", major);
	expect_refused(text, fixdir, "shb-proto-major2.so", major);
	expect_refused(text, fixdir, "shb-proto-minor7.so", minor);
	expect_refused(text, fixdir, "shb-proto-short.so",
		       "entry struct too short (12 bytes)");
	expect_refused(text, fixdir, "shb-proto-liar.so",
		       "entry struct too short (12 bytes)");
	expect_refused(text, fixdir, "shb-proto-nosym.so",
		       "not an shb plugin (no shb_plugin_entry_v1 symbol)");
	expect_refused(text, fixdir, "shb-proto-undef.so",
		       "dlopen failed: undefined symbol: "
		       "shb_fixture_missing_function");
	expect_refused(text, fixdir, "shb-proto-initfail.so",
		       "init failed: operation not supported");
	expect_refused(text, garbage, "shb-proto-garbage.so",
		       "dlopen failed: invalid ELF header");

	/* One line per file (17 fixtures, the garbage, the copy), sorted. */
	for (const char *p = text + 1; *p; p = strchr(p, '\n') + 1)
		if (*p != ' ')
			files++;
	CU_ASSERT_EQUAL(files, 19);
	CU_ASSERT_EQUAL(refused, 12);
	snprintf(want, sizeof want, "\n%s/shb-proto-abi2.so:", fixdir);
	abi2 = strstr(text, want);
	snprintf(want, sizeof want, "\n%s/shb-proto-good.so:", fixdir);
	good = strstr(text, want);
	CU_ASSERT(abi2 && good && abi2 < good);
	/* Every file was probed in a child: the loader itself loaded none. */
	CU_ASSERT_EQUAL(inits("org.shb.test.good"), 0);
	CU_ASSERT_EQUAL(deinits("org.shb.test.good"), 0);
	free(text);
}

static void test_loader_list_empty(void)
{
	const char *dirs[] = { empty, "/nonexistent-shb-dir" };
	char want[P * 2];
	int refused = -1;
	char *text = list_output(dirs, 2, &refused);

	snprintf(want, sizeof want, "no plugins in %s, /nonexistent-shb-dir, %s\n",
		 empty, sysdir);
	CU_ASSERT_STRING_EQUAL(text, want);
	CU_ASSERT_EQUAL(refused, 0);
	free(text);
}

/* ---- refused files are never passed over silently ------------------------------ */

struct warnings {
	FILE *f;
	char *text;
	size_t len;
};

static void warn_open(struct shb_loader *l, struct warnings *w)
{
	w->text = NULL;
	w->len = 0;
	w->f = open_memstream(&w->text, &w->len);
	CU_ASSERT_FATAL(w->f != NULL);
	l->warn = w->f;
}

/* The warnings so far; the caller frees. */
static char *warn_take(struct shb_loader *l, struct warnings *w)
{
	fclose(w->f);
	l->warn = NULL;
	return w->text ? w->text : strdup("");
}

static void test_loader_refused_warns(void)
{
	const char *dirs[] = { ord_bad, ord_cli };
	struct shb_loader l;
	struct shb_proto_handle h;
	struct warnings w;
	char err[P], want[P * 2], path[P];
	char *text;

	open_loader(&l, dirs, 2);
	warn_open(&l, &w);
	/* By name: the refused copy is skipped, with one line saying so. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "order", &h, err, P), 0);
	CU_ASSERT_STRING_EQUAL(h.file->entry->id, "org.shb.test.order.a");
	text = warn_take(&l, &w);
	snprintf(want, sizeof want, "shb: warning: skipped %s/shb-proto-order.so: built "
		 "for shb ABI 2, this shb provides ABI %d; using "
		 "%s/shb-proto-order.so\n", ord_bad, SHB_ABI_MAJOR, ord_cli);
	CU_ASSERT_STRING_EQUAL(text, want);
	free(text);

	/* Named explicitly (a path): that file or nothing, no fallback. */
	warn_open(&l, &w);
	pjoin(path, P, ord_bad, "shb-proto-order.so");
	CU_ASSERT_EQUAL(shb_loader_proto(&l, path, &h, err, P), -1);
	snprintf(want, sizeof want, "%s: built for shb ABI 2, this shb provides ABI %d",
		 path, SHB_ABI_MAJOR);
	CU_ASSERT_STRING_EQUAL(err, want);
	text = warn_take(&l, &w);
	CU_ASSERT_STRING_EQUAL(text, "");
	free(text);
	shb_loader_fini(&l);
}

/* Nothing else found: the refusal is the error, and no warning repeats it. */
static void test_loader_refused_alone(void)
{
	const char *dirs[] = { ord_bad };
	struct shb_loader l;
	struct shb_proto_handle h;
	struct warnings w;
	char err[P], want[P];
	char *text;

	open_loader(&l, dirs, 1);
	warn_open(&l, &w);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "order", &h, err, P), -1);
	snprintf(want, P, "%s/shb-proto-order.so: built for shb ABI 2, this "
		 "shb provides ABI %d", ord_bad, SHB_ABI_MAJOR);
	CU_ASSERT_STRING_EQUAL(err, want);
	text = warn_take(&l, &w);
	CU_ASSERT_STRING_EQUAL(text, "");
	free(text);
	shb_loader_fini(&l);
}

/* ---- lookup by descriptor name and entry id -------------------------------------- */

static void test_loader_by_descriptor(void)
{
	const char *dirs[] = { byname };
	struct shb_loader l;
	struct shb_report_handle r;
	struct shb_proto_handle h;
	char err[P] = "", want[P];

	open_loader(&l, dirs, 1);
	/* No shb-report-md.so: reporter "md" lives in shb-report-prom.so. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, "md", &r, err, P), 0);
	CU_ASSERT_STRING_EQUAL(r.desc->name, "md");
	pjoin(want, P, byname, "shb-report-prom.so");
	CU_ASSERT_STRING_EQUAL(r.file->path, want);
	/* Protocols too, in a file of any name. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good-dgram", &h, err, P), 0);
	CU_ASSERT_STRING_EQUAL(h.desc->name, "good-dgram");
	pjoin(want, P, byname, "any.so");
	CU_ASSERT_STRING_EQUAL(h.file->path, want);
	/* An entry id selects the plugin's first descriptor of the kind. */
	CU_ASSERT_EQUAL_FATAL(
		shb_loader_report(&l, "org.shb.test.prom", &r, err, P), 0);
	CU_ASSERT_STRING_EQUAL(r.desc->name, "prom");
	CU_ASSERT_EQUAL_FATAL(
		shb_loader_proto(&l, "org.shb.test.good", &h, err, P), 0);
	CU_ASSERT_STRING_EQUAL(h.desc->name, "good");
	/* A name nothing provides is still unknown, by file name, with the
	 * names the files offer (by file name: "md" lives in prom's file). */
	CU_ASSERT_EQUAL(shb_loader_report(&l, "xml", &r, err, P), -1);
	snprintf(want, P, "unknown reporter \"xml\" (found: prom): no "
		 "shb-report-xml.so in %s, %s", byname, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(inits("org.shb.test.prom"), 1);
	shb_loader_fini(&l);
}

/* ---- ABI 1.2: optional timers, descriptor tables -------------------------------- */

static void test_loader_optional_timers(void)
{
	const char *dirs[] = { v12 };
	struct shb_loader l;
	struct shb_proto_handle h;
	char err[P] = "", want[P];

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "notimer", &h, err, P), 0);
	CU_ASSERT_EQUAL(h.file->entry->abi_minor, 2);
	CU_ASSERT_PTR_NULL(h.vt.next_deadline);
	CU_ASSERT_PTR_NULL(h.vt.on_timer);
	CU_ASSERT_PTR_NULL(h.vt.issue_var);
	CU_ASSERT_PTR_NOT_NULL(h.vt.recv);
	/* A 1.1 plugin still needs both. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "timerless11", &h, err, P), -1);
	snprintf(want, P, "%s/shb-proto-timerless11.so: protocol descriptor "
		 "lacks a mandatory member (next_deadline)", v12);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* Both or neither. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "ontimer", &h, err, P), -1);
	snprintf(want, P, "%s/shb-proto-ontimer.so: protocol vtable has "
		 "on_timer without next_deadline (both or neither)", v12);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_loader_fini(&l);
}

static void test_loader_bad_tables(void)
{
	const char *reasons[] = {
		NULL,
		"protocol descriptor has a bad scheme \"W s\" (lower case "
		"letter, then [a-z0-9+.-])",
		"protocol descriptor has scheme \"ws\" with default port 0 "
		"(1..65535)",
		"protocol descriptor lists scheme \"ws\" twice",
		"protocol descriptor has a bad option key \"Max-Frame\" "
		"(non-empty, [a-z0-9._-])",
		"protocol descriptor lists option \"mode\" twice",
		"protocol descriptor has max_dgram 65528 (at most 65527)",
		"protocol descriptor has a bad option key \"\" (non-empty, "
		"[a-z0-9._-])",
		"protocol descriptor lists more than 16 schemes",
		NULL,
		"protocol descriptor has outcome space \"redis\" numbered 5 (a "
		"plugin's own start at 65536)",
		"protocol descriptor has a bad outcome space name \"Redis\" "
		"([a-z0-9_], 1 to 31 bytes)",
		"protocol descriptor lists outcome space 65543 or \"other\" twice",
		"protocol descriptor names code 2 or \"nil\" twice in outcome "
		"space \"redis\"",
		"protocol descriptor has a bad outcome name \"a-b\" in space "
		"\"redis\" ([a-z0-9_], 1 to 31 bytes)",
		"protocol descriptor has an unknown request model (7)",
		"protocol descriptor lists more than 16 outcome spaces",
		"protocol descriptor has a bad metric name \"9lat\" "
		"([a-z][a-z0-9_], 1 to 32 bytes)",
		"protocol descriptor lists metric \"msgs_sent\" twice",
		"protocol descriptor has metric \"depth\" of unknown kind 7",
		"protocol descriptor has metric \"depth\" with a unit or help "
		"that is not printable ASCII (at most 31 and 127 bytes)",
		"protocol descriptor declares 33 metrics (at most 32)",
		"protocol descriptor declares 2 metrics without a table",
	};
	const char *dirs[] = { empty };
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;
	char err[P], want[P * 2], path[P];

	open_loader(&l, dirs, 1);
	for (int i = 0; i <= 22; i++) {
		char name[64];

		snprintf(name, sizeof name, "shb-proto-defs%d.so", i);
		pjoin(path, P, defs, name);
		strcpy(err, "untouched");
		if (!reasons[i]) {
			CU_ASSERT_EQUAL(shb_loader_proto(&l, path, &h, err, P), 0);
			CU_ASSERT_STRING_EQUAL(h.desc->scheme_defs[2].name,
					       "x-a.b+c");
			CU_ASSERT_EQUAL(h.desc->request_model,
					i == 9 ? SHB_REQMODEL_NONE : SHB_REQMODEL_HTTP);
			if (i == 9) {
				CU_ASSERT_STRING_EQUAL(
					h.desc->outcome_spaces[0].codes[1].name, "nil");
				CU_ASSERT_EQUAL(h.desc->metric_count, 3);
				CU_ASSERT_STRING_EQUAL(h.desc->metrics[1].name,
						       "msg_latency");
			}
			continue;
		}
		CU_ASSERT_EQUAL(shb_loader_proto(&l, path, &h, err, P), -1);
		snprintf(want, sizeof want, "%s: %s", path, reasons[i]);
		CU_ASSERT_STRING_EQUAL(err, want);
		if (strcmp(err, want))
			fprintf(stderr, "\n  got  %s\n  want %s\n", err, want);
	}
	pjoin(path, P, defs, "shb-report-rdefs4.so");
	CU_ASSERT_EQUAL(shb_loader_report(&l, path, &r, err, P), -1);
	snprintf(want, sizeof want, "%s: reporter descriptor has a bad option key "
		 "\"Max-Frame\" (non-empty, [a-z0-9._-])", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_loader_fini(&l);
}

/* ---- --list-plugins probes -------------------------------------------------------- */

static void test_loader_list_probe(void)
{
	const char *dirs[] = { probe };
	char want[P * 2];
	int refused = -1;
	char *text = list_output(dirs, 1, &refused);

	snprintf(want, sizeof want,
		 "%s/shb-proto-crash.so: REFUSED: crashed (signal 4) in init()\n"
		 "%s/shb-proto-crashf.so: REFUSED: crashed (signal 4) in "
		 "get_factory() or a descriptor\n"
		 "%s/shb-proto-defs0.so: org.shb.test.defs0 1.2.3, ABI %d.%d\n"
		 "  protocol defs         fixture protocol org.shb.test.defs0\n"
		 "    scheme ws 80\n"
		 "    scheme wss 443 tls\n"
		 "    scheme x-a.b+c 65535\n"
		 "    option max-frame=BYTES  largest frame to send\n"
		 "    option no_mask  send unmasked frames\n"
		 "%s/shb-proto-extrasym.so: org.shb.test.extrasym 1.2.3, ABI %d.%d\n"
		 "  WARNING: also exports shb_fixture_extra (a plugin exports "
		 "only shb_plugin_entry_v1)\n"
		 "  protocol extrasym     fixture protocol org.shb.test.extrasym\n"
		 "%s/shb-proto-good.so: org.shb.test.good 1.2.3, ABI %d.%d\n"
		 "  protocol good         fixture protocol org.shb.test.good\n"
		 "  protocol good-dgram   fixture datagram protocol\n"
		 "  reporter goodrep      fixture reporter in a protocol plugin\n"
		 "%s/shb-report-prom.so: org.shb.test.prom 1.2.3, ABI %d.%d\n"
		 "  reporter prom         fixture reporter org.shb.test.prom\n"
		 "    option max-frame=BYTES  largest frame to send\n"
		 "    option no_mask  send unmasked frames\n"
		 "  reporter md           second fixture reporter "
		 "org.shb.test.prom\n",
		 probe, probe, probe, SHB_ABI_MAJOR, SHB_ABI_MINOR, probe,
		 SHB_ABI_MAJOR, SHB_ABI_MINOR, probe, SHB_ABI_MAJOR,
		 SHB_ABI_MINOR, probe, SHB_ABI_MAJOR, SHB_ABI_MINOR);
	CU_ASSERT_STRING_EQUAL(text, want);
	if (strcmp(text, want))
		fprintf(stderr, "\n  got:\n%s\n  want:\n%s\n", text, want);
	/* Both crashes count; the warning does not. */
	CU_ASSERT_EQUAL(refused, 2);
	free(text);
}

/* ---- extensions -------------------------------------------------------------------- */

struct fx_ext {
	uint32_t struct_size;
	uint32_t reserved0;
	uintptr_t (*answer)(void);
};

#define FX_EXT_ID "org.shb.test.ext/1"

static void test_loader_extension(void)
{
	const char *dirs[] = { ext };
	struct shb_loader l;
	struct shb_proto_handle h;
	const struct shb_plugin_info *pi;
	size_t n = 0;
	char err[P] = "", want[P], real[PATH_MAX];
	void *module = NULL;

	open_loader(&l, dirs, 1);
	/* The consumer's init() asks for the extension: the loader loads the
	 * provider, later in the search path, to answer it. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "consumer", &h, err, P), 0);
	/* The consumer logs "init" once it has the extension. */
	CU_ASSERT_STRING_EQUAL(events, "init:org.shb.test.ext.provider;"
			       "init:org.shb.test.ext.consumer;");
	/* ...and uses it: module_create returns what answer() said. */
	CU_ASSERT_EQUAL(h.vt.module_create(&fake_host, NULL, &module, err, P),
			SHB_OK);
	CU_ASSERT_EQUAL((uintptr_t)module, 42);
	/* Provenance: the provider first (it answered during the lookup). */
	pi = shb_loader_plugins(&l, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(pi[0].role, "extension");
	CU_ASSERT_STRING_EQUAL(pi[0].name, FX_EXT_ID);
	CU_ASSERT_STRING_EQUAL(pi[0].id, "org.shb.test.ext.provider");
	CU_ASSERT_STRING_EQUAL(pi[1].role, "protocol");
	CU_ASSERT_STRING_EQUAL(pi[1].name, "consumer");
	pjoin(want, P, fixdir, "consumer.so.fx");
	CU_ASSERT_FATAL(realpath(want, real) != NULL);
	CU_ASSERT_STRING_EQUAL(pi[1].path, real);
	/* The consumer is deinited before what it uses. */
	events[0] = '\0';
	shb_loader_fini(&l);
	CU_ASSERT_STRING_EQUAL(events, "deinit:org.shb.test.ext.consumer;"
			       "deinit:org.shb.test.ext.provider;");
}

static void test_loader_extension_missing(void)
{
	const char *dirs[] = { extc };
	struct shb_loader l;
	struct shb_proto_handle h;
	char err[P], want[P];

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "consumer", &h, err, P), -1);
	snprintf(want, P, "%s/shb-proto-consumer.so: init failed: operation "
		 "not supported", extc);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_NULL(shb_loader_extension(&l, "org.shb.none/1"));
	shb_loader_fini(&l);
}

/* Asked outside any init() (as from module_create), the provider loaded
 * for it is deinited last. */
static void test_loader_extension_late(void)
{
	/* extp first: the search for the extension stops at the provider
	 * before it loads any other fixture. */
	const char *dirs[] = { extp, fixdir };
	struct shb_loader l;
	struct shb_proto_handle h;
	const struct fx_ext *e;
	char err[P];

	open_loader(&l, dirs, 2);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, P), 0);
	e = shb_loader_extension(&l, FX_EXT_ID);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->answer(), 42);
	/* Loaded once: asked again, the same table without a second init. */
	CU_ASSERT_PTR_EQUAL(shb_loader_extension(&l, FX_EXT_ID), e);
	CU_ASSERT_EQUAL(inits("org.shb.test.ext.provider"), 1);
	events[0] = '\0';
	shb_loader_fini(&l);
	CU_ASSERT_STRING_EQUAL(events, "deinit:org.shb.test.good;"
			       "deinit:org.shb.test.ext.provider;");
	/* After fini nothing answers. */
	CU_ASSERT_PTR_NULL(shb_loader_extension(&l, FX_EXT_ID));
}

/* The real host: the core's ids first, the loader's on the main thread
 * only. */
static void *worker_ask(void *arg)
{
	const struct shb_host *host = arg;
	static const void *got[2];

	got[0] = host->get_extension(FX_EXT_ID);
	got[1] = host->get_extension(SHB_EXT_RUN_ID);
	return got;
}

static void test_loader_host_extension(void)
{
	const char *dirs[] = { extp };
	const struct shb_host *host = shb_core_host();
	const struct fx_ext *e;
	const void *const *got;
	struct shb_loader l;
	pthread_t t;
	void *ret;

	open_loader(&l, dirs, 1);
	CU_ASSERT_PTR_NULL(host->get_extension(FX_EXT_ID));
	shb_host_set_extensions(shb_loader_extension, &l);
	CU_ASSERT_PTR_EQUAL(host->get_extension(SHB_EXT_RUN_ID),
			    &shb_ext_run_info);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, worker_ask, (void *)host) == 0);
	CU_ASSERT_FATAL(pthread_join(t, &ret) == 0);
	got = ret;
	CU_ASSERT_PTR_NULL(got[0]);
	CU_ASSERT_PTR_EQUAL(got[1], &shb_ext_run_info);
	/* Nothing was loaded for the worker's call. */
	CU_ASSERT_EQUAL(l.file_count, 0);
	e = host->get_extension(FX_EXT_ID);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->answer(), 42);
	shb_loader_fini(&l);
	shb_host_set_extensions(NULL, NULL);
	CU_ASSERT_PTR_NULL(host->get_extension(FX_EXT_ID));
}

/* ---- provenance ---------------------------------------------------------------------- */

static void test_loader_provenance(void)
{
	const char *dirs[] = { fixdir };
	const struct shb_plugin_info *pi, *again;
	struct shb_loader l;
	struct shb_proto_handle h;
	struct shb_report_handle r;
	char err[P], path[P], real[PATH_MAX];
	size_t n = 99, m = 99;

	open_loader(&l, dirs, 1);
	CU_ASSERT_PTR_NULL(shb_loader_plugins(&l, &n));
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, P), 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_proto(&l, "good", &h, err, P), 0);
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, "good", &r, err, P), 0);
	pi = shb_loader_plugins(&l, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	fixture(path, "shb-proto-good.so");
	CU_ASSERT_FATAL(realpath(path, real) != NULL);
	CU_ASSERT_EQUAL(real[0], '/');
	CU_ASSERT_STRING_EQUAL(pi[0].path, real);
	CU_ASSERT_STRING_EQUAL(pi[0].id, "org.shb.test.good");
	CU_ASSERT_STRING_EQUAL(pi[0].version, "1.2.3");
	CU_ASSERT_STRING_EQUAL(pi[0].role, "protocol");
	CU_ASSERT_STRING_EQUAL(pi[0].name, "good");
	CU_ASSERT_EQUAL(pi[0].abi_minor, SHB_ABI_MINOR);
	fixture(path, "shb-report-good.so");
	CU_ASSERT_FATAL(realpath(path, real) != NULL);
	CU_ASSERT_STRING_EQUAL(pi[1].path, real);
	CU_ASSERT_STRING_EQUAL(pi[1].id, "org.shb.test.report");
	CU_ASSERT_STRING_EQUAL(pi[1].role, "reporter");
	CU_ASSERT_STRING_EQUAL(pi[1].name, "good");
	/* A later lookup shows in a new array, never in one handed out. */
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&l, "goodrep", &r, err, P), 0);
	again = shb_loader_plugins(&l, &m);
	CU_ASSERT_EQUAL(m, 3);
	CU_ASSERT_STRING_EQUAL(again[2].name, "goodrep");
	CU_ASSERT_STRING_EQUAL(pi[1].name, "good");
	CU_ASSERT_PTR_NOT_EQUAL(pi, again);
	/* A failed lookup records nothing. */
	CU_ASSERT_EQUAL(shb_loader_proto(&l, "norecv", &h, err, P), -1);
	shb_loader_plugins(&l, &m);
	CU_ASSERT_EQUAL(m, 3);
	shb_loader_fini(&l);
}

/* ---- script engines (ABI 1.4) ------------------------------------------------ */

static void test_loader_scripts(void)
{
	const char *dirs[] = { scripts };
	const char *none[] = { empty };
	char err[P], want[P];
	struct shb_loader l;
	struct shb_script_handle s;
	static const struct { const char *name, *why; } bad[] = {
		{ "minor3", "script engines are ABI 1.4; the plugin says it needs only 1.3" },
		{ "noext", "script descriptor lists no file extension" },
		{ "dotext", "script descriptor has a bad file extension (#1: 1..16 bytes, no dot)" },
		{ "nodone", "script descriptor lacks a mandatory member (done)" },
	};

	open_loader(&l, dirs, 1);
	CU_ASSERT_EQUAL_FATAL(shb_loader_script(&l, "good", &s, err, P), 0);
	CU_ASSERT_STRING_EQUAL(s.desc->name, "good");
	CU_ASSERT_STRING_EQUAL(s.desc->extensions[1], "fxs");
	CU_ASSERT_EQUAL(s.vt.struct_size, sizeof(struct shb_script_vtable));
	CU_ASSERT_PTR_NOT_NULL(s.vt.done);
	CU_ASSERT_PTR_NOT_NULL(s.vt.destroy);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CU_ASSERT_EQUAL(shb_loader_script(&l, bad[i].name, &s, err, P), -1);
		snprintf(want, sizeof want, "%s/shb-script-%s.so: %s", scripts,
			 bad[i].name, bad[i].why);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	shb_loader_fini(&l);
	/* --list-plugins: the engine with its extensions, the refusals. */
	int refused = -1;
	char *text = list_output(dirs, 1, &refused);
	snprintf(want, sizeof want,
		 "%s/shb-script-dotext.so: org.shb.test.sdotext 1.2.3, ABI %d.%d\n"
		 "  script   dotext       REFUSED: %s\n"
		 "%s/shb-script-good.so: org.shb.test.sgood 1.2.3, ABI %d.%d\n"
		 "  script   good         fixture script engine org.shb.test.sgood\n"
		 "    extension fx\n"
		 "    extension fxs\n"
		 "%s/shb-script-minor3.so: org.shb.test.sminor3 1.2.3, ABI %d.3\n"
		 "  script   minor3       REFUSED: %s\n"
		 "%s/shb-script-nodone.so: org.shb.test.snodone 1.2.3, ABI %d.%d\n"
		 "  script   nodone       REFUSED: %s\n"
		 "%s/shb-script-noext.so: org.shb.test.snoext 1.2.3, ABI %d.%d\n"
		 "  script   noext        REFUSED: %s\n",
		 scripts, SHB_ABI_MAJOR, SHB_ABI_MINOR, bad[2].why,
		 scripts, SHB_ABI_MAJOR, SHB_ABI_MINOR,
		 scripts, SHB_ABI_MAJOR, bad[0].why,
		 scripts, SHB_ABI_MAJOR, SHB_ABI_MINOR, bad[3].why,
		 scripts, SHB_ABI_MAJOR, SHB_ABI_MINOR, bad[1].why);
	CU_ASSERT_STRING_EQUAL(text, want);
	if (strcmp(text, want))
		fprintf(stderr, "\n  got:\n%s\n  want:\n%s\n", text, want);
	CU_ASSERT_EQUAL(refused, 4);
	free(text);
	/* Not installed: the package to install. */
	open_loader(&l, none, 1);
	CU_ASSERT_EQUAL(shb_loader_script(&l, "lua", &s, err, P), -1);
	snprintf(want, sizeof want, "the Lua script engine (-s) plugin is not "
		 "installed (Debian package shb-plugin-lua): no "
		 "shb-script-lua.so in %s, %s", empty, sysdir);
	CU_ASSERT_STRING_EQUAL(err, want);
	shb_loader_fini(&l);
}

static CU_TestInfo loader_tests[] = {
	{ "scripts", test_loader_scripts },
	{ "proto_by_name", test_loader_proto_by_name },
	{ "by_path", test_loader_by_path },
	{ "report_by_name", test_loader_report_by_name },
	{ "short_vtable", test_loader_short_vtable },
	{ "refusals", test_loader_refusals },
	{ "refused_reporter", test_loader_refused_reporter },
	{ "garbage", test_loader_garbage },
	{ "bad_names", test_loader_bad_names },
	{ "unknown", test_loader_unknown },
	{ "not_installed", test_loader_not_installed },
	{ "compiled_in_dir", test_loader_compiled_in_dir },
	{ "search_order", test_loader_search_order },
	{ "init_once", test_loader_init_once },
	{ "list", test_loader_list },
	{ "list_empty", test_loader_list_empty },
	{ "refused_warns", test_loader_refused_warns },
	{ "refused_alone", test_loader_refused_alone },
	{ "by_descriptor", test_loader_by_descriptor },
	{ "optional_timers", test_loader_optional_timers },
	{ "bad_tables", test_loader_bad_tables },
	{ "list_probe", test_loader_list_probe },
	{ "extension", test_loader_extension },
	{ "extension_missing", test_loader_extension_missing },
	{ "extension_late", test_loader_extension_late },
	{ "host_extension", test_loader_host_extension },
	{ "provenance", test_loader_provenance },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "loader", suite_init, suite_clean, NULL, NULL, loader_tests },
	CU_SUITE_INFO_NULL,
};
