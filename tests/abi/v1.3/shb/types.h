/* shb plugin ABI: basic types shared by every other header.
 *
 * Rules for everything that crosses the core/plugin boundary (ABI v1):
 *  - every struct starts with `uint32_t struct_size`, set by its writer to
 *    sizeof() at the writer's build; members are only ever appended;
 *  - a reader checks SHB_HAS() before touching a member that a later minor
 *    version added;
 *  - only fixed-width integers, pointers, size_t and shb_ssize cross the
 *    boundary: no bool, bitfields, unions, varargs, long or FILE *.
 */
#ifndef SHB_TYPES_H
#define SHB_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC). Wall-clock time only
 * appears in run metadata. */
typedef uint64_t shb_tstamp;
#define SHB_TSTAMP_NONE UINT64_MAX

/* A byte count, or a negative SHB_E_* code. */
typedef ptrdiff_t shb_ssize;

/* Layout-compatible with struct iovec (the core static-asserts it). */
struct shb_vec {
	void *base;
	size_t len;
};

/* A borrowed key/value pair (header, option). Both NUL-terminated UTF-8. */
struct shb_kv {
	const char *key;
	const char *value;
};

/* since 1.2: one option a protocol (--proto-opt) or reporter (--report-opt)
 * accepts. Fixed layout (no struct_size, frozen in tests/abi); arrays of
 * these are static and end with key == NULL. */
struct shb_option_def {
	const char *key;        /* "max-frame": KEY of KEY=VALUE */
	const char *value_name; /* "BYTES" in --list-plugins; NULL: a flag
				 * given as KEY alone */
	const char *summary;    /* one line for --list-plugins */
};

/* Error codes returned by ABI calls. Protocol failures (RST codes, QUIC
 * codes, TLS alerts) are data in results, never return codes. */
enum shb_err {
	SHB_OK = 0,
	SHB_E_INVAL = -1,     /* bad argument or option */
	SHB_E_BUSY = -2,      /* no capacity right now; try later */
	SHB_E_STATE = -3,     /* call not valid in this state */
	SHB_E_UNSUPPORTED = -4,
	SHB_E_PROTO = -100,   /* the peer violated the protocol */
	SHB_E_CLOSED = -101,  /* the peer closed or reset the connection */
	SHB_E_TLS = -102,     /* TLS failure */
	SHB_E_TIMEOUT = -103, /* a protocol timer expired (idle, handshake) */
	SHB_E_FATAL = -900,   /* at or below: only fini/destroy may follow */
	SHB_E_NOMEM = -901,
};

/* True when member `m` of `*p` (of struct type `T`) is present according to
 * p->struct_size, i.e. the writer was built with a header that had it. */
#define SHB_HAS(p, T, m)                                                       \
	((p)->struct_size >= offsetof(T, m) + sizeof(((T *)0)->m))

#ifdef __cplusplus
}
#endif
#endif
