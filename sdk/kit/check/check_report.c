/* shb-plugin-check: a reporter's create/begin/sample/end/destroy on
 * fabricated results, into a memory stream. */
#include <stdio.h>
#include <string.h>

#include "check.h"

/* One whole run of the reporter on fixture `f`; the bytes it wrote, or -1
 * after a FAIL line. */
static long run_once(struct chk *k, const char *check,
		     const struct shb_report_desc *d,
		     struct shb_kit_report_fixture *f, const char *what)
{
	const struct shb_report_vtable *vt = d->vt;
	struct shb_kit_sink sink;
	char err[256] = "";
	void *rep = NULL;
	long len = -1;
	int rc;

	shb_kit_sink_init(&sink);
	rc = vt->create(&k->kh.host, &sink.os, NULL, &rep, err, sizeof err);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "create failed (%d): %s", rc,
			 err[0] ? err : "(no error text)");
		goto out;
	}
	rc = vt->begin(rep, &f->info);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "begin returned %d for %s", rc, what);
		goto destroy;
	}
	if ((d->flags & SHB_REPORT_WANTS_INTERVALS) && vt->sample) {
		rc = vt->sample(rep, &f->interval);
		if (rc != SHB_OK) {
			chk_line(k, "FAIL", check, "sample returned %d for %s",
				 rc, what);
			goto destroy;
		}
	}
	rc = vt->end(rep, &f->total);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "end returned %d for %s", rc, what);
		goto destroy;
	}
	len = (long)sink.len;
	if (sink.len && memchr(sink.buf, '\0', sink.len))
		chk_line(k, "WARN", check, "wrote a NUL byte for %s", what);
destroy:
	vt->destroy(rep);
out:
	shb_kit_sink_fini(&sink);
	return len;
}

/* A stream that fails every write: the reporter must say so, not crash. */
static int run_failing(struct chk *k, const struct shb_report_desc *d,
		       struct shb_kit_report_fixture *f)
{
	const struct shb_report_vtable *vt = d->vt;
	struct shb_kit_sink sink;
	char err[256] = "";
	void *rep = NULL;
	int rc;

	shb_kit_sink_init(&sink);
	sink.fail = 1;
	rc = vt->create(&k->kh.host, &sink.os, NULL, &rep, err, sizeof err);
	if (rc == SHB_OK) {
		rc = vt->begin(rep, &f->info);
		if (rc == SHB_OK)
			rc = vt->end(rep, &f->total);
		vt->destroy(rep);
	}
	shb_kit_sink_fini(&sink);
	return rc;
}

int chk_group_report_run(struct chk *k)
{
	const struct shb_report_desc *d;
	struct shb_kit_report_fixture full, empty;
	char check[96], name[64];
	long a, b;
	int rc;

	if (chk_load(k, "reporter"))
		return k->fails;
	d = chk_report(k, k->index);
	if (!d) { /* the descriptor group found one in another process */
		chk_line(k, "FAIL", "reporter", "reporter factory returned no "
			 "descriptor for index %u", k->index);
		chk_unload(k);
		return k->fails;
	}
	chk_name(name, sizeof name, d->name);
	snprintf(check, sizeof check, "reporter %s", name);
	shb_kit_report_fixture_init(&full, 0);
	shb_kit_report_fixture_init(&empty, 1);
	a = run_once(k, check, d, &full, "a run");
	b = a < 0 ? -1 : run_once(k, check, d, &empty, "an empty run");
	rc = a < 0 || b < 0 ? SHB_OK : run_failing(k, d, &full);
	if (a == 0)
		chk_line(k, "WARN", check, "wrote nothing for a run");
	if (!chk_violations(k, check) && a >= 0 && b >= 0)
		chk_line(k, "PASS", check, "%ld bytes for a run, %ld for an "
			 "empty run, %s when the stream fails", a, b,
			 rc == SHB_OK ? "SHB_OK" : "an error");
	shb_kit_report_fixture_fini(&full);
	shb_kit_report_fixture_fini(&empty);
	chk_unload(k);
	return k->fails;
}
