/* shb-plugin-check: what a plugin file says about the libraries it needs
 * (its DT_NEEDED entries), read with bounds checks from an untrusted file
 * (fuzzed: tests/fuzz, target check_needed). */
#ifndef SHB_CHECK_ELF_H
#define SHB_CHECK_ELF_H

#include <stddef.h>
#include <stdint.h>

/* Reads exactly n bytes at off into buf: 0, or -1 (past the end, an I/O
 * error). The reader never asks for a range outside [0, size). */
struct chk_elf_src {
	int (*read)(void *ctx, void *buf, size_t n, uint64_t off);
	void *ctx;
	uint64_t size; /* the file's size */
};

/* The first DT_NEEDED name of the ELF object (this machine's class) that
 * starts with `prefix`, copied into out[n] (cut to fit). 1 found, 0 not
 * (or no dynamic section), -1 not an ELF object of this class or a table
 * out of the file's bounds. */
int chk_elf_needed(const struct chk_elf_src *src, const char *prefix,
		   char *out, size_t n);

#endif
