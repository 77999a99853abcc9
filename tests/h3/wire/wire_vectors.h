/* RFC 9001 Appendix A test vectors (hex strings); see wire_vectors.c. */
#ifndef SHB_WIRE_VECTORS_H
#define SHB_WIRE_VECTORS_H

extern const char wv_a2_unprotected_header[];
extern const char wv_a2_crypto_frame[];
extern const char wv_a2_packet[];
extern const char wv_a3_unprotected_header[];
extern const char wv_a3_frames[];
extern const char wv_a3_packet[];
extern const char wv_a4_retry_packet[];
extern const char wv_a5_unprotected_header[];
extern const char wv_a5_packet[];

#endif
