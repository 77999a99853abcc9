/* Protocol and reporter descriptors: each read only up to the size it
 * declares, checked member by member before anything in it is called,
 * and copied into the latest layout (see loader.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "loader/loader_int.h"
#include "loader/loader_metrics.h"
#include "loader/loader_outcomes.h"

/* A factory that claims more descriptors than this is corrupt; the bound
 * keeps --list-plugins finite. */
#define LOADER_MAX_DESCS 256u
/* Bounds of the 1.2 descriptor tables (docs/ARCHITECTURE.md, "Bounds, backpressure and retries"). */
#define LOADER_MAX_SCHEMES 16u
#define LOADER_MAX_OPTIONS 64u
/* The largest UDP payload over IPv4 (65535 - 8 - 20). */
#define LOADER_MAX_DGRAM 65527u

/* Both factory structs share this layout; they are read member by member
 * through their own types by the callers. */
static int factory_check(const char *noun, uint32_t size, size_t need,
			 uint32_t count, int has_get, char *why, size_t n)
{
	if (size < need) {
		shb_loader_fmt(why, n, "%s factory too short (%u bytes)", noun,
		    (unsigned)size);
		return -1;
	}
	if (!has_get && count) {
		shb_loader_fmt(why, n, "%s factory lacks a mandatory member (get)", noun);
		return -1;
	}
	if (count > LOADER_MAX_DESCS) {
		shb_loader_fmt(why, n, "%s factory lists %u entries (at most %u)", noun,
		    (unsigned)count, LOADER_MAX_DESCS);
		return -1;
	}
	return 0;
}

static int lacks(const char *noun, const char *member, char *why, size_t n)
{
	shb_loader_fmt(why, n, "%s descriptor lacks a mandatory member (%s)", noun,
	    member);
	return -1;
}

#define NEED(vt, m, noun)                                                      \
	do {                                                                   \
		if (!(vt)->m)                                                  \
			return lacks(noun, #m, why, n);                        \
	} while (0)

static int proto_count(const struct shb_plugin_file *f, uint32_t *count,
		       char *why, size_t n)
{
	const struct shb_proto_factory *fa =
		f->entry->get_factory(SHB_FACTORY_PROTOCOL);

	*count = 0;
	if (!fa)
		return 0;
	if (factory_check("protocol", fa->struct_size,
			  SHB_END_OF(struct shb_proto_factory, get),
			  fa->count, fa->get != NULL, why, n))
		return -1;
	*count = fa->count;
	return 0;
}

static const void *proto_get(const struct shb_plugin_file *f, uint32_t i)
{
	const struct shb_proto_factory *fa =
		f->entry->get_factory(SHB_FACTORY_PROTOCOL);

	return fa->get(i);
}

static int proto_vt_check(const struct shb_proto_desc *d, uint32_t minor,
			  char *why, size_t n)
{
	const struct shb_proto_vtable *vt = d->vt;

	if (vt->struct_size < SHB_END_OF(struct shb_proto_vtable, issue)) {
		shb_loader_fmt(why, n, "protocol vtable too short (%u bytes)",
		    (unsigned)vt->struct_size);
		return -1;
	}
	NEED(vt, module_create, "protocol");
	NEED(vt, module_destroy, "protocol");
	NEED(vt, prepare_request, "protocol");
	NEED(vt, conn_init, "protocol");
	NEED(vt, conn_fini, "protocol");
	NEED(vt, on_transport_ready, "protocol");
	if (minor < 2) {
		NEED(vt, next_deadline, "protocol");
		NEED(vt, on_timer, "protocol");
	} else if (!vt->next_deadline != !vt->on_timer) {
		/* Since 1.2 a protocol without timers leaves out both. */
		shb_loader_fmt(why, n, "protocol vtable has %s without %s (both or neither)",
		    vt->on_timer ? "on_timer" : "next_deadline",
		    vt->on_timer ? "next_deadline" : "on_timer");
		return -1;
	}
	NEED(vt, state, "protocol");
	NEED(vt, capacity, "protocol");
	NEED(vt, issue, "protocol");
	if (d->transport == SHB_TRANSPORT_STREAM) {
		NEED(vt, recv, "protocol");
		NEED(vt, recv_eof, "protocol");
		NEED(vt, pull_send, "protocol");
		NEED(vt, sent, "protocol");
	} else {
		NEED(vt, recv_dgrams, "protocol");
		/* Since 1.4 write_dgrams_v may stand in for it. */
		if (!SHB_HAS(vt, struct shb_proto_vtable, write_dgrams_v) ||
		    !vt->write_dgrams_v)
			NEED(vt, write_dgrams, "protocol");
	}
	return 0;
}

/* RFC 3986 scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), and lower
 * case: the core compares schemes bytewise. */
static int scheme_ok(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '+' || *s == '-' || *s == '.'))
			return 0;
	return 1;
}

static int option_key_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static int schemes_check(const struct shb_scheme *s, char *why, size_t n)
{
	char a[64];
	uint32_t i;

	for (i = 0; s[i].name; i++) {
		if (i == LOADER_MAX_SCHEMES) {
			shb_loader_fmt(why, n, "protocol descriptor lists more than %u "
			    "schemes", LOADER_MAX_SCHEMES);
			return -1;
		}
		shb_loader_clean(s[i].name, a, sizeof a);
		if (!scheme_ok(s[i].name)) {
			shb_loader_fmt(why, n, "protocol descriptor has a bad scheme \"%s\" "
			    "(lower case letter, then [a-z0-9+.-])", a);
			return -1;
		}
		if (s[i].default_port < 1 || s[i].default_port > 65535) {
			shb_loader_fmt(why, n, "protocol descriptor has scheme \"%s\" with "
			    "default port %u (1..65535)", a,
			    (unsigned)s[i].default_port);
			return -1;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (!strcmp(s[j].name, s[i].name)) {
				shb_loader_fmt(why, n, "protocol descriptor lists scheme "
				    "\"%s\" twice", a);
				return -1;
			}
		}
	}
	if (i == 0) {
		shb_loader_fmt(why, n, "protocol descriptor has an empty scheme_defs");
		return -1;
	}
	return 0;
}

static int options_check(const char *noun, const struct shb_option_def *o,
			 char *why, size_t n)
{
	char a[64];

	for (uint32_t i = 0; o[i].key; i++) {
		if (i == LOADER_MAX_OPTIONS) {
			shb_loader_fmt(why, n, "%s descriptor lists more than %u options",
			    noun, LOADER_MAX_OPTIONS);
			return -1;
		}
		shb_loader_clean(o[i].key, a, sizeof a);
		if (!option_key_ok(o[i].key)) {
			shb_loader_fmt(why, n, "%s descriptor has a bad option key \"%s\" "
			    "(non-empty, [a-z0-9._-])", noun, a);
			return -1;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (!strcmp(o[j].key, o[i].key)) {
				shb_loader_fmt(why, n, "%s descriptor lists option \"%s\" "
				    "twice", noun, a);
				return -1;
			}
		}
	}
	return 0;
}

/* The 1.2 and later members, each only when the descriptor's size covers
 * it. */
static int proto_desc12_check(const struct shb_proto_desc *d, char *why,
			      size_t n)
{
	if (SHB_HAS(d, struct shb_proto_desc, scheme_defs) && d->scheme_defs &&
	    schemes_check(d->scheme_defs, why, n))
		return -1;
	if (SHB_HAS(d, struct shb_proto_desc, option_defs) && d->option_defs &&
	    options_check("protocol", d->option_defs, why, n))
		return -1;
	if (SHB_HAS(d, struct shb_proto_desc, max_dgram) &&
	    d->max_dgram > LOADER_MAX_DGRAM) {
		shb_loader_fmt(why, n, "protocol descriptor has max_dgram %u (at most %u)",
		    (unsigned)d->max_dgram, LOADER_MAX_DGRAM);
		return -1;
	}
	if (shb_loader_desc14_check(d, why, n))
		return -1;
	return shb_loader_metrics_check(d, why, n);
}

static int proto_check(const void *desc, uint32_t minor, char *why, size_t n)
{
	const struct shb_proto_desc *d = desc;

	if (!d) {
		shb_loader_fmt(why, n, "protocol factory returned no descriptor");
		return -2;
	}
	if (d->struct_size < SHB_END_OF(struct shb_proto_desc, vt)) {
		shb_loader_fmt(why, n, "protocol descriptor too short (%u bytes)",
		    (unsigned)d->struct_size);
		return -2;
	}
	if (!d->name || !d->name[0]) {
		shb_loader_fmt(why, n, "protocol descriptor has no name");
		return -2;
	}
	if (d->transport != SHB_TRANSPORT_STREAM &&
	    d->transport != SHB_TRANSPORT_DGRAM) {
		shb_loader_fmt(why, n, "protocol descriptor has an unknown transport (%u)",
		    (unsigned)d->transport);
		return -1;
	}
	if (!d->vt)
		return lacks("protocol", "vt", why, n);
	if (proto_vt_check(d, minor, why, n))
		return -1;
	if (d->conn_size == 0) {
		shb_loader_fmt(why, n, "protocol descriptor has conn_size 0");
		return -1;
	}
	return proto_desc12_check(d, why, n);
}

static const char *proto_name(const void *desc)
{
	return ((const struct shb_proto_desc *)desc)->name;
}

static const char *proto_summary(const void *desc)
{
	return ((const struct shb_proto_desc *)desc)->summary;
}

/* Latest-layout copy: a member the plugin's vtable does not cover stays
 * NULL, so callers test pointers, never sizes. */
static void proto_fill(void *out, const void *desc,
		       const struct shb_plugin_file *f)
{
	struct shb_proto_handle *h = out;
	const struct shb_proto_desc *d = desc;
	const struct shb_proto_vtable *src = d->vt;

	memset(h, 0, sizeof *h);
	h->desc = d;
	h->file = f;
	h->vt.struct_size = sizeof h->vt;
#define COPY(m)                                                                \
	do {                                                                   \
		if (SHB_HAS(src, struct shb_proto_vtable, m))                  \
			h->vt.m = src->m;                                      \
	} while (0)
	COPY(module_create);
	COPY(module_destroy);
	COPY(prepare_request);
	COPY(release_request);
	COPY(worker_init);
	COPY(worker_fini);
	COPY(conn_init);
	COPY(conn_fini);
	COPY(on_transport_ready);
	COPY(recv);
	COPY(recv_eof);
	COPY(pull_send);
	COPY(sent);
	COPY(recv_dgrams);
	COPY(write_dgrams);
	COPY(next_deadline);
	COPY(on_timer);
	COPY(state);
	COPY(capacity);
	COPY(issue);
	COPY(cancel);
	COPY(shutdown);
	COPY(error_detail);
	COPY(issue_var);
	COPY(conn_size_for);
	COPY(write_dgrams_v);
	COPY(issue_req);
	COPY(tls_priority);
#undef COPY
}

static int report_count(const struct shb_plugin_file *f, uint32_t *count,
			char *why, size_t n)
{
	const struct shb_report_factory *fa =
		f->entry->get_factory(SHB_FACTORY_REPORTER);

	*count = 0;
	if (!fa)
		return 0;
	if (factory_check("reporter", fa->struct_size,
			  SHB_END_OF(struct shb_report_factory, get),
			  fa->count, fa->get != NULL, why, n))
		return -1;
	*count = fa->count;
	return 0;
}

static const void *report_get(const struct shb_plugin_file *f, uint32_t i)
{
	const struct shb_report_factory *fa =
		f->entry->get_factory(SHB_FACTORY_REPORTER);

	return fa->get(i);
}

static int report_check(const void *desc, uint32_t minor, char *why, size_t n)
{
	const struct shb_report_desc *d = desc;
	const struct shb_report_vtable *vt;

	if (!d) {
		shb_loader_fmt(why, n, "reporter factory returned no descriptor");
		return -2;
	}
	if (d->struct_size < SHB_END_OF(struct shb_report_desc, vt)) {
		shb_loader_fmt(why, n, "reporter descriptor too short (%u bytes)",
		    (unsigned)d->struct_size);
		return -2;
	}
	if (!d->name || !d->name[0]) {
		shb_loader_fmt(why, n, "reporter descriptor has no name");
		return -2;
	}
	vt = d->vt;
	if (!vt)
		return lacks("reporter", "vt", why, n);
	if (vt->struct_size < SHB_END_OF(struct shb_report_vtable, destroy)) {
		shb_loader_fmt(why, n, "reporter vtable too short (%u bytes)",
		    (unsigned)vt->struct_size);
		return -1;
	}
	NEED(vt, create, "reporter");
	NEED(vt, begin, "reporter");
	NEED(vt, end, "reporter");
	NEED(vt, destroy, "reporter");
	/* The core would call sample() for such a reporter. */
	if ((d->flags & SHB_REPORT_WANTS_INTERVALS) && !vt->sample)
		return lacks("reporter", "sample", why, n);
	if (SHB_HAS(d, struct shb_report_desc, option_defs) && d->option_defs &&
	    options_check("reporter", d->option_defs, why, n))
		return -1;
	return 0;
}

static const char *report_name(const void *desc)
{
	return ((const struct shb_report_desc *)desc)->name;
}

static const char *report_summary(const void *desc)
{
	return ((const struct shb_report_desc *)desc)->summary;
}

static void report_fill(void *out, const void *desc,
			const struct shb_plugin_file *f)
{
	struct shb_report_handle *h = out;
	const struct shb_report_desc *d = desc;
	const struct shb_report_vtable *src = d->vt;

	memset(h, 0, sizeof *h);
	h->desc = d;
	h->file = f;
	h->vt.struct_size = sizeof h->vt;
#define COPY(m)                                                                \
	do {                                                                   \
		if (SHB_HAS(src, struct shb_report_vtable, m))                 \
			h->vt.m = src->m;                                      \
	} while (0)
	COPY(create);
	COPY(begin);
	COPY(sample);
	COPY(end);
	COPY(destroy);
#undef COPY
}

#undef NEED

const struct shb_loader_kind shb_loader_proto_kind = {
	"protocol", "shb-proto-", proto_count, proto_get,
	proto_check, proto_name, proto_summary, proto_fill,
};

const struct shb_loader_kind shb_loader_report_kind = {
	"reporter", "shb-report-", report_count, report_get,
	report_check, report_name, report_summary, report_fill,
};
