/* The DNS protocol plugin: options, per-worker ids and {seq}/{rand}, the
 * descriptor with its request model and outcome names, and the entry
 * (SHB_PLUGIN_DEFINE).
 *
 * Built for ABI 1.4 (the default target of the 1.4 headers): a request
 * model other than HTTP and named outcomes are 1.4 members, so the entry
 * says abi_minor 4 and an older core refuses to load it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/shb.h>
#include <shb/define.h>

#include "dns_conn.h"

/* Decimal 0..max, nothing else. */
static int parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (!v || !*v)
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
		if (n > max)
			return -1;
	}
	*out = n;
	return 0;
}

/* What the options say, before the query is built from them. */
struct dns_opts {
	const char *name;
	uint16_t type, qclass;
	uint64_t edns, rd, range, wait_ms;
};

static int number(const struct shb_kv *o, uint64_t min, uint64_t max,
		  uint64_t *out, char *err, size_t errlen)
{
	if (!parse_u64(o->value, max, out) && *out >= min)
		return 0;
	snprintf(err, errlen, "%s must be a number from %llu to %llu, not '%s'",
		 o->key, (unsigned long long)min, (unsigned long long)max,
		 o->value ? o->value : "");
	return -1;
}

/* Errors carry no "dns:" prefix: shb prints "protocol dns: ". */
static int take_option(struct dns_opts *d, const struct shb_kv *o, char *err,
		       size_t errlen)
{
	const char *k = o->key, *v = o->value ? o->value : "";

	if (strcmp(k, "name") == 0) {
		d->name = v;
	} else if (strcmp(k, "type") == 0 || strcmp(k, "class") == 0) {
		int t = k[0] == 't';

		if ((t ? dns_type_parse(v, &d->type) : dns_class_parse(v, &d->qclass))) {
			snprintf(err, errlen, "%s must be %s or a number up to 65535, "
				 "not '%s'", k, t ? "a type name (A, AAAA, MX, TXT...)" :
				 "IN, CH, HS, ANY", v);
			return -1;
		}
	} else if (strcmp(k, "edns") == 0) {
		if (strcmp(v, "0") != 0 && number(o, 512, 65535, &d->edns, err, errlen))
			return -1;
		if (strcmp(v, "0") == 0)
			d->edns = 0;
	} else if (strcmp(k, "rd") == 0) {
		return number(o, 0, 1, &d->rd, err, errlen);
	} else if (strcmp(k, "range") == 0) {
		return number(o, 1, UINT32_MAX, &d->range, err, errlen);
	} else if (strcmp(k, "wait") == 0) {
		return number(o, 1, 3600000, &d->wait_ms, err, errlen);
	} else {
		snprintf(err, errlen, "unknown option '%s' (known: name, type, class, "
			 "edns, rd, range, wait)", k);
		return -1;
	}
	return 0;
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static int dns_module_create(const struct shb_host *host,
			     const struct shb_run_config *cfg, void **module,
			     char *err, size_t errlen)
{
	struct dns_opts d = {
		.name = "example.com", .type = 1, .qclass = 1, .rd = 1,
		.range = DNS_RANGE_DEFAULT, .wait_ms = DNS_WAIT_DEFAULT_MS,
	};
	struct dns_module *m;

	for (size_t i = 0; i < cfg->option_count; i++)
		if (take_option(&d, &cfg->options[i], err, errlen))
			return SHB_E_INVAL;
	if (cfg->parallel > DNS_PARALLEL_MAX) {
		snprintf(err, errlen, "-p %u: at most %u queries in flight per "
			 "socket (ids are 16 bits)", cfg->parallel, DNS_PARALLEL_MAX);
		return SHB_E_INVAL;
	}
	m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	if (dns_query_build(&m->q, d.name, d.type, d.qclass, (uint16_t)d.edns,
			    (int)d.rd, (uint32_t)d.range, err, errlen)) {
		free(m);
		return SHB_E_INVAL;
	}
	m->host = host;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	m->slots = pow2_at_least(m->parallel);
	m->threads = cfg->threads ? cfg->threads : 1;
	m->once = (cfg->flags & SHB_RUN_DISABLE_KEEPALIVE) != 0;
	m->wait_ns = d.wait_ms * 1000000ull;
	*module = m;
	return SHB_OK;
}

static void dns_module_destroy(void *module)
{
	free(module);
}

/* The URL names the server only: its path must be empty or "/". */
static int dns_prepare_request(void *module, const struct shb_request *req,
			       void **prepared, char *err, size_t errlen)
{
	(void)module;
	if (req->path && req->path[0] && strcmp(req->path, "/") != 0) {
		snprintf(err, errlen, "the URL's path must be empty (the query is "
			 "--proto-opt name=..., type=...), not '%s'", req->path);
		return SHB_E_INVAL;
	}
	*prepared = NULL;
	return SHB_OK;
}

static int dns_worker_init(void *module, void *worker, uint32_t index)
{
	const struct dns_module *m = module;
	struct dns_worker *w = worker;

	w->index = index;
	w->threads = m->threads;
	if (m->host->random_secure(&w->rng, sizeof w->rng) != SHB_OK || !w->rng)
		w->rng = 0x9e3779b97f4a7c15ull ^ index;
	return SHB_OK;
}

static size_t dns_conn_size_for(const void *module)
{
	return dns_conn_size(module);
}

static const struct shb_proto_vtable dns_vtable = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = dns_module_create,
	.module_destroy = dns_module_destroy,
	.prepare_request = dns_prepare_request,
	.worker_init = dns_worker_init,
	.conn_init = dns_conn_init,
	.conn_fini = dns_conn_fini,
	.on_transport_ready = dns_conn_ready,
	.recv_dgrams = dns_conn_recv_dgrams,
	/* No write_dgrams: queries differ in size ({seq} grows a digit), and
	 * write_dgrams_v takes any sizes (1.4). */
	.next_deadline = dns_conn_next_deadline,
	.on_timer = dns_conn_on_timer,
	.state = dns_conn_state,
	.capacity = dns_conn_capacity,
	.issue = dns_conn_issue,
	.cancel = dns_conn_cancel,
	.shutdown = dns_conn_shutdown,
	.error_detail = dns_conn_error_detail,
	.conn_size_for = dns_conn_size_for,
	.write_dgrams_v = dns_conn_write_dgrams_v,
};

static const char *const dns_schemes[] = {"dns", NULL};
static const struct shb_scheme dns_scheme_defs[] = {
	{"dns", 53, 0},
	{NULL, 0, 0},
};
static const struct shb_option_def dns_options[] = {
	{"name", "NAME", "the name asked for (default example.com); {seq} and "
	 "{rand} are replaced"},
	{"type", "TYPE", "A (default), AAAA, MX, TXT, NS, SOA, PTR, SRV, ANY... or "
	 "a number"},
	{"class", "CLASS", "IN (default), CH, HS, ANY or a number"},
	{"edns", "BYTES", "an EDNS0 OPT record offering BYTES (512-65535); 0: none "
	 "(default)"},
	{"rd", "0|1", "recursion desired (default 1)"},
	{"range", "N", "{rand} is 0 to N-1 (default 1000000)"},
	{"wait", "MS", "a query unanswered this long is a timeout (default 5000)"},
	{NULL, NULL, NULL},
};
static const struct shb_outcome_code dns_codes[] = {
	{DNS_NOERROR, "noerror", 1, 0},
	{DNS_FORMERR, "formerr", 0, 0},
	{DNS_SERVFAIL, "servfail", 0, 0},
	{DNS_NXDOMAIN, "nxdomain", 0, 0},
	{DNS_NOTIMP, "notimp", 0, 0},
	{DNS_REFUSED, "refused", 0, 0},
	{6, "yxdomain", 0, 0},
	{7, "yxrrset", 0, 0},
	{8, "nxrrset", 0, 0},
	{9, "notauth", 0, 0},
	{10, "notzone", 0, 0},
	{DNS_TRUNCATED, "truncated", 0, 0},
	{DNS_NODATA, "nodata", 1, 0},
	{0, NULL, 0, 0},
};
static const struct shb_outcome_space dns_spaces[] = {
	{DNS_SPACE, 0, "dns", dns_codes},
	{0, 0, NULL, NULL},
};

static const struct shb_proto_desc dns_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_DGRAM,
	.flags = SHB_PROTO_MULTIPLEXED,
	.name = "dns",
	.display_name = "DNS",
	.summary = "DNS over UDP (RFC 1035): one query per request, -p in flight "
		   "per socket",
	.schemes = dns_schemes,
	.worker_size = sizeof(struct dns_worker),
	.conn_size = sizeof(struct dns_conn),
	.vt = &dns_vtable,
	.scheme_defs = dns_scheme_defs,
	.option_defs = dns_options,
	.max_dgram = 512,
	.max_train = DNS_TRAIN_MAX,
	.request_model = SHB_REQMODEL_NONE,
	.outcome_spaces = dns_spaces,
};

SHB_PLUGIN_DEFINE(DNS_PLUGIN_ID, "1.0.0", NULL, NULL,
		  SHB_PROTOCOLS(&dns_desc), SHB_NO_REPORTERS);
