/* The plugin test kit and a protocol's metrics (ABI 1.4): a descriptor
 * linked into the test declares a counter and a latency histogram; what
 * its issue() feeds reads back by name (shb/kit/metrics.h), and each
 * misuse (the other kind, an index out of the table, a call outside a
 * [conn] call) is one violation with its exact text. */
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <shb/kit.h>

static struct shb_kit_host kh;

struct met_conn {
	struct shb_conn *handle;
};

static int met_create(const struct shb_host *host,
		      const struct shb_run_config *cfg, void **module,
		      char *err, size_t errlen)
{
	static int mod;
	*module = &mod;
	return SHB_OK;
}

static void met_destroy(void *module) {}

static int met_prepare(void *module, const struct shb_request *req,
		       void **prepared, char *err, size_t errlen)
{
	*prepared = NULL;
	return SHB_OK;
}

static void met_conn_fini(void *conn) {}

static int met_ready(void *conn, const struct shb_transport_info *info,
		     shb_tstamp now)
{
	return SHB_OK;
}

static shb_ssize met_recv(void *conn, const uint8_t *d, size_t n, shb_tstamp now)
{
	return (shb_ssize)n;
}

static int met_eof(void *conn, shb_tstamp now) { return SHB_OK; }

static shb_ssize met_pull(void *conn, struct shb_vec *v, size_t max,
			  shb_tstamp now)
{
	return 0;
}

static void met_sent(void *conn, size_t n, shb_tstamp now) {}
static uint32_t met_state(const void *conn) { return 0; }
static uint32_t met_capacity(const void *conn) { return 1; }

static void assert_violations(const char *const *want, size_t n)
{
	CU_ASSERT_EQUAL(kh.violation_count, n);
	for (size_t i = 0; i < n && i < kh.violation_count; i++)
		CU_ASSERT_STRING_EQUAL(kh.violations[i], want[i]);
	if (kh.violation_count != n)
		shb_kit_host_dump_violations(&kh, "kit: ");
}

static struct shb_conn *met_handle;

static int met_conn_init(void *module, void *worker, void *conn,
			 struct shb_conn *handle, shb_tstamp now)
{
	((struct met_conn *)conn)->handle = handle;
	met_handle = handle;
	return SHB_OK;
}

/* Feeds the metrics by cookie: 1 right, 2 to 4 one mistake each. */
static int met_issue(void *conn, const void *prepared, uint64_t cookie,
		     shb_tstamp now)
{
	const struct shb_host *h = &kh.host;
	if (cookie == 1) {
		h->metric_add(met_handle, 0, 5);
		h->metric_record(met_handle, 1, 7);
		h->metric_record(met_handle, 1, 3);
	} else if (cookie == 2) {
		h->metric_record(met_handle, 0, 1);
	} else if (cookie == 3) {
		h->metric_add(met_handle, 1, 1);
	} else {
		h->metric_add(met_handle, 9, 1);
	}
	return SHB_OK;
}

static const struct shb_proto_vtable met_vt = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = met_create,
	.module_destroy = met_destroy,
	.prepare_request = met_prepare,
	.conn_init = met_conn_init,
	.conn_fini = met_conn_fini,
	.on_transport_ready = met_ready,
	.recv = met_recv,
	.recv_eof = met_eof,
	.pull_send = met_pull,
	.sent = met_sent,
	.state = met_state,
	.capacity = met_capacity,
	.issue = met_issue,
};

static const struct shb_metric_def met_defs[] = {
	{SHB_METRIC_COUNTER, 0, "sent", "messages", NULL},
	{SHB_METRIC_LATENCY, 0, "lat", NULL, NULL},
};

static const struct shb_proto_desc met_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.name = "met",
	.conn_size = sizeof(struct met_conn),
	.vt = &met_vt,
	.metrics = met_defs,
	.metric_count = 2,
};

/* What a plugin fed reads back by name; each misuse is one violation. */
static void test_metrics(void)
{
	static const char *const want[] = {
		"metric_record on metric \"sent\", a counter",
		"metric_add on metric \"lat\", a histogram",
		"metric_add: index 9 out of the descriptor's 2 metrics",
		"metric_add outside a [conn] call (metric 0)",
	};
	struct shb_kit_module m;
	struct shb_kit_conn c;

	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&kh, SHB_ABI_MINOR), 0);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&m, &kh, &met_desc, NULL),
			      SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_metric_count(&kh, "sent"), 0);
	CU_ASSERT_EQUAL(shb_kit_metric_count(&kh, "nope"), UINT64_MAX);
	CU_ASSERT_PTR_NULL(shb_kit_metric(&kh, "nope"));
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&m, NULL), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&c, &m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&c, NULL), SHB_OK);
	for (uint64_t k = 1; k <= 4; k++)
		CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, k), SHB_OK);
	kh.host.metric_add(met_handle, 0, 1);
	const struct shb_kit_metric *sent = shb_kit_metric(&kh, "sent");
	const struct shb_kit_metric *lat = shb_kit_metric(&kh, "lat");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sent);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lat);
	CU_ASSERT_EQUAL(sent->count, 5);
	CU_ASSERT_EQUAL(sent->calls, 1);
	CU_ASSERT_EQUAL(lat->kind, SHB_METRIC_LATENCY);
	CU_ASSERT_EQUAL(lat->count, 2);
	CU_ASSERT_EQUAL(lat->sum, 10);
	CU_ASSERT_EQUAL(lat->min, 3);
	CU_ASSERT_EQUAL(lat->max, 7);
	assert_violations(want, 4);
	/* a reset forgets the values, keeps the table */
	shb_kit_host_reset(&kh);
	CU_ASSERT_EQUAL(shb_kit_metric_count(&kh, "lat"), 0);
	CU_ASSERT_EQUAL(shb_kit_metric(&kh, "lat")->kind, SHB_METRIC_LATENCY);
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);
	shb_kit_host_fini(&kh);
}

static CU_TestInfo kit_metrics_tests[] = {
	{"protocol metrics read back, misuse flagged", test_metrics},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"kit-metrics", NULL, NULL, NULL, NULL, kit_metrics_tests},
	CU_SUITE_INFO_NULL,
};
