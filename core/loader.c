/* Plugin discovery, loading and validation (see loader.h).
 *
 * Everything here runs on the main thread before workers start. A plugin is
 * trusted only as far as it has been checked: every struct is read up to the
 * size it declares, and no plugin function is called before the entry that
 * holds it passed the version checks. */
#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shb_build_config.h"

/* Bytes from the start of T to the end of member m. */
#define SHB_END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))

/* A factory that claims more descriptors than this is corrupt; the bound
 * keeps --list-plugins finite. */
#define LOADER_MAX_DESCS 256u
#define REASON_MAX 512

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

	/* Newest first, so a plugin is deinited before those loaded earlier. */
	for (f = l->files; f; f = next) {
		next = f->next;
		if (f->inited && f->entry->deinit)
			f->entry->deinit();
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

static const struct shb_plugin_entry *entry_check(void *dl, char *why,
						  size_t n)
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

static void file_load(struct shb_loader *l, struct shb_plugin_file *f)
{
	char why[REASON_MAX], code[32];
	const struct shb_plugin_entry *e;
	int rc;

	dlerror();
	f->dl = dlopen(f->path, RTLD_NOW | RTLD_LOCAL);
	if (!f->dl) {
		fmt(why, sizeof why, "dlopen failed: %s", dl_reason(f->path));
		refuse(f, why);
		return;
	}
	e = entry_check(f->dl, why, sizeof why);
	if (!e) {
		refuse(f, why);
		return;
	}
	rc = e->init(l->host);
	if (rc != SHB_OK) {
		fmt(why, sizeof why, "init failed: %s",
		    err_text(l->host, rc, code, sizeof code));
		refuse(f, why);
		return;
	}
	f->entry = e;
	f->inited = 1;
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
	int (*check)(const void *desc, char *why, size_t n);
	const char *(*name)(const void *desc);
	const char *(*summary)(const void *desc);
	void (*fill)(void *out, const void *desc,
		     const struct shb_plugin_file *f);
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

static int proto_vt_check(const struct shb_proto_desc *d, char *why,
			  size_t n)
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
	NEED(vt, next_deadline, "protocol");
	NEED(vt, on_timer, "protocol");
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

static int proto_check(const void *desc, char *why, size_t n)
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
	if (proto_vt_check(d, why, n))
		return -1;
	if (d->conn_size == 0) {
		fmt(why, n, "protocol descriptor has conn_size 0");
		return -1;
	}
	return 0;
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

static int report_check(const void *desc, char *why, size_t n)
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

static const struct kind proto_kind = {
	"protocol", "shb-proto-", proto_count, proto_get,
	proto_check, proto_name, proto_summary, proto_fill,
};

static const struct kind report_kind = {
	"reporter", "shb-report-", report_count, report_get,
	report_check, report_name, report_summary, report_fill,
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
		int r = k->check(d, why, n);

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

/* The protocols shb ships, and the Debian package holding each: when one
 * is not found, the error says it is not installed rather than unknown,
 * and where to get it. Keep in step with debian/control. */
static const struct shipped {
	const char *name;
	const char *title;
	const char *package;
} shipped_protos[] = {
	{ "h1", "HTTP/1.1", "shb" },
	{ "h2", "HTTP/2", "shb-plugin-h2" },
	{ "h3", "HTTP/3", "shb-plugin-h3" },
};

static const struct shipped *shipped(const struct kind *k, const char *name)
{
	if (k != &proto_kind)
		return NULL;
	for (size_t i = 0; i < sizeof shipped_protos / sizeof *shipped_protos;
	     i++)
		if (!strcmp(shipped_protos[i].name, name))
			return &shipped_protos[i];
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

static int find(struct shb_loader *l, const struct kind *k, const char *name,
		void *out, char *err, size_t errlen)
{
	char why[REASON_MAX], *file;
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
		struct shb_plugin_file *f;
		char *path = join(l->dirs[i], file);

		if (!path) {
			fmt(err, errlen, "out of memory");
			free(file);
			return -1;
		}
		if (file_open(l, path, &f)) {
			/* A missing file is the normal case; anything else is
			 * worth reporting if nothing later loads. */
			if (errno != ENOENT && errno != ENOTDIR && !have_err) {
				fmt(err, errlen, "%s: %s", path, strerror(errno));
				have_err = 1;
			}
		} else if (!pick(k, f, name, out, why, sizeof why)) {
			free(path);
			free(file);
			return 0;
		} else if (!have_err) {
			fmt(err, errlen, "%s: %s", path, why);
			have_err = 1;
		}
		free(path);
	}
	if (!have_err)
		unknown(l, k, name, file, err, errlen);
	free(file);
	return -1;
}

int shb_loader_proto(struct shb_loader *l, const char *name_or_path,
		     struct shb_proto_handle *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	return find(l, &proto_kind, name_or_path, out, err, errlen);
}

int shb_loader_report(struct shb_loader *l, const char *name_or_path,
		      struct shb_report_handle *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	return find(l, &report_kind, name_or_path, out, err, errlen);
}

/* ---- --list-plugins ------------------------------------------------------- */

struct seen {
	const char **ids; /* plugin-owned strings, valid until fini */
	char **paths;
	size_t count;
};

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

static const char *seen_path(const struct seen *s, const char *id)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->ids[i], id))
			return s->paths[i];
	return NULL;
}

static void seen_add(struct seen *s, const char *id, const char *path)
{
	const char **ids = realloc(s->ids, (s->count + 1) * sizeof *ids);
	char **paths;
	char *p;

	if (!ids)
		return;
	s->ids = ids;
	paths = realloc(s->paths, (s->count + 1) * sizeof *paths);
	if (!paths)
		return;
	s->paths = paths;
	p = strdup(path);
	if (!p)
		return;
	ids[s->count] = id;
	paths[s->count++] = p;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->paths[i]);
	free(s->ids);
	free(s->paths);
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
		int r = k->check(d, why, sizeof why);

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
		}
		(*provided)++;
	}
	return bad;
}

static int list_file(struct shb_loader *l, FILE *out, const char *path,
		     struct seen *seen)
{
	const struct shb_plugin_entry *e;
	struct shb_plugin_file *f;
	char id[128], version[64];
	const char *first;
	int bad = 0, provided = 0;

	if (file_open(l, path, &f)) {
		fprintf(out, "%s: REFUSED: %s\n", path, strerror(errno));
		return 1;
	}
	if (f->refused) {
		fprintf(out, "%s: REFUSED: %s\n", path, f->refused);
		return 1;
	}
	e = f->entry;
	fprintf(out, "%s: %s %s, ABI %u.%u", path, clean(e->id, id, sizeof id),
		e->version ? clean(e->version, version, sizeof version)
			   : "(no version)",
		(unsigned)e->abi_major, (unsigned)e->abi_minor);
	first = seen_path(seen, e->id);
	if (first)
		fprintf(out, ", shadowed by %s", first);
	else
		seen_add(seen, e->id, path);
	fputc('\n', out);
	bad |= list_descs(&proto_kind, f, out, &provided);
	bad |= list_descs(&report_kind, f, out, &provided);
	if (!bad && !provided) {
		fprintf(out, "  REFUSED: provides no protocol and no reporter\n");
		bad = 1;
	}
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
				refused += list_file(l, out, path, &seen);
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
