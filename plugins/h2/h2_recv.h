/* Internal to the h2 frame reader: the helpers h2_recv.c shares with the
 * handlers of header blocks (h2_recv_headers.c) and of control frames
 * (h2_recv_ctrl.c). The reader's entry point, shb_h2_read, is declared
 * with the connection in h2_conn.h. Every function here returns SHB_OK or
 * what ending the connection or sending a frame returned, unless it says
 * otherwise. */
#ifndef SHB_H2_RECV_H
#define SHB_H2_RECV_H

#include <stddef.h>
#include <stdint.h>

#include "h2_conn.h"

/* Counts one frame of `kind` in the current second; past its cap
 * (shb_h2_flood_caps) a connection error, ENHANCE_YOUR_CALM. */
int shb_h2_flood_count(struct shb_h2_conn *c, enum shb_h2_flood kind);
/* A malformed response or a stream-level protocol violation: reset the
 * stream and report the request as a protocol error. */
int shb_h2_stream_error(struct shb_h2_conn *c, struct shb_h2_stream *s,
			uint32_t code, const char *why);
/* The peer ended stream s (reset: with RST_STREAM); remembered for
 * shb_h2_late_frame. */
void shb_h2_peer_ended(struct shb_h2_conn *c, const struct shb_h2_stream *s,
		       int reset);
/* Observed modules: the observer refused the response of s (`ended`: the
 * peer had ended the stream). */
int shb_h2_observer_stop(struct shb_h2_conn *c, struct shb_h2_stream *s,
			 int ended);
/* A frame on stream `id`, which the peer ended: 1 when handled (rc in
 * *rc), 0 for an id not remembered. */
int shb_h2_late_frame(struct shb_h2_conn *c, uint32_t id, int *rc);
/* A frame on a stream id that is not open: dropped if we used the id,
 * else a connection error. */
int shb_h2_unknown_stream(struct shb_h2_conn *c, uint32_t id);
/* Takes up to `want` octets of a control frame's fixed part into
 * rd.small; returns how many of the n at p it used. */
size_t shb_h2_gather(struct shb_h2_conn *c, const uint8_t *p, size_t n,
		     size_t want);

#endif
