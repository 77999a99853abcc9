/* Internal to plugins/h3/wire: the ACK frame body (everything after the
 * type byte), shared by the frame decoder and encoder. Not part of the
 * interface other parts use. */
#ifndef SHB_QUIC_ACK_BODY_H
#define SHB_QUIC_ACK_BODY_H

#include "quic_ack.h"
#include "quic_rd.h"

/* Decodes an ACK (ecn == 0) or ACK_ECN (ecn != 0) body from r, checking
 * that no range goes below packet 0. Returns SHB_QUIC_OK, or
 * SHB_QUIC_E_FRAME_ENCODING with *why set to a static phrase. */
int shb_quic_ack_decode_body(struct shb_quic_rd *r, int ecn,
			     struct shb_quic_ack *a, const char **why);

/* Writes (or counts) the body of a decoded-form ACK; sets w->fail when
 * its raw ranges are not exactly range_count valid pairs. */
void shb_quic_ack_put_body(struct shb_quic_wr *w, int ecn,
			   const struct shb_quic_ack *a);

#endif
