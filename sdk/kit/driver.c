/* The module and connection driver (driver.h): every [conn] call marked
 * for the fake host, `now` from its clock, state re-read afterwards. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_int.h"

#define END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))
#define HAS_DESC(d, m) SHB_HAS(d, struct shb_proto_desc, m)
#define HAS_VT(vt, m) SHB_HAS(vt, struct shb_proto_vtable, m)

/* Bits of shb_kit_conn.warned: violations recorded once per connection. */
enum {
	WARNED_DEADLINE_ZERO = 1u << 0,
};

/* Most bytes one flush moves: a module that never runs dry is broken. */
#define FLUSH_MAX (1u << 20)
#define TIMER_REPEAT_MAX 1000

shb_tstamp shb_kit_now_of(const struct shb_kit_conn *c)
{
	return c->kh->clock.now;
}

/* ---- module ---------------------------------------------------------------- */

static int scheme_is_tls(const char *scheme)
{
	return !strcmp(scheme, "https");
}

void shb_kit_run_config_default(struct shb_run_config *cfg,
				const struct shb_proto_desc *desc)
{
	const char *scheme = "http";
	uint32_t port = 80, tls = 0;

	if (desc && HAS_DESC(desc, scheme_defs) && desc->scheme_defs &&
	    desc->scheme_defs[0].name) {
		scheme = desc->scheme_defs[0].name;
		port = desc->scheme_defs[0].default_port;
		tls = (desc->scheme_defs[0].flags & SHB_SCHEME_TLS) != 0;
	} else if (desc && desc->schemes && desc->schemes[0]) {
		scheme = desc->schemes[0];
		tls = scheme_is_tls(scheme);
		port = tls ? 443 : 80;
	}
	memset(cfg, 0, sizeof *cfg);
	cfg->struct_size = sizeof *cfg;
	cfg->flags = tls ? SHB_RUN_TLS : 0;
	cfg->connections = 1;
	cfg->parallel = 1;
	cfg->threads = 1;
	cfg->port = port;
	cfg->scheme = scheme;
	cfg->host = "example.com";
	cfg->authority = "example.com";
	cfg->connect_timeout_ns = 10ull * 1000000000ull;
	cfg->tls_verify = SHB_TLS_VERIFY_NONE;
}

static int is_ip_literal(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, buf) == 1 ||
	       inet_pton(AF_INET6, host, buf) == 1;
}

static void origin_fill(struct shb_kit_module *m,
			const struct shb_run_config *cfg)
{
	struct shb_origin *o = &m->origin;

	snprintf(m->scheme_buf, sizeof m->scheme_buf, "%s",
		 cfg->scheme ? cfg->scheme : "");
	snprintf(m->host_buf, sizeof m->host_buf, "%s",
		 cfg->host ? cfg->host : "");
	snprintf(m->authority_buf, sizeof m->authority_buf, "%s",
		 cfg->authority ? cfg->authority : "");
	memset(o, 0, sizeof *o);
	o->struct_size = sizeof *o;
	o->index = 0;
	o->port = cfg->port;
	o->flags = (cfg->flags & SHB_RUN_TLS) ? SHB_SCHEME_TLS : 0;
	o->scheme = m->scheme_buf;
	o->host = m->host_buf;
	o->authority = m->authority_buf;
	o->sni = is_ip_literal(m->host_buf) ? NULL : m->host_buf;
}

/* What the core reserves per connection: conn_size, or since 1.4 what
 * conn_size_for asks once the module is created, when that is more. */
static void conn_size_of(struct shb_kit_module *m)
{
	size_t n = 0;

	if (SHB_HAS(m->vt, struct shb_proto_vtable, conn_size_for) &&
	    m->vt->conn_size_for)
		n = m->vt->conn_size_for(m->module);
	m->conn_size = n > m->desc->conn_size ? n : m->desc->conn_size;
	if (!m->conn_size)
		m->conn_size = 1;
}

int shb_kit_module_create(struct shb_kit_module *m, struct shb_kit_host *kh,
			  const struct shb_proto_desc *desc,
			  const struct shb_run_config *cfg)
{
	struct shb_run_config def;
	int rc;

	memset(m, 0, sizeof *m);
	m->kh = kh;
	m->desc = desc;
	m->vt = desc->vt;
	shb_kit_metrics_use(kh, desc);
	if (!cfg) {
		shb_kit_run_config_default(&def, desc);
		cfg = &def;
	}
	m->run_flags = cfg->flags;
	m->max_dgram = HAS_DESC(desc, max_dgram) && desc->max_dgram
			       ? desc->max_dgram : 1200;
	m->max_train = HAS_DESC(desc, max_train) && desc->max_train
			       ? desc->max_train : 64;
	origin_fill(m, cfg);
	m->worker = calloc(1, desc->worker_size ? desc->worker_size : 1);
	if (!m->worker) {
		snprintf(m->err, sizeof m->err, "out of memory");
		return SHB_E_NOMEM;
	}
	rc = m->vt->module_create(&kh->host, cfg, &m->module, m->err,
				  sizeof m->err);
	if (rc != SHB_OK) {
		free(m->worker);
		m->worker = NULL;
		m->module = NULL;
		return rc;
	}
	conn_size_of(m);
	return rc;
}

int shb_kit_module_prepare(struct shb_kit_module *m,
			   const struct shb_request *req)
{
	struct shb_request def = {
		.struct_size = sizeof def,
		.method = "GET",
		.scheme = m->origin.scheme,
		.authority = m->origin.authority,
		.path = "/",
	};
	int rc;

	if (m->prepared && m->vt->release_request)
		m->vt->release_request(m->module, m->prepared);
	m->prepared = NULL;
	m->origin.prepared = NULL;
	rc = m->vt->prepare_request(m->module, req ? req : &def, &m->prepared,
				    m->err, sizeof m->err);
	if (rc != SHB_OK)
		m->prepared = NULL;
	m->origin.prepared = m->prepared;
	return rc;
}

int shb_kit_module_worker_init(struct shb_kit_module *m)
{
	int rc = SHB_OK;

	if (m->vt->worker_init)
		rc = m->vt->worker_init(m->module, m->worker, m->worker_index);
	m->worker_inited = rc == SHB_OK;
	return rc;
}

void shb_kit_module_destroy(struct shb_kit_module *m)
{
	if (!m->vt)
		return;
	if (m->worker_inited && m->vt->worker_fini)
		m->vt->worker_fini(m->module, m->worker);
	m->worker_inited = 0;
	if (m->module && m->prepared && m->vt->release_request)
		m->vt->release_request(m->module, m->prepared);
	m->prepared = NULL;
	if (m->module)
		m->vt->module_destroy(m->module);
	m->module = NULL;
	free(m->worker);
	m->worker = NULL;
}

/* ---- cookies ----------------------------------------------------------------- */

int shb_kit_conn_add_outstanding(struct shb_kit_conn *c, uint64_t cookie)
{
	if (shb_kit_grow(&c->outstanding, &c->outstanding_cap,
			 c->outstanding_count + 1, sizeof *c->outstanding))
		return -1;
	c->outstanding[c->outstanding_count++] = cookie;
	return 0;
}

int shb_kit_conn_retire(struct shb_kit_conn *c, uint64_t cookie,
			int cancelled)
{
	size_t i;

	for (i = 0; i < c->outstanding_count; i++)
		if (c->outstanding[i] == cookie)
			break;
	if (i == c->outstanding_count)
		return 0;
	memmove(&c->outstanding[i], &c->outstanding[i + 1],
		(c->outstanding_count - i - 1) * sizeof *c->outstanding);
	c->outstanding_count--;
	if (shb_kit_grow(&c->retired, &c->retired_cap, c->retired_count + 1,
			 sizeof *c->retired))
		return 1;
	c->retired[c->retired_count].cookie = cookie;
	c->retired[c->retired_count].cancelled = cancelled != 0;
	c->retired_count++;
	return 1;
}

int shb_kit_conn_retired(const struct shb_kit_conn *c, uint64_t cookie)
{
	for (size_t i = c->retired_count; i-- > 0;)
		if (c->retired[i].cookie == cookie)
			return c->retired[i].cancelled;
	return -1;
}

/* ---- connection: calls -------------------------------------------------------- */

void shb_kit_conn_poll(struct shb_kit_conn *c)
{
	const struct shb_proto_vtable *vt = c->m->vt;

	if (!c->inited || c->finished)
		return;
	shb_kit_enter(c, "state");
	c->state = vt->state(c->mem);
	shb_kit_leave(c);
	shb_kit_enter(c, "capacity");
	c->capacity = vt->capacity(c->mem);
	shb_kit_leave(c);
	c->deadline = SHB_TSTAMP_NONE;
	if (vt->next_deadline) {
		shb_kit_enter(c, "next_deadline");
		c->deadline = vt->next_deadline(c->mem);
		shb_kit_leave(c);
	}
	if (c->deadline == 0 && !(c->warned & WARNED_DEADLINE_ZERO)) {
		c->warned |= WARNED_DEADLINE_ZERO;
		shb_kit_violation(c->kh, "next_deadline returned 0");
	}
}

#define CALL SHB_KIT_CALL

int shb_kit_conn_init(struct shb_kit_conn *c, struct shb_kit_module *m)
{
	int rc;

	memset(c, 0, sizeof *c);
	c->m = m;
	c->kh = m->kh;
	c->deadline = SHB_TSTAMP_NONE;
	c->mem = calloc(1, m->conn_size ? m->conn_size : 1);
	if (!c->mem)
		return SHB_E_NOMEM;
	c->handle = shb_kit_host_attach(c->kh, c);
	if (!c->handle) {
		free(c->mem);
		c->mem = NULL;
		return SHB_E_NOMEM;
	}
	shb_kit_enter(c, "conn_init");
	rc = m->vt->conn_init(m->module, m->worker, c->mem, c->handle,
			      shb_kit_now_of(c));
	shb_kit_leave(c);
	if (rc != SHB_OK) {
		shb_kit_host_detach(c->kh, c->handle);
		c->finished = 1;
		free(c->mem);
		c->mem = NULL;
		return rc;
	}
	c->inited = 1;
	shb_kit_conn_poll(c);
	return rc;
}

int shb_kit_conn_ready(struct shb_kit_conn *c,
		       const struct shb_transport_info *info)
{
	const struct shb_proto_desc *d = c->m->desc;
	struct sockaddr_in peer = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)c->m->origin.port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct shb_transport_info def = {
		.struct_size = sizeof def,
		.tls_version = (c->m->run_flags & SHB_RUN_TLS) &&
					       d->transport == SHB_TRANSPORT_STREAM
				       ? 0x0304 : 0,
		.peer = (const struct sockaddr *)&peer,
		.peer_len = sizeof peer,
		.max_dgram = c->m->max_dgram,
		.alpn = d->alpn ? d->alpn[0] : NULL,
		.ts_connected = shb_kit_now_of(c),
		.ts_handshake = shb_kit_now_of(c),
	};
	int rc;

	CALL(c, "on_transport_ready",
	     rc = c->m->vt->on_transport_ready(c->mem, info ? info : &def,
					       shb_kit_now_of(c)));
	return rc;
}

int shb_kit_conn_issue(struct shb_kit_conn *c, const void *prepared,
		       uint64_t cookie)
{
	uint32_t cap = c->capacity;
	int rc;

	/* Outstanding before the call: the module may complete it inside. */
	if (shb_kit_conn_add_outstanding(c, cookie))
		return SHB_E_NOMEM;
	CALL(c, "issue",
	     rc = c->m->vt->issue(c->mem, prepared ? prepared : c->m->prepared,
				  cookie, shb_kit_now_of(c)));
	if (rc != SHB_OK) {
		/* Refused: forget it (a report of it was a violation). */
		for (size_t i = 0; i < c->outstanding_count; i++) {
			if (c->outstanding[i] == cookie) {
				c->outstanding[i] =
					c->outstanding[--c->outstanding_count];
				break;
			}
		}
		return rc;
	}
	if (cap == 0)
		shb_kit_violation(c->kh, "issue accepted cookie %llu with "
					 "capacity 0",
				  (unsigned long long)cookie);
	return rc;
}

int shb_kit_conn_issue_var(struct shb_kit_conn *c, const void *prepared,
			   const struct shb_request_var *var, uint64_t cookie)
{
	const struct shb_proto_vtable *vt = c->m->vt;
	uint32_t cap = c->capacity;
	int rc;

	if (!HAS_VT(vt, issue_var) || !vt->issue_var)
		return SHB_E_UNSUPPORTED;
	if (shb_kit_conn_add_outstanding(c, cookie))
		return SHB_E_NOMEM;
	CALL(c, "issue_var",
	     rc = vt->issue_var(c->mem, prepared ? prepared : c->m->prepared,
				var, cookie, shb_kit_now_of(c)));
	if (rc != SHB_OK) {
		for (size_t i = 0; i < c->outstanding_count; i++) {
			if (c->outstanding[i] == cookie) {
				c->outstanding[i] =
					c->outstanding[--c->outstanding_count];
				break;
			}
		}
		return rc;
	}
	if (cap == 0)
		shb_kit_violation(c->kh, "issue_var accepted cookie %llu with "
					 "capacity 0",
				  (unsigned long long)cookie);
	return rc;
}

int shb_kit_conn_issue_req(struct shb_kit_conn *c,
			   const struct shb_request *req, uint64_t cookie)
{
	const struct shb_proto_vtable *vt = c->m->vt;
	uint32_t cap = c->capacity;
	int rc;

	if (!HAS_VT(vt, issue_req) || !vt->issue_req)
		return SHB_E_UNSUPPORTED;
	if (shb_kit_conn_add_outstanding(c, cookie))
		return SHB_E_NOMEM;
	CALL(c, "issue_req", rc = vt->issue_req(c->mem, req, cookie, shb_kit_now_of(c)));
	if (rc != SHB_OK) {
		for (size_t i = 0; i < c->outstanding_count; i++) {
			if (c->outstanding[i] == cookie) {
				c->outstanding[i] =
					c->outstanding[--c->outstanding_count];
				break;
			}
		}
		return rc;
	}
	if (cap == 0)
		shb_kit_violation(c->kh, "issue_req accepted cookie %llu with "
					 "capacity 0",
				  (unsigned long long)cookie);
	return rc;
}

void shb_kit_conn_cancel(struct shb_kit_conn *c, uint64_t cookie)
{
	if (!c->m->vt->cancel)
		return;
	/* Retired first: the module must not report it, even from cancel. */
	shb_kit_conn_retire(c, cookie, 1);
	CALL(c, "cancel", c->m->vt->cancel(c->mem, cookie, shb_kit_now_of(c)));
}

void shb_kit_conn_shutdown(struct shb_kit_conn *c, uint32_t mode)
{
	if (!c->m->vt->shutdown)
		return;
	CALL(c, "shutdown", c->m->vt->shutdown(c->mem, mode, shb_kit_now_of(c)));
}

/* ---- STREAM ------------------------------------------------------------------ */

shb_ssize shb_kit_conn_recv(struct shb_kit_conn *c, const void *data,
			    size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	shb_ssize rc;

	if (!copy)
		return SHB_E_NOMEM;
	if (len)
		memcpy(copy, data, len);
	CALL(c, "recv", rc = c->m->vt->recv(c->mem, copy, len, shb_kit_now_of(c)));
	free(copy);
	if (rc > (shb_ssize)len)
		shb_kit_violation(c->kh, "recv returned %zd for %zu bytes",
				  (ssize_t)rc, len);
	return rc;
}

int shb_kit_conn_recv_eof(struct shb_kit_conn *c)
{
	int rc;

	CALL(c, "recv_eof", rc = c->m->vt->recv_eof(c->mem, shb_kit_now_of(c)));
	return rc;
}

shb_ssize shb_kit_conn_pull_send(struct shb_kit_conn *c, struct shb_vec *vecs,
				 size_t max)
{
	shb_ssize k;
	size_t total = 0, n;

	CALL(c, "pull_send",
	     k = c->m->vt->pull_send(c->mem, vecs, max, shb_kit_now_of(c)));
	if (k > (shb_ssize)max) {
		shb_kit_violation(c->kh, "pull_send returned %zd vecs (max %zu)",
				  (ssize_t)k, max);
		k = (shb_ssize)max;
	}
	c->pending_count = 0;
	c->pending_len = 0;
	if (k <= 0)
		return k;
	/* Keep what was offered, to check it stays put until sent(). */
	n = (size_t)k < 16 ? (size_t)k : 16;
	for (size_t i = 0; i < n; i++)
		total += vecs[i].len;
	free(c->pending_copy);
	c->pending_copy = malloc(total ? total : 1);
	if (!c->pending_copy)
		return k;
	total = 0;
	for (size_t i = 0; i < n; i++) {
		c->pending[i] = vecs[i];
		memcpy(c->pending_copy + total, vecs[i].base, vecs[i].len);
		total += vecs[i].len;
	}
	c->pending_count = n;
	c->pending_len = total;
	return k;
}

static void check_pending(struct shb_kit_conn *c)
{
	size_t off = 0;

	for (size_t i = 0; i < c->pending_count && c->pending_copy; i++) {
		if (memcmp(c->pending[i].base, c->pending_copy + off,
			   c->pending[i].len)) {
			shb_kit_violation(c->kh,
					  "pull_send memory changed before sent()");
			break;
		}
		off += c->pending[i].len;
	}
	c->pending_count = 0;
	c->pending_len = 0;
}

void shb_kit_conn_sent(struct shb_kit_conn *c, size_t n)
{
	check_pending(c);
	CALL(c, "sent", c->m->vt->sent(c->mem, n, shb_kit_now_of(c)));
}

int shb_kit_append_out(struct shb_kit_conn *c, const void *p, size_t n)
{
	if (shb_kit_grow(&c->out, &c->out_cap, c->out_len + n, 1))
		return -1;
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
	return 0;
}

size_t shb_kit_conn_flush(struct shb_kit_conn *c, size_t chunk)
{
	struct shb_vec v[16];
	size_t total = 0;
	shb_ssize k;

	if (!c->m->vt->pull_send)
		return 0;
	while ((k = shb_kit_conn_pull_send(c, v, 16)) > 0) {
		size_t n = 0;

		for (shb_ssize i = 0; i < k && (!chunk || n < chunk); i++) {
			size_t take = v[i].len;

			if (chunk && take > chunk - n)
				take = chunk - n;
			shb_kit_append_out(c, v[i].base, take);
			n += take;
		}
		if (n == 0) {
			shb_kit_violation(c->kh,
					  "pull_send gave %zd vecs of 0 bytes",
					  (ssize_t)k);
			c->pending_count = 0;
			break;
		}
		shb_kit_conn_sent(c, n);
		total += n;
		if (total >= FLUSH_MAX) {
			shb_kit_violation(c->kh, "pull_send still has bytes "
						 "after 1 MiB");
			break;
		}
	}
	return total;
}

int shb_kit_conn_feed(struct shb_kit_conn *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t off = 0;

	while (off < len) {
		shb_ssize rc;

		if (c->state & SHB_CS_CLOSED)
			return SHB_OK; /* the core closes; the rest is moot */
		rc = shb_kit_conn_recv(c, p + off, len - off);
		if (rc < 0)
			return (int)rc;
		if (rc > (shb_ssize)(len - off))
			return SHB_OK;
		off += (size_t)rc;
		if (off == len || (c->state & SHB_CS_CLOSED))
			break;
		if (!(c->state & SHB_CS_WANT_WRITE)) {
			shb_kit_violation(c->kh, "recv consumed %zd of %zu bytes "
						 "without WANT_WRITE",
					  (ssize_t)rc, len - off + (size_t)rc);
			return SHB_OK;
		}
		if (shb_kit_conn_flush(c, 0) == 0) {
			shb_kit_violation(c->kh, "recv consumed %zd of %zu bytes "
						 "and pull_send has nothing",
					  (ssize_t)rc, len - off + (size_t)rc);
			return SHB_OK;
		}
	}
	return SHB_OK;
}

/* ---- timers ------------------------------------------------------------------- */

int shb_kit_conn_on_timer(struct shb_kit_conn *c)
{
	int rc = SHB_OK;

	if (!c->m->vt->on_timer)
		return SHB_OK;
	CALL(c, "on_timer", rc = c->m->vt->on_timer(c->mem, shb_kit_now_of(c)));
	if (rc == SHB_OK)
		c->timers_fired++;
	return rc;
}

int shb_kit_conn_run_timers(struct shb_kit_conn *c)
{
	for (int i = 0; i < TIMER_REPEAT_MAX; i++) {
		int rc;

		if (c->deadline == SHB_TSTAMP_NONE || c->deadline > shb_kit_now_of(c))
			return SHB_OK;
		rc = shb_kit_conn_on_timer(c);
		if (rc < 0)
			return rc;
		if (c->deadline != SHB_TSTAMP_NONE && c->deadline != 0 &&
		    c->deadline < shb_kit_now_of(c)) {
			shb_kit_violation(c->kh, "next_deadline %llu in the past "
						 "(now %llu) after on_timer",
					  (unsigned long long)c->deadline,
					  (unsigned long long)shb_kit_now_of(c));
			return SHB_OK;
		}
		if (c->deadline == 0)
			return SHB_OK;
	}
	shb_kit_violation(c->kh, "next_deadline still at now (%llu) after "
				 "%d on_timer calls",
			  (unsigned long long)shb_kit_now_of(c), TIMER_REPEAT_MAX);
	return SHB_OK;
}

int shb_kit_conn_advance_to_deadline(struct shb_kit_conn *c)
{
	int rc;

	if (c->deadline == SHB_TSTAMP_NONE)
		return 0;
	if (c->deadline > shb_kit_now_of(c))
		c->kh->clock.now = c->deadline;
	rc = shb_kit_conn_run_timers(c);
	return rc < 0 ? rc : 1;
}

/* ---- misc --------------------------------------------------------------------- */

const char *shb_kit_conn_error_detail(struct shb_kit_conn *c)
{
	const char *s = NULL;

	if (!c->m->vt->error_detail)
		return NULL;
	CALL(c, "error_detail", s = c->m->vt->error_detail(c->mem));
	return s;
}

void shb_kit_conn_clear_output(struct shb_kit_conn *c)
{
	c->out_len = 0;
	c->dgram_count = 0;
}

void shb_kit_conn_fini(struct shb_kit_conn *c)
{
	if (c->inited && !c->finished) {
		c->outstanding_at_fini = c->outstanding_count;
		shb_kit_enter(c, "conn_fini");
		c->m->vt->conn_fini(c->mem);
		shb_kit_leave(c);
		shb_kit_host_detach(c->kh, c->handle);
		c->finished = 1;
	}
	free(c->mem);
	free(c->outstanding);
	free(c->retired);
	free(c->out);
	free(c->dgram_len);
	free(c->pending_copy);
	c->mem = NULL;
	c->outstanding = NULL;
	c->retired = NULL;
	c->out = NULL;
	c->dgram_len = NULL;
	c->pending_copy = NULL;
	c->outstanding_cap = c->retired_cap = c->out_cap = c->dgram_cap = 0;
	c->outstanding_count = c->retired_count = 0;
	c->out_len = c->dgram_count = 0;
}
