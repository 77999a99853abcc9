/* Connection profiles (--proto-opt profile=NAME): what an HTTP/2
 * connection of shb looks like to a server, as data. A profile gives the
 * SETTINGS entries in order, the connection WINDOW_UPDATE, any PRIORITY
 * frames sent before the first request, the order of the pseudo-headers
 * the default request headers in order, and the TLS priority string the
 * core's GnuTLS writes the ClientHello with; one table per profile in
 * h2_profile.c, each citing the published capture it copies. "shb" is
 * shb's own behaviour and the default.
 *
 * The preface a profile sends is written once per module
 * (shb_h2_preface_build) and copied into every connection; the Akamai
 * fingerprint the report carries is read back from those octets, so it
 * says what is sent, not what a table meant to send. */
#ifndef SHB_H2_PROFILE_H
#define SHB_H2_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include <shb/types.h>

#include "h2_frame.h"

#define SHB_H2_PROFILE_MAX_SETTINGS 8
#define SHB_H2_PROFILE_MAX_PRIO 8
#define SHB_H2_PROFILE_MAX_HEADERS 16

/* One PRIORITY frame: stream depends on depends_on, weight 1..256 as the
 * Akamai string shows it (the frame carries weight - 1). */
struct shb_h2_prio_spec {
	uint32_t stream;
	uint32_t exclusive;
	uint32_t depends_on;
	uint32_t weight;
};

struct shb_h2_profile {
	const char *name;
	size_t n_settings;
	struct shb_h2_setting_kv settings[SHB_H2_PROFILE_MAX_SETTINGS];
	uint32_t window_update; /* connection increment; 0: none sent */
	size_t n_prio;
	struct shb_h2_prio_spec prio[SHB_H2_PROFILE_MAX_PRIO];
	/* The pseudo-headers in order, by first letter: "masp" is :method,
	 * :authority, :scheme, :path. */
	const char *pseudo;
	/* Request headers every request carries, in order, lower case; a
	 * user header (-H) of the same name replaces one in its place. */
	size_t n_headers;
	struct shb_kv headers[SHB_H2_PROFILE_MAX_HEADERS];
	/* The GnuTLS priority string of the client's ClientHello as near as
	 * GnuTLS writes it (suites, groups, signature algorithms), handed to
	 * the core through tls_priority; NULL: the core's default. */
	const char *tls_priority;
};

/* The profile named `name`, or NULL. */
const struct shb_h2_profile *shb_h2_profile_find(const char *name);
/* "chrome, firefox, curl, shb": the names, for an error line. */
const char *shb_h2_profile_names(void);
/* shb's own: the default. */
const struct shb_h2_profile *shb_h2_profile_default(void);

/* The octets a profile's connection starts with: the connection preface,
 * SETTINGS, WINDOW_UPDATE, PRIORITY frames. */
#define SHB_H2_PREFACE_MAX \
	(SHB_H2_PREFACE_LEN + SHB_H2_FRAME_HEADER_LEN + \
	 SHB_H2_PROFILE_MAX_SETTINGS * SHB_H2_SETTINGS_ENTRY_LEN + \
	 SHB_H2_WINDOW_UPDATE_LEN + SHB_H2_PROFILE_MAX_PRIO * SHB_H2_PRIORITY_LEN)
/* "SETTINGS|WINDOW_UPDATE|PRIORITY" of the Akamai fingerprint, at most
 * 8 * 21 + 11 + 8 * 36 octets and its NUL. */
#define SHB_H2_FP_HEAD_MAX 480

/* The windows we grant are the profile's (shb's own are 2^31 - 1); they
 * are topped up once this much of them was consumed, or half of a
 * smaller one. */
#define SHB_H2_WINDOW_REFILL (1u << 30)

struct shb_h2_preface {
	uint8_t bytes[SHB_H2_PREFACE_MAX];
	size_t len;
	/* read back from bytes: */
	uint32_t stream_window; /* our SETTINGS_INITIAL_WINDOW_SIZE */
	uint32_t conn_window;   /* 65535 + the WINDOW_UPDATE increment */
	/* From those, for every DATA frame: a stream's DATA since its last
	 * WINDOW_UPDATE that makes us send one, and the connection window
	 * left at which we top it up. */
	uint32_t stream_refill;
	uint32_t conn_low;
	uint32_t table_size;    /* our SETTINGS_HEADER_TABLE_SIZE */
	uint32_t first_k;       /* the first request's stream is 2k+1, past
				 * every stream a PRIORITY frame named */
	char fp[SHB_H2_FP_HEAD_MAX];
};

/* Writes p's preface into *out and reads it back. 0, or -1 when the
 * profile holds a value HTTP/2 forbids (a window above 2^31 - 1, a
 * weight outside 1..256, a PRIORITY frame on stream 0 or an even one). */
int shb_h2_preface_build(const struct shb_h2_profile *p,
			 struct shb_h2_preface *out);

/* The Akamai "SETTINGS|WINDOW_UPDATE|PRIORITY" of the frames in
 * bytes[0..len) (after the 24-octet connection preface), into out[cap].
 * Returns its length, or 0 when the octets are not whole frames or it
 * does not fit. */
size_t shb_h2_preface_fp(const uint8_t *bytes, size_t len, char *out,
			 size_t cap);

#endif
