/* Our control, QPACK encoder and decoder streams: see h3_local.h. */
#include "h3_local.h"

#include <stdio.h>

#include "h3_defs.h"
#include "h3_frame.h"
#include "h3_varint.h"

const uint8_t shb_h3_local_encoder_stream[1] = {SHB_H3_STREAM_QPACK_ENCODER};
const uint8_t shb_h3_local_decoder_stream[1] = {SHB_H3_STREAM_QPACK_DECODER};

/* Appends one varint; *ok becomes 0 when it does not fit. */
static size_t put(uint8_t *out, size_t cap, size_t at, uint64_t v, int *ok)
{
	size_t n = at <= cap ? shb_h3_varint_encode(out + at, cap - at, v) : 0;

	if (n == 0)
		*ok = 0;
	return at + n;
}

/* 1 when s[0..n) names no id twice (RFC 9114 7.2.4: H3_SETTINGS_ERROR). */
static int distinct(const struct shb_h3_setting *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (s[i].id == s[j].id)
				return 0;
	return 1;
}

/* The SETTINGS payload into out[cap]. */
static size_t settings(uint8_t *out, size_t cap, const struct shb_h3_setting *s,
		       size_t n, uint32_t grease, int *ok)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i].id != SHB_H3_SETTING_GREASE) {
			at = put(out, cap, at, s[i].id, ok);
			at = put(out, cap, at, s[i].value, ok);
		} else if (grease) {
			at = put(out, cap, at,
				 0x1f * (uint64_t)(grease % 4096) + 0x21, ok);
			at = put(out, cap, at, grease, ok);
		}
	}
	return at;
}

size_t shb_h3_local_control(uint8_t *out, size_t cap,
			    const struct shb_h3_conn_config *cfg,
			    uint32_t grease)
{
	/* shb's own SETTINGS: the QPACK table of the run's configuration. */
	const struct shb_h3_setting own[] = {
		{SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY,
		 cfg ? cfg->qpack_max_table_capacity : 0},
		{SHB_H3_SETTING_QPACK_BLOCKED_STREAMS,
		 cfg ? cfg->qpack_blocked_streams : 0},
		{SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE,
		 SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE},
		{SHB_H3_SETTING_GREASE, 0},
	};

	return shb_h3_local_control_list(out, cap, own,
					 sizeof(own) / sizeof(own[0]), grease);
}

size_t shb_h3_local_control_list(uint8_t *out, size_t cap,
				 const struct shb_h3_setting *s, size_t n,
				 uint32_t grease)
{
	uint8_t payload[SHB_H3_LOCAL_CONTROL_MAX];
	int ok = n <= SHB_H3_LOCAL_SETTINGS_MAX && distinct(s, n);
	size_t plen = ok ? settings(payload, sizeof(payload), s, n, grease, &ok)
			 : 0, at;

	if (!ok || cap < 1)
		return 0;
	out[0] = SHB_H3_STREAM_CONTROL;
	at = 1 + shb_h3_frame_header_encode(out + 1, cap - 1,
					    SHB_H3_FRAME_SETTINGS, plen);
	if (at == 1 || cap - at < plen)
		return 0;
	for (size_t i = 0; i < plen; i++)
		out[at + i] = payload[i];
	return at + plen;
}

size_t shb_h3_local_goaway(uint8_t *out, size_t cap)
{
	size_t at = shb_h3_frame_header_encode(out, cap, SHB_H3_FRAME_GOAWAY,
						1);

	if (at == 0 || cap - at < 1)
		return 0;
	out[at] = 0x00; /* push ID 0 */
	return at + 1;
}

size_t shb_h3_local_priority_update(uint8_t *out, size_t cap,
				    uint64_t stream_id, const char *value,
				    size_t len)
{
	uint8_t id[8];
	size_t idn = shb_h3_varint_encode(id, sizeof(id), stream_id), at;

	if (idn == 0)
		return 0;
	at = shb_h3_frame_header_encode(out, cap, SHB_H3_FRAME_PRIORITY_UPDATE,
					idn + len);
	if (at == 0 || cap - at < idn + len)
		return 0;
	for (size_t i = 0; i < idn; i++)
		out[at + i] = id[i];
	for (size_t i = 0; i < len; i++)
		out[at + idn + i] = (uint8_t)value[i];
	return at + idn + len;
}

/* One whole varint at in[*at..n) into *v; 0, or -1 when cut short. */
static int get(const uint8_t *in, size_t n, size_t *at, uint64_t *v)
{
	struct shb_h3_varint r;
	int done = 0;

	shb_h3_varint_reset(&r);
	if (*at >= n)
		return -1;
	*at += shb_h3_varint_feed(&r, in + *at, n - *at, &done);
	*v = r.value;
	return done ? 0 : -1;
}

/* RFC 9114 7.2.4.1: reserved identifiers are 0x1f * N + 0x21. */
static int reserved(uint64_t id)
{
	return id >= 0x21 && (id - 0x21) % 0x1f == 0;
}

size_t shb_h3_local_settings_text(const uint8_t *ctl, size_t n, char *out,
				  size_t cap)
{
	uint64_t type, len, id, v;
	size_t at = 1, o = 0, end;
	int w;

	if (cap == 0 || n < 1 || ctl[0] != SHB_H3_STREAM_CONTROL ||
	    get(ctl, n, &at, &type) < 0 || type != SHB_H3_FRAME_SETTINGS ||
	    get(ctl, n, &at, &len) < 0 || len > n - at)
		return 0;
	out[0] = '\0';
	for (end = at + (size_t)len; at < end; o += (size_t)w) {
		if (get(ctl, end, &at, &id) < 0 || get(ctl, end, &at, &v) < 0)
			return 0;
		w = reserved(id) ? snprintf(out + o, cap - o, "%sGREASE", o ? ";" : "")
				 : snprintf(out + o, cap - o, "%s%llu:%llu", o ? ";" : "",
					    (unsigned long long)id,
					    (unsigned long long)v);
		if (w < 0 || (size_t)w >= cap - o)
			return 0;
	}
	return o;
}
