/* Extra exported symbols of a plugin file (see elf_exports.h).
 *
 * The section headers are read rather than the dynamic segment because
 * that is what `nm -D` shows a plugin's author. Nothing here trusts the
 * file: every range is checked with in_file() (no overflowing sums), the
 * tables must have the entry sizes of this machine's ELF class, string
 * indices are checked against the string table's size, and the string
 * table and the number of symbols read have caps, so a hostile file costs
 * a bounded amount of memory and time and gets "no extra exports". */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <shb/plugin.h>

#include "loader/elf_exports.h"
#include "loader/loader_int.h"

/* A plugin's .dynstr is a few KB and its .dynsym a few hundred entries. */
#define ELF_MAX_STRTAB (16u << 20)
#define ELF_MAX_SYMS (1u << 20)

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELF_NATIVE_DATA ELFDATA2LSB
#else
#define ELF_NATIVE_DATA ELFDATA2MSB
#endif

/* [off, off + len) lies inside the file. */
static int in_file(const struct shb_elf_src *s, uint64_t off, uint64_t len)
{
	return off <= s->size && len <= s->size - off;
}

static int read_in(const struct shb_elf_src *s, void *buf, size_t n,
		   uint64_t off)
{
	return in_file(s, off, n) ? s->read(s->ctx, buf, n, off) : -1;
}

/* The header of a native ELF file with section headers we can read. */
static int header(const struct shb_elf_src *s, ElfW(Ehdr) *eh)
{
	return read_in(s, eh, sizeof *eh, 0) ||
	       memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	       eh->e_ident[EI_CLASS] !=
		       (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	       eh->e_ident[EI_DATA] != ELF_NATIVE_DATA ||
	       /* 0 sections, or more than 0xff00 (SHN_XNUM): no plugin. */
	       eh->e_shnum == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
	       !in_file(s, eh->e_shoff,
			(uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)))
		       ? -1
		       : 0;
}

static int section(const struct shb_elf_src *s, const ElfW(Ehdr) *eh,
		   unsigned i, ElfW(Shdr) *sh)
{
	return read_in(s, sh, sizeof *sh,
		       eh->e_shoff + (uint64_t)i * sizeof *sh);
}

/* Finds .dynsym and its string table; checks both lie inside the file. */
static int tables(const struct shb_elf_src *s, ElfW(Shdr) *sym,
		  ElfW(Shdr) *str)
{
	ElfW(Ehdr) eh;
	unsigned i;

	if (header(s, &eh))
		return -1;
	for (i = 0; i < eh.e_shnum; i++) {
		if (section(s, &eh, i, sym))
			return -1;
		if (sym->sh_type == SHT_DYNSYM)
			break;
	}
	if (i == eh.e_shnum || sym->sh_link == 0 ||
	    sym->sh_link >= eh.e_shnum ||
	    sym->sh_entsize != sizeof(ElfW(Sym)) ||
	    !in_file(s, sym->sh_offset, sym->sh_size) ||
	    section(s, &eh, sym->sh_link, str) || str->sh_type != SHT_STRTAB ||
	    str->sh_size == 0 || str->sh_size > ELF_MAX_STRTAB ||
	    !in_file(s, str->sh_offset, str->sh_size))
		return -1;
	return 0;
}

/* Defined, visible from outside, not a section, a file or a version node
 * (an absolute symbol of value 0), with a name inside the table. */
static const char *exported(const ElfW(Sym) *sy, const char *names,
			    uint64_t names_size)
{
	unsigned bind = ELF64_ST_BIND(sy->st_info);
	unsigned vis = ELF64_ST_VISIBILITY(sy->st_other);
	unsigned type = ELF64_ST_TYPE(sy->st_info);

	if (sy->st_shndx == SHN_UNDEF || sy->st_name >= names_size ||
	    (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
	    (vis != STV_DEFAULT && vis != STV_PROTECTED) ||
	    type == STT_SECTION || type == STT_FILE ||
	    (sy->st_shndx == SHN_ABS && sy->st_value == 0) ||
	    !names[sy->st_name] ||
	    !strcmp(names + sy->st_name, SHB_PLUGIN_ENTRY_SYMBOL))
		return NULL;
	return names + sy->st_name;
}

unsigned shb_elf_extra_exports(const struct shb_elf_src *src, char *buf,
			       size_t n)
{
	ElfW(Shdr) sym, str;
	char *names;
	uint64_t count;
	unsigned extra = 0;
	size_t pos = 0;

	buf[0] = '\0';
	if (tables(src, &sym, &str) || !(names = malloc(str.sh_size + 1)))
		return 0;
	if (read_in(src, names, str.sh_size, str.sh_offset)) {
		free(names);
		return 0;
	}
	names[str.sh_size] = '\0';
	count = sym.sh_size / sizeof(ElfW(Sym));
	if (count > ELF_MAX_SYMS)
		count = ELF_MAX_SYMS;
	/* Entry 0 is the undefined symbol. */
	for (uint64_t i = 1; i < count; i++) {
		ElfW(Sym) sy;
		const char *name;

		if (read_in(src, &sy, sizeof sy, sym.sh_offset + i * sizeof sy))
			break;
		name = exported(&sy, names, str.sh_size);
		if (!name)
			continue;
		if (extra++)
			shb_loader_append(buf, n, &pos, ", ");
		shb_loader_append(buf, n, &pos, name);
	}
	free(names);
	return extra;
}

static int fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(*(int *)ctx, buf, n, (off_t)off);

	return r == (ssize_t)n ? 0 : -1;
}

unsigned shb_elf_extra_exports_file(const char *path, char *buf, size_t n)
{
	struct stat st;
	unsigned extra = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		struct shb_elf_src src = { fd_read, &fd, (uint64_t)st.st_size };

		extra = shb_elf_extra_exports(&src, buf, n);
	}
	close(fd);
	return extra;
}
