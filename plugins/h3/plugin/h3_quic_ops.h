/* The QUIC connection calls the HTTP/3 plugin makes, as a table.
 *
 * The plugin reaches plugins/h3/conn only through this table, so that its
 * unit tests can put a scripted fake connection underneath (request bytes
 * out, response events in) while the shipped module uses the real one.
 * Every member has the signature and contract of the quic_conn.h function
 * of the same name. */
#ifndef SHB_H3_QUIC_OPS_H
#define SHB_H3_QUIC_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "quic_conn.h"

struct shb_h3_quic_ops {
	struct shb_quic_conn *(*conn_new)(const struct shb_quic_conn_config *cfg,
					  uint64_t now, int *rc);
	void (*conn_free)(struct shb_quic_conn *c);
	int (*recv)(struct shb_quic_conn *c, uint8_t *dgram, size_t len,
		    uint64_t now);
	ptrdiff_t (*write)(struct shb_quic_conn *c, uint8_t *buf, size_t cap,
			   size_t *segment_size, uint64_t now);
	int (*want_write)(const struct shb_quic_conn *c);
	uint64_t (*deadline)(const struct shb_quic_conn *c);
	int (*on_timeout)(struct shb_quic_conn *c, uint64_t now);
	uint32_t (*state)(const struct shb_quic_conn *c);
	void (*stats)(const struct shb_quic_conn *c,
		      struct shb_quic_conn_stats *out);
	uint64_t (*idle_timeout)(const struct shb_quic_conn *c);
	void (*close)(struct shb_quic_conn *c, uint64_t app_code,
		      const char *reason, uint64_t now);
	uint32_t (*bidi_available)(const struct shb_quic_conn *c);
	int64_t (*bidi_open)(struct shb_quic_conn *c);
	int (*bidi_send)(struct shb_quic_conn *c, uint64_t id,
			 const uint8_t *data, size_t len, int fin);
	uint8_t *(*bidi_buffer)(struct shb_quic_conn *c, uint64_t id,
				size_t len);
	int64_t (*uni_open)(struct shb_quic_conn *c);
	int (*uni_send)(struct shb_quic_conn *c, uint64_t id,
			const uint8_t *data, size_t len);
	int (*stream_reset)(struct shb_quic_conn *c, uint64_t id,
			    uint64_t app_code);
	int (*stop_sending)(struct shb_quic_conn *c, uint64_t id,
			    uint64_t app_code);
	int (*retire)(struct shb_quic_conn *c, uint64_t id, uint64_t app_code);
};

/* The table over plugins/h3/conn. */
extern const struct shb_h3_quic_ops shb_h3_quic_ops_real;

#endif
