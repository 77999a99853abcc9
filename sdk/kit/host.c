/* The fake host (host.h): the host table, its records and rule checks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_int.h"
#include "common/error_text.h"

/* Bytes from the start of T to the end of member m. */
#define END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))

/* log(), now() and random_secure() have no context argument. */
static struct shb_kit_host *active;

struct shb_kit_host *shb_kit_host_active(void)
{
	return active;
}

int shb_kit_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	void **p = arr;
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static void copy_text(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

void shb_kit_violation(struct shb_kit_host *kh, const char *fmt, ...)
{
	va_list ap;
	char *line = NULL;

	if (!kh)
		return;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line || shb_kit_grow(&kh->violations, &kh->violation_cap,
				  kh->violation_count + 1,
				  sizeof *kh->violations)) {
		free(line);
		return;
	}
	kh->violations[kh->violation_count++] = line;
}

size_t shb_kit_host_dump_violations(const struct shb_kit_host *kh,
				    const char *prefix)
{
	for (size_t i = 0; i < kh->violation_count; i++)
		fprintf(stderr, "%s%s\n", prefix ? prefix : "",
			kh->violations[i]);
	return kh->violation_count;
}

/* ---- connections and calls ------------------------------------------------ */

struct shb_conn *shb_kit_host_attach(struct shb_kit_host *kh,
				     struct shb_kit_conn *c)
{
	if (shb_kit_grow(&kh->slots, &kh->slot_cap, kh->slot_count + 1,
			 sizeof *kh->slots))
		return NULL;
	kh->slots[kh->slot_count].conn = c;
	kh->slots[kh->slot_count].finished = 0;
	kh->slot_count++;
	/* Handles are slot numbers + 1: never dereferenced, never reused. */
	return (struct shb_conn *)(uintptr_t)kh->slot_count;
}

static struct shb_kit_slot *slot_of(struct shb_kit_host *kh,
				    struct shb_conn *handle)
{
	uintptr_t n = (uintptr_t)handle;

	if (n == 0 || n > kh->slot_count)
		return NULL;
	return &kh->slots[n - 1];
}

void shb_kit_host_detach(struct shb_kit_host *kh, struct shb_conn *handle)
{
	struct shb_kit_slot *s = slot_of(kh, handle);

	if (s) {
		s->conn = NULL;
		s->finished = 1;
	}
}

void shb_kit_enter(struct shb_kit_conn *c, const char *call)
{
	c->kh->cur = c;
	c->kh->cur_call = call;
	c->kh->cur_thread = pthread_self();
}

void shb_kit_leave(struct shb_kit_conn *c)
{
	c->kh->cur = NULL;
	c->kh->cur_call = NULL;
}

/* The connection a callback named, if the rules allow a callback now;
 * NULL after recording the violation otherwise. `what` is "req_done" or
 * "conn_event", `tag` a suffix for the message (" (cookie 7)"). */
struct shb_kit_conn *shb_kit_callback_conn(struct shb_kit_host *kh,
					   struct shb_conn *handle,
					   const char *what, const char *tag)
{
	struct shb_kit_slot *s = slot_of(kh, handle);

	if (!s) {
		shb_kit_violation(kh, "%s on an unknown connection handle%s",
				  what, tag);
		return NULL;
	}
	if (kh->cur_call && !strcmp(kh->cur_call, "conn_fini") &&
	    kh->cur && kh->cur->handle == handle) {
		shb_kit_violation(kh, "%s from conn_fini%s", what, tag);
		return NULL;
	}
	if (s->finished) {
		shb_kit_violation(kh, "%s after conn_fini%s", what, tag);
		return NULL;
	}
	if (!kh->cur) {
		shb_kit_violation(kh, "%s outside a [conn] call%s", what, tag);
		return NULL;
	}
	if (kh->cur != s->conn) {
		shb_kit_violation(kh,
				  "%s from %s on another connection%s",
				  what, kh->cur_call, tag);
		return NULL;
	}
	if (!pthread_equal(kh->cur_thread, pthread_self())) {
		shb_kit_violation(kh, "%s from another thread than %s%s", what,
				  kh->cur_call, tag);
		return NULL;
	}
	return s->conn;
}

/* ---- the callbacks ---------------------------------------------------------- */

static void check_result(struct shb_kit_host *kh, uint64_t cookie,
			 const struct shb_req_result *r, uint32_t size)
{
	uint32_t app_space = 0;

	if (r->outcome > SHB_REQ_TIMEOUT)
		shb_kit_violation(kh, "req_done: unknown outcome %u (cookie %llu)",
				  (unsigned)r->outcome,
				  (unsigned long long)cookie);
	if (size >= END_OF(struct shb_req_result, app_code))
		app_space = r->app_space;
	if (r->outcome == SHB_REQ_OK && app_space == SHB_APPSPACE_NONE &&
	    (r->status < 100 || r->status > 999))
		shb_kit_violation(kh,
				  "req_done: OK result with status %u (cookie %llu)",
				  (unsigned)r->status,
				  (unsigned long long)cookie);
}

static void record_done(struct shb_kit_host *kh, struct shb_conn *handle,
			uint64_t cookie, const struct shb_req_result *res,
			uint32_t size)
{
	struct shb_kit_done *d;

	if (shb_kit_grow(&kh->done, &kh->done_cap, kh->done_count + 1,
			 sizeof *kh->done))
		return;
	d = &kh->done[kh->done_count++];
	memset(d, 0, sizeof *d);
	d->conn = handle;
	d->cookie = cookie;
	memcpy(&d->res, res, size < sizeof d->res ? size : sizeof d->res);
	d->res.struct_size = res->struct_size;
	d->has_detail = res->detail != NULL;
	copy_text(d->detail, sizeof d->detail, res->detail);
	d->res.detail = NULL;
	d->call = kh->cur_call;
}

static void host_req_done(struct shb_conn *handle, uint64_t cookie,
			  const struct shb_req_result *res)
{
	struct shb_kit_host *kh = active;
	struct shb_kit_conn *c;
	char tag[48];
	uint32_t size;
	int was;

	if (!kh)
		return;
	snprintf(tag, sizeof tag, " (cookie %llu)", (unsigned long long)cookie);
	if (!res) {
		shb_kit_violation(kh, "req_done with a NULL result%s", tag);
		return;
	}
	size = res->struct_size;
	if (size < END_OF(struct shb_req_result, detail)) {
		shb_kit_violation(kh, "req_done: result struct_size %u < %zu%s",
				  (unsigned)size,
				  END_OF(struct shb_req_result, detail), tag);
		return;
	}
	record_done(kh, handle, cookie, res, size);
	check_result(kh, cookie, res, size);
	c = shb_kit_callback_conn(kh, handle, "req_done", tag);
	if (!c)
		return;
	if (shb_kit_conn_retire(c, cookie, 0))
		return;
	was = shb_kit_conn_retired(c, cookie);
	if (was == 0)
		shb_kit_violation(kh, "req_done twice for cookie %llu",
				  (unsigned long long)cookie);
	else if (was == 1)
		shb_kit_violation(kh, "req_done for cancelled cookie %llu",
				  (unsigned long long)cookie);
	else
		shb_kit_violation(kh, "req_done for unknown cookie %llu",
				  (unsigned long long)cookie);
}

static int outstanding(const struct shb_kit_conn *c, uint64_t cookie)
{
	for (size_t i = 0; i < c->outstanding_count; i++)
		if (c->outstanding[i] == cookie)
			return 1;
	return 0;
}

/* A req_response: recorded, and checked against the rules of host.h. */
static void host_req_response(struct shb_conn *handle, uint64_t cookie,
			      const struct shb_response *resp)
{
	struct shb_kit_host *kh = active;
	struct shb_kit_response *r;
	char tag[48];

	if (!kh)
		return;
	snprintf(tag, sizeof tag, " (cookie %llu)", (unsigned long long)cookie);
	if (!resp || resp->struct_size < END_OF(struct shb_response, body_len)) {
		shb_kit_violation(kh, "req_response with a short or NULL response%s", tag);
		return;
	}
	struct shb_kit_conn *c =
		shb_kit_callback_conn(kh, handle, "req_response", tag);
	if (c && !outstanding(c, cookie))
		shb_kit_violation(kh, "req_response for a cookie not outstanding%s", tag);
	if (shb_kit_response_find(kh, cookie) && !shb_kit_done_find(kh, cookie))
		shb_kit_violation(kh, "req_response twice%s", tag);
	if (resp->status < 100 || resp->status > 999 ||
	    (resp->header_count && !resp->headers) || (resp->body_len && !resp->body))
		shb_kit_violation(kh, "req_response: malformed response%s", tag);
	if (shb_kit_grow(&kh->responses, &kh->response_cap,
			 kh->response_count + 1, sizeof *kh->responses))
		return;
	r = &kh->responses[kh->response_count++];
	memset(r, 0, sizeof *r);
	r->conn = handle;
	r->cookie = cookie;
	r->status = resp->status;
	r->flags = resp->flags;
	r->header_count = resp->header_count;
	r->body_len = resp->body_len;
	for (size_t i = 0; i < resp->header_count && i < SHB_KIT_RESP_HEADERS && resp->headers; i++)
		snprintf(r->headers[i], sizeof r->headers[i], "%s: %s",
			 resp->headers[i].key ? resp->headers[i].key : "(null)",
			 resp->headers[i].value ? resp->headers[i].value : "(null)");
	if (resp->body)
		memcpy(r->body, resp->body, resp->body_len < sizeof r->body ?
						    resp->body_len : sizeof r->body);
	r->call = kh->cur_call;
}

const struct shb_kit_response *
shb_kit_response_find(const struct shb_kit_host *kh, uint64_t cookie)
{
	for (size_t i = 0; i < kh->response_count; i++)
		if (kh->responses[i].cookie == cookie)
			return &kh->responses[i];
	return NULL;
}

static void host_conn_event(struct shb_conn *handle,
			    const struct shb_conn_event *ev)
{
	struct shb_kit_host *kh = active;
	struct shb_kit_event *e;

	if (!kh)
		return;
	if (!ev || ev->struct_size < END_OF(struct shb_conn_event, detail)) {
		shb_kit_violation(kh, "conn_event with a short or NULL event");
		return;
	}
	if (shb_kit_grow(&kh->events, &kh->event_cap, kh->event_count + 1,
			 sizeof *kh->events))
		return;
	e = &kh->events[kh->event_count++];
	memset(e, 0, sizeof *e);
	e->conn = handle;
	memcpy(&e->ev, ev, sizeof e->ev);
	e->has_detail = ev->detail != NULL;
	copy_text(e->detail, sizeof e->detail, ev->detail);
	e->ev.detail = NULL;
	e->call = kh->cur_call;
	if (ev->kind < SHB_CEV_HANDSHAKE_DONE || ev->kind > SHB_CEV_CONN_ERROR)
		shb_kit_violation(kh, "conn_event: unknown kind %u",
				  (unsigned)ev->kind);
	shb_kit_callback_conn(kh, handle, "conn_event", "");
}

/* A log line under `id` from a provider the test registered. */
static int provider_id(const struct shb_kit_host *kh, const char *id)
{
	for (size_t i = 0; i < SHB_KIT_MAX_PROVIDERS; i++)
		if (kh->providers[i].plugin_id &&
		    !strcmp(kh->providers[i].plugin_id, id))
			return 1;
	return 0;
}

static void host_log(uint32_t level, const char *plugin_id, const char *msg)
{
	struct shb_kit_host *kh = active;
	struct shb_kit_log *l;

	if (!kh)
		return;
	if (!msg || !plugin_id) {
		shb_kit_violation(kh, "log with a NULL %s",
				  msg ? "plugin id" : "message");
		return;
	}
	if (kh->plugin_id && strcmp(plugin_id, kh->plugin_id) &&
	    !provider_id(kh, plugin_id))
		shb_kit_violation(kh, "log from plugin id '%s', expected '%s'",
				  plugin_id, kh->plugin_id);
	if (level > SHB_LOG_TRACE)
		shb_kit_violation(kh, "log at unknown level %u", (unsigned)level);
	if (kh->echo)
		fprintf(stderr, "[%u %s] %s\n", (unsigned)level, plugin_id, msg);
	if (shb_kit_grow(&kh->logs, &kh->log_cap, kh->log_count + 1,
			 sizeof *kh->logs))
		return;
	l = &kh->logs[kh->log_count++];
	l->level = level;
	copy_text(l->plugin_id, sizeof l->plugin_id, plugin_id);
	copy_text(l->msg, sizeof l->msg, msg);
}

static int32_t host_log_enabled(uint32_t level)
{
	return level <= (active ? active->log_level : SHB_LOG_WARN);
}

static shb_tstamp host_now(void)
{
	return active ? active->clock.now : 0;
}

static const char *host_strerror(int code)
{
	return shb_error_text(code);
}

/* xorshift64*: reproducible from the seed; a test kit needs no more. */
static uint64_t next_rand(struct shb_kit_host *kh)
{
	uint64_t x = kh->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	kh->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static int host_random(void *buf, size_t len)
{
	struct shb_kit_host *kh = active;
	uint8_t *p = buf;

	if (!kh)
		return SHB_E_STATE;
	if (kh->random)
		return kh->random(buf, len);
	if (kh->rng == 0)
		kh->rng = kh->seed ? kh->seed : 0x5eed;
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(next_rand(kh) >> 56);
	return SHB_OK;
}

static const void *host_get_extension(const char *id)
{
	struct shb_kit_host *kh = active;

	if (!kh || !id)
		return NULL;
	for (size_t i = 0; i < SHB_KIT_MAX_EXTENSIONS; i++)
		if (kh->extensions[i].id && !strcmp(kh->extensions[i].id, id))
			return kh->extensions[i].table;
	/* Plugins' extensions: [main] only, as the core answers them. */
	if (kh->host.abi_minor < 2 ||
	    !pthread_equal(pthread_self(), kh->main_thread))
		return NULL;
	for (size_t i = 0; i < SHB_KIT_MAX_PROVIDERS; i++) {
		const void *t;

		if (!kh->providers[i].get_extension)
			break;
		t = kh->providers[i].get_extension(id);
		if (t)
			return t;
	}
	return NULL;
}

static const struct shb_origin *host_conn_origin(struct shb_conn *handle)
{
	struct shb_kit_host *kh = active;
	struct shb_kit_slot *s;

	if (!kh)
		return NULL;
	s = slot_of(kh, handle);
	if (!s || s->finished) {
		shb_kit_violation(kh, "conn_origin on %s connection handle",
				  s ? "a finalised" : "an unknown");
		return NULL;
	}
	if (kh->cur != s->conn)
		shb_kit_violation(kh, "conn_origin outside a [conn] call on "
				      "that connection");
	return &s->conn->m->origin;
}

static void host_tls_client_hello(struct shb_conn *handle, const uint8_t *msg,
				  size_t len)
{
	struct shb_kit_host *kh = active;
	struct shb_kit_slot *s;

	if (!kh)
		return;
	s = slot_of(kh, handle);
	if (!s || s->finished) {
		shb_kit_violation(kh, "tls_client_hello on %s connection handle",
				  s ? "a finalised" : "an unknown");
		return;
	}
	if (kh->cur != s->conn)
		shb_kit_violation(kh, "tls_client_hello outside a [conn] call "
				      "on that connection");
	if (!msg || len < 4 || msg[0] != 1)
		shb_kit_violation(kh, "tls_client_hello: %zu bytes that are not "
				      "a ClientHello handshake message", len);
	kh->client_hello_calls++;
	if (kh->client_hello || !msg || len == 0 || len > 65536)
		return;
	kh->client_hello = malloc(len);
	if (!kh->client_hello)
		return;
	memcpy(kh->client_hello, msg, len);
	kh->client_hello_len = len;
}

/* What the core keeps: printable ASCII, 1 to SHB_CONN_FP_MAX octets. */
static int fp_text_ok(const char *text)
{
	size_t n = 0;

	for (; text && text[n]; n++)
		if (text[n] < 0x20 || text[n] > 0x7e)
			return 0;
	return n > 0 && n <= SHB_CONN_FP_MAX;
}

static void host_conn_fingerprint(struct shb_conn *handle, uint32_t kind,
				  const char *text)
{
	struct shb_kit_host *kh = active;
	struct shb_kit_slot *s;

	if (!kh)
		return;
	s = slot_of(kh, handle);
	if (!s || s->finished) {
		shb_kit_violation(kh, "conn_fingerprint on %s connection handle",
				  s ? "a finalised" : "an unknown");
		return;
	}
	if (kh->cur != s->conn)
		shb_kit_violation(kh, "conn_fingerprint outside a [conn] call "
				      "on that connection");
	if (kind < 1 || kind > SHB_KIT_FP_KINDS || !fp_text_ok(text)) {
		/* the core would ignore it: a plugin bug */
		shb_kit_violation(kh, "conn_fingerprint: kind %u with %s text",
				  (unsigned)kind, !text ? "no" :
				  "an empty, unprintable or too long");
		return;
	}
	kh->fingerprint_calls[kind - 1]++;
	if (!kh->fingerprints[kind - 1])
		kh->fingerprints[kind - 1] = strdup(text);
}

/* ---- set-up ----------------------------------------------------------------- */

int shb_kit_host_init(struct shb_kit_host *kh, uint32_t abi_minor)
{
	if (abi_minor < 1 || abi_minor > SHB_ABI_MINOR)
		return -1;
	memset(kh, 0, sizeof *kh);
	kh->host.struct_size = abi_minor >= 4   ? sizeof(struct shb_host)
			       : abi_minor == 3 ? END_OF(struct shb_host, tls_client_hello)
			       : abi_minor == 2 ? END_OF(struct shb_host, conn_origin)
						: END_OF(struct shb_host, hist);
	kh->host.abi_major = SHB_ABI_MAJOR;
	kh->host.abi_minor = abi_minor;
	kh->host.version = SHB_VERSION_STRING "-kit";
	kh->host.log = host_log;
	kh->host.log_enabled = host_log_enabled;
	kh->host.now = host_now;
	kh->host.strerror = host_strerror;
	kh->host.random_secure = host_random;
	kh->host.get_extension = host_get_extension;
	kh->host.req_done = host_req_done;
	kh->host.conn_event = host_conn_event;
	kh->host.hist = &shb_kit_hist_ops;
	if (abi_minor >= 2)
		kh->host.conn_origin = host_conn_origin;
	if (abi_minor >= 3)
		kh->host.tls_client_hello = host_tls_client_hello;
	if (abi_minor >= 4) {
		kh->host.conn_fingerprint = host_conn_fingerprint;
		kh->host.req_response = host_req_response;
		kh->host.metric_add = shb_kit_host_metric_add;
		kh->host.metric_record = shb_kit_host_metric_record;
	}
	kh->clock.now = 1;
	kh->log_level = SHB_LOG_WARN;
	kh->main_thread = pthread_self();
	active = kh;
	return 0;
}

void shb_kit_host_reset(struct shb_kit_host *kh)
{
	for (size_t i = 0; i < kh->violation_count; i++)
		free(kh->violations[i]);
	kh->done_count = 0;
	kh->response_count = 0;
	kh->event_count = 0;
	kh->log_count = 0;
	kh->violation_count = 0;
	free(kh->client_hello);
	kh->client_hello = NULL;
	kh->client_hello_len = 0;
	kh->client_hello_calls = 0;
	for (size_t i = 0; i < SHB_KIT_FP_KINDS; i++) {
		free(kh->fingerprints[i]);
		kh->fingerprints[i] = NULL;
		kh->fingerprint_calls[i] = 0;
	}
	shb_kit_metrics_clear(kh);
}

void shb_kit_host_fini(struct shb_kit_host *kh)
{
	shb_kit_host_reset(kh);
	free(kh->done);
	free(kh->responses);
	kh->responses = NULL;
	kh->response_cap = 0;
	free(kh->events);
	free(kh->logs);
	free(kh->violations);
	free(kh->slots);
	kh->done = NULL;
	kh->events = NULL;
	kh->logs = NULL;
	kh->violations = NULL;
	kh->slots = NULL;
	kh->done_cap = kh->event_cap = kh->log_cap = kh->violation_cap = 0;
	kh->slot_cap = kh->slot_count = 0;
	if (active == kh)
		active = NULL;
}

int shb_kit_host_add_extension(struct shb_kit_host *kh, const char *id,
			       const void *table)
{
	for (size_t i = 0; i < SHB_KIT_MAX_EXTENSIONS; i++) {
		if (!kh->extensions[i].id) {
			kh->extensions[i].id = id;
			kh->extensions[i].table = table;
			return 0;
		}
	}
	return -1;
}

int shb_kit_host_add_extension_provider(struct shb_kit_host *kh,
					const void *(*get_extension)(const char *id),
					const char *plugin_id)
{
	if (!get_extension)
		return -1;
	for (size_t i = 0; i < SHB_KIT_MAX_PROVIDERS; i++) {
		if (!kh->providers[i].get_extension) {
			kh->providers[i].get_extension = get_extension;
			kh->providers[i].plugin_id = plugin_id;
			return 0;
		}
	}
	return -1;
}

const struct shb_kit_done *shb_kit_done_find(const struct shb_kit_host *kh,
					     uint64_t cookie)
{
	for (size_t i = 0; i < kh->done_count; i++)
		if (kh->done[i].cookie == cookie)
			return &kh->done[i];
	return NULL;
}
