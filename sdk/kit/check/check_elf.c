/* shb-plugin-check: the DT_NEEDED names of a plugin file (check_elf.h). */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "check_elf.h"

#define NAME_MAX_READ 128

/* A read of [off, off + n) that lies inside the file. */
static int get(const struct chk_elf_src *s, void *buf, size_t n, uint64_t off)
{
	if (off > s->size || n > s->size - off)
		return -1;
	return s->read(s->ctx, buf, n, off);
}

/* Section `i`'s header; 0, or -1 out of bounds. */
static int section(const struct chk_elf_src *s, const ElfW(Ehdr) *eh,
		   uint64_t i, ElfW(Shdr) *sh)
{
	if (i >= eh->e_shnum || eh->e_shoff > s->size)
		return -1;
	return get(s, sh, sizeof *sh, eh->e_shoff + i * sizeof *sh);
}

/* The name at `at` in the string table `str`, into out[n]: at most
 * NAME_MAX_READ bytes, and never past the table or the file. */
static int name_at(const struct chk_elf_src *s, const ElfW(Shdr) *str,
		   uint64_t at, char *name, size_t n)
{
	uint64_t left;
	size_t len;

	if (at >= str->sh_size)
		return -1;
	left = str->sh_size - at;
	len = left < n - 1 ? (size_t)left : n - 1;
	if (str->sh_offset > s->size || len > s->size - str->sh_offset ||
	    at > s->size - str->sh_offset - len)
		return -1;
	if (get(s, name, len, str->sh_offset + at))
		return -1;
	name[len] = '\0';
	return 0;
}

int chk_elf_needed(const struct chk_elf_src *src, const char *prefix,
		   char *out, size_t n)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) dyn, str;
	uint64_t i;

	if (get(src, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64
							 : ELFCLASS32) ||
	    eh.e_shentsize != sizeof dyn)
		return -1;
	dyn.sh_type = SHT_NULL;
	for (i = 0; i < eh.e_shnum && dyn.sh_type != SHT_DYNAMIC; i++)
		if (section(src, &eh, i, &dyn))
			return -1;
	if (dyn.sh_type != SHT_DYNAMIC)
		return 0;
	if (section(src, &eh, dyn.sh_link, &str) || dyn.sh_offset > src->size ||
	    dyn.sh_size > src->size - dyn.sh_offset)
		return -1;
	for (i = 0; i < dyn.sh_size / sizeof(ElfW(Dyn)); i++) {
		ElfW(Dyn) d;
		char name[NAME_MAX_READ];

		if (get(src, &d, sizeof d, dyn.sh_offset + i * sizeof d))
			return -1;
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED ||
		    name_at(src, &str, d.d_un.d_val, name, sizeof name))
			continue;
		if (!strncmp(name, prefix, strlen(prefix))) {
			snprintf(out, n, "%s", name);
			return 1;
		}
	}
	return 0;
}
