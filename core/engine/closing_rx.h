/* What a closing TCP connection may still receive before its multishot
 * receive is cancelled (conn_stream.c shb_conn_on_recv). Until its
 * shutdown has run (it waits for the server's FIN, for a send in flight,
 * or for the ring's io-wq) nothing ends that receive while the peer
 * sends; after it, the kernel resets a peer that sends more, but what is
 * queued is still read, and only an empty queue ends the receive. A
 * cancel bounds both, and the bytes it leaves unread make the socket's
 * close a reset, which tells a peer that keeps sending at once. */
#ifndef SHB_CORE_CLOSING_RX_H
#define SHB_CORE_CLOSING_RX_H

#include <stdint.h>

/* Far more than a goodbye (GOAWAY, close_notify, the rest of a
 * response), far less than a peer that never stops sending. */
#define CLOSING_RX_MAX (256u * 1024u)

/* [worker] Adds `n` bytes received since the close began to *count,
 * which stops growing once past CLOSING_RX_MAX (it never wraps, however
 * long the peer sends). 1 when the receive is to be cancelled: from the
 * call that takes the count past CLOSING_RX_MAX on; the caller cancels
 * once. */
int shb_closing_rx_add(uint32_t *count, uint32_t n);

#endif
