/* Descriptions of the QUIC crypto return codes. */
#include "quic_crypto_err.h"

const char *shb_quic_crypto_strerror(int rc)
{
	switch (rc) {
	case SHB_QUIC_CRYPTO_OK:
		return "success";
	case SHB_QUIC_CRYPTO_E_INVAL:
		return "invalid argument or malformed packet";
	case SHB_QUIC_CRYPTO_E_NOKEY:
		return "no keys installed";
	case SHB_QUIC_CRYPTO_E_AUTH:
		return "authentication failed";
	case SHB_QUIC_CRYPTO_E_LIB:
		return "crypto library failure";
	case SHB_QUIC_CRYPTO_E_TLS:
		return "TLS handshake failed";
	default:
		return rc >= 0 ? "success" : "unknown error";
	}
}
