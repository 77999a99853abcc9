/* The names reports give to outcome spaces and error kinds, and the way
 * back from a name to its number (`shb merge` reads what the reporters
 * wrote). One table for both directions, so that a report written by one
 * shb reads back in another: plain C, no state, [any] thread. */
#ifndef SHB_COMMON_OUTCOME_NAMES_H
#define SHB_COMMON_OUTCOME_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include <shb/results.h>

/* Error kinds in report order ("connect", "tls", ... "application"). */
extern const char *const shb_err_kind_names[SHB_ERRK_EX_COUNT];

/* The kind's name, or "other" past the table. */
const char *shb_err_kind_name(uint32_t kind);

/* The kind named s, or -1. */
int shb_err_kind_of(const char *s);

/* An application outcome space's name: "none", "grpc", "websocket",
 * "private:N" (N counted from SHB_APPSPACE_PRIVATE) or "unknown:N".
 * Returns a static string or buf (formatted into buf[len]). */
const char *shb_app_space_name(char *buf, size_t len, uint32_t space);

/* An error space's name: "none", "h2", "h3", "quic", "tls_alert",
 * "errno" or "unknown:N"; static string or buf as above. */
const char *shb_err_space_name(char *buf, size_t len, uint32_t space);

/* Back from a name the two functions above write to the space number;
 * -1 for anything they never write (or a number past 32 bits). */
int64_t shb_app_space_of(const char *s);
int64_t shb_err_space_of(const char *s);

/* Since ABI 1.4: a protocol metric's kind as reports write it
 * ("counter", "latency", "value"; "unknown" past them), and back (0 for
 * anything else). */
const char *shb_metric_kind_name(uint32_t kind);
uint32_t shb_metric_kind_of(const char *s);

/* ---- since ABI 1.4: with the run's outcome names -------------------------- */

/* A protocol's named outcome spaces (shb_run_info.outcome_spaces, or what
 * `shb merge` read back from a report's "outcomeSpaces"): `count` spaces,
 * NULL and 0 for a run without names. Borrowed, never written. */
struct shb_outcome_table {
	const struct shb_outcome_space *spaces;
	size_t count;
};

/* The space's entry in the table, or NULL. */
const struct shb_outcome_space *
shb_outcome_space_find(const struct shb_outcome_table *t, uint32_t space);

/* The space's name: the table's ("redis") when it names it, else
 * shb_app_space_name's ("grpc", "private:N"). Static, table or buf. */
const char *shb_outcome_space_name(char *buf, size_t len,
				   const struct shb_outcome_table *t,
				   uint32_t space);

/* The code's name in its space ("nil"), or NULL when the table does not
 * name it (then reports give the number). */
const char *shb_outcome_code_name(const struct shb_outcome_table *t,
				  uint32_t space, uint64_t code);

/* Back from a name shb_outcome_space_name writes to the space number:
 * the table's names first, then shb_app_space_of's; -1 for neither. */
int64_t shb_outcome_space_of(const struct shb_outcome_table *t, const char *s);

/* 1 when s is a name the ABI allows for a space or a code: [a-z0-9_],
 * 1 to SHB_OUTCOME_NAME_BYTES bytes. */
#define SHB_OUTCOME_NAME_BYTES 31
int shb_outcome_name_ok(const char *s);

#endif
