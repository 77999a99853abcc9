/* HTTP/3 code points: see h3_defs.h. */
#include "h3_defs.h"

#include <stddef.h>

const char *shb_h3_error_name(uint64_t code)
{
	static const char *const h3[] = {
		"H3_NO_ERROR",
		"H3_GENERAL_PROTOCOL_ERROR",
		"H3_INTERNAL_ERROR",
		"H3_STREAM_CREATION_ERROR",
		"H3_CLOSED_CRITICAL_STREAM",
		"H3_FRAME_UNEXPECTED",
		"H3_FRAME_ERROR",
		"H3_EXCESSIVE_LOAD",
		"H3_ID_ERROR",
		"H3_SETTINGS_ERROR",
		"H3_MISSING_SETTINGS",
		"H3_REQUEST_REJECTED",
		"H3_REQUEST_CANCELLED",
		"H3_REQUEST_INCOMPLETE",
		"H3_MESSAGE_ERROR",
		"H3_CONNECT_ERROR",
		"H3_VERSION_FALLBACK",
	};
	static const char *const qpack[] = {
		"QPACK_DECOMPRESSION_FAILED",
		"QPACK_ENCODER_STREAM_ERROR",
		"QPACK_DECODER_STREAM_ERROR",
	};

	if (code >= SHB_H3_NO_ERROR && code <= SHB_H3_VERSION_FALLBACK)
		return h3[code - SHB_H3_NO_ERROR];
	if (code >= SHB_QPACK_DECOMPRESSION_FAILED &&
	    code <= SHB_QPACK_DECODER_STREAM_ERROR)
		return qpack[code - SHB_QPACK_DECOMPRESSION_FAILED];
	return NULL;
}
