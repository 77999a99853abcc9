/* The ELF reader behind --list-plugins' "also exports" warning
 * (core/loader/elf_exports.c), on small ELF files built here: the exact names it
 * reports, and 0 for every way a file can lie about its tables (no
 * section headers, a table past the end or cut short, sizes whose sum
 * overflows, zero-size entries, links and string indices out of range). */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "loader/elf_exports.h"

/* The image: header, .dynstr, .dynsym (null, the entry, extra_fn,
 * hidden_fn, an undefined import, a name past the table), then four
 * section headers (null, .dynsym, .dynstr, a spare). */
static const char strtab[] = "\0shb_plugin_entry_v1\0extra_fn\0hidden_fn\0imp";
#define STR_OFF sizeof(ElfW(Ehdr))
#define SYM_OFF ((STR_OFF + sizeof strtab + 7) & ~(size_t)7)
#define NSYM 6
#define SH_OFF (SYM_OFF + NSYM * sizeof(ElfW(Sym)))
#define NSH 4
#define IMG_SIZE (SH_OFF + NSH * sizeof(ElfW(Shdr)))

static unsigned char img[IMG_SIZE];

static ElfW(Ehdr) *eh(void) { return (ElfW(Ehdr) *)img; }
static ElfW(Shdr) *sh(unsigned i)
{
	return (ElfW(Shdr) *)(img + SH_OFF) + i;
}
static ElfW(Sym) *sym(unsigned i) { return (ElfW(Sym) *)(img + SYM_OFF) + i; }

static void put_sym(unsigned i, unsigned name, unsigned shndx, unsigned vis)
{
	sym(i)->st_name = name;
	sym(i)->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym(i)->st_other = vis;
	sym(i)->st_shndx = shndx;
	sym(i)->st_value = 0x1000 + i;
}

static void build(void)
{
	memset(img, 0, sizeof img);
	memcpy(eh()->e_ident, ELFMAG, SELFMAG);
	eh()->e_ident[EI_CLASS] = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
	eh()->e_ident[EI_DATA] = ELFDATA2LSB;
	eh()->e_ident[EI_VERSION] = EV_CURRENT;
	eh()->e_type = ET_DYN;
	eh()->e_shoff = SH_OFF;
	eh()->e_shentsize = sizeof(ElfW(Shdr));
	eh()->e_shnum = NSH;
	eh()->e_ehsize = sizeof(ElfW(Ehdr));
	memcpy(img + STR_OFF, strtab, sizeof strtab);
	put_sym(1, 1, 1, STV_DEFAULT);      /* shb_plugin_entry_v1 */
	put_sym(2, 21, 1, STV_DEFAULT);     /* extra_fn */
	put_sym(3, 30, 1, STV_HIDDEN);      /* hidden_fn */
	put_sym(4, 40, SHN_UNDEF, STV_DEFAULT); /* imp */
	put_sym(5, sizeof strtab + 100, 1, STV_DEFAULT);
	sh(1)->sh_type = SHT_DYNSYM;
	sh(1)->sh_offset = SYM_OFF;
	sh(1)->sh_size = NSYM * sizeof(ElfW(Sym));
	sh(1)->sh_entsize = sizeof(ElfW(Sym));
	sh(1)->sh_link = 2;
	sh(2)->sh_type = SHT_STRTAB;
	sh(2)->sh_offset = STR_OFF;
	sh(2)->sh_size = sizeof strtab;
}

static int mem_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	memcpy(buf, (const unsigned char *)ctx + off, n);
	return 0;
}

/* Runs the reader on the first `size` bytes of img. */
static unsigned extra(size_t size, char *buf, size_t n)
{
	struct shb_elf_src src = { mem_read, img, size };

	return shb_elf_extra_exports(&src, buf, n);
}

static void test_elf_good(void)
{
	char buf[64];

	build();
	CU_ASSERT_EQUAL(extra(IMG_SIZE, buf, sizeof buf), 1);
	CU_ASSERT_STRING_EQUAL(buf, "extra_fn");
	/* A second export, and a buffer that cuts the list. */
	sym(3)->st_other = STV_DEFAULT;
	CU_ASSERT_EQUAL(extra(IMG_SIZE, buf, sizeof buf), 2);
	CU_ASSERT_STRING_EQUAL(buf, "extra_fn, hidden_fn");
	CU_ASSERT_EQUAL(extra(IMG_SIZE, buf, 12), 2);
	CU_ASSERT_STRING_EQUAL(buf, "extra_fn, h");
}

/* The file --list-plugins reads: the same image written to disk. */
static void test_elf_file(void)
{
	char path[] = "/tmp/shb-elf-XXXXXX", buf[64];
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	build();
	CU_ASSERT_EQUAL_FATAL(write(fd, img, IMG_SIZE), (ssize_t)IMG_SIZE);
	close(fd);
	CU_ASSERT_EQUAL(shb_elf_extra_exports_file(path, buf, sizeof buf), 1);
	CU_ASSERT_STRING_EQUAL(buf, "extra_fn");
	unlink(path);
	CU_ASSERT_EQUAL(shb_elf_extra_exports_file(path, buf, sizeof buf), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
}

/* Every prefix of the file: the section headers are at its end, so each
 * one is refused as a whole. */
static void test_elf_truncated(void)
{
	char buf[64];

	build();
	for (size_t n = 0; n < IMG_SIZE; n++) {
		buf[0] = 'x';
		CU_ASSERT_EQUAL(extra(n, buf, sizeof buf), 0);
		CU_ASSERT_EQUAL(buf[0], '\0');
	}
}

/* One lie each; `set` breaks the freshly built image. */
static void lie(void (*set)(void), const char *what)
{
	char buf[64];
	unsigned got;

	build();
	set();
	got = extra(IMG_SIZE, buf, sizeof buf);
	if (got)
		fprintf(stderr, "\n%s: %u extra exports (%s)\n", what, got, buf);
	CU_ASSERT_EQUAL(got, 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
}

static void no_sections(void) { eh()->e_shnum = 0; }
static void shoff_past_end(void) { eh()->e_shoff = IMG_SIZE - 8; }
static void shoff_huge(void) { eh()->e_shoff = UINT64_MAX - 16; }
static void shentsize_bad(void) { eh()->e_shentsize = 0; }
static void big_endian(void) { eh()->e_ident[EI_DATA] = ELFDATA2MSB; }
static void other_class(void) { eh()->e_ident[EI_CLASS] = ELFCLASS32; }
static void no_dynsym(void) { sh(1)->sh_type = SHT_SYMTAB; }
static void sym_entsize_0(void) { sh(1)->sh_entsize = 0; }
static void sym_past_end(void) { sh(1)->sh_offset = IMG_SIZE; }
static void sym_overflow(void) { sh(1)->sh_size = UINT64_MAX - SYM_OFF + 1; }
static void link_0(void) { sh(1)->sh_link = 0; }
static void link_out(void) { sh(1)->sh_link = NSH; }
static void link_huge(void) { sh(1)->sh_link = UINT32_MAX; }
static void str_not_strtab(void) { sh(2)->sh_type = SHT_PROGBITS; }
static void str_size_0(void) { sh(2)->sh_size = 0; }
static void str_overflow(void) { sh(2)->sh_offset = UINT64_MAX - 2; }
static void str_too_big(void) { sh(2)->sh_size = IMG_SIZE; }
static void str_capped(void) { sh(2)->sh_size = UINT64_MAX; }

static void test_elf_lies(void)
{
	lie(no_sections, "e_shnum 0");
	lie(shoff_past_end, "e_shoff past the end");
	lie(shoff_huge, "e_shoff + table overflows");
	lie(shentsize_bad, "e_shentsize 0");
	lie(big_endian, "big-endian");
	lie(other_class, "other class");
	lie(no_dynsym, "no SHT_DYNSYM");
	lie(sym_entsize_0, "sh_entsize 0");
	lie(sym_past_end, ".dynsym past the end");
	lie(sym_overflow, ".dynsym offset + size overflows");
	lie(link_0, "sh_link 0");
	lie(link_out, "sh_link = e_shnum");
	lie(link_huge, "sh_link 2^32-1");
	lie(str_not_strtab, "string table of another type");
	lie(str_size_0, "string table of size 0");
	lie(str_overflow, "string table offset + size overflows");
	lie(str_too_big, "string table past the end");
	lie(str_capped, "string table of 2^64-1 bytes");
}

/* A name index at the last byte of the table is an empty name: skipped;
 * one past it: skipped, never read. */
static void test_elf_names(void)
{
	char buf[64];

	build();
	sym(2)->st_name = sizeof strtab - 1;
	CU_ASSERT_EQUAL(extra(IMG_SIZE, buf, sizeof buf), 0);
	sym(2)->st_name = sizeof strtab;
	CU_ASSERT_EQUAL(extra(IMG_SIZE, buf, sizeof buf), 0);
	/* A table cut to end inside "extra_fn": the reader's own NUL ends it. */
	build();
	sh(2)->sh_size = 24;
	CU_ASSERT_EQUAL(extra(IMG_SIZE, buf, sizeof buf), 1);
	CU_ASSERT_STRING_EQUAL(buf, "ext");
}

static CU_TestInfo elf_tests[] = {
	{ "good", test_elf_good },
	{ "file", test_elf_file },
	{ "truncated", test_elf_truncated },
	{ "lies", test_elf_lies },
	{ "names", test_elf_names },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{ "elf_exports", NULL, NULL, NULL, NULL, elf_tests },
	CU_SUITE_INFO_NULL,
};
