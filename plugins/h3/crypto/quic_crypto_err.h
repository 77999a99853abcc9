/* Return codes shared by the QUIC crypto part (key schedule, packet
 * protection, Retry integrity, TLS glue).
 *
 * Every function of the part returns 0 (or a non-negative count) on success
 * and one of these negative values on failure. None of them is ever a GnuTLS
 * error code, so a caller can switch on them without knowing GnuTLS.
 */
#ifndef SHB_QUIC_CRYPTO_ERR_H
#define SHB_QUIC_CRYPTO_ERR_H

enum shb_quic_crypto_rc {
	SHB_QUIC_CRYPTO_OK = 0,
	/* A bad argument: unsupported cipher or hash, wrong secret length,
	 * buffer too small, packet too short to hold a header-protection
	 * sample, packet number out of range. Always a caller bug or a
	 * malformed packet; nothing was changed, except where documented. */
	SHB_QUIC_CRYPTO_E_INVAL = -1,
	/* The key context holds no keys (zeroed or deinitialised). */
	SHB_QUIC_CRYPTO_E_NOKEY = -2,
	/* Authentication failed: AEAD tag mismatch or wrong Retry tag. */
	SHB_QUIC_CRYPTO_E_AUTH = -3,
	/* GnuTLS or nettle refused (out of memory, algorithm unavailable). */
	SHB_QUIC_CRYPTO_E_LIB = -4,
	/* The TLS handshake failed; shb_quic_tls_close_code() gives the QUIC
	 * error code for CONNECTION_CLOSE. */
	SHB_QUIC_CRYPTO_E_TLS = -5,
};

/* A short static English description of `rc` (never NULL). */
const char *shb_quic_crypto_strerror(int rc);

#endif
