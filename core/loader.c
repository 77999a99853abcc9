/* Plugin discovery, loading and validation (see loader.h).
 *
 * Everything here runs on the main thread before workers start. A plugin is
 * trusted only as far as it has been checked: every struct is read up to the
 * size it declares, and no plugin function is called before the entry that
 * holds it passed the version checks. */
#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shb_build_config.h"

/* Bytes from the start of T to the end of member m. */
#define SHB_END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))

/* A factory that claims more descriptors than this is corrupt; the bound
 * keeps --list-plugins finite. */
#define LOADER_MAX_DESCS 256u
#define REASON_MAX 512
/* Bounds of the 1.2 descriptor tables (ARCHITECTURE.md "Bounds"). */
#define LOADER_MAX_SCHEMES 16u
#define LOADER_MAX_OPTIONS 64u
/* The largest UDP payload over IPv4 (65535 - 8 - 20). */
#define LOADER_MAX_DGRAM 65527u

/* Stands in for a refusal text we could not allocate; never freed. */
static char refused_oom[] = "out of memory";

static void fmt(char *buf, size_t n, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

static void fmt(char *buf, size_t n, const char *f, ...)
{
	va_list ap;

	if (!buf || !n)
		return;
	va_start(ap, f);
	vsnprintf(buf, n, f, ap);
	va_end(ap);
}

/* Appends to buf at *pos, never past n (the text is cut instead). */
static void append(char *buf, size_t n, size_t *pos, const char *s)
{
	size_t len = strlen(s);

	if (!buf || *pos + 1 >= n)
		return;
	if (len > n - 1 - *pos)
		len = n - 1 - *pos;
	memcpy(buf + *pos, s, len);
	*pos += len;
	buf[*pos] = '\0';
}

static char *join(const char *dir, const char *file)
{
	char *p;
	size_t dl = strlen(dir);
	int slash = dl > 0 && dir[dl - 1] == '/';

	if (asprintf(&p, "%s%s%s", dir, slash ? "" : "/", file) < 0)
		return NULL;
	return p;
}

/* ---- search path ---------------------------------------------------------- */

static int dir_add(struct shb_loader *l, const char *dir, size_t len)
{
	char **d;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	/* An empty entry would otherwise turn "dir/file" into "/file". */
	if (len == 0)
		return 0;
	for (size_t i = 0; i < l->dir_count; i++)
		if (strlen(l->dirs[i]) == len && !memcmp(l->dirs[i], dir, len))
			return 0;
	d = realloc(l->dirs, (l->dir_count + 1) * sizeof *d);
	if (!d)
		return -1;
	l->dirs = d;
	d[l->dir_count] = strndup(dir, len);
	if (!d[l->dir_count])
		return -1;
	l->dir_count++;
	return 0;
}

static int dir_add_list(struct shb_loader *l, const char *list)
{
	while (*list) {
		size_t len = strcspn(list, ":");

		if (dir_add(l, list, len))
			return -1;
		list += len;
		if (*list == ':')
			list++;
	}
	return 0;
}

void shb_loader_init(struct shb_loader *l, const struct shb_host *host,
		     char *const *plugin_dirs, size_t dir_count)
{
	const char *env = secure_getenv("SHB_PLUGIN_PATH");
	const char *sys = secure_getenv("SHB_PLUGIN_SYSTEM_PATH");
	int rc = 0;

	memset(l, 0, sizeof *l);
	l->host = host;
	l->warn = stderr;
	l->stage_fd = -1;
	for (size_t i = 0; i < dir_count && !rc; i++)
		if (plugin_dirs[i])
			rc = dir_add(l, plugin_dirs[i], strlen(plugin_dirs[i]));
	if (!rc && env)
		rc = dir_add_list(l, env);
	if (!rc)
		rc = sys ? dir_add_list(l, sys)
			 : dir_add(l, SHB_PLUGINDIR, strlen(SHB_PLUGINDIR));
	if (rc)
		l->failed = 1;
}

void shb_loader_fini(struct shb_loader *l)
{
	struct shb_plugin_file *f, *next;

	/* Last initialised first: a plugin that took another's extension in
	 * its init() is deinited before the one that offers it. */
	l->closing = 1;
	for (size_t i = l->order_count; i-- > 0;)
		if (l->order[i]->entry->deinit)
			l->order[i]->entry->deinit();
	free(l->order);
	for (size_t i = 0; i < l->used_count; i++) {
		free((char *)l->used[i].path);
		free((char *)l->used[i].id);
		free((char *)l->used[i].version);
		free((char *)l->used[i].name);
	}
	free(l->used);
	for (size_t i = 0; i < l->snapshot_count; i++)
		free(l->snapshots[i]);
	free(l->snapshots);
	for (f = l->files; f; f = next) {
		next = f->next;
		if (f->refused != refused_oom)
			free(f->refused);
		free(f->path);
		free(f);
	}
	for (size_t i = 0; i < l->dir_count; i++)
		free(l->dirs[i]);
	free(l->dirs);
	memset(l, 0, sizeof *l);
}

/* ---- one file: dlopen, entry checks, init -------------------------------- */

static void refuse(struct shb_plugin_file *f, const char *reason)
{
	f->refused = strdup(reason);
	if (!f->refused)
		f->refused = refused_oom;
}

/* glibc starts dlerror() with the path, which our message already shows. */
static const char *dl_reason(const char *path)
{
	const char *e = dlerror();
	size_t n = strlen(path);

	if (!e)
		return "unknown error";
	if (!strncmp(e, path, n) && e[n] == ':' && e[n + 1] == ' ')
		return e + n + 2;
	return e;
}

/* The size of the ELF symbol at `sym`, or SIZE_MAX when unknown (st_size 0,
 * or an alias we cannot attribute). It bounds what we read of the entry
 * even when its struct_size lies. */
static size_t sym_size(const void *sym)
{
	Dl_info info;
	const ElfW(Sym) *es = NULL;

	if (!dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) || !es ||
	    info.dli_saddr != sym || es->st_size == 0)
		return SIZE_MAX;
	return es->st_size;
}

/* A plugin built for another major exports only shb_plugin_entry_v<N>. */
static unsigned other_major(void *dl)
{
	char name[48];

	for (unsigned v = 1; v <= SHB_ABI_MAJOR + 16u; v++) {
		if (v == SHB_ABI_MAJOR)
			continue;
		snprintf(name, sizeof name, "shb_plugin_entry_v%u", v);
		if (dlsym(dl, name))
			return v;
	}
	return 0;
}

static const struct shb_plugin_entry *entry_check(void *dl, size_t *sizep,
						  char *why, size_t n)
{
	const struct shb_plugin_entry *e = dlsym(dl, SHB_PLUGIN_ENTRY_SYMBOL);
	size_t size;
	unsigned major;

	if (!e) {
		major = other_major(dl);
		if (major)
			fmt(why, n, "built for shb ABI %u, this shb provides ABI %d",
			    major, SHB_ABI_MAJOR);
		else
			fmt(why, n, "not an shb plugin (no %s symbol)",
			    SHB_PLUGIN_ENTRY_SYMBOL);
		return NULL;
	}
	size = sym_size(e);
	if (size >= sizeof e->struct_size && e->struct_size < size)
		size = e->struct_size;
	if (size < SHB_END_OF(struct shb_plugin_entry, abi_minor))
		goto too_short;
	if (e->abi_major != SHB_ABI_MAJOR) {
		fmt(why, n, "built for shb ABI %u, this shb provides ABI %d",
		    (unsigned)e->abi_major, SHB_ABI_MAJOR);
		return NULL;
	}
	if (size < SHB_END_OF(struct shb_plugin_entry, get_factory))
		goto too_short;
	if (e->abi_minor > SHB_ABI_MINOR) {
		fmt(why, n, "needs shb ABI %d.%u, this shb provides %d.%d",
		    SHB_ABI_MAJOR, (unsigned)e->abi_minor, SHB_ABI_MAJOR,
		    SHB_ABI_MINOR);
		return NULL;
	}
	if (!e->id || !e->id[0]) {
		fmt(why, n, "plugin entry has no id");
		return NULL;
	}
	if (!e->init || !e->get_factory) {
		fmt(why, n, "plugin entry lacks a mandatory member (%s)",
		    e->init ? "get_factory" : "init");
		return NULL;
	}
	*sizep = size;
	return e;
too_short:
	fmt(why, n, "entry struct too short (%zu bytes)", size);
	return NULL;
}

static const char *err_text(const struct shb_host *h, int code, char *buf,
			    size_t n)
{
	const char *s = NULL;

	if (h && SHB_HAS(h, struct shb_host, strerror) && h->strerror)
		s = h->strerror(code);
	if (!s) {
		fmt(buf, n, "error %d", code);
		s = buf;
	}
	return s;
}

/* --list-plugins children tell their parent which step they are in, so
 * that a crash can be attributed (see list_probe). */
static void stage(const struct shb_loader *l, char c)
{
	if (l->stage_fd >= 0 && write(l->stage_fd, &c, 1) != 1)
		return;
}

/* Puts an initialised file into the deinit order (see loader.h). */
static int order_add(struct shb_loader *l, struct shb_plugin_file *f)
{
	struct shb_plugin_file **o =
		realloc(l->order, (l->order_count + 1) * sizeof *o);

	if (!o)
		return -1;
	l->order = o;
	if (l->init_depth == 0 && l->ext_loading && l->order_count) {
		/* Loaded for an extension after every init: deinit last. */
		memmove(o + 1, o, l->order_count * sizeof *o);
		o[0] = f;
	} else {
		o[l->order_count] = f;
	}
	l->order_count++;
	return 0;
}

static void file_load(struct shb_loader *l, struct shb_plugin_file *f)
{
	char why[REASON_MAX], code[32];
	const struct shb_plugin_entry *e;
	size_t size = 0;
	int rc;

	dlerror();
	stage(l, 'o');
	f->dl = dlopen(f->path, RTLD_NOW | RTLD_LOCAL);
	if (!f->dl) {
		fmt(why, sizeof why, "dlopen failed: %s", dl_reason(f->path));
		refuse(f, why);
		return;
	}
	e = entry_check(f->dl, &size, why, sizeof why);
	if (!e) {
		refuse(f, why);
		return;
	}
	stage(l, 'i');
	l->init_depth++;
	rc = e->init(l->host);
	l->init_depth--;
	stage(l, 'f');
	if (rc != SHB_OK) {
		fmt(why, sizeof why, "init failed: %s",
		    err_text(l->host, rc, code, sizeof code));
		refuse(f, why);
		return;
	}
	f->entry = e;
	f->entry_size = size;
	f->inited = 1;
	if (order_add(l, f)) {
		/* Without a place in the order it would never be deinited. */
		if (e->deinit)
			e->deinit();
		f->inited = 0;
		f->entry = NULL;
		refuse(f, "out of memory");
	}
}

/* Returns 0 with *out set (the file may be refused), or -1 with errno set
 * when the path cannot be looked at (ENOENT: nothing there). */
static int file_open(struct shb_loader *l, const char *path,
		     struct shb_plugin_file **out)
{
	struct shb_plugin_file *f;
	struct stat st;

	if (stat(path, &st))
		return -1;
	for (f = l->files; f; f = f->next) {
		if (f->dev == st.st_dev && f->ino == st.st_ino) {
			*out = f;
			return 0;
		}
	}
	f = calloc(1, sizeof *f);
	if (f)
		f->path = strdup(path);
	if (!f || !f->path) {
		free(f);
		errno = ENOMEM;
		return -1;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->next = l->files;
	l->files = f;
	l->file_count++;
	*out = f;
	if (!S_ISREG(st.st_mode))
		refuse(f, "not a regular file");
	else
		file_load(l, f);
	return 0;
}

/* ---- descriptors ---------------------------------------------------------- */

/* What differs between protocols and reporters. check() returns 0 when the
 * descriptor is usable, -1 when it is refused but its name can be trusted,
 * -2 when even the name cannot be read. */
struct kind {
	const char *noun;       /* "protocol" */
	const char *prefix;     /* "shb-proto-" */
	int (*count)(const struct shb_plugin_file *f, uint32_t *count,
		     char *why, size_t n);
	const void *(*get)(const struct shb_plugin_file *f, uint32_t i);
	/* minor: the abi_minor the plugin's entry declares */
	int (*check)(const void *desc, uint32_t minor, char *why, size_t n);
	const char *(*name)(const void *desc);
	const char *(*summary)(const void *desc);
	void (*fill)(void *out, const void *desc,
		     const struct shb_plugin_file *f);
	/* --list-plugins: the lines under the descriptor's own */
	void (*details)(const void *desc, FILE *out);
};

/* Both factory structs share this layout; they are read member by member
 * through their own types by the callers. */
static int factory_check(const char *noun, uint32_t size, size_t need,
			 uint32_t count, int has_get, char *why, size_t n)
{
	if (size < need) {
		fmt(why, n, "%s factory too short (%u bytes)", noun,
		    (unsigned)size);
		return -1;
	}
	if (!has_get && count) {
		fmt(why, n, "%s factory lacks a mandatory member (get)", noun);
		return -1;
	}
	if (count > LOADER_MAX_DESCS) {
		fmt(why, n, "%s factory lists %u entries (at most %u)", noun,
		    (unsigned)count, LOADER_MAX_DESCS);
		return -1;
	}
	return 0;
}

static int lacks(const char *noun, const char *member, char *why, size_t n)
{
	fmt(why, n, "%s descriptor lacks a mandatory member (%s)", noun,
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
		fmt(why, n, "protocol vtable too short (%u bytes)",
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
		fmt(why, n, "protocol vtable has %s without %s (both or neither)",
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
		NEED(vt, write_dgrams, "protocol");
	}
	return 0;
}

/* Plugin strings go to a terminal: control bytes become '?'. */
static const char *clean(const char *s, char *buf, size_t n)
{
	size_t i = 0;

	if (!s)
		s = "";
	for (; s[i] && i + 1 < n; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?'
								       : s[i];
	buf[i] = '\0';
	return buf;
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
			fmt(why, n, "protocol descriptor lists more than %u "
			    "schemes", LOADER_MAX_SCHEMES);
			return -1;
		}
		clean(s[i].name, a, sizeof a);
		if (!scheme_ok(s[i].name)) {
			fmt(why, n, "protocol descriptor has a bad scheme \"%s\" "
			    "(lower case letter, then [a-z0-9+.-])", a);
			return -1;
		}
		if (s[i].default_port < 1 || s[i].default_port > 65535) {
			fmt(why, n, "protocol descriptor has scheme \"%s\" with "
			    "default port %u (1..65535)", a,
			    (unsigned)s[i].default_port);
			return -1;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (!strcmp(s[j].name, s[i].name)) {
				fmt(why, n, "protocol descriptor lists scheme "
				    "\"%s\" twice", a);
				return -1;
			}
		}
	}
	if (i == 0) {
		fmt(why, n, "protocol descriptor has an empty scheme_defs");
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
			fmt(why, n, "%s descriptor lists more than %u options",
			    noun, LOADER_MAX_OPTIONS);
			return -1;
		}
		clean(o[i].key, a, sizeof a);
		if (!option_key_ok(o[i].key)) {
			fmt(why, n, "%s descriptor has a bad option key \"%s\" "
			    "(non-empty, [a-z0-9._-])", noun, a);
			return -1;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (!strcmp(o[j].key, o[i].key)) {
				fmt(why, n, "%s descriptor lists option \"%s\" "
				    "twice", noun, a);
				return -1;
			}
		}
	}
	return 0;
}

/* The 1.2 members, each only when the descriptor's size covers it. */
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
		fmt(why, n, "protocol descriptor has max_dgram %u (at most %u)",
		    (unsigned)d->max_dgram, LOADER_MAX_DGRAM);
		return -1;
	}
	return 0;
}

static int proto_check(const void *desc, uint32_t minor, char *why, size_t n)
{
	const struct shb_proto_desc *d = desc;

	if (!d) {
		fmt(why, n, "protocol factory returned no descriptor");
		return -2;
	}
	if (d->struct_size < SHB_END_OF(struct shb_proto_desc, vt)) {
		fmt(why, n, "protocol descriptor too short (%u bytes)",
		    (unsigned)d->struct_size);
		return -2;
	}
	if (!d->name || !d->name[0]) {
		fmt(why, n, "protocol descriptor has no name");
		return -2;
	}
	if (d->transport != SHB_TRANSPORT_STREAM &&
	    d->transport != SHB_TRANSPORT_DGRAM) {
		fmt(why, n, "protocol descriptor has an unknown transport (%u)",
		    (unsigned)d->transport);
		return -1;
	}
	if (!d->vt)
		return lacks("protocol", "vt", why, n);
	if (proto_vt_check(d, minor, why, n))
		return -1;
	if (d->conn_size == 0) {
		fmt(why, n, "protocol descriptor has conn_size 0");
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
		fmt(why, n, "reporter factory returned no descriptor");
		return -2;
	}
	if (d->struct_size < SHB_END_OF(struct shb_report_desc, vt)) {
		fmt(why, n, "reporter descriptor too short (%u bytes)",
		    (unsigned)d->struct_size);
		return -2;
	}
	if (!d->name || !d->name[0]) {
		fmt(why, n, "reporter descriptor has no name");
		return -2;
	}
	vt = d->vt;
	if (!vt)
		return lacks("reporter", "vt", why, n);
	if (vt->struct_size < SHB_END_OF(struct shb_report_vtable, destroy)) {
		fmt(why, n, "reporter vtable too short (%u bytes)",
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

static void proto_details(const void *desc, FILE *out);
static void report_details(const void *desc, FILE *out);

static const struct kind proto_kind = {
	"protocol", "shb-proto-", proto_count, proto_get,
	proto_check, proto_name, proto_summary, proto_fill, proto_details,
};

static const struct kind report_kind = {
	"reporter", "shb-report-", report_count, report_get,
	report_check, report_name, report_summary, report_fill, report_details,
};

/* Selects `name` (NULL: the first descriptor) in f and fills out. Returns 0,
 * or -1 with the reason in why. */
static int pick(const struct kind *k, const struct shb_plugin_file *f,
		const char *name, void *out, char *why, size_t n)
{
	char unreadable[REASON_MAX] = "";
	uint32_t count;

	if (f->refused) {
		fmt(why, n, "%s", f->refused);
		return -1;
	}
	if (k->count(f, &count, why, n))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const void *d = k->get(f, i);
		int r = k->check(d, f->entry->abi_minor, why, n);

		if (r == -2 && name) {
			if (!unreadable[0])
				fmt(unreadable, sizeof unreadable, "%s", why);
			continue;
		}
		if (name && strcmp(k->name(d), name))
			continue;
		if (r < 0)
			return -1;
		k->fill(out, d, f);
		return 0;
	}
	if (unreadable[0])
		fmt(why, n, "%s", unreadable);
	else if (name)
		fmt(why, n, "provides no %s named \"%s\"", k->noun, name);
	else
		fmt(why, n, "provides no %s", k->noun);
	return -1;
}

/* The protocols and reporters shb ships in packages of their own, and the
 * Debian package holding each: when one is not found, the error says it
 * is not installed rather than unknown, and where to get it. Keep in step
 * with debian/control. */
static const struct shipped {
	const char *name;
	const char *title;
	const char *package;
} shipped_protos[] = {
	{ "h1", "HTTP/1.1", "shb" },
	{ "h2", "HTTP/2", "shb-plugin-h2" },
	{ "h3", "HTTP/3", "shb-plugin-h3" },
}, shipped_reports[] = {
	{ "tui", "tui reporter (--tui)", "shb-plugin-tui" },
};

static const struct shipped *shipped(const struct kind *k, const char *name)
{
	if (k == &proto_kind) {
		for (size_t i = 0; i < sizeof shipped_protos / sizeof *shipped_protos;
		     i++)
			if (!strcmp(shipped_protos[i].name, name))
				return &shipped_protos[i];
	} else if (k == &report_kind) {
		for (size_t i = 0; i < sizeof shipped_reports / sizeof *shipped_reports;
		     i++)
			if (!strcmp(shipped_reports[i].name, name))
				return &shipped_reports[i];
	}
	return NULL;
}

static void unknown(const struct shb_loader *l, const struct kind *k,
		    const char *name, const char *file, char *err,
		    size_t errlen)
{
	const struct shipped *s = shipped(k, name);
	size_t pos = 0;

	/* The package first: a long search path may be cut, it may not. */
	if (s)
		fmt(err, errlen,
		    "the %s plugin is not installed (Debian package %s): "
		    "no %s in ", s->title, s->package, file);
	else
		fmt(err, errlen, "unknown %s \"%s\": no %s in ", k->noun, name,
		    file);
	pos = err && errlen ? strlen(err) : 0;
	if (l->dir_count == 0)
		append(err, errlen, &pos, "(empty search path)");
	for (size_t i = 0; i < l->dir_count; i++) {
		if (i)
			append(err, errlen, &pos, ", ");
		append(err, errlen, &pos, l->dirs[i]);
	}
}

static int find_path(struct shb_loader *l, const struct kind *k,
		     const char *path, void *out, char *err, size_t errlen)
{
	struct shb_plugin_file *f;
	char why[REASON_MAX];

	if (file_open(l, path, &f)) {
		fmt(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (pick(k, f, NULL, out, why, sizeof why)) {
		fmt(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

/* The files of one search-path directory, in list order. */
static int so_names(const char *dir, char ***names, size_t *count);

/* Files of the right name passed over in the first pass of find(): each
 * becomes a warning line once something else is used. */
struct passed {
	char *lines[8];
	size_t count;
	size_t more; /* not kept: "and N more" */
};

static void passed_add(struct passed *p, const char *path, const char *why)
{
	char *line;

	if (p->count == sizeof p->lines / sizeof p->lines[0] ||
	    asprintf(&line, "%s: %s", path, why) < 0) {
		p->more++;
		return;
	}
	p->lines[p->count++] = line;
}

static void passed_warn(const struct shb_loader *l, struct passed *p,
			const char *used)
{
	for (size_t i = 0; i < p->count; i++) {
		if (used && l->warn)
			fprintf(l->warn, "shb: warning: skipped %s; using %s\n",
				p->lines[i], used);
		free(p->lines[i]);
	}
	if (used && l->warn && p->more)
		fprintf(l->warn, "shb: warning: skipped %zu more files of "
			"that name; using %s\n", p->more, used);
	p->count = p->more = 0;
}

/* Second pass: every *.so of the search path, by descriptor name or entry
 * id. Returns 0 with out filled, or -1. */
static int find_desc(struct shb_loader *l, const struct kind *k,
		     const char *name, void *out, const char **used)
{
	char why[REASON_MAX];
	int found = -1;

	for (size_t i = 0; i < l->dir_count && found; i++) {
		char **names;
		size_t count;

		if (so_names(l->dirs[i], &names, &count))
			continue;
		for (size_t j = 0; j < count; j++) {
			struct shb_plugin_file *f;
			char *path = found ? join(l->dirs[i], names[j]) : NULL;

			if (path && !file_open(l, path, &f) && !f->refused &&
			    (!pick(k, f, name, out, why, sizeof why) ||
			     (!strcmp(f->entry->id, name) &&
			      !pick(k, f, NULL, out, why, sizeof why)))) {
				*used = f->path;
				found = 0;
			}
			free(path);
			free(names[j]);
		}
		free(names);
	}
	return found;
}

/* First pass, one directory: 0 when `path` provides `name` (out filled),
 * 1 when there is no such file, -1 when it was passed over (why set). */
static int find_file(struct shb_loader *l, const struct kind *k,
		     const char *path, const char *name, void *out, char *why,
		     size_t n)
{
	struct shb_plugin_file *f;

	if (file_open(l, path, &f)) {
		/* A missing file is the normal case. */
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		fmt(why, n, "%s", strerror(errno));
		return -1;
	}
	return pick(k, f, name, out, why, n) ? -1 : 0;
}

static int find(struct shb_loader *l, const struct kind *k, const char *name,
		void *out, char *err, size_t errlen)
{
	char why[REASON_MAX], *file;
	struct passed passed = { 0 };
	const char *used = NULL;
	int have_err = 0;

	if (l->failed) {
		fmt(err, errlen, "out of memory");
		return -1;
	}
	if (!name || !name[0]) {
		fmt(err, errlen, "empty %s name", k->noun);
		return -1;
	}
	if (strchr(name, '/'))
		return find_path(l, k, name, out, err, errlen);
	if (asprintf(&file, "%s%s.so", k->prefix, name) < 0) {
		fmt(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < l->dir_count; i++) {
		char *path = join(l->dirs[i], file);
		int r = path ? find_file(l, k, path, name, out, why, sizeof why)
			     : -1;

		if (r == 0) {
			passed_warn(l, &passed, path);
			free(path);
			free(file);
			return 0;
		}
		if (!path)
			fmt(why, sizeof why, "out of memory");
		if (r < 0) {
			if (!have_err)
				fmt(err, errlen, "%s: %s", path ? path : file,
				    why);
			have_err = 1;
			passed_add(&passed, path ? path : file, why);
		}
		free(path);
	}
	if (!find_desc(l, k, name, out, &used)) {
		passed_warn(l, &passed, used);
		free(file);
		return 0;
	}
	passed_warn(l, &passed, NULL);
	if (!have_err)
		unknown(l, k, name, file, err, errlen);
	free(file);
	return -1;
}

/* ---- provenance ------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Records that the run uses (f, role, name), once. Out of memory only
 * loses the record. */
static void used_add(struct shb_loader *l, const struct shb_plugin_file *f,
		     const char *role, const char *name)
{
	struct shb_plugin_info *u;
	char *abs;

	for (size_t i = 0; i < l->used_count; i++)
		if (l->used[i].role == role && !strcmp(l->used[i].name, name) &&
		    !strcmp(l->used[i].id, f->entry->id))
			return;
	u = realloc(l->used, (l->used_count + 1) * sizeof *u);
	if (!u)
		return;
	l->used = u;
	u += l->used_count;
	memset(u, 0, sizeof *u);
	/* Absolute and without symlinks: the file that really ran. */
	abs = realpath(f->path, NULL);
	u->path = abs ? abs : strdup(f->path);
	u->id = strdup(f->entry->id);
	u->version = dup_or_null(f->entry->version);
	u->role = role; /* static */
	u->name = strdup(name);
	u->abi_minor = f->entry->abi_minor;
	if (!u->path || !u->id || !u->name ||
	    (f->entry->version && !u->version)) {
		free((char *)u->path);
		free((char *)u->id);
		free((char *)u->version);
		free((char *)u->name);
		return;
	}
	l->used_count++;
}

const struct shb_plugin_info *shb_loader_plugins(struct shb_loader *l,
						 size_t *count)
{
	struct shb_plugin_info **s, *copy;

	*count = 0;
	if (!l->used_count)
		return NULL;
	s = realloc(l->snapshots, (l->snapshot_count + 1) * sizeof *s);
	if (!s)
		return NULL;
	l->snapshots = s;
	copy = malloc(l->used_count * sizeof *copy);
	if (!copy)
		return NULL;
	memcpy(copy, l->used, l->used_count * sizeof *copy);
	s[l->snapshot_count++] = copy;
	*count = l->used_count;
	return copy;
}

int shb_loader_proto(struct shb_loader *l, const char *name_or_path,
		     struct shb_proto_handle *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (find(l, &proto_kind, name_or_path, out, err, errlen))
		return -1;
	used_add(l, out->file, "protocol", out->desc->name);
	return 0;
}

int shb_loader_report(struct shb_loader *l, const char *name_or_path,
		      struct shb_report_handle *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (find(l, &report_kind, name_or_path, out, err, errlen))
		return -1;
	used_add(l, out->file, "reporter", out->desc->name);
	return 0;
}

/* ---- extensions ---------------------------------------------------------------- */

static const void *ask(struct shb_loader *l, struct shb_plugin_file *f,
		       const char *id)
{
	const void *ext;

	if (!f->inited || f->asked == l->ext_round ||
	    f->entry_size < SHB_END_OF(struct shb_plugin_entry, get_extension) ||
	    !f->entry->get_extension)
		return NULL;
	f->asked = l->ext_round;
	ext = f->entry->get_extension(id);
	if (ext)
		used_add(l, f, "extension", id);
	return ext;
}

const void *shb_loader_extension(void *loader, const char *id)
{
	struct shb_loader *l = loader;
	const void *ext = NULL;

	if (!l || !id || l->closing || l->failed)
		return NULL;
	l->ext_round++;
	for (size_t i = 0; i < l->order_count && !ext; i++)
		ext = ask(l, l->order[i], id);
	l->ext_loading++;
	for (size_t i = 0; i < l->dir_count && !ext; i++) {
		char **names;
		size_t count;

		if (so_names(l->dirs[i], &names, &count))
			continue;
		for (size_t j = 0; j < count; j++) {
			struct shb_plugin_file *f;
			char *path = ext ? NULL : join(l->dirs[i], names[j]);

			if (path && !file_open(l, path, &f))
				ext = ask(l, f, id);
			free(path);
			free(names[j]);
		}
		free(names);
	}
	l->ext_loading--;
	return ext;
}

/* ---- --list-plugins ------------------------------------------------------- */

struct seen {
	char **ids;
	char **paths;
	size_t count;
};

static const char *seen_path(const struct seen *s, const char *id)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->ids[i], id))
			return s->paths[i];
	return NULL;
}

static void seen_add(struct seen *s, const char *id, const char *path)
{
	char **ids = realloc(s->ids, (s->count + 1) * sizeof *ids);
	char **paths;

	if (!ids)
		return;
	s->ids = ids;
	paths = realloc(s->paths, (s->count + 1) * sizeof *paths);
	if (!paths)
		return;
	s->paths = paths;
	ids[s->count] = strdup(id);
	paths[s->count] = strdup(path);
	if (!ids[s->count] || !paths[s->count]) {
		free(ids[s->count]);
		free(paths[s->count]);
		return;
	}
	s->count++;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free(s->ids[i]);
		free(s->paths[i]);
	}
	free(s->ids);
	free(s->paths);
}

static void list_options(const struct shb_option_def *o, FILE *out)
{
	char key[64], val[64], text[256];

	for (uint32_t i = 0; o && o[i].key; i++)
		fprintf(out, "    option %s%s%s  %s\n",
			clean(o[i].key, key, sizeof key),
			o[i].value_name ? "=" : "",
			o[i].value_name ? clean(o[i].value_name, val, sizeof val)
					: "",
			clean(o[i].summary, text, sizeof text));
}

/* The 1.2 tables of a descriptor that passed its checks. */
static void proto_details(const void *desc, FILE *out)
{
	const struct shb_proto_desc *d = desc;
	const struct shb_scheme *s = NULL;
	char name[64];

	if (SHB_HAS(d, struct shb_proto_desc, scheme_defs))
		s = d->scheme_defs;
	for (uint32_t i = 0; s && s[i].name; i++)
		fprintf(out, "    scheme %s %u%s\n",
			clean(s[i].name, name, sizeof name),
			(unsigned)s[i].default_port,
			(s[i].flags & SHB_SCHEME_TLS) ? " tls" : "");
	if (SHB_HAS(d, struct shb_proto_desc, option_defs))
		list_options(d->option_defs, out);
}

static void report_details(const void *desc, FILE *out)
{
	const struct shb_report_desc *d = desc;

	if (SHB_HAS(d, struct shb_report_desc, option_defs))
		list_options(d->option_defs, out);
}

/* Prints one line per descriptor of kind k; returns 1 if any is refused. */
static int list_descs(const struct kind *k, const struct shb_plugin_file *f,
		      FILE *out, int *provided)
{
	char why[REASON_MAX], name[64], text[256];
	uint32_t count;
	int bad = 0;

	if (k->count(f, &count, why, sizeof why)) {
		fprintf(out, "  %-8s %-12s REFUSED: %s\n", k->noun, "-", why);
		return 1;
	}
	for (uint32_t i = 0; i < count; i++) {
		const void *d = k->get(f, i);
		int r = k->check(d, f->entry->abi_minor, why, sizeof why);

		if (r == -2)
			snprintf(name, sizeof name, "#%u", (unsigned)i);
		else
			clean(k->name(d), name, sizeof name);
		if (r < 0) {
			fprintf(out, "  %-8s %-12s REFUSED: %s\n", k->noun, name,
				why);
			bad = 1;
		} else {
			fprintf(out, "  %-8s %-12s %s\n", k->noun, name,
				clean(k->summary(d), text, sizeof text));
			k->details(d, out);
		}
		(*provided)++;
	}
	return bad;
}

/* Reads exactly n bytes at off; 0 or -1. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r;

	if (off > (uint64_t)INT64_MAX)
		return -1;
	r = pread(fd, buf, n, (off_t)off);
	return r == (ssize_t)n ? 0 : -1;
}

/* Writes into buf the names of the dynamic symbols `path` exports besides
 * the entry symbol (comma-separated, cut to fit); returns how many. The
 * file is read, not mapped, and every offset is checked against its size:
 * a native-class ELF with a SHT_DYNSYM section, or 0. */
static unsigned extra_symbols(const char *path, char *buf, size_t n)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) sym, str;
	struct stat st;
	char *names = NULL;
	unsigned extra = 0;
	size_t pos = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || read_at(fd, &eh, sizeof eh, 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_shentsize != sizeof sym)
		goto out;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (read_at(fd, &sym, sizeof sym,
			    eh.e_shoff + (uint64_t)i * sizeof sym))
			goto out;
		if (sym.sh_type == SHT_DYNSYM)
			break;
		sym.sh_type = SHT_NULL;
	}
	if (sym.sh_type != SHT_DYNSYM || sym.sh_link >= eh.e_shnum ||
	    sym.sh_entsize != sizeof(ElfW(Sym)) ||
	    read_at(fd, &str, sizeof str,
		    eh.e_shoff + (uint64_t)sym.sh_link * sizeof str) ||
	    str.sh_size == 0 || str.sh_size > (uint64_t)st.st_size ||
	    sym.sh_size > (uint64_t)st.st_size)
		goto out;
	names = malloc(str.sh_size + 1);
	if (!names || read_at(fd, names, str.sh_size, str.sh_offset))
		goto out;
	names[str.sh_size] = '\0';
	for (uint64_t i = 1; i < sym.sh_size / sizeof(ElfW(Sym)); i++) {
		ElfW(Sym) s;
		unsigned bind, vis;

		if (read_at(fd, &s, sizeof s, sym.sh_offset + i * sizeof s))
			break;
		bind = ELF64_ST_BIND(s.st_info);
		vis = ELF64_ST_VISIBILITY(s.st_other);
		/* Defined, visible from outside, not a section, a file or a
		 * version node (an absolute symbol of value 0). */
		if (s.st_shndx == SHN_UNDEF || s.st_name >= str.sh_size ||
		    (bind != STB_GLOBAL && bind != STB_WEAK &&
		     bind != STB_GNU_UNIQUE) ||
		    (vis != STV_DEFAULT && vis != STV_PROTECTED) ||
		    ELF64_ST_TYPE(s.st_info) == STT_SECTION ||
		    ELF64_ST_TYPE(s.st_info) == STT_FILE ||
		    (s.st_shndx == SHN_ABS && s.st_value == 0) ||
		    !names[s.st_name] ||
		    !strcmp(names + s.st_name, SHB_PLUGIN_ENTRY_SYMBOL))
			continue;
		if (extra++)
			append(buf, n, &pos, ", ");
		append(buf, n, &pos, names + s.st_name);
	}
out:
	free(names);
	close(fd);
	return extra;
}

/* A child record (see list_probe): 'R', the entry id (empty for a refused
 * file), NUL, the file's line without its newline, NUL, the lines after
 * it. The child's exit status is 1 when anything was refused. */
static int list_child(struct shb_loader *l, const char *path, FILE *out)
{
	const struct shb_plugin_entry *e;
	struct shb_plugin_file *f;
	char id[128], version[64], syms[512];
	int bad = 0, provided = 0;

	if (file_open(l, path, &f)) {
		fprintf(out, "R%c%s: REFUSED: %s%c", 0, path, strerror(errno), 0);
		return 1;
	}
	if (f->refused) {
		fprintf(out, "R%c%s: REFUSED: %s%c", 0, path, f->refused, 0);
		return 1;
	}
	e = f->entry;
	fprintf(out, "R%s%c%s: %s %s, ABI %u.%u%c", e->id, 0, path,
		clean(e->id, id, sizeof id),
		e->version ? clean(e->version, version, sizeof version)
			   : "(no version)",
		(unsigned)e->abi_major, (unsigned)e->abi_minor, 0);
	if (extra_symbols(path, syms, sizeof syms))
		fprintf(out, "  WARNING: also exports %s (a plugin exports "
			"only %s)\n", syms, SHB_PLUGIN_ENTRY_SYMBOL);
	bad |= list_descs(&proto_kind, f, out, &provided);
	bad |= list_descs(&report_kind, f, out, &provided);
	if (!bad && !provided) {
		fprintf(out, "  REFUSED: provides no protocol and no reporter\n");
		bad = 1;
	}
	return bad;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* What a probe child sent: stage bytes, then maybe a record. */
struct probe {
	char *buf;
	size_t len;
	char stage;
	const char *record; /* after 'R', or NULL */
};

#define PROBE_MAX (1u << 20)
#define PROBE_TIMEOUT_MS 10000

/* Reads everything until EOF or the time limit. Returns 0 at EOF, -1 on
 * timeout. */
static int probe_read(int fd, struct probe *p)
{
	uint64_t deadline = 0;
	struct timespec ts;
	char chunk[4096];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 +
		   PROBE_TIMEOUT_MS;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
		if (now >= deadline)
			return -1;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -1 : 0;
		r = read(fd, chunk, sizeof chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		for (ssize_t i = 0; i < r; i++) {
			/* Stage bytes come before the record. */
			if (!p->record && chunk[i] != 'R') {
				p->stage = chunk[i];
				continue;
			}
			if (p->len + 1 >= PROBE_MAX)
				continue;
			if (!p->buf && !(p->buf = malloc(PROBE_MAX)))
				return 0;
			p->buf[p->len++] = chunk[i];
			p->record = p->buf + 1;
		}
	}
}

static const char *stage_name(char c)
{
	switch (c) {
	case 'o': return "dlopen (its constructors)";
	case 'i': return "init()";
	case 'f': return "get_factory() or a descriptor";
	default: return "the loader";
	}
}

/* Prints one file's listing: the child's record, or why there is none.
 * Returns 1 when the file counts as refused. */
static int list_print(FILE *out, const char *path, struct probe *p,
		      int status, int timed_out, struct seen *seen)
{
	const char *id, *line, *rest, *end;
	const char *first;

	if (timed_out) {
		fprintf(out, "%s: REFUSED: did not finish within %d s, in %s\n",
			path, PROBE_TIMEOUT_MS / 1000, stage_name(p->stage));
		return 1;
	}
	if (WIFSIGNALED(status)) {
		fprintf(out, "%s: REFUSED: crashed (signal %d) in %s\n", path,
			WTERMSIG(status), stage_name(p->stage));
		return 1;
	}
	end = p->buf ? p->buf + p->len : NULL;
	id = p->record;
	line = id ? memchr(id, '\0', (size_t)(end - id)) : NULL;
	rest = line ? memchr(line + 1, '\0', (size_t)(end - line - 1)) : NULL;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1 || !rest) {
		fprintf(out, "%s: REFUSED: exited (status %d) in %s\n", path,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			stage_name(p->stage));
		return 1;
	}
	line++;
	rest++;
	fputs(line, out);
	if (*id) {
		first = seen_path(seen, id);
		if (first)
			fprintf(out, ", shadowed by %s", first);
		else
			seen_add(seen, id, path);
	}
	fputc('\n', out);
	fwrite(rest, 1, (size_t)(end - rest), out);
	return WEXITSTATUS(status);
}

/* One file, probed in a child process: a plugin that crashes or hangs in
 * dlopen, init() or its factories takes only the child down. */
static int list_probe(struct shb_loader *l, FILE *out, const char *path,
		      struct seen *seen)
{
	struct probe p = { 0 };
	int fds[2], status = 0, timed_out, bad;
	pid_t pid;

	fflush(out);
	fflush(stderr);
	if (pipe2(fds, O_CLOEXEC)) {
		fprintf(out, "%s: REFUSED: cannot probe: %s\n", path,
			strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(out, "%s: REFUSED: cannot probe: %s\n", path,
			strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		char *text = NULL;
		size_t len = 0;
		FILE *m;
		int rc;

		close(fds[0]);
		l->stage_fd = fds[1];
		m = open_memstream(&text, &len);
		if (!m)
			_exit(3);
		rc = list_child(l, path, m);
		if (fclose(m))
			_exit(3);
		write_all(fds[1], text, len);
		/* No exit handlers, no stdio flush: they are the parent's. */
		_exit(rc);
	}
	close(fds[1]);
	timed_out = probe_read(fds[0], &p);
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	bad = list_print(out, path, &p, status, timed_out, seen);
	free(p.buf);
	return bad;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.so names in dir, sorted bytewise (locale-independent output).
 * Returns -1 with errno set when the directory cannot be read. */
static int so_names(const char *dir, char ***names, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0;

	*names = NULL;
	*count = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nv;

		if (de->d_name[0] == '.' || len < 4 ||
		    strcmp(de->d_name + len - 3, ".so"))
			continue;
		nv = realloc(v, (n + 1) * sizeof *v);
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			v = nv ? nv : v;
			break;
		}
		v = nv;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, cmp_names);
	*names = v;
	*count = n;
	return 0;
}

int shb_loader_list(struct shb_loader *l, FILE *out)
{
	struct seen seen = { 0 };
	size_t files = 0;
	int refused = 0;

	if (l->failed) {
		fprintf(out, "out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < l->dir_count; i++) {
		char **names;
		size_t count;

		if (so_names(l->dirs[i], &names, &count)) {
			if (errno != ENOENT && errno != ENOTDIR)
				fprintf(out, "%s: cannot read: %s\n", l->dirs[i],
					strerror(errno));
			continue;
		}
		for (size_t j = 0; j < count; j++) {
			char *path = join(l->dirs[i], names[j]);

			if (path)
				refused += list_probe(l, out, path, &seen);
			free(path);
			free(names[j]);
			files++;
		}
		free(names);
	}
	if (!files) {
		fprintf(out, "no plugins in ");
		for (size_t i = 0; i < l->dir_count; i++)
			fprintf(out, "%s%s", i ? ", " : "", l->dirs[i]);
		fprintf(out, "%s\n", l->dir_count ? "" : "(empty search path)");
	}
	seen_free(&seen);
	return refused;
}
