/* The real QUIC connection behind struct shb_h3_quic_ops. */
#include "h3_quic_ops.h"

const struct shb_h3_quic_ops shb_h3_quic_ops_real = {
	.conn_new = shb_quic_conn_new,
	.conn_free = shb_quic_conn_free,
	.recv = shb_quic_conn_recv,
	.write = shb_quic_conn_write,
	.want_write = shb_quic_conn_want_write,
	.deadline = shb_quic_conn_deadline,
	.on_timeout = shb_quic_conn_on_timeout,
	.state = shb_quic_conn_state,
	.stats = shb_quic_conn_stats,
	.idle_timeout = shb_quic_conn_idle_timeout,
	.close = shb_quic_conn_close,
	.bidi_available = shb_quic_conn_bidi_available,
	.bidi_open = shb_quic_conn_bidi_open,
	.bidi_send = shb_quic_conn_bidi_send,
	.bidi_buffer = shb_quic_conn_bidi_buffer,
	.uni_open = shb_quic_conn_uni_open,
	.uni_send = shb_quic_conn_uni_send,
	.stream_reset = shb_quic_conn_stream_reset,
	.stop_sending = shb_quic_conn_stream_stop_sending,
	.retire = shb_quic_conn_stream_retire,
};
