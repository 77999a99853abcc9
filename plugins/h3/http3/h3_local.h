/* What an HTTP/3 client sends outside its requests (RFC 9114 Section 6.2,
 * RFC 9204 Section 4.2): its control stream, opened first, and its QPACK
 * encoder and decoder streams. All three are critical: they are never
 * FIN'd or reset while the connection lives. */
#ifndef SHB_H3_LOCAL_H
#define SHB_H3_LOCAL_H

#include <stddef.h>
#include <stdint.h>

/* One SETTINGS entry we send. SHB_H3_SETTING_GREASE as the id: a
 * reserved setting, identifier and value random (see below). */
struct shb_h3_setting {
	uint64_t id;
	uint64_t value;
};
#define SHB_H3_SETTING_GREASE UINT64_MAX
#define SHB_H3_LOCAL_SETTINGS_MAX 12u

/* Room for the longest control stream opening shb_h3_local_control or
 * shb_h3_local_control_list writes (SHB_H3_LOCAL_SETTINGS_MAX entries). */
#define SHB_H3_LOCAL_CONTROL_MAX (1 + 16 + 16 * SHB_H3_LOCAL_SETTINGS_MAX)

/* The largest QPACK dynamic table and blocked-stream count a client may
 * announce (--proto-opt qpack-table= and qpack-blocked=): browsers
 * announce 65536 octets and 100 streams. */
#define SHB_H3_QPACK_TABLE_MAX 65536u
#define SHB_H3_QPACK_BLOCKED_MAX 100u

/* What an HTTP/3 connection announces and enforces as a decoder, chosen
 * once per run (immutable while workers run). Zero in both fields is
 * shb's default: no dynamic table, nothing ever blocks. */
struct shb_h3_conn_config {
	/* SETTINGS_QPACK_MAX_TABLE_CAPACITY, octets, 0..65536 */
	uint32_t qpack_max_table_capacity;
	/* SETTINGS_QPACK_BLOCKED_STREAMS, 0..100 */
	uint32_t qpack_blocked_streams;
};

/* The first octet of our QPACK encoder and decoder streams: their type.
 * Our encoder never uses a dynamic table (the server's capacity is never
 * touched), so the encoder stream carries nothing else; the decoder
 * stream carries instructions only when we announced a table
 * (plugins/h3/plugin/h3_qpack.c). */
extern const uint8_t shb_h3_local_encoder_stream[1];
extern const uint8_t shb_h3_local_decoder_stream[1];

/* Writes the start of our control stream into out[cap]: the stream type
 * (0x00) and a SETTINGS frame with QPACK_MAX_TABLE_CAPACITY and
 * QPACK_BLOCKED_STREAMS from cfg (NULL: both 0) and
 * MAX_FIELD_SECTION_SIZE 256 KiB. When `grease`
 * is non-zero a reserved setting is appended, so that peers keep
 * ignoring unknown settings: identifier 0x1f * (grease % 4096) + 0x21,
 * value grease (pass a random number). Returns the octets written, or 0
 * when cap is too small (SHB_H3_LOCAL_CONTROL_MAX always suffices). */
size_t shb_h3_local_control(uint8_t *out, size_t cap,
			    const struct shb_h3_conn_config *cfg,
			    uint32_t grease);

/* The same with the entries s[0..n) in order (a connection profile's):
 * a SHB_H3_SETTING_GREASE entry becomes the reserved setting of `grease`
 * as above (left out when grease is 0). Returns the octets written, or 0
 * when n is above SHB_H3_LOCAL_SETTINGS_MAX, an id or value is above
 * 2^62 - 1, an id is there twice, or cap is too small. */
size_t shb_h3_local_control_list(uint8_t *out, size_t cap,
				 const struct shb_h3_setting *s, size_t n,
				 uint32_t grease);

/* Writes a GOAWAY frame for our control stream: a client's GOAWAY carries
 * a push ID, and since shb allows no pushes that is 0. Returns the octets
 * written, or 0 when cap is too small (3 octets suffice). */
size_t shb_h3_local_goaway(uint8_t *out, size_t cap);

/* The most octets shb_h3_local_priority_update writes for a value of
 * len octets: type (4), length and stream ID varints (8 each). */
#define SHB_H3_PRIORITY_UPDATE_MAX(len) (4 + 8 + 8 + (size_t)(len))

/* Writes a PRIORITY_UPDATE frame (RFC 9218 Section 7.2, type 0xF0700)
 * for our control stream: the request stream `stream_id` and the
 * Priority field value[len]. Returns the octets written, or 0 when cap
 * is too small or stream_id is above 2^62 - 1. */
size_t shb_h3_local_priority_update(uint8_t *out, size_t cap,
				    uint64_t stream_id, const char *value,
				    size_t len);

/* The fingerprint of a control stream opening ctl[n] as written by
 * shb_h3_local_control: its SETTINGS "id:value" in order, ids and values
 * in decimal, joined by ';', a reserved (GREASE) setting as "GREASE"
 * (its identifier and value are random), into out[cap] with its NUL, e.g.
 * "1:0;7:0;6:262144;GREASE". Returns the text's length, or 0 when ctl
 * is not such an opening or the text does not fit. */
size_t shb_h3_local_settings_text(const uint8_t *ctl, size_t n, char *out,
				  size_t cap);

#endif
