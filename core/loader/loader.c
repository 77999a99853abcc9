/* Plugin discovery, loading and validation (see loader.h).
 *
 * Everything here runs on the main thread before workers start. A plugin is
 * trusted only as far as it has been checked: every struct is read up to the
 * size it declares, and no plugin function is called before the entry that
 * holds it passed the version checks. */
#include "loader/loader.h"
#include "loader/loader_int.h"
#include "loader/loader_probe.h"
#include "loader/loader_unknown.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/abi_major.h"
#include "shb_build_config.h"

/* Stands in for a refusal text we could not allocate; never freed. */
static char refused_oom[] = "out of memory";

/* ---- shared with loader_desc.c and loader_list.c (loader_int.h) --------- */

void shb_loader_fmt(char *buf, size_t n, const char *f, ...)
{
	va_list ap;

	if (!buf || !n)
		return;
	va_start(ap, f);
	vsnprintf(buf, n, f, ap);
	va_end(ap);
}

void shb_loader_append(char *buf, size_t n, size_t *pos, const char *s)
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

char *shb_loader_join(const char *dir, const char *file)
{
	char *p;
	size_t dl = strlen(dir);
	int slash = dl > 0 && dir[dl - 1] == '/';

	if (asprintf(&p, "%s%s%s", dir, slash ? "" : "/", file) < 0)
		return NULL;
	return p;
}

const char *shb_loader_clean(const char *s, char *buf, size_t n)
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


static const struct shb_plugin_entry *entry_check(void *dl, size_t *sizep,
						  char *why, size_t n)
{
	const struct shb_plugin_entry *e = dlsym(dl, SHB_PLUGIN_ENTRY_SYMBOL);
	size_t size;
	unsigned major;

	if (!e) {
		major = shb_other_abi_major(dl);
		if (major)
			shb_loader_fmt(why, n, "built for shb ABI %u, this shb provides ABI %d",
			    major, SHB_ABI_MAJOR);
		else
			shb_loader_fmt(why, n, "not an shb plugin (no %s symbol)",
			    SHB_PLUGIN_ENTRY_SYMBOL);
		return NULL;
	}
	size = sym_size(e);
	if (size >= sizeof e->struct_size && e->struct_size < size)
		size = e->struct_size;
	if (size < SHB_END_OF(struct shb_plugin_entry, abi_minor))
		goto too_short;
	if (e->abi_major != SHB_ABI_MAJOR) {
		shb_loader_fmt(why, n, "built for shb ABI %u, this shb provides ABI %d",
		    (unsigned)e->abi_major, SHB_ABI_MAJOR);
		return NULL;
	}
	if (size < SHB_END_OF(struct shb_plugin_entry, get_factory))
		goto too_short;
	if (e->abi_minor > SHB_ABI_MINOR) {
		shb_loader_fmt(why, n, "needs shb ABI %d.%u, this shb provides %d.%d",
		    SHB_ABI_MAJOR, (unsigned)e->abi_minor, SHB_ABI_MAJOR,
		    SHB_ABI_MINOR);
		return NULL;
	}
	if (!e->id || !e->id[0]) {
		shb_loader_fmt(why, n, "plugin entry has no id");
		return NULL;
	}
	if (!e->init || !e->get_factory) {
		shb_loader_fmt(why, n, "plugin entry lacks a mandatory member (%s)",
		    e->init ? "get_factory" : "init");
		return NULL;
	}
	*sizep = size;
	return e;
too_short:
	shb_loader_fmt(why, n, "entry struct too short (%zu bytes)", size);
	return NULL;
}

static const char *err_text(const struct shb_host *h, int code, char *buf,
			    size_t n)
{
	const char *s = NULL;

	if (h && SHB_HAS(h, struct shb_host, strerror) && h->strerror)
		s = h->strerror(code);
	if (!s) {
		shb_loader_fmt(buf, n, "error %d", code);
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
	char why[LOADER_REASON_MAX], code[32];
	const struct shb_plugin_entry *e;
	size_t size = 0;
	int rc;

	dlerror();
	stage(l, 'o');
	f->dl = dlopen(f->path, RTLD_NOW | RTLD_LOCAL);
	if (!f->dl) {
		shb_loader_fmt(why, sizeof why, "dlopen failed: %s", dl_reason(f->path));
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
		shb_loader_fmt(why, sizeof why, "init failed: %s",
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

/* See loader_int.h. */
int shb_loader_file_open(struct shb_loader *l, const char *path,
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

/* ---- lookup: by path, by file name, by descriptor ------------------------ */

/* Selects `name` (NULL: the first descriptor) in f and fills out. Returns 0,
 * or -1 with the reason in why. */
static int pick(const struct shb_loader_kind *k, const struct shb_plugin_file *f,
		const char *name, void *out, char *why, size_t n)
{
	char unreadable[LOADER_REASON_MAX] = "";
	uint32_t count;

	if (f->refused) {
		shb_loader_fmt(why, n, "%s", f->refused);
		return -1;
	}
	if (k->count(f, &count, why, n))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const void *d = k->get(f, i);
		int r = k->check(d, f->entry->abi_minor, why, n);

		if (r == -2 && name) {
			if (!unreadable[0])
				shb_loader_fmt(unreadable, sizeof unreadable, "%s", why);
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
		shb_loader_fmt(why, n, "%s", unreadable);
	else if (name)
		shb_loader_fmt(why, n, "provides no %s named \"%s\"", k->noun, name);
	else
		shb_loader_fmt(why, n, "provides no %s", k->noun);
	return -1;
}

/* A lookup's question, asked in a probe child and again here. */
struct desc_q {
	const struct shb_loader_kind *k;
	const char *name;
	void *out;
};

/* Whether f provides the descriptor named q->name, or is the plugin of
 * that entry id (then its first descriptor of the kind); fills q->out. */
static int desc_match(struct shb_loader *l, struct shb_plugin_file *f, void *arg)
{
	const struct desc_q *q = arg;
	char why[LOADER_REASON_MAX];

	(void)l;
	return !f->refused && (!pick(q->k, f, q->name, q->out, why, sizeof why) ||
	    (!strcmp(f->entry->id, q->name) &&
	     !pick(q->k, f, NULL, q->out, why, sizeof why)));
}

/* The probe child's test for a lookup by path or file name: runs pick()
 * as the caller will, so that a crash in the factories happens there. */
static int pick_any(struct shb_loader *l, struct shb_plugin_file *f, void *arg)
{
	const struct desc_q *q = arg;
	char why[LOADER_REASON_MAX];

	(void)l;
	pick(q->k, f, q->name, q->out, why, sizeof why);
	return 1;
}

static int find_path(struct shb_loader *l, const struct shb_loader_kind *k,
		     const char *path, void *out, char *err, size_t errlen)
{
	struct shb_plugin_file *f;
	char why[LOADER_REASON_MAX];
	struct desc_q q = { k, NULL, out };
	int r = shb_loader_open_probed(l, path, pick_any, &q, &f, why, sizeof why);

	if (r < 0 || pick(k, f, NULL, out, why, sizeof why)) {
		if (r == -1)
			shb_loader_fmt(why, sizeof why, "%s", strerror(errno));
		shb_loader_fmt(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

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
 * id, each asked in a probe child first (loader_probe.h): a file that
 * crashes, hangs or does not match is never loaded here, and is skipped
 * silently like a refused one (--list-plugins says why). Returns 0 with
 * out filled, or -1. */
static int find_desc(struct shb_loader *l, const struct shb_loader_kind *k,
		     const char *name, void *out, const char **used,
		     char *crash, size_t n)
{
	struct desc_q q = { k, name, out };
	char why[LOADER_REASON_MAX];
	int found = -1;

	for (size_t i = 0; i < l->dir_count && found; i++) {
		char **names;
		size_t count;

		if (shb_loader_so_names(l->dirs[i], &names, &count))
			continue;
		for (size_t j = 0; j < count; j++) {
			struct shb_plugin_file *f;
			char *path = found ? shb_loader_join(l->dirs[i], names[j]) : NULL;

			int r = path ? shb_loader_open_probed(l, path, desc_match,
					&q, &f, why, sizeof why) : 0;

			if (r == 1 && desc_match(l, f, &q)) {
				*used = f->path;
				found = 0;
			} else if (r == -2 && !crash[0]) {
				shb_loader_fmt(crash, n, "%s: %s", path, why);
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
static int find_file(struct shb_loader *l, const struct shb_loader_kind *k,
		     const char *path, const char *name, void *out, char *why,
		     size_t n)
{
	struct shb_plugin_file *f;
	struct desc_q q = { k, name, out };
	int r = shb_loader_open_probed(l, path, pick_any, &q, &f, why, n);

	if (r == -1) {
		/* A missing file is the normal case. */
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		shb_loader_fmt(why, n, "%s", strerror(errno));
	}
	if (r < 0)
		return -1;
	return pick(k, f, name, out, why, n) ? -1 : 0;
}

static int find(struct shb_loader *l, const struct shb_loader_kind *k, const char *name,
		void *out, char *err, size_t errlen)
{
	char why[LOADER_REASON_MAX], crash[LOADER_REASON_MAX] = "", *file;
	struct passed passed = { 0 };
	const char *used = NULL;
	int have_err = 0;

	if (l->failed) {
		shb_loader_fmt(err, errlen, "out of memory");
		return -1;
	}
	if (!name || !name[0]) {
		shb_loader_fmt(err, errlen, "empty %s name", k->noun);
		return -1;
	}
	if (strchr(name, '/'))
		return find_path(l, k, name, out, err, errlen);
	if (asprintf(&file, "%s%s.so", k->prefix, name) < 0) {
		shb_loader_fmt(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < l->dir_count; i++) {
		char *path = shb_loader_join(l->dirs[i], file);
		int r = path ? find_file(l, k, path, name, out, why, sizeof why)
			     : -1;

		if (r == 0) {
			passed_warn(l, &passed, path);
			free(path);
			free(file);
			return 0;
		}
		if (!path)
			shb_loader_fmt(why, sizeof why, "out of memory");
		if (r < 0) {
			if (!have_err)
				shb_loader_fmt(err, errlen, "%s: %s", path ? path : file,
				    why);
			have_err = 1;
			passed_add(&passed, path ? path : file, why);
		}
		free(path);
	}
	if (!find_desc(l, k, name, out, &used, crash, sizeof crash)) {
		passed_warn(l, &passed, used);
		free(file);
		return 0;
	}
	passed_warn(l, &passed, NULL);
	if (!have_err)
		shb_loader_unknown(l, k, name, file, crash, err, errlen);
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
	if (find(l, &shb_loader_proto_kind, name_or_path, out, err, errlen))
		return -1;
	used_add(l, out->file, "protocol", out->desc->name);
	return 0;
}

int shb_loader_report(struct shb_loader *l, const char *name_or_path,
		      struct shb_report_handle *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (find(l, &shb_loader_report_kind, name_or_path, out, err, errlen))
		return -1;
	used_add(l, out->file, "reporter", out->desc->name);
	return 0;
}

int shb_loader_script(struct shb_loader *l, const char *name_or_path,
		      struct shb_script_handle *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (find(l, &shb_loader_script_kind, name_or_path, out, err, errlen))
		return -1;
	used_add(l, out->file, "script", out->desc->name);
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

/* desc_match's counterpart for the extension scan, run in a probe child. */
static int ext_match(struct shb_loader *l, struct shb_plugin_file *f, void *id)
{
	return ask(l, f, id) != NULL;
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

		if (shb_loader_so_names(l->dirs[i], &names, &count))
			continue;
		for (size_t j = 0; j < count; j++) {
			struct shb_plugin_file *f;
			char *path = ext ? NULL : shb_loader_join(l->dirs[i], names[j]);

			if (path && shb_loader_open_probed(l, path, ext_match,
					(void *)id, &f, NULL, 0) == 1)
				ext = ask(l, f, id);
			free(path);
			free(names[j]);
		}
		free(names);
	}
	l->ext_loading--;
	return ext;
}
