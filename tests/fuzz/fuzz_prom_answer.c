/* The remote-write receiver's answer as the prom reporter reads it
 * (plugins/reporters/prom/prom_wire.c): shb_prom_status on the bytes that
 * arrived so far, after each piece, and shb_prom_answer on the whole
 * answer, at most SHB_PROM_ANSWER_MAX bytes as the reader keeps. Input: a
 * split plan, then the receiver's bytes.
 *
 * Checked besides memory safety: a status line once complete stays
 * complete with the same code as more bytes arrive, and one refused stays
 * refused; "not complete yet" happens only under the line cap; a code is
 * 100..999; the answer's status is the status line's, and its reason is
 * one NUL-terminated printable line within the caller's buffer. */
#include <string.h>

#include "fuzz_input.h"
#include "prom_push.h"
#include "prom_wire.h"

static void check_why(const char *why, size_t cap)
{
	size_t n = strnlen(why, cap);
	FZ_CHECK(n < cap);
	for (size_t i = 0; i < n; i++)
		FZ_CHECK((unsigned char)why[i] >= 0x20 && why[i] != 0x7f);
}

struct grow {
	int last, code;
};

/* The status line of buf[0..upto), after the bytes before it. */
static void feed(struct grow *g, const char *buf, size_t upto)
{
	int c = -2, rc = shb_prom_status(buf, upto, &c);
	FZ_CHECK(rc >= -1 && rc <= 1);
	if (rc == 0)
		FZ_CHECK(upto < SHB_PROM_LINE_MAX);
	if (rc == 1)
		FZ_CHECK(c >= 100 && c <= 999);
	if (g->last == 1)
		FZ_CHECK(rc == 1 && c == g->code);
	if (g->last == -1)
		FZ_CHECK(rc == -1);
	g->last = rc;
	g->code = c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct fz_plan pl;
	struct fz_pieces pc;
	struct grow g = {0, 0};
	fz_plan_read(&f, &pl);
	size_t len = f.n < SHB_PROM_ANSWER_MAX ? f.n : SHB_PROM_ANSWER_MAX;
	/* exactly len bytes: no NUL after them for a parser to lean on */
	char *buf = malloc(len ? len : 1);
	FZ_CHECK(buf != NULL);
	memcpy(buf, f.p, len);
	fz_pieces(&pl, len, &pc);
	for (size_t i = 1; i <= pc.count; i++)
		feed(&g, buf, pc.at[i]);
	g = (struct grow){0, 0}; /* again, one byte at a time */
	for (size_t k = 1; pl.bytewise && k <= len && k <= SHB_PROM_LINE_MAX + 8; k++)
		feed(&g, buf, k);
	char why[200];
	int whole = -2, rs = shb_prom_status(buf, len, &whole);
	int st = shb_prom_answer(buf, len, why, sizeof(why));
	FZ_CHECK(rs == 1 ? st == whole : st == -1);
	check_why(why, sizeof(why));
	free(buf);
	return 0;
}
