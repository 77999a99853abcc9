/* One table of SHB_E_* texts (sdk/include/shb/types.h says what each
 * means; the words here are for users). */
#include "error_text.h"

#include <shb/types.h>

const char *shb_error_text(int code)
{
	switch (code) {
	case SHB_OK: return "success";
	case SHB_E_INVAL: return "invalid argument";
	case SHB_E_BUSY: return "no capacity";
	case SHB_E_STATE: return "invalid state";
	case SHB_E_UNSUPPORTED: return "unsupported";
	case SHB_E_PROTO: return "protocol error";
	case SHB_E_CLOSED: return "connection closed";
	case SHB_E_TLS: return "TLS error";
	case SHB_E_TIMEOUT: return "timed out";
	case SHB_E_FATAL: return "fatal error";
	case SHB_E_NOMEM: return "out of memory";
	default: return "unknown error";
	}
}
