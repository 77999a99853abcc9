/* Result codes of the wire codec and their transport error codes. */
#include "quic_wire_err.h"

uint64_t shb_quic_wire_err_code(int rc)
{
	switch (rc) {
	case SHB_QUIC_OK:
		return SHB_QUIC_TE_NO_ERROR;
	case SHB_QUIC_E_FRAME_ENCODING:
		return SHB_QUIC_TE_FRAME_ENCODING_ERROR;
	case SHB_QUIC_E_PROTOCOL:
		return SHB_QUIC_TE_PROTOCOL_VIOLATION;
	case SHB_QUIC_E_TRANSPORT_PARAM:
		return SHB_QUIC_TE_TRANSPORT_PARAMETER_ERROR;
	default:
		return SHB_QUIC_TE_INTERNAL_ERROR;
	}
}

const char *shb_quic_wire_err_str(int rc)
{
	switch (rc) {
	case SHB_QUIC_OK:
		return "ok";
	case SHB_QUIC_E_FRAME_ENCODING:
		return "frame encoding error";
	case SHB_QUIC_E_PROTOCOL:
		return "protocol violation";
	case SHB_QUIC_E_TRANSPORT_PARAM:
		return "transport parameter error";
	case SHB_QUIC_E_DROP:
		return "unreadable packet header";
	case SHB_QUIC_E_VERSION:
		return "unsupported QUIC version";
	case SHB_QUIC_E_SPACE:
		return "no room in the output buffer";
	case SHB_QUIC_E_INVALID:
		return "value cannot be encoded";
	default:
		return "unknown wire error";
	}
}
