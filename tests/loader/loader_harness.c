/* The loader tests' host and scratch tree (loader_harness.h). */
#include "loader_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "engine/host.h"
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
char events[1024];

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

int inits(const char *id)
{
	return count_of(id)->init;
}

int deinits(const char *id)
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

const struct shb_host fake_host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "test",
	.log = fake_log,
	.strerror = fake_strerror,
	.get_extension = fake_get_extension,
};

/* ---- scratch tree --------------------------------------------------------- */

char fixdir[D];  /* the fixtures, as built */
char root[D];    /* mkdtemp */
char sysdir[D];  /* empty: SHB_PLUGIN_SYSTEM_PATH by default */
char garbage[D]; /* shb-proto-garbage.so, a text file */
char shadow[D];  /* a copy of shb-proto-good.so */
/* shb-proto-other.so and shb-proto-good-dgram.so -> shb-proto-good.so: a
 * short name is a file name, so a second protocol of one plugin is reached
 * through a link named after it. */
char misc[D];
char empty[D];   /* nothing */
char ord_cli[D], ord_env[D], ord_sys[D], ord_bad[D]; /* "order" */
/* ABI 1.2 cases, from the .so.fx fixtures (see meson.build). */
char v12[D];    /* notimer, timerless11, ontimer */
char defs[D];   /* shb-proto-defsN.so, shb-report-rdefs4.so */
char byname[D]; /* shb-report-prom.so, any.so -> good */
char probe[D];  /* --list-plugins: crashes, extra symbol, tables */
char ext[D];    /* extension provider and consumer */
char extc[D];   /* the consumer alone */
char extp[D];   /* the provider alone */
char scripts[D]; /* script engines (ABI 1.4): shb-script-*.so */

/* Paths are built into P-byte buffers; a longer one is a broken setup. */
void pjoin(char *buf, size_t n, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n) {
		fprintf(stderr, "path too long: %s/%s\n", dir, name);
		abort();
	}
}

void fixture(char *buf, const char *name)
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

/* Each suite's: the scratch tree is built once. */
int suite_init(void)
{
	const char *fx = getenv("SHB_TEST_FIXTURES");
	const char *tmp = getenv("TMPDIR");
	char from[P], to[P];
	int rc = 0;

	if (root[0])
		return 0;
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

/* The last suite's. */
int suite_clean(void)
{
	if (root[0] && nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS))
		return 1;
	return 0;
}

void open_loader(struct shb_loader *l, const char *const *dirs,
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


char *list_output(const char *const *dirs, size_t n, int *refused)
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
