/* HTTP/3 connection profiles (--proto-opt profile=NAME): what an HTTP/3
 * connection of shb looks like to a server, as data. A profile gives the
 * QUIC transport parameters (ids, values, order, and whether the order is
 * permuted per connection, as Chrome does), the HTTP/3 SETTINGS in order,
 * the pseudo-header order and default request headers (merged with -H by
 * plugins/common/http_look.h), and the TLS priority string of the
 * ClientHello; one table per profile in h3_profile.c, each citing the
 * published capture it copies. "shb" is shb's own behaviour and the
 * default.
 *
 * What a profile announces binds the connection: its windows, stream
 * counts, max_udp_payload_size, max_idle_timeout and
 * active_connection_id_limit become the QUIC connection's own
 * (shb_h3_profile_quic), max_datagram_frame_size makes DATAGRAM frames
 * welcome (counted and dropped), and its QPACK settings and
 * MAX_FIELD_SECTION_SIZE are announced only up to what the QPACK decoder
 * and the response reader take (shb_h3_profile_settings). */
#ifndef SHB_H3_PROFILE_H
#define SHB_H3_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include <shb/types.h>

#include "h3_local.h"
#include "http_look.h"
#include "quic_tp_items.h"

struct shb_quic_conn_config;

struct shb_h3_profile {
	const char *name;
	/* QUIC transport parameters in order; none: shb's own. */
	size_t n_tp;
	struct shb_quic_tp_item tp[SHB_QUIC_TP_ITEMS_MAX];
	uint32_t tp_shuffle; /* 1: permuted on every connection */
	/* HTTP/3 SETTINGS in order; none: shb's own. */
	size_t n_settings;
	struct shb_h3_setting settings[SHB_H3_LOCAL_SETTINGS_MAX];
	/* The pseudo-headers in order, by first letter ("masp"). */
	const char *pseudo;
	/* Request headers every request carries, in order, lower case. */
	size_t n_headers;
	struct shb_kv headers[SHB_HTTP_LOOK_MAX_HEADERS];
	/* GnuTLS priorities of the ClientHello (TLS 1.3 is kept on top);
	 * NULL: GnuTLS's default. --ciphers and --tls-version win. */
	const char *tls_priority;
};

/* The profile named `name`, or NULL. */
const struct shb_h3_profile *shb_h3_profile_find(const char *name);
/* "chrome, firefox, curl, shb": the names, for an error line. */
const char *shb_h3_profile_names(void);
/* shb's own: the default. */
const struct shb_h3_profile *shb_h3_profile_default(void);

/* Sets the QUIC configuration's windows, stream count, datagram sizes,
 * idle timeout and parameter list from p's transport parameters (no
 * effect for a profile without them). 0, or -1 when p announces what the
 * connection cannot hold (windows above 1 GiB, more than 128 server
 * streams, more than 8 connection IDs, an idle timeout of 0) */
int shb_h3_profile_quic(const struct shb_h3_profile *p,
			struct shb_quic_conn_config *cfg);

/* The QPACK table p's SETTINGS announce (0 and 0 without) into *conf, so
 * the decoder takes what the profile announces; at most
 * SHB_H3_QPACK_TABLE_MAX and SHB_H3_QPACK_BLOCKED_MAX. */
void shb_h3_profile_qpack(const struct shb_h3_profile *p,
			  struct shb_h3_conn_config *conf);

/* p's SETTINGS into out[SHB_H3_LOCAL_SETTINGS_MAX], QPACK_MAX_TABLE_CAPACITY
 * and QPACK_BLOCKED_STREAMS lowered to what the decoder takes
 * (qpack_table, qpack_blocked), MAX_FIELD_SECTION_SIZE to what the
 * response reader takes (SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE). Returns
 * the count, 0 for shb's own. */
size_t shb_h3_profile_settings(const struct shb_h3_profile *p,
			       uint64_t qpack_table, uint64_t qpack_blocked,
			       struct shb_h3_setting *out);

#endif
