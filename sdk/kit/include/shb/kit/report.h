/* shb plugin test kit: reporter fixtures.
 *
 * A memory byte sink behind struct shb_ostream, and fabricated run facts
 * and results (a few statuses, errors of each kind, histograms with known
 * samples) to drive a reporter's create/begin/sample/end/destroy without
 * the core.
 *
 * Ownership: everything points into the caller's struct and stays valid
 * until its fini. Thread: the test thread ([main] for the reporter). */
#ifndef SHB_KIT_REPORT_H
#define SHB_KIT_REPORT_H

#include <shb/shb.h>
#include <shb/kit/hist.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A struct shb_ostream that appends to a buffer (NUL-terminated). */
struct shb_kit_sink {
	struct shb_ostream os; /* hand &sink->os to create() */
	char *buf;
	size_t len;
	size_t cap;
	int fail; /* non-zero: write() returns SHB_E_CLOSED (a full disk) */
};

void shb_kit_sink_init(struct shb_kit_sink *s);
void shb_kit_sink_fini(struct shb_kit_sink *s);

/* A fabricated run: 2 threads, 10 connections, 1000 requests (990 ok: 200
 * x 980 and 404 x 10; 10 errors: 4 connect, 6 timeout), every 1.2 member
 * filled (one target, two plugins, percentiles), latency samples 1..990
 * ms. `empty` non-zero makes a run that measured nothing (zero requests,
 * empty histograms). */
struct shb_kit_report_fixture {
	struct shb_run_info info;
	struct shb_results total;
	struct shb_results interval;
	struct shb_kit_hist latency, connect, handshake, first_byte;
	struct shb_kit_hist error_reply; /* since 1.4: latency_error_reply */
	struct shb_status_count statuses[2];
	struct shb_error_count errors[2];
	struct shb_error_count errors_ex[2];
	struct shb_code_count codes[1];
	struct shb_app_count apps[1];
	struct shb_target_info target;
	struct shb_plugin_info plugins[2];
	uint32_t percentiles[4];
};

void shb_kit_report_fixture_init(struct shb_kit_report_fixture *f, int empty);
void shb_kit_report_fixture_fini(struct shb_kit_report_fixture *f);

#ifdef __cplusplus
}
#endif
#endif
