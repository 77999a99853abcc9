/* The test kit's fake host, and a connection driven through the vtable
 * with the kit as the core drives a datagram protocol. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h3p_tests.h"

/* Static: the plugin keeps the host from init() for the whole process. */
struct shb_kit_host h3p_kit;
static struct shb_kit_plugin plugin;

/* Deterministic "random" bytes: zeros, so no grease setting is sent and
 * the control stream's bytes are fixed. */
static int fake_random(void *buf, size_t len)
{
	memset(buf, 0, len);
	return SHB_OK;
}

static const struct shb_proto_desc *desc(void)
{
	static int inited;
	const struct shb_proto_factory *f;
	char err[160];

	if (!inited) {
		CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&h3p_kit, SHB_ABI_MINOR), 0);
		h3p_kit.random = fake_random;
		CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_use(&plugin, &shb_plugin_entry_v1,
							 err, sizeof(err)),
				      0);
		CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_init(&plugin, &h3p_kit), SHB_OK);
		inited = 1;
	}
	f = shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	return f->get(0);
}

void h3p_reset(int debug)
{
	(void)desc(); /* the host exists from here on */
	shb_kit_host_reset(&h3p_kit);
	h3p_kit.log_level = debug ? SHB_LOG_DEBUG : SHB_LOG_WARN;
}

const struct shb_kit_done *h3p_done_for(uint64_t cookie)
{
	return shb_kit_done_find(&h3p_kit, cookie);
}

int h3p_logged(const char *text)
{
	char line[SHB_KIT_LOG_MAX + 16];

	for (size_t i = 0; i < h3p_kit.log_count; i++) {
		snprintf(line, sizeof(line), "%u %s", h3p_kit.logs[i].level,
			 h3p_kit.logs[i].msg);
		if (strstr(line, text))
			return 1;
	}
	return 0;
}

/* ---- the fixture ------------------------------------------------------- */

uint64_t h3p_body_max;
struct shb_h3_conn_config h3p_qpack;
const char *h3p_profile;

void h3p_open(struct h3p_fx *f, uint32_t run_flags, uint32_t parallel,
	      const char *body, int debug)
{
	const struct shb_proto_desc *d;
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = SHB_RUN_TLS | run_flags,
		.connections = 1,
		.parallel = parallel,
		.threads = 1,
		.port = 443,
		.scheme = "https",
		.host = "example.com",
		.authority = "example.com",
		.connect_timeout_ns = 5000000000ull,
		.response_body_max = h3p_body_max,
	};
	const struct shb_kv opt = {"profile", h3p_profile};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = body ? SHB_REQUEST_HAS_BODY : 0,
		.method = body ? "POST" : "GET",
		.scheme = "https",
		.authority = "example.com",
		.path = "/",
		.body = (const uint8_t *)body,
		.body_len = body ? strlen(body) : 0,
	};
	struct shb_transport_info info = {
		.struct_size = sizeof(info),
		.max_dgram = 1200,
	};

	if (h3p_profile) {
		cfg.options = &opt;
		cfg.option_count = 1;
	}
	h3p_reset(debug);
	memset(f, 0, sizeof(*f));
	d = desc();
	f->vt = d->vt;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f->km, &h3p_kit, d, &cfg),
			      SHB_OK);
	f->mod = f->km.module;
	f->mod->ops = &fq_ops;
	if (!h3p_profile) /* a profile sets its own QPACK table */
		f->mod->conf = h3p_qpack;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f->km, &req), SHB_OK);
	f->prep = f->km.prepared;
	f->km.worker_index = 3;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_worker_init(&f->km), SHB_OK);
	f->now = 1000000000ull;
	shb_kit_clock_set(&h3p_kit.clock, f->now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f->kc, &f->km), SHB_OK);
	f->c = f->kc.mem;
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&f->kc, &info), SHB_OK);
	f->q = fq_last;
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->q);
	f->next_cookie = 0x100;
}

void h3p_open_ready(struct h3p_fx *f, uint32_t parallel)
{
	h3p_open(f, 0, parallel, NULL, 0);
	CU_ASSERT_EQUAL(h3p_vt_capacity(f), 0);
	fq_q_handshake(f->q);
	CU_ASSERT_EQUAL_FATAL(h3p_recv(f), SHB_OK);
}

/* Also asserts that the plugin broke no rule of the host: req_done and
 * conn_event only from a call on their connection, once per cookie,
 * full-size results and events, log lines under its own id. */
void h3p_close(struct h3p_fx *f)
{
	shb_kit_conn_fini(&f->kc);
	shb_kit_module_destroy(&f->km);
	for (size_t i = 0; i < h3p_kit.done_count; i++)
		CU_ASSERT_EQUAL(h3p_kit.done[i].res.struct_size,
				sizeof(struct shb_req_result));
	for (size_t i = 0; i < h3p_kit.event_count; i++)
		CU_ASSERT_EQUAL(h3p_kit.events[i].ev.struct_size,
				sizeof(struct shb_conn_event));
	CU_ASSERT_EQUAL(shb_kit_host_dump_violations(&h3p_kit, "h3: "), 0);
	memset(f, 0, sizeof(*f));
}

int h3p_recv(struct h3p_fx *f)
{
	uint8_t dgram[1200] = {0};
	struct shb_vec v = {dgram, sizeof(dgram)};

	f->now += 1000000;
	return h3p_vt_recv_dgrams(f, &v, 1, f->now);
}

uint64_t h3p_issue(struct h3p_fx *f)
{
	uint64_t cookie = f->next_cookie++;

	CU_ASSERT_FATAL(h3p_vt_capacity(f) > 0);
	CU_ASSERT_EQUAL_FATAL(h3p_vt_issue(f, f->prep, cookie, f->now), SHB_OK);
	return cookie;
}

shb_ssize h3p_write(struct h3p_fx *f)
{
	static uint8_t buf[64 * 1200];
	size_t seg = 0;

	return h3p_vt_write_dgrams(f, buf, sizeof(buf), &seg, f->now);
}

/* ---- the vtable through the kit ----------------------------------------- */

static void at(shb_tstamp now)
{
	shb_kit_clock_set(&h3p_kit.clock, now);
}

uint32_t h3p_vt_state(struct h3p_fx *f)
{
	shb_kit_conn_poll(&f->kc);
	return f->kc.state;
}

uint32_t h3p_vt_capacity(struct h3p_fx *f)
{
	shb_kit_conn_poll(&f->kc);
	return f->kc.capacity;
}

shb_tstamp h3p_vt_next_deadline(struct h3p_fx *f)
{
	shb_kit_conn_poll(&f->kc);
	return f->kc.deadline;
}

const char *h3p_vt_error_detail(struct h3p_fx *f)
{
	return shb_kit_conn_error_detail(&f->kc);
}

int h3p_vt_issue(struct h3p_fx *f, const void *prep, uint64_t cookie,
		 shb_tstamp now)
{
	at(now);
	return shb_kit_conn_issue(&f->kc, prep, cookie);
}

void h3p_vt_cancel(struct h3p_fx *f, uint64_t cookie, shb_tstamp now)
{
	at(now);
	shb_kit_conn_cancel(&f->kc, cookie);
}

void h3p_vt_shutdown(struct h3p_fx *f, uint32_t mode, shb_tstamp now)
{
	at(now);
	shb_kit_conn_shutdown(&f->kc, mode);
}

int h3p_vt_on_timer(struct h3p_fx *f, shb_tstamp now)
{
	at(now);
	return shb_kit_conn_on_timer(&f->kc);
}

int h3p_vt_recv_dgrams(struct h3p_fx *f, struct shb_vec *v, size_t n,
		       shb_tstamp now)
{
	at(now);
	return shb_kit_conn_recv_dgrams(&f->kc, v, n);
}

shb_ssize h3p_vt_write_dgrams(struct h3p_fx *f, uint8_t *buf, size_t cap,
			      size_t *seg, shb_tstamp now)
{
	at(now);
	return shb_kit_conn_write_dgrams(&f->kc, buf, cap, seg);
}

size_t h3p_headers_status_idx(uint8_t *out, unsigned index)
{
	/* HEADERS: prefix 00 00, then an indexed static line 11xxxxxx with a
	 * 6-bit prefix integer (RFC 9204 Section 4.5.2). */
	size_t n = 4;

	out[0] = 0x01;
	out[2] = 0x00;
	out[3] = 0x00;
	if (index < 63) {
		out[n++] = (uint8_t)(0xc0 | index);
	} else {
		out[n++] = 0xff;
		out[n++] = (uint8_t)(index - 63);
	}
	out[1] = (uint8_t)(n - 2);
	return n;
}

size_t h3p_data(uint8_t *out, const char *text)
{
	size_t n = strlen(text);

	out[0] = 0x00;
	out[1] = (uint8_t)n;
	memcpy(out + 2, text, n);
	return n + 2;
}
