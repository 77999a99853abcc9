/* shb-plugin-check: protocol and reporter descriptors (the 1.2 rules of
 * proto.h "Optional members"), and a module's life cycle with the default
 * run config. */
#include <stdio.h>
#include <string.h>

#include "check.h"

#define END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))
#define LIST_MAX 64

static void append(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf);

	if (len + 1 < n)
		snprintf(buf + len, n - len, "%s%s", len ? ", " : "", s);
}

/* ---- small validators ----------------------------------------------------------- */

/* RFC 3986 scheme, lower case: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
static int scheme_ok(const char *s)
{
	if (!s || !(*s >= 'a' && *s <= 'z'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '+' || *s == '-' || *s == '.'))
			return 0;
	return 1;
}

/* A name a user types after --proto or --report. */
static int cli_name_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

static int string_list(struct chk *k, const char *check, const char *what,
		       const char *const *list, char *out, size_t n)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; list && list[i] && i < LIST_MAX; i++) {
		if (!list[i][0]) {
			chk_line(k, "FAIL", check, "%s has an empty entry", what);
			return 1;
		}
		append(out, n, list[i]);
	}
	if (list && i == LIST_MAX) {
		chk_line(k, "FAIL", check, "%s is not NULL-terminated within "
			 "%d entries", what, LIST_MAX);
		return 1;
	}
	return 0;
}

static int options_check(struct chk *k, const char *check,
			 const struct shb_option_def *defs)
{
	size_t i;

	for (i = 0; defs && defs[i].key && i < LIST_MAX; i++) {
		const char *key = defs[i].key;

		if (!key[0] || strpbrk(key, "=, \t")) {
			chk_line(k, "FAIL", check, "option key '%s' is empty or "
				 "has '=', ',' or a space", key);
			return 1;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(defs[j].key, key)) {
				chk_line(k, "FAIL", check, "option '%s' is "
					 "declared twice", key);
				return 1;
			}
		if (!defs[i].summary)
			chk_line(k, "WARN", check, "option '%s' has no summary",
				 key);
	}
	if (defs && i == LIST_MAX) {
		chk_line(k, "FAIL", check, "option_defs does not end within "
			 "%d entries", LIST_MAX);
		return 1;
	}
	return 0;
}

static int schemes_check(struct chk *k, const char *check,
			 const struct shb_proto_desc *d)
{
	const struct shb_scheme *s = d->scheme_defs;
	size_t i;

	for (i = 0; s && s[i].name && i < LIST_MAX; i++) {
		if (!scheme_ok(s[i].name)) {
			chk_line(k, "FAIL", check, "scheme '%s' is not a lower "
				 "case RFC 3986 scheme", s[i].name);
			return 1;
		}
		if (s[i].default_port < 1 || s[i].default_port > 65535) {
			chk_line(k, "FAIL", check, "scheme '%s' has default "
				 "port %u (1..65535)", s[i].name,
				 (unsigned)s[i].default_port);
			return 1;
		}
		if (s[i].flags & ~(uint32_t)SHB_SCHEME_TLS) {
			chk_line(k, "FAIL", check, "scheme '%s' has unknown "
				 "flags 0x%x", s[i].name, (unsigned)s[i].flags);
			return 1;
		}
		if ((s[i].flags & SHB_SCHEME_TLS) &&
		    d->transport == SHB_TRANSPORT_STREAM &&
		    !(d->flags & SHB_PROTO_CORE_TLS))
			chk_line(k, "WARN", check, "scheme '%s' runs over TLS "
				 "but the protocol lacks SHB_PROTO_CORE_TLS",
				 s[i].name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s[j].name, s[i].name)) {
				chk_line(k, "FAIL", check, "scheme '%s' is "
					 "declared twice", s[i].name);
				return 1;
			}
	}
	if (s && i == LIST_MAX) {
		chk_line(k, "FAIL", check, "scheme_defs does not end within %d "
			 "entries", LIST_MAX);
		return 1;
	}
	if (s && i == 0) {
		chk_line(k, "FAIL", check, "scheme_defs is empty (NULL means "
			 "http and https)");
		return 1;
	}
	return 0;
}

/* ---- protocol descriptor ---------------------------------------------------------- */

struct member {
	const char *name;
	size_t end;   /* END_OF in the vtable */
	int present;
};

#define MEMBER(vt, m)                                                          \
	{ #m, END_OF(struct shb_proto_vtable, m),                              \
	  SHB_HAS(vt, struct shb_proto_vtable, m) && (vt)->m != NULL }

/* Which members are mandatory for this transport and declared minor:
 * proto.h "Optional members". */
static int mandatory(const char *name, uint32_t transport, uint32_t minor)
{
	static const char *const always[] = {
		"module_create", "module_destroy", "prepare_request",
		"conn_init", "conn_fini", "on_transport_ready", "state",
		"capacity", "issue",
	};
	static const char *const stream[] = {"recv", "recv_eof", "pull_send",
					     "sent"};

	for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
		if (!strcmp(name, always[i]))
			return 1;
	if (!strcmp(name, "next_deadline") || !strcmp(name, "on_timer"))
		return minor < 2;
	if (!strcmp(name, "recv_dgrams") || !strcmp(name, "write_dgrams"))
		return transport == SHB_TRANSPORT_DGRAM;
	for (size_t i = 0; i < sizeof stream / sizeof stream[0]; i++)
		if (!strcmp(name, stream[i]))
			return transport == SHB_TRANSPORT_STREAM || minor < 2;
	return 0; /* release_request, worker_*, cancel, shutdown,
		   * error_detail, issue_var, issue_req, tls_priority */
}

static int vt_check(struct chk *k, const char *check,
		    const struct shb_proto_desc *d, uint32_t minor)
{
	const struct shb_proto_vtable *vt = d->vt;
	const struct member members[] = {
		MEMBER(vt, module_create), MEMBER(vt, module_destroy),
		MEMBER(vt, prepare_request), MEMBER(vt, release_request),
		MEMBER(vt, worker_init), MEMBER(vt, worker_fini),
		MEMBER(vt, conn_init), MEMBER(vt, conn_fini),
		MEMBER(vt, on_transport_ready), MEMBER(vt, recv),
		MEMBER(vt, recv_eof), MEMBER(vt, pull_send), MEMBER(vt, sent),
		MEMBER(vt, recv_dgrams), MEMBER(vt, write_dgrams),
		MEMBER(vt, next_deadline), MEMBER(vt, on_timer),
		MEMBER(vt, state), MEMBER(vt, capacity), MEMBER(vt, issue),
		MEMBER(vt, cancel), MEMBER(vt, shutdown),
		MEMBER(vt, error_detail), MEMBER(vt, issue_var),
		MEMBER(vt, issue_req), MEMBER(vt, tls_priority),
	};
	char left[512] = "";
	int timers = 0;
	/* Since 1.4 write_dgrams_v stands in for write_dgrams. */
	int has_v = SHB_HAS(vt, struct shb_proto_vtable, write_dgrams_v) &&
		    vt->write_dgrams_v != NULL;

	if (vt->struct_size < END_OF(struct shb_proto_vtable, issue)) {
		chk_line(k, "FAIL", check, "vtable too short (%u bytes)",
			 (unsigned)vt->struct_size);
		return 1;
	}
	for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
		const struct member *m = &members[i];

		if (m->present) {
			timers += !strcmp(m->name, "next_deadline") ||
				  !strcmp(m->name, "on_timer");
			continue;
		}
		if (mandatory(m->name, d->transport, minor) &&
		    !(has_v && !strcmp(m->name, "write_dgrams"))) {
			chk_line(k, "FAIL", check, "lacks a mandatory member (%s)",
				 m->name);
			return 1;
		}
		append(left, sizeof left, m->name);
	}
	if (timers == 1) {
		chk_line(k, "FAIL", check, "has only one of next_deadline and "
			 "on_timer (both or neither)");
		return 1;
	}
	if (left[0])
		chk_line(k, "INFO", check, "optional members left out: %s", left);
	return 0;
}

int chk_group_proto_desc(struct chk *k)
{
	const struct shb_proto_desc *d;
	char check[96], name[64], schemes[256], alpn[256];
	uint32_t minor;

	if (chk_load(k, "desc"))
		return k->fails;
	d = chk_proto(k, k->index);
	minor = k->p.entry->abi_minor;
	if (!d) {
		chk_line(k, "FAIL", "desc", "protocol factory returned no "
			 "descriptor for index %u", k->index);
		goto out;
	}
	chk_name(name, sizeof name,
		 d->struct_size >= END_OF(struct shb_proto_desc, name) ? d->name
								  : NULL);
	snprintf(check, sizeof check, "desc %s", name);
	if (d->struct_size < END_OF(struct shb_proto_desc, vt)) {
		chk_line(k, "FAIL", check, "descriptor too short (%u bytes)",
			 (unsigned)d->struct_size);
		goto out;
	}
	if (!d->name || !d->name[0]) {
		chk_line(k, "FAIL", check, "descriptor has no name");
		goto out;
	}
	if (!cli_name_ok(d->name))
		chk_line(k, "WARN", check, "name '%s' has characters other than "
			 "a-z, 0-9, '-', '_' and '.'", d->name);
	if (d->transport != SHB_TRANSPORT_STREAM &&
	    d->transport != SHB_TRANSPORT_DGRAM) {
		chk_line(k, "FAIL", check, "unknown transport (%u)",
			 (unsigned)d->transport);
		goto out;
	}
	if (d->flags & ~(uint32_t)(SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED |
				   SHB_PROTO_ALPN_REQUIRED |
				   SHB_PROTO_ABSOLUTE_FORM))
		chk_line(k, "WARN", check, "unknown flags 0x%x",
			 (unsigned)d->flags);
	if ((d->flags & SHB_PROTO_ABSOLUTE_FORM) && minor < 3)
		chk_line(k, "WARN", check, "SHB_PROTO_ABSOLUTE_FORM in a plugin "
			 "for ABI minor %u: a 1.%u core ignores it", minor, minor);
	if (!d->display_name || !d->summary)
		chk_line(k, "WARN", check, "no %s (shown by --list-plugins and "
			 "reports)", d->display_name ? "summary" : "display_name");
	if (d->conn_size == 0) {
		chk_line(k, "FAIL", check, "conn_size is 0");
		goto out;
	}
	if (!d->vt) {
		chk_line(k, "FAIL", check, "lacks a mandatory member (vt)");
		goto out;
	}
	if (string_list(k, check, "schemes", d->schemes, schemes,
			sizeof schemes) ||
	    string_list(k, check, "alpn", d->alpn, alpn, sizeof alpn))
		goto out;
	if ((d->flags & SHB_PROTO_ALPN_REQUIRED) && !alpn[0])
		chk_line(k, "FAIL", check, "SHB_PROTO_ALPN_REQUIRED without an "
			 "ALPN list");
	if (vt_check(k, check, d, minor))
		goto out;
	if (SHB_HAS(d, struct shb_proto_desc, scheme_defs) &&
	    schemes_check(k, check, d))
		goto out;
	if (SHB_HAS(d, struct shb_proto_desc, option_defs) &&
	    options_check(k, check, d->option_defs))
		goto out;
	if (SHB_HAS(d, struct shb_proto_desc, max_dgram) && d->max_dgram &&
	    (d->transport == SHB_TRANSPORT_STREAM || d->max_dgram > 65507))
		chk_line(k, "WARN", check, "max_dgram %u %s",
			 (unsigned)d->max_dgram,
			 d->transport == SHB_TRANSPORT_STREAM
				 ? "on a STREAM protocol"
				 : "above a UDP datagram's 65507 bytes");
	if (!k->fails)
		chk_line(k, "PASS", check, "%s, conn_size %zu, schemes %s, ALPN "
			 "%s, members complete for ABI 1.%u",
			 d->transport == SHB_TRANSPORT_STREAM ? "STREAM" : "DGRAM",
			 d->conn_size, schemes[0] ? schemes : "(none)",
			 alpn[0] ? alpn : "(none)", (unsigned)minor);
out:
	chk_unload(k);
	return k->fails;
}

/* ---- reporter descriptor ------------------------------------------------------------ */

int chk_group_report_desc(struct chk *k)
{
	const struct shb_report_desc *d;
	const struct shb_report_vtable *vt;
	char check[96], name[64];

	if (chk_load(k, "desc"))
		return k->fails;
	d = chk_report(k, k->index);
	if (!d) {
		chk_line(k, "FAIL", "desc", "reporter factory returned no "
			 "descriptor for index %u", k->index);
		goto out;
	}
	chk_name(name, sizeof name,
		 d->struct_size >= END_OF(struct shb_report_desc, name) ? d->name
								   : NULL);
	snprintf(check, sizeof check, "desc %s", name);
	if (d->struct_size < END_OF(struct shb_report_desc, vt)) {
		chk_line(k, "FAIL", check, "descriptor too short (%u bytes)",
			 (unsigned)d->struct_size);
		goto out;
	}
	if (!d->name || !d->name[0]) {
		chk_line(k, "FAIL", check, "descriptor has no name");
		goto out;
	}
	if (!cli_name_ok(d->name))
		chk_line(k, "WARN", check, "name '%s' has characters other than "
			 "a-z, 0-9, '-', '_' and '.'", d->name);
	if (!d->summary)
		chk_line(k, "WARN", check, "no summary (shown by --list-plugins)");
	vt = d->vt;
	if (!vt) {
		chk_line(k, "FAIL", check, "lacks a mandatory member (vt)");
		goto out;
	}
	if (vt->struct_size < END_OF(struct shb_report_vtable, destroy)) {
		chk_line(k, "FAIL", check, "vtable too short (%u bytes)",
			 (unsigned)vt->struct_size);
		goto out;
	}
	if (!vt->create || !vt->begin || !vt->end || !vt->destroy) {
		chk_line(k, "FAIL", check, "lacks a mandatory member (%s)",
			 !vt->create ? "create" : !vt->begin ? "begin"
						: !vt->end ? "end" : "destroy");
		goto out;
	}
	if ((d->flags & SHB_REPORT_WANTS_INTERVALS) && !vt->sample) {
		chk_line(k, "FAIL", check, "lacks a mandatory member (sample), "
			 "needed with SHB_REPORT_WANTS_INTERVALS");
		goto out;
	}
	if (d->flags & ~(uint32_t)SHB_REPORT_WANTS_INTERVALS)
		chk_line(k, "WARN", check, "unknown flags 0x%x",
			 (unsigned)d->flags);
	if (!vt->sample)
		chk_line(k, "INFO", check, "optional members left out: sample");
	if (SHB_HAS(d, struct shb_report_desc, option_defs) &&
	    options_check(k, check, d->option_defs))
		goto out;
	if (!k->fails)
		chk_line(k, "PASS", check, "reporter, members complete");
out:
	chk_unload(k);
	return k->fails;
}

/* ---- module life cycle ----------------------------------------------------------------- */

/* One line, not empty, no newline: what the core prints as is. */
static int one_line(const char *s)
{
	return s[0] && !strchr(s, '\n') && !strchr(s, '\r');
}

int chk_module_open(struct chk *k, const char *check,
		    struct shb_kit_module *m)
{
	return chk_module_open_cfg(k, check, m, 1, 0);
}

int chk_module_open_cfg(struct chk *k, const char *check,
			struct shb_kit_module *m, uint32_t parallel,
			shb_tstamp timeout_ns)
{
	const struct shb_proto_desc *d = chk_proto(k, k->index);
	struct shb_request req = {
		.struct_size = sizeof req,
		.method = "GET",
		.path = k->req_path ? k->req_path : "/",
	};
	struct shb_run_config cfg;
	int rc;

	if (!d) {
		chk_line(k, "FAIL", check, "no descriptor %u", k->index);
		return -1;
	}
	/* What the core passes a protocol that builds its own requests. */
	if (SHB_HAS(d, struct shb_proto_desc, request_model) &&
	    d->request_model == SHB_REQMODEL_NONE)
		req.method = "";
	shb_kit_run_config_default(&cfg, d);
	cfg.parallel = parallel;
	cfg.request_timeout_ns = timeout_ns;
	cfg.options = k->nopts ? k->opts : NULL;
	cfg.option_count = k->nopts;
	rc = shb_kit_module_create(m, &k->kh, d, &cfg);
	if (rc != SHB_OK) {
		/* Nothing of the module can be checked: a failure, with what
		 * the checker can give it. */
		if (rc < 0 && one_line(m->err))
			chk_line(k, "FAIL", check, "module_create refused the "
				 "kit's config: %s (what it needs may be given "
				 "with --extensions-from, --path or --proto-opt)",
				 m->err);
		else
			chk_line(k, "FAIL", check, "module_create returned %d "
				 "without one line of error text", rc);
		return -1;
	}
	if (m->module == NULL)
		chk_line(k, "INFO", check, "module_create left *module NULL");
	req.scheme = m->origin.scheme;
	req.authority = m->origin.authority;
	rc = shb_kit_module_prepare(m, &req);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "prepare_request(GET %s) returned %d: %s",
			 req.path, rc, m->err);
		shb_kit_module_destroy(m);
		return -1;
	}
	rc = shb_kit_module_worker_init(m);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "worker_init returned %d", rc);
		shb_kit_module_destroy(m);
		return -1;
	}
	return 0;
}

size_t chk_flush(struct shb_kit_conn *c)
{
	if (c->m->desc->transport == SHB_TRANSPORT_STREAM)
		return shb_kit_conn_flush(c, 0);
	shb_kit_conn_flush_dgrams(c);
	return c->out_len;
}

int chk_group_module(struct chk *k)
{
	struct shb_kit_module m;
	struct shb_kit_conn c;
	char check[96], name[64];
	uint32_t issued = 0;
	size_t sent, outstanding;
	int rc;

	snprintf(check, sizeof check, "module");
	if (chk_load(k, "module"))
		return k->fails;
	if (chk_proto(k, k->index)) {
		chk_name(name, sizeof name, chk_proto(k, k->index)->name);
		snprintf(check, sizeof check, "module %s", name);
	}
	if (chk_module_open(k, check, &m))
		goto out;
	rc = shb_kit_conn_init(&c, &m);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "conn_init returned %d", rc);
		goto destroy;
	}
	rc = shb_kit_conn_ready(&c, NULL);
	if (rc != SHB_OK) {
		chk_line(k, "FAIL", check, "on_transport_ready returned %d", rc);
		shb_kit_conn_fini(&c);
		goto destroy;
	}
	while (c.capacity > 0 && issued < 8 &&
	       shb_kit_conn_issue(&c, NULL, issued + 1) == SHB_OK)
		issued++;
	sent = chk_flush(&c);
	shb_kit_conn_shutdown(&c, SHB_SHUT_GRACEFUL);
	chk_flush(&c);
	outstanding = c.outstanding_count;
	shb_kit_conn_fini(&c);

	/* A second connection: a request issued, then cancelled. */
	if (shb_kit_conn_init(&c, &m) == SHB_OK) {
		shb_kit_conn_ready(&c, NULL);
		if (c.capacity > 0 &&
		    shb_kit_conn_issue(&c, NULL, 100) == SHB_OK) {
			chk_flush(&c);
			shb_kit_conn_cancel(&c, 100);
			chk_flush(&c);
		}
		shb_kit_conn_shutdown(&c, SHB_SHUT_ABORT);
		shb_kit_conn_fini(&c);
	} else {
		chk_line(k, "FAIL", check, "a second conn_init failed");
	}
	if (!chk_violations(k, check) && !k->fails)
		chk_line(k, "PASS", check, "default config (%s://%s%s), %u "
			 "request%s issued, %zu bytes sent, %zu outstanding at "
			 "conn_fini, cancel and shutdown",
			 m.origin.scheme, m.origin.authority,
			 k->req_path ? k->req_path : "", (unsigned)issued,
			 issued == 1 ? "" : "s", sent, outstanding);
destroy:
	shb_kit_module_destroy(&m);
out:
	chk_unload(k);
	return k->fails;
}
