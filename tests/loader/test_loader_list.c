/* Loader tests (test_loader.c has the rest): --list-plugins, refused
 * files never passed over silently, lookup by descriptor name and entry
 * id, ABI 1.2's optional timers and descriptor tables, and the probes of
 * --list-plugins. */
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

/* ---- --list-plugins ------------------------------------------------------------- */
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

CU_TestInfo loader_list_tests[] = {
	{ "list", test_loader_list },
	{ "list_empty", test_loader_list_empty },
	{ "refused_warns", test_loader_refused_warns },
	{ "refused_alone", test_loader_refused_alone },
	{ "by_descriptor", test_loader_by_descriptor },
	{ "optional_timers", test_loader_optional_timers },
	{ "bad_tables", test_loader_bad_tables },
	{ "list_probe", test_loader_list_probe },
	CU_TEST_INFO_NULL,
};
