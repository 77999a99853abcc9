/* shb-plugin-check: the entry symbol, exported symbols, init/deinit and the
 * factories. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "common/abi_major.h"

#define END_OF(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))
#define MAX_DESCS 256u

/* ---- exported symbols -------------------------------------------------------- */

int chk_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* The dynamic symbols `path` defines and exports besides the entry, into
 * buf (comma-separated, cut to fit); their count, or -1 when the file is
 * not an ELF object of this machine's class. Reads with bounds checks. */
static int exported_extra(const char *path, char *buf, size_t n)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) dyn, str;
	struct stat st;
	char *names = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), count = -1;
	size_t pos = 0;

	buf[0] = '\0';
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || chk_pread(fd, &eh, sizeof eh, 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64
							 : ELFCLASS32) ||
	    eh.e_shentsize != sizeof dyn)
		goto out;
	dyn.sh_type = SHT_NULL;
	for (unsigned i = 0; i < eh.e_shnum && dyn.sh_type != SHT_DYNSYM; i++)
		if (chk_pread(fd, &dyn, sizeof dyn,
			      eh.e_shoff + (uint64_t)i * sizeof dyn))
			goto out;
	count = 0;
	if (dyn.sh_type != SHT_DYNSYM)
		goto out;
	count = -1;
	if (dyn.sh_link >= eh.e_shnum ||
	    dyn.sh_entsize != sizeof(ElfW(Sym)) ||
	    chk_pread(fd, &str, sizeof str,
		      eh.e_shoff + (uint64_t)dyn.sh_link * sizeof str) ||
	    str.sh_size > (uint64_t)st.st_size ||
	    dyn.sh_size > (uint64_t)st.st_size)
		goto out;
	names = calloc(1, str.sh_size + 1);
	if (!names || chk_pread(fd, names, str.sh_size, str.sh_offset))
		goto out;
	count = 0;
	for (uint64_t i = 1; i < dyn.sh_size / sizeof(ElfW(Sym)); i++) {
		ElfW(Sym) s;
		unsigned bind, vis, type;
		const char *name;

		if (chk_pread(fd, &s, sizeof s, dyn.sh_offset + i * sizeof s))
			break;
		bind = ELF64_ST_BIND(s.st_info);
		vis = ELF64_ST_VISIBILITY(s.st_other);
		type = ELF64_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_name >= str.sh_size)
			continue;
		if (bind == STB_LOCAL || vis == STV_HIDDEN ||
		    vis == STV_INTERNAL || type == STT_SECTION ||
		    type == STT_FILE)
			continue;
		if (s.st_shndx == SHN_ABS && s.st_value == 0)
			continue; /* a version node */
		name = names + s.st_name;
		if (!*name || !strcmp(name, SHB_PLUGIN_ENTRY_SYMBOL))
			continue;
		if (count++ && pos + 2 < n)
			pos += (size_t)snprintf(buf + pos, n - pos, ", ");
		if (pos + 1 < n)
			pos += (size_t)snprintf(buf + pos, n - pos, "%s", name);
		if (pos >= n)
			pos = n - 1;
	}
out:
	free(names);
	close(fd);
	return count;
}

/* ---- entry --------------------------------------------------------------------- */

static size_t sym_size(const void *sym)
{
	Dl_info info;
	const ElfW(Sym) *es = NULL;

	if (!dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) || !es ||
	    info.dli_saddr != sym)
		return 0;
	return es->st_size;
}

/* glibc's dlerror() starts with the path, which the user typed. */
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


static int entry_fields(struct chk *k, const struct shb_plugin_entry *e,
			size_t size)
{
	const char *c = "entry";

	if (size < END_OF(struct shb_plugin_entry, abi_minor)) {
		chk_line(k, "FAIL", c, "entry struct too short (%zu bytes)", size);
		return 1;
	}
	if (e->abi_major != SHB_ABI_MAJOR) {
		chk_line(k, "FAIL", c, "built for shb ABI %u, this checker "
			 "provides ABI %d", (unsigned)e->abi_major,
			 SHB_ABI_MAJOR);
		return 1;
	}
	if (size < END_OF(struct shb_plugin_entry, get_factory)) {
		chk_line(k, "FAIL", c, "entry struct too short (%zu bytes)", size);
		return 1;
	}
	if (e->abi_minor > SHB_ABI_MINOR) {
		chk_line(k, "FAIL", c, "needs shb ABI %d.%u, this checker "
			 "provides %d.%d", SHB_ABI_MAJOR, (unsigned)e->abi_minor,
			 SHB_ABI_MAJOR, SHB_ABI_MINOR);
		return 1;
	}
	if (!e->id || !e->id[0]) {
		chk_line(k, "FAIL", c, "plugin entry has no id");
		return 1;
	}
	if (!e->init || !e->get_factory) {
		chk_line(k, "FAIL", c, "plugin entry lacks a mandatory member (%s)",
			 e->init ? "get_factory" : "init");
		return 1;
	}
	return 0;
}

int chk_group_entry(struct chk *k)
{
	const struct shb_plugin_entry *e;
	char extra[512];
	size_t size, elf;
	unsigned major;
	void *dl;
	int n;

	dlerror();
	dl = dlopen(k->path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		chk_line(k, "FAIL", "entry", "dlopen failed: %s",
			 dl_reason(k->path));
		return k->fails;
	}
	e = dlsym(dl, SHB_PLUGIN_ENTRY_SYMBOL);
	if (!e) {
		major = shb_other_abi_major(dl);
		if (major)
			chk_line(k, "FAIL", "entry", "built for shb ABI %u, this "
				 "checker provides ABI %d", major, SHB_ABI_MAJOR);
		else
			chk_line(k, "FAIL", "entry", "not an shb plugin (no %s "
				 "symbol)", SHB_PLUGIN_ENTRY_SYMBOL);
		return k->fails;
	}
	/* The core reads no more than the symbol holds, whatever
	 * struct_size says. */
	elf = sym_size(e);
	size = elf ? elf : sizeof *e;
	if (size >= sizeof e->struct_size && e->struct_size < size)
		size = e->struct_size;
	if (entry_fields(k, e, size))
		return k->fails;
	if (elf && e->struct_size > elf)
		chk_line(k, "FAIL", "entry", "struct_size %u is larger than the "
			 "symbol (%zu bytes)", (unsigned)e->struct_size, elf);
	else
		chk_line(k, "PASS", "entry", "%s, %zu bytes, ABI %u.%u, id %s, "
			 "version %s", SHB_PLUGIN_ENTRY_SYMBOL, size,
			 (unsigned)e->abi_major, (unsigned)e->abi_minor, e->id,
			 e->version ? e->version : "(none)");
	if (e->flags)
		chk_line(k, "WARN", "entry", "flags 0x%x set (none is defined)",
			 (unsigned)e->flags);
	n = exported_extra(k->path, extra, sizeof extra);
	if (n < 0)
		chk_line(k, "WARN", "exports", "cannot read the dynamic symbols");
	else if (n > 0)
		chk_line(k, "WARN", "exports", "also exports %s (a plugin "
			 "exports only %s)", extra, SHB_PLUGIN_ENTRY_SYMBOL);
	else
		chk_line(k, "PASS", "exports", "only %s",
			 SHB_PLUGIN_ENTRY_SYMBOL);
	return k->fails;
}

/* ---- init, factories ------------------------------------------------------------ */

/* Checks one factory's header (both kinds share the layout) and that every
 * get(i) answers the same descriptor twice. Names go to fd. */
static int factory_check(struct chk *k, const char *noun, uint32_t size,
			 size_t need, uint32_t count, int has_get)
{
	if (size < need) {
		chk_line(k, "FAIL", "factories", "%s factory too short "
			 "(%u bytes)", noun, (unsigned)size);
		return -1;
	}
	if (count > MAX_DESCS) {
		chk_line(k, "FAIL", "factories", "%s factory lists %u entries "
			 "(at most %u)", noun, (unsigned)count, MAX_DESCS);
		return -1;
	}
	if (count && !has_get) {
		chk_line(k, "FAIL", "factories", "%s factory lacks a mandatory "
			 "member (get)", noun);
		return -1;
	}
	return 0;
}

/* Names must be unique within a kind; `names` holds those seen. */
static int names_check(struct chk *k, const char *noun,
		       const char *const *names, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		for (uint32_t j = 0; j < i; j++)
			if (names[i] && names[j] && !strcmp(names[i], names[j])) {
				chk_line(k, "FAIL", "factories", "two %ss named "
					 "'%s'", noun, names[i]);
				return -1;
			}
	return 0;
}

static int protos(struct chk *k, FILE *out, uint32_t *count)
{
	const struct shb_proto_factory *f = chk_proto_factory(k);
	const char *names[MAX_DESCS];
	char lab[64];

	*count = 0;
	if (!f)
		return 0;
	if (f != chk_proto_factory(k)) {
		chk_line(k, "FAIL", "factories", "get_factory(%s) is not "
			 "stable", SHB_FACTORY_PROTOCOL);
		return -1;
	}
	if (factory_check(k, "protocol", f->struct_size,
			  END_OF(struct shb_proto_factory, get), f->count,
			  f->get != NULL))
		return -1;
	for (uint32_t i = 0; i < f->count; i++) {
		const struct shb_proto_desc *d = f->get(i);

		if (d != f->get(i)) {
			chk_line(k, "FAIL", "factories", "protocol get(%u) is "
				 "not stable", (unsigned)i);
			return -1;
		}
		names[i] = d && d->struct_size >= END_OF(struct shb_proto_desc, name)
				   ? d->name : NULL;
		chk_name(lab, sizeof lab, names[i]);
		fprintf(out, "proto %s\n", lab);
	}
	*count = f->count;
	return names_check(k, "protocol", names, f->count);
}

static int reports(struct chk *k, FILE *out, uint32_t *count)
{
	const struct shb_report_factory *f = chk_report_factory(k);
	const char *names[MAX_DESCS];
	char lab[64];

	*count = 0;
	if (!f)
		return 0;
	if (f != chk_report_factory(k)) {
		chk_line(k, "FAIL", "factories", "get_factory(%s) is not "
			 "stable", SHB_FACTORY_REPORTER);
		return -1;
	}
	if (factory_check(k, "reporter", f->struct_size,
			  END_OF(struct shb_report_factory, get), f->count,
			  f->get != NULL))
		return -1;
	for (uint32_t i = 0; i < f->count; i++) {
		const struct shb_report_desc *d = f->get(i);

		if (d != f->get(i)) {
			chk_line(k, "FAIL", "factories", "reporter get(%u) is "
				 "not stable", (unsigned)i);
			return -1;
		}
		names[i] = d && d->struct_size >= END_OF(struct shb_report_desc, name)
				   ? d->name : NULL;
		chk_name(lab, sizeof lab, names[i]);
		fprintf(out, "report %s\n", lab);
	}
	*count = f->count;
	return names_check(k, "reporter", names, f->count);
}

/* Script engines (shb/script.h, since 1.4): counted only, so that a
 * plugin that is an engine alone provides something; the core's loader
 * checks their descriptors (core/loader/loader_script.c). */
static uint32_t scripts(struct chk *k)
{
	const struct shb_plugin_entry *e = k->p.entry;
	const struct shb_script_factory *f = e->get_factory(SHB_FACTORY_SCRIPT);

	if (!f || f->struct_size < END_OF(struct shb_script_factory, get) || !f->get)
		return 0;
	return f->count;
}

int chk_group_init(struct chk *k, int fd)
{
	const struct shb_plugin_entry *e;
	FILE *out = fdopen(fd, "w");
	uint32_t np = 0, nr = 0;
	int bad, has_deinit;

	if (!out || chk_load(k, "init")) {
		if (out)
			fclose(out);
		return k->fails ? k->fails : 1;
	}
	e = k->p.entry;
	chk_line(k, "PASS", "init", "init() returned SHB_OK once");
	if (e->get_factory("shb.kit.no-such-factory/1"))
		chk_line(k, "FAIL", "factories", "get_factory answers an "
			 "unknown id");
	bad = protos(k, out, &np) || reports(k, out, &nr);
	fflush(out);
	uint32_t ns = scripts(k);
	if (!bad && np + nr + ns == 0)
		chk_line(k, "FAIL", "factories", "provides no protocol, no "
			 "reporter and no script engine");
	else if (!bad && ns)
		chk_line(k, "PASS", "factories", "%u script engine%s (ABI 1.4; "
			 "the checker does not drive script engines)",
			 (unsigned)ns, ns == 1 ? "" : "s");
	else if (!bad)
		chk_line(k, "PASS", "factories", "%u protocol%s, %u reporter%s, "
			 "stable", (unsigned)np, np == 1 ? "" : "s",
			 (unsigned)nr, nr == 1 ? "" : "s");
	if (SHB_KIT_ENTRY_HAS(&k->p, get_extension) && e->get_extension) {
		if (e->get_extension("org.shb.kit.no-such-extension/1"))
			chk_line(k, "FAIL", "extensions", "get_extension "
				 "answers an unknown id");
		else
			chk_line(k, "INFO", "extensions", "get_extension "
				 "present");
	}
	has_deinit = e->deinit != NULL;
	if (!has_deinit)
		chk_line(k, "INFO", "init", "deinit left out");
	chk_unload(k); /* e is gone with the module */
	if (has_deinit)
		chk_line(k, "PASS", "deinit", "deinit() called once after "
			 "init()");
	fclose(out);
	return k->fails;
}
