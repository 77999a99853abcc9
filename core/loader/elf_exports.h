/* The dynamic symbols a plugin file exports besides its entry symbol, read
 * from the file's ELF section headers for --list-plugins' warning. The
 * file is untrusted input: every offset, size and count in it is checked
 * against the file's size before it is used (tests/fuzz: elf). */
#ifndef SHB_CORE_ELF_EXPORTS_H
#define SHB_CORE_ELF_EXPORTS_H

#include <stddef.h>
#include <stdint.h>

/* Where the bytes come from: read() fills buf with exactly n bytes at off
 * and returns 0, or returns -1; it is only asked for ranges inside
 * [0, size). */
struct shb_elf_src {
	int (*read)(void *ctx, void *buf, size_t n, uint64_t off);
	void *ctx;
	uint64_t size;
};

/* Writes into buf[n] the names of the defined, visible dynamic symbols
 * other than SHB_PLUGIN_ENTRY_SYMBOL, comma-separated and cut to fit;
 * returns how many there are (0 and "" for anything that is not a
 * native-class, native-byte-order ELF file with a SHT_DYNSYM section
 * whose table and strings lie inside the file). n must be at least 1. */
unsigned shb_elf_extra_exports(const struct shb_elf_src *src, char *buf,
			       size_t n);

/* The same for the file at path (read with pread, never mapped). */
unsigned shb_elf_extra_exports_file(const char *path, char *buf, size_t n);

#endif
