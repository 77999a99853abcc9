/* The peer's connection control frames (h2_recv_ctrl.c), called by the
 * frame reader (h2_recv.c) at the start, the content and the end of each
 * SETTINGS, RST_STREAM, GOAWAY and WINDOW_UPDATE frame. Those returning
 * int return SHB_OK, or what ending the connection or sending a frame
 * returned. */
#ifndef SHB_H2_RECV_CTRL_H
#define SHB_H2_RECV_CTRL_H

#include <stddef.h>
#include <stdint.h>

#include "h2_conn.h"

/* A SETTINGS frame's header: stream, length, entry cap and flood count. */
int shb_h2_begin_settings(struct shb_h2_conn *c,
			  const struct shb_h2_frame_header *h);
/* SETTINGS entries, applied as each one is complete. */
int shb_h2_settings_content(struct shb_h2_conn *c, const uint8_t *p,
			    size_t n);
/* GOAWAY's fixed part, then its debug data (kept, printable only). */
void shb_h2_goaway_content(struct shb_h2_conn *c, const uint8_t *p,
			   size_t n);
/* The ends of frames, once their content is in. */
int shb_h2_end_settings(struct shb_h2_conn *c);
int shb_h2_end_rst_stream(struct shb_h2_conn *c);
int shb_h2_end_goaway(struct shb_h2_conn *c);
int shb_h2_end_window_update(struct shb_h2_conn *c);

#endif
