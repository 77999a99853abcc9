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

#endif
