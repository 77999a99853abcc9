/* Internal to plugins/h3/recovery: the loss detection timer and loss
 * detection of quic_recovery_loss.c, which quic_recovery.c (handshake
 * progress, discarding a space, packets sent) and quic_recovery_ack.c
 * (ACK frames) drive. Not part of the recovery interface: the connection
 * uses quic_recovery.h alone. */
#ifndef SHB_QUIC_RECOVERY_LOSS_H
#define SHB_QUIC_RECOVERY_LOSS_H

#include <stdint.h>

#include "quic_recovery.h"

/* What loss detection in one space found. */
struct qr_loss_result {
	uint32_t lost;
	uint8_t reduced;    /* a new recovery period started */
	uint8_t persistent; /* persistent congestion established */
};

/* Non-zero once the server has shown it validated our address: a
 * Handshake packet of ours acknowledged, or the handshake confirmed. */
int qr_peer_validated(const struct shb_quic_recovery *r);
/* Arms r->timer for the earliest loss time, else the PTO (RFC 9002
 * SetLossDetectionTimer). Call after anything that changes what is in
 * flight, the RTT or the spaces. */
void qr_set_timer(struct shb_quic_recovery *r, uint64_t now);
/* Declares lost the packets of `space` below its largest acknowledged
 * that passed the packet or time threshold, through the `lost` callback,
 * and reacts in the congestion controller; *res says what it found. */
void qr_detect_lost(struct shb_quic_recovery *r, int space, uint64_t now,
		    struct qr_loss_result *res);

#endif
