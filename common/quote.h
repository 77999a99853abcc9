/* User text quoted in a one-line error: control bytes, quotes and
 * backslashes escaped as \xHH and the length bounded, so that whatever a
 * user (or a fuzzer) typed, the message stays one printable line. */
#ifndef SHB_COMMON_QUOTE_H
#define SHB_COMMON_QUOTE_H

#include <stddef.h>

#define SHB_QUOTE_MAX 160 /* input bytes shown; "..." after */

struct shb_quoted {
	char s[SHB_QUOTE_MAX * 4 + 8];
};

/* The first n bytes of v, or up to its NUL. */
struct shb_quoted shb_quote_n(const char *v, size_t n);
struct shb_quoted shb_quote(const char *v);

/* Formats one error line into err[errlen] (nothing when err is NULL or
 * errlen 0) and returns -1, so that a parser can `return shb_errf(...)`. */
int shb_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes `NAME "VALUE": reason` into err[errlen] (VALUE quoted as above)
 * and returns -1, so that option parsers end with one line:
 *     return shb_quote_fail(err, errlen, "--proxy", s, "no host");
 * err may be NULL (nothing written). */
int shb_quote_fail(char *err, size_t errlen, const char *name, const char *v,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Rewrites err[errlen] in place so that it is one printable line: each
 * control byte becomes \xHH (the tail is cut when that runs out of room).
 * The last guard before an error is printed: messages can carry text a
 * site forgot to quote, or come from a plugin's option parser. */
void shb_err_one_line(char *err, size_t errlen);

#endif
