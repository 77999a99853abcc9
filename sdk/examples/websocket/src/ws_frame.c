/* WebSocket frame encoder and incremental decoder (RFC 6455 5.2). */
#include "ws_frame.h"

size_t ws_frame_header(uint8_t out[WS_HEADER_MAX], uint32_t opcode,
		       uint32_t fin, uint64_t len, const uint8_t key[4])
{
	size_t n = 2;

	out[0] = (uint8_t)((fin ? 0x80 : 0) | (opcode & 0x0f));
	if (len < 126) {
		out[1] = (uint8_t)(0x80 | len);
	} else if (len <= 0xffff) {
		out[1] = 0x80 | 126;
		out[2] = (uint8_t)(len >> 8);
		out[3] = (uint8_t)len;
		n = 4;
	} else {
		out[1] = 0x80 | 127;
		for (int i = 0; i < 8; i++)
			out[2 + i] = (uint8_t)(len >> (56 - 8 * i));
		n = 10;
	}
	for (int i = 0; i < 4; i++)
		out[n + i] = key[i];
	return n + 4;
}

void ws_mask(uint8_t *p, size_t n, const uint8_t key[4], uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		p[i] ^= key[(off + i) & 3];
}

/* Checks a complete header and starts its frame. */
static int header_done(struct ws_dec *d, const struct ws_dec_cb *cb,
		       void *ctx)
{
	uint32_t op = d->hdr[0] & 0x0f, fin = d->hdr[0] >> 7;
	uint32_t len7 = d->hdr[1] & 0x7f;
	uint64_t len = len7;

	if (len7 == 126) {
		len = (uint64_t)d->hdr[2] << 8 | d->hdr[3];
		if (len < 126)
			return WS_DEC_LENGTH;
	} else if (len7 == 127) {
		len = 0;
		for (int i = 0; i < 8; i++)
			len = len << 8 | d->hdr[2 + i];
		if (len >> 63 || len <= 0xffff)
			return WS_DEC_LENGTH;
	}
	if (op >= WS_OP_CLOSE && (!fin || len > WS_CONTROL_MAX))
		return WS_DEC_CONTROL;
	d->left = len;
	d->in_payload = 1;
	return cb->begin(ctx, op, fin, len, d->need);
}

/* The first two bytes say how long the header is; checks what they can. */
static int header_start(struct ws_dec *d)
{
	uint32_t op = d->hdr[0] & 0x0f, len7 = d->hdr[1] & 0x7f;

	if (d->hdr[0] & 0x70)
		return WS_DEC_RSV;
	if ((op > WS_OP_BINARY && op < WS_OP_CLOSE) || op > WS_OP_PONG)
		return WS_DEC_OPCODE;
	if (d->hdr[1] & 0x80)
		return WS_DEC_MASKED;
	d->need = len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
	return 0;
}

int ws_dec_feed(struct ws_dec *d, const uint8_t *p, size_t len,
		const struct ws_dec_cb *cb, void *ctx)
{
	int rc;

	while (len > 0 || (d->in_payload && d->left == 0)) {
		if (d->in_payload) {
			size_t n = len < d->left ? len : (size_t)d->left;

			if (n > 0 && (rc = cb->data(ctx, p, n)) < 0)
				return rc;
			p += n;
			len -= n;
			d->left -= n;
			if (d->left > 0)
				break;
			d->in_payload = 0;
			d->have = 0;
			if ((rc = cb->end(ctx)) < 0)
				return rc;
			continue;
		}
		if (d->have < 2) {
			d->hdr[d->have++] = *p++;
			len--;
			if (d->have == 2 && (rc = header_start(d)) < 0)
				return rc;
		} else {
			d->hdr[d->have++] = *p++;
			len--;
		}
		if (d->have >= 2 && d->have == d->need &&
		    (rc = header_done(d, cb, ctx)) < 0)
			return rc;
	}
	return 0;
}

const char *ws_dec_strerror(int err)
{
	switch (err) {
	case WS_DEC_RSV:
		return "a frame with RSV bits set (no extension was agreed)";
	case WS_DEC_OPCODE:
		return "a frame with a reserved opcode";
	case WS_DEC_MASKED:
		return "a masked frame from the server";
	case WS_DEC_CONTROL:
		return "a control frame fragmented or longer than 125 bytes";
	case WS_DEC_LENGTH:
		return "a frame length out of range or not in shortest form";
	default:
		return "a frame the client cannot read";
	}
}
