/* Loader tests: discovery order, every refusal with its exact message,
 * latest-layout vtable copies, one init per file, and --list-plugins.
 * This file: script engines, accepted plugins, refusals, the search path
 * and one init per file; test_loader_list.c --list-plugins and the
 * descriptor tables; test_loader_ext.c extensions and provenance.
 *
 * The fixture plugins come from the build directory named by
 * SHB_TEST_FIXTURES (see meson.build). The suite builds a scratch tree
 * under a fresh mkdtemp directory holding symlinks and copies of them, and
 * points SHB_PLUGIN_SYSTEM_PATH into it so that the compiled-in plugin
 * directory of the machine never leaks into a result. */
#include <errno.h>
#include <fcntl.h>
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
#include "loader_harness.h"
#include "shb_build_config.h"

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

CU_TestInfo loader_tests[] = {
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
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "loader", suite_init, NULL, NULL, NULL, loader_tests },
	{ "loader_list", suite_init, NULL, NULL, NULL, loader_list_tests },
	{ "loader_ext", suite_init, suite_clean, NULL, NULL, loader_ext_tests },
	CU_SUITE_INFO_NULL,
};
