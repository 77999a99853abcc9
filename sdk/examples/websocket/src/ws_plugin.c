/* The WebSocket protocol plugin: options, request templates, descriptor,
 * and the entry (SHB_PLUGIN_DEFINE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built for ABI 1.2: it uses nothing a later minor added, so it loads on
 * every core from 1.2 on (the entry says abi_minor 2). */
#define SHB_TARGET_ABI_MINOR 2
#include <shb/shb.h>
#include <shb/define.h>

#include "ws.h"

static char *dup_n(const void *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* "max-message=BYTES": 1 .. WS_MAX_MESSAGE_LIMIT, decimal. Errors from
 * module_create and prepare_request carry no "ws:" prefix: shb prints
 * them after "protocol ws: ". */
static int parse_max_message(const char *v, uint64_t *out)
{
	uint64_t n = 0;

	if (!v || !*v)
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
		if (n > WS_MAX_MESSAGE_LIMIT)
			return -1;
	}
	if (n == 0)
		return -1;
	*out = n;
	return 0;
}

static int ws_module_create(const struct shb_host *host,
			    const struct shb_run_config *cfg, void **module,
			    char *err, size_t errlen)
{
	struct ws_module *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	m->host = host;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	m->max_message = WS_MAX_MESSAGE_DEFAULT;
	for (size_t i = 0; i < cfg->option_count; i++) {
		const struct shb_kv *o = &cfg->options[i];

		if (strcmp(o->key, "max-message") != 0) {
			snprintf(err, errlen, "unknown option '%s' (known: max-message)",
				 o->key);
			free(m);
			return SHB_E_INVAL;
		}
		if (parse_max_message(o->value, &m->max_message)) {
			snprintf(err, errlen,
				 "max-message must be 1 to %u bytes, not '%s'",
				 WS_MAX_MESSAGE_LIMIT, o->value ? o->value : "");
			free(m);
			return SHB_E_INVAL;
		}
	}
	m->authority = dup_n(cfg->authority, strlen(cfg->authority));
	if (!m->authority) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	*module = m;
	return SHB_OK;
}

static void ws_module_destroy(void *module)
{
	struct ws_module *m = module;

	free(m->authority);
	free(m);
}

static void prepared_free(struct ws_prepared *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->headers);
	free(p->payload);
	free(p);
}

/* The user's headers go into the upgrade request, as typed. */
static char *join_headers(const struct shb_request *req)
{
	struct ws_buf b = {0};
	int rc = 0;

	for (size_t i = 0; i < req->header_count; i++) {
		const struct shb_kv *h = &req->headers[i];

		rc |= ws_buf_append(&b, h->key, strlen(h->key));
		rc |= ws_buf_append(&b, ": ", 2);
		rc |= ws_buf_append(&b, h->value, strlen(h->value));
		rc |= ws_buf_append(&b, "\r\n", 2);
	}
	rc |= ws_buf_append(&b, "", 1);
	if (rc) {
		ws_buf_free(&b);
		return NULL;
	}
	return (char *)b.p;
}

static int ws_prepare_request(void *module, const struct shb_request *req,
			      void **prepared, char *err, size_t errlen)
{
	struct ws_module *m = module;
	struct ws_prepared *p = calloc(1, sizeof(*p));
	int body = (req->flags & SHB_REQUEST_HAS_BODY) != 0;

	if (p) {
		p->path = dup_n(req->path, strlen(req->path));
		p->headers = join_headers(req);
		/* The message: the body (binary), else the path (text). */
		p->opcode = body ? WS_OP_BINARY : WS_OP_TEXT;
		p->payload_len = body ? req->body_len : strlen(req->path);
		p->payload = (uint8_t *)dup_n(body ? (const void *)req->body
						   : (const void *)req->path,
					      p->payload_len);
	}
	if (!p || !p->path || !p->headers || !p->payload) {
		prepared_free(p);
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	if (p->payload_len > m->max_message) {
		snprintf(err, errlen, "the message (%zu bytes) is longer than max-message (%llu)",
			 p->payload_len, (unsigned long long)m->max_message);
		prepared_free(p);
		return SHB_E_INVAL;
	}
	if (!m->first)
		m->first = p;
	*prepared = p;
	return SHB_OK;
}

static void ws_release_request(void *module, void *prepared)
{
	struct ws_module *m = module;

	if (m->first == prepared)
		m->first = NULL;
	prepared_free(prepared);
}

static const struct shb_proto_vtable ws_vtable = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = ws_module_create,
	.module_destroy = ws_module_destroy,
	.prepare_request = ws_prepare_request,
	.release_request = ws_release_request,
	.conn_init = ws_conn_init,
	.conn_fini = ws_conn_fini,
	.on_transport_ready = ws_conn_transport_ready,
	.recv = ws_conn_recv,
	.recv_eof = ws_conn_recv_eof,
	.pull_send = ws_conn_pull_send,
	.sent = ws_conn_sent,
	/* No timers (next_deadline, on_timer), no cancel (the core closes
	 * the connection on --timeout), no issue_var: all optional in 1.2. */
	.state = ws_conn_state,
	.capacity = ws_conn_capacity,
	.issue = ws_conn_issue,
	.shutdown = ws_conn_shutdown,
	.error_detail = ws_conn_error_detail,
};

static const char *const ws_schemes[] = {"ws", "wss", NULL};
static const char *const ws_alpn[] = {"http/1.1", NULL};
static const struct shb_scheme ws_scheme_defs[] = {
	{"ws", 80, 0},
	{"wss", 443, SHB_SCHEME_TLS},
	{NULL, 0, 0},
};
static const struct shb_option_def ws_options[] = {
	{"max-message", "BYTES", "largest message accepted from the server (default 1048576)"},
	{NULL, NULL, NULL},
};

/* ABI 1.4: what the report shows beside the requests; a core older than
 * 1.4 reads the descriptor only up to its own struct_size and never sees
 * them. Indexes: enum ws_metric. */
static const struct shb_metric_def ws_metrics[WS_METRIC_COUNT] = {
	[WS_METRIC_SENT] = {SHB_METRIC_COUNTER, 0, "ws_msgs_sent", "messages",
			    "data messages sent, one per request"},
	[WS_METRIC_RECEIVED] = {SHB_METRIC_COUNTER, 0, "ws_msgs_received",
				"messages", "data messages received whole"},
	[WS_METRIC_LATENCY] = {SHB_METRIC_LATENCY, 0, "ws_msg_latency", NULL,
			       "from a message's send to its answer's last frame"},
};

static const struct shb_proto_desc ws_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.flags = SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED,
	.name = "ws",
	.display_name = "WebSocket",
	.summary = "WebSocket (RFC 6455): one message out, one back per request",
	.schemes = ws_schemes,
	.alpn = ws_alpn,
	.conn_size = sizeof(struct ws_conn),
	.vt = &ws_vtable,
	.scheme_defs = ws_scheme_defs,
	.option_defs = ws_options,
	.metrics = ws_metrics,
	.metric_count = WS_METRIC_COUNT,
};

SHB_PLUGIN_DEFINE(WS_PLUGIN_ID, "1.0.0", NULL, NULL,
		  SHB_PROTOCOLS(&ws_desc), SHB_NO_REPORTERS);
