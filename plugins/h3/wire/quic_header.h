/* QUIC v1 packet headers (RFC 9000 Section 17), without packet protection.
 *
 * Receiving: shb_quic_hdr_parse() reads the part of a header that header
 * protection leaves readable (form, fixed bit, type, version, connection
 * IDs, token, Length) and says where the packet number starts and where the
 * packet ends inside the datagram. Several long-header packets may share a
 * datagram (coalesced, RFC 9000 Section 12.2); walk them like this:
 *
 *   size_t off = 0;
 *   while (off < dgram_len) {
 *           struct shb_quic_hdr h;
 *           if (shb_quic_hdr_parse(dgram + off, dgram_len - off,
 *                                  my_cid_len, &h) != SHB_QUIC_OK)
 *                   break;                  // drop the rest of the datagram
 *           ... unprotect and decrypt dgram[off .. off + h.packet_len) ...
 *           off += h.packet_len;
 *   }
 *
 * RFC 9000 Section 12.2 also says to drop a coalesced packet whose DCID
 * differs from the first packet's; compare h.dcid yourself.
 *
 * After header protection is removed, shb_quic_hdr_pn_len(),
 * shb_quic_hdr_reserved_ok() and shb_quic_hdr_key_phase() read the bits of
 * the unprotected first byte, and quic_pn.h rebuilds the packet number.
 *
 * Sending: shb_quic_hdr_build() writes an Initial, 0-RTT, Handshake or
 * 1-RTT header with the packet number into a caller buffer and returns its
 * layout. A long header's Length field covers the packet number, payload
 * and AEAD tag, and it is part of the AEAD's associated data, so it is
 * reserved at a fixed size (2 or 4 bytes) and patched with
 * shb_quic_hdr_set_length() once the packet's size is known, *before*
 * sealing.
 *
 * Nothing here allocates; the parsed header borrows the datagram.
 */
#ifndef SHB_QUIC_HEADER_H
#define SHB_QUIC_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "quic_cid.h"

#define SHB_QUIC_VERSION_1 UINT32_C(0x00000001)

/* Header protection samples 16 bytes starting 4 bytes after the start of
 * the packet number (RFC 9001 Section 5.4.2); every AEAD of QUIC v1 has a
 * 16-byte tag. */
#define SHB_QUIC_HP_SAMPLE_LEN 16
#define SHB_QUIC_HP_SAMPLE_OFFSET 4
#define SHB_QUIC_AEAD_TAG_LEN 16

/* Packet types. The numbering of the long ones is the wire's (bits 0x30 of
 * the first byte, RFC 9000 Table 5). */
enum shb_quic_ptype {
	SHB_QUIC_PT_INITIAL = 0,
	SHB_QUIC_PT_0RTT = 1,
	SHB_QUIC_PT_HANDSHAKE = 2,
	SHB_QUIC_PT_RETRY = 3,
	SHB_QUIC_PT_1RTT = 4,		/* short header */
	SHB_QUIC_PT_VERSION_NEG = 5,	/* long header, version 0 */
};

/* A parsed header. Pointers borrow the datagram passed to the parser. */
struct shb_quic_hdr {
	uint32_t type;		/* enum shb_quic_ptype */
	uint32_t version;	/* 1, or 0 for Version Negotiation and 1-RTT */
	uint8_t first;		/* first byte as received (still protected) */
	uint8_t dcid_len;	/* 0..20 */
	uint8_t scid_len;	/* 0..20; 0 for 1-RTT */
	const uint8_t *dcid;
	const uint8_t *scid;	/* NULL for 1-RTT */
	/* Initial: the Token field (a server's Initial must carry none, RFC
	 * 9000 Section 17.2.2: the caller drops it or closes with
	 * PROTOCOL_VIOLATION). Retry: the Retry Token (a client discards a
	 * Retry whose token is empty, Section 17.2.5.2). Else NULL and 0. */
	const uint8_t *token;
	size_t token_len;
	/* Initial, 0-RTT, Handshake, 1-RTT: offset of the (protected) packet
	 * number from the start of the packet; 0 for Retry and VN. */
	size_t pn_offset;
	/* Bytes of this packet from its first byte: pn_offset + Length for
	 * Initial, 0-RTT and Handshake; the rest of the datagram for 1-RTT,
	 * Retry and Version Negotiation. The next coalesced packet starts
	 * here. */
	size_t packet_len;
	/* Retry: the 16-byte Retry Integrity Tag, the last bytes of the
	 * packet (the tag covers packet_len - 16 bytes, RFC 9001 Section
	 * 5.8). Else NULL. */
	const uint8_t *retry_tag;
	/* Version Negotiation: version_count 32-bit versions at `versions`
	 * (read them with shb_quic_vn_version). Else NULL and 0. */
	const uint8_t *versions;
	size_t version_count;
};

/* Parses the header of the packet at in[0..len) (the rest of a datagram).
 * short_dcid_len is the length of the connection IDs this endpoint issued
 * (a short header does not say how long its DCID is). Returns:
 *   SHB_QUIC_OK        h is filled in;
 *   SHB_QUIC_E_VERSION a long header whose version is neither 1 nor 0: h
 *                      has version, first and the CIDs (when they are
 *                      readable and at most 20 bytes), nothing else;
 *   SHB_QUIC_E_DROP    unreadable: empty, fixed bit clear (except in
 *                      Version Negotiation), a CID over 20 bytes, a field
 *                      past the end, a Length past the datagram, a packet
 *                      too short to hold the header-protection sample
 *                      (fewer than 20 bytes from the packet number on), a
 *                      Retry shorter than its tag, a Version Negotiation
 *                      list that is empty or not a multiple of 4 bytes.
 * Never reads outside in[0..len). A datagram that fails here may still be
 * a stateless reset (RFC 9000 Section 10.3): check its last 16 bytes. */
int shb_quic_hdr_parse(const uint8_t *in, size_t len, size_t short_dcid_len,
		       struct shb_quic_hdr *h);

/* The same for an endpoint that sent grease_quic_bit (RFC 9287 Section
 * 3): when `any_fixed_bit` is 1 a clear QUIC bit (0x40) is taken in
 * every packet type. */
int shb_quic_hdr_parse_bit(const uint8_t *in, size_t len,
			   size_t short_dcid_len, int any_fixed_bit,
			   struct shb_quic_hdr *h);

/* Version number i (0-based, < h->version_count) of a Version
 * Negotiation packet. */
uint32_t shb_quic_vn_version(const struct shb_quic_hdr *h, size_t i);

/* 1 when a Version Negotiation packet lists `version`. A client ignores a
 * VN listing the version it chose (RFC 9000 Section 6.2). */
int shb_quic_vn_lists(const struct shb_quic_hdr *h, uint32_t version);

/* From the first byte once header protection is removed: the packet
 * number length (1..4). */
unsigned shb_quic_hdr_pn_len(uint8_t first);

/* SHB_QUIC_OK when the reserved bits of an unprotected first byte are zero
 * (0x0c in a long header, 0x18 in a short one), else SHB_QUIC_E_PROTOCOL:
 * a connection error once the packet has been authenticated (RFC 9000
 * Sections 17.2 and 17.3.1). */
int shb_quic_hdr_reserved_ok(uint8_t first);

/* The Key Phase bit (0 or 1) of an unprotected short-header first byte. */
unsigned shb_quic_hdr_key_phase(uint8_t first);

/* What to build. */
struct shb_quic_hdr_spec {
	uint32_t type;		/* INITIAL, 0RTT, HANDSHAKE or 1RTT */
	const uint8_t *dcid;
	size_t dcid_len;	/* 0..20 */
	const uint8_t *scid;	/* long headers only */
	size_t scid_len;	/* 0..20 */
	const uint8_t *token;	/* Initial only (after a Retry); else NULL */
	size_t token_len;
	uint64_t pn;		/* the full packet number */
	unsigned pn_len;	/* 1..4, usually shb_quic_pn_len() */
	unsigned length_size;	/* long headers: 2 or 4 bytes for Length */
	unsigned key_phase;	/* 1-RTT only: 0 or 1 */
};

/* Where things went. */
struct shb_quic_hdr_layout {
	size_t len;		/* header bytes through the packet number:
				 * the payload starts here */
	size_t pn_offset;
	unsigned pn_len;
	size_t length_offset;	/* long headers: offset of Length; else 0 */
	unsigned length_size;	/* long headers: 2 or 4; else 0 */
};

/* Writes the unprotected header described by s into out[0..cap): version
 * 1, reserved bits and spin bit zero, the packet number truncated to
 * pn_len bytes, and for long headers a Length of 0 on length_size bytes to
 * be patched. Returns SHB_QUIC_OK and fills l, SHB_QUIC_E_SPACE when cap is
 * too small, or SHB_QUIC_E_INVALID for a bad spec (type, CID over 20,
 * pn_len, length_size, key_phase, a token outside Initial). Nothing useful
 * is in out on error. */
int shb_quic_hdr_build(uint8_t *out, size_t cap,
		       const struct shb_quic_hdr_spec *s,
		       struct shb_quic_hdr_layout *l);

/* Patches the Length field of a long header built at pkt with layout l,
 * once the packet's total size is known: packet_len counts every byte from
 * the first header byte to the end of the AEAD tag, so Length becomes
 * packet_len - l->pn_offset. Returns SHB_QUIC_OK, or SHB_QUIC_E_INVALID
 * (nothing written) for a short header, a packet_len not past the packet
 * number, or a Length that does not fit in length_size bytes (2 bytes hold
 * up to 16383). */
int shb_quic_hdr_set_length(uint8_t *pkt, const struct shb_quic_hdr_layout *l,
			    size_t packet_len);

/* The fewest payload bytes (frames, before the tag) a packet needs after a
 * pn_len-byte packet number so that header protection can take its sample:
 * 4 - pn_len (RFC 9001 Section 5.4.2); pad with PADDING frames up to it. */
size_t shb_quic_hp_min_payload(unsigned pn_len);

#endif
