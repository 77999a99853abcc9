/* The kit's datagram driver with the ABI 1.4 members (sdk/kit/driver.c,
 * driver_dgram.c), on a small module defined here: a connection gets
 * exactly what conn_size_for asked (when more than conn_size), and
 * write_dgrams_v trains are collected datagram by datagram, or recorded
 * as the violation each bad train is (sizes that do not add up, a
 * datagram of 0 bytes or over max_dgram, more than asked for). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include <shb/kit/driver.h>
#include <shb/kit/host.h>

/* What the next write_dgrams_v call writes: sizes, and what it returns. */
static uint16_t next_sizes[8];
static size_t next_count;
static shb_ssize next_rc;
static size_t asked_size = 4096;

struct tconn {
	uint32_t calls;
};

static int t_create(const struct shb_host *h, const struct shb_run_config *cfg,
		    void **module, char *err, size_t errlen)
{
	static int m;

	(void)h, (void)cfg, (void)err, (void)errlen;
	*module = &m;
	return SHB_OK;
}

static void t_destroy(void *module) { (void)module; }

static int t_prepare(void *module, const struct shb_request *req, void **prepared,
		     char *err, size_t errlen)
{
	(void)module, (void)req, (void)err, (void)errlen;
	*prepared = NULL;
	return SHB_OK;
}

static int t_conn_init(void *module, void *worker, void *conn,
		       struct shb_conn *handle, shb_tstamp now)
{
	(void)module, (void)worker, (void)handle, (void)now;
	/* The last byte of what conn_size_for asked: a sanitizer sees it
	 * when the kit gave less. */
	((uint8_t *)conn)[asked_size - 1] = 1;
	return SHB_OK;
}

static void t_conn_fini(void *conn) { (void)conn; }

static int t_ready(void *conn, const struct shb_transport_info *info, shb_tstamp now)
{
	(void)conn, (void)info, (void)now;
	return SHB_OK;
}

static int t_recv_dgrams(void *conn, struct shb_vec *d, size_t n, shb_tstamp now)
{
	(void)conn, (void)d, (void)n, (void)now;
	return SHB_OK;
}

/* Writes next_count datagrams of next_sizes, byte i of datagram k being
 * k + 1, once; then nothing. */
static shb_ssize t_write_v(void *conn, uint8_t *buf, size_t cap, uint16_t *sizes,
			   size_t max, size_t *count, shb_tstamp now)
{
	struct tconn *c = conn;
	size_t off = 0;

	(void)now, (void)max;
	if (c->calls++)
		return 0;
	for (size_t k = 0; k < next_count; k++) {
		size_t n = next_sizes[k] <= cap - off ? next_sizes[k] : 0;

		memset(buf + off, (int)(k + 1), n);
		off += n;
		sizes[k] = next_sizes[k];
	}
	*count = next_count;
	return next_rc;
}

static shb_tstamp t_deadline(const void *conn) { (void)conn; return SHB_TSTAMP_NONE; }
static int t_timer(void *conn, shb_tstamp now) { (void)conn, (void)now; return SHB_OK; }
static uint32_t t_state(const void *conn) { (void)conn; return 0; }
static uint32_t t_capacity(const void *conn) { (void)conn; return 1; }

static int t_issue(void *conn, const void *prepared, uint64_t cookie, shb_tstamp now)
{
	(void)conn, (void)prepared, (void)cookie, (void)now;
	return SHB_OK;
}

static size_t t_conn_size_for(const void *module)
{
	(void)module;
	return asked_size;
}

static const struct shb_proto_vtable t_vt = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = t_create,
	.module_destroy = t_destroy,
	.prepare_request = t_prepare,
	.conn_init = t_conn_init,
	.conn_fini = t_conn_fini,
	.on_transport_ready = t_ready,
	.recv_dgrams = t_recv_dgrams,
	.next_deadline = t_deadline,
	.on_timer = t_timer,
	.state = t_state,
	.capacity = t_capacity,
	.issue = t_issue,
	.conn_size_for = t_conn_size_for,
	.write_dgrams_v = t_write_v,
};

static const char *const t_schemes[] = {"x", NULL};

static const struct shb_proto_desc t_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_DGRAM,
	.name = "kitdgram",
	.schemes = t_schemes,
	.conn_size = sizeof(struct tconn),
	.vt = &t_vt,
	.max_dgram = 100,
	.max_train = 4,
};

struct rig {
	struct shb_kit_host kh;
	struct shb_kit_module m;
	struct shb_kit_conn c;
};

static void rig_open(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&r->kh, 4), 0);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&r->m, &r->kh, &t_desc, NULL), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&r->m, NULL), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&r->c, &r->m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&r->c, NULL), SHB_OK);
}

static void rig_close(struct rig *r)
{
	shb_kit_conn_fini(&r->c);
	shb_kit_module_destroy(&r->m);
	shb_kit_host_fini(&r->kh);
}

static void test_conn_size_for(void)
{
	struct rig r;

	asked_size = 4096;
	rig_open(&r);
	CU_ASSERT_EQUAL(r.m.conn_size, 4096);
	rig_close(&r);
	/* Less than conn_size: conn_size. */
	asked_size = 1;
	rig_open(&r);
	CU_ASSERT_EQUAL(r.m.conn_size, sizeof(struct tconn));
	rig_close(&r);
	asked_size = 4096;
}

static void test_train_collected(void)
{
	static const uint16_t sizes[] = {10, 20, 5};
	struct rig r;

	rig_open(&r);
	memcpy(next_sizes, sizes, sizeof(sizes));
	next_count = 3;
	next_rc = 35;
	CU_ASSERT_EQUAL(shb_kit_conn_flush_dgrams(&r.c), 3);
	CU_ASSERT_EQUAL(r.c.dgram_count, 3);
	CU_ASSERT_EQUAL(r.c.dgram_len[0], 10);
	CU_ASSERT_EQUAL(r.c.dgram_len[1], 20);
	CU_ASSERT_EQUAL(r.c.dgram_len[2], 5);
	CU_ASSERT_EQUAL(r.c.out_len, 35);
	CU_ASSERT(r.c.out[9] == 1 && r.c.out[10] == 2 && r.c.out[29] == 2 && r.c.out[30] == 3);
	CU_ASSERT_EQUAL(r.kh.violation_count, 0);
	rig_close(&r);
}

/* One bad train: the flush stops with SHB_E_PROTO and one violation. */
static void bad_train(const uint16_t *sizes, size_t count, shb_ssize rc,
		      const char *want)
{
	struct rig r;

	rig_open(&r);
	memcpy(next_sizes, sizes, count * sizeof(*sizes));
	next_count = count;
	next_rc = rc;
	CU_ASSERT_EQUAL(shb_kit_conn_flush_dgrams(&r.c), SHB_E_PROTO);
	CU_ASSERT_EQUAL(r.c.dgram_count, 0);
	CU_ASSERT_EQUAL_FATAL(r.kh.violation_count, 1);
	if (strcmp(r.kh.violations[0], want))
		fprintf(stderr, "violation: %s\n", r.kh.violations[0]);
	CU_ASSERT_STRING_EQUAL(r.kh.violations[0], want);
	rig_close(&r);
}

static void test_bad_trains(void)
{
	static const uint16_t sum[] = {10, 20}, zero[] = {10, 0}, big[] = {101},
			      five[] = {1, 1, 1, 1, 1};

	bad_train(sum, 2, 31, "write_dgrams_v returned 31 bytes into 400, its sizes add up to 30");
	bad_train(zero, 2, 10, "write_dgrams_v datagram 1 of 0 bytes (1 to max_dgram 100)");
	bad_train(big, 1, 101, "write_dgrams_v datagram 0 of 101 bytes (1 to max_dgram 100)");
	bad_train(five, 5, 5, "write_dgrams_v wrote 5 datagrams, at most 4 asked");
}

static CU_TestInfo dgram_tests[] = {
	{"conn_size_for sizes a connection", test_conn_size_for},
	{"write_dgrams_v trains collected", test_train_collected},
	{"bad write_dgrams_v trains are violations", test_bad_trains},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"kit_dgram", NULL, NULL, NULL, NULL, dgram_tests},
	CU_SUITE_INFO_NULL,
};
