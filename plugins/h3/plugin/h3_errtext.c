/* Connection end descriptions: see h3_errtext.h. */
#include "h3_errtext.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <shb/types.h>

#include "h3_defs.h"

#define CRYPTO_BASE 0x100u
#define CRYPTO_LAST 0x1ffu

const char *shb_h3_transport_error_name(uint64_t code)
{
	static const char *const names[] = {
		"NO_ERROR", "INTERNAL_ERROR", "CONNECTION_REFUSED",
		"FLOW_CONTROL_ERROR", "STREAM_LIMIT_ERROR",
		"STREAM_STATE_ERROR", "FINAL_SIZE_ERROR",
		"FRAME_ENCODING_ERROR", "TRANSPORT_PARAMETER_ERROR",
		"CONNECTION_ID_LIMIT_ERROR", "PROTOCOL_VIOLATION",
		"INVALID_TOKEN", "APPLICATION_ERROR",
		"CRYPTO_BUFFER_EXCEEDED", "KEY_UPDATE_ERROR",
		"AEAD_LIMIT_REACHED", "NO_VIABLE_PATH",
		"VERSION_NEGOTIATION_ERROR",
	};

	return code < sizeof(names) / sizeof(names[0]) ? names[code] : NULL;
}

const char *shb_h3_alert_name(uint8_t alert, char *out, size_t cap)
{
	/* GnuTLS names alerts "GNUTLS_A_BAD_CERTIFICATE"; the RFC 8446
	 * spelling is the lower-case rest. */
	const char *s = gnutls_alert_get_strname((gnutls_alert_description_t)alert);
	size_t n = 0;

	if (!cap)
		return out;
	if (!s || strncmp(s, "GNUTLS_A_", 9) != 0) {
		snprintf(out, cap, "alert %u", alert);
		return out;
	}
	for (s += 9; *s && n + 1 < cap; s++)
		out[n++] = (char)tolower((unsigned char)*s);
	out[n] = '\0';
	return out;
}

const char *shb_h3_app_code_text(uint64_t code, char *out, size_t cap)
{
	const char *name = shb_h3_error_name(code);

	if (name)
		snprintf(out, cap, "%s (0x%llx)", name, (unsigned long long)code);
	else
		snprintf(out, cap, "application error 0x%llx",
			 (unsigned long long)code);
	return out;
}

static void transport_text(uint64_t code, char *out, size_t cap)
{
	const char *name = shb_h3_transport_error_name(code);

	if (name)
		snprintf(out, cap, "%s (0x%llx)", name, (unsigned long long)code);
	else
		snprintf(out, cap, "transport error 0x%llx",
			 (unsigned long long)code);
}

static int is_alert(const struct shb_quic_close_info *ci)
{
	return !ci->app && ci->code >= CRYPTO_BASE && ci->code <= CRYPTO_LAST;
}

/* ": reason", or "" when there is none. */
static void reason_suffix(const struct shb_quic_close_info *ci, char *out,
			  size_t cap)
{
	if (ci->reason && ci->reason[0])
		snprintf(out, cap, ": %s", ci->reason);
	else if (cap)
		out[0] = '\0';
}

static int describe_alert(const struct shb_quic_close_info *ci,
			  const struct shb_h3_close_ctx *ctx, int from_peer,
			  char *out, size_t cap)
{
	char name[48];
	uint8_t a = (uint8_t)(ci->code - CRYPTO_BASE);

	/* Our own verification refused the server's certificate: the
	 * connection's reason holds why, in the words the core uses over
	 * TCP (common/tls_verify_text.h), so one refusal reads the same on
	 * every protocol; alert 42 alone says nothing of why. */
	if (!from_peer && ci->reason &&
	    !strncmp(ci->reason, "TLS handshake: ", 15)) {
		snprintf(out, cap, "%s", ci->reason);
		return SHB_E_TLS;
	}
	shb_h3_alert_name(a, name, sizeof(name));
	/* certificate_required (116), or bad_certificate (42) from servers on
	 * Go's TLS before 1.21: a server's alert about a certificate is
	 * about ours, so without one name the options that provide it */
	snprintf(out, cap, "%s: %sTLS alert %u (%s)%s",
		 ctx->handshake_done ? "TLS error" : "QUIC handshake failed",
		 from_peer ? "server sent " : "", a, name,
		 from_peer && (a == 116 || a == 42) && !ctx->has_cert ?
		 ": the server wants a client certificate (--cert FILE --key FILE)" :
		 "");
	return SHB_E_TLS;
}

static int describe_error(const struct shb_quic_close_info *ci,
			  const struct shb_h3_close_ctx *ctx, char *out,
			  size_t cap)
{
	char code[64], why[SHB_QUIC_CONN_REASON_MAX + 4], frame[40] = "";

	if (is_alert(ci))
		return describe_alert(ci, ctx, 0, out, cap);
	transport_text(ci->code, code, sizeof(code));
	reason_suffix(ci, why, sizeof(why));
	if (ci->frame_type)
		snprintf(frame, sizeof(frame), " in frame 0x%llx",
			 (unsigned long long)ci->frame_type);
	snprintf(out, cap, "%s: %s%s%s",
		 ctx->handshake_done ? "QUIC error" : "QUIC handshake failed",
		 code, frame, why);
	return SHB_E_PROTO;
}

static int describe_peer(const struct shb_quic_close_info *ci,
			 const struct shb_h3_close_ctx *ctx, char *out,
			 size_t cap)
{
	char code[64], why[SHB_QUIC_CONN_REASON_MAX + 4];
	const char *when = "";

	if (is_alert(ci))
		return describe_alert(ci, ctx, 1, out, cap);
	if (ci->app)
		shb_h3_app_code_text(ci->code, code, sizeof(code));
	else
		transport_text(ci->code, code, sizeof(code));
	reason_suffix(ci, why, sizeof(why));
	/* Ours done but not the server's: a server that timed out waiting
	 * for our Finished (lost in its overflowing receive queue) is not
	 * told apart from one our frames offended by the code alone. */
	if (!ctx->handshake_done)
		when = " during the QUIC handshake";
	else if (ci->in_handshake)
		when = " before completing its QUIC handshake";
	snprintf(out, cap, "peer closed%s: %s%s", when, code, why);
	return SHB_E_CLOSED;
}

int shb_h3_close_describe(const struct shb_quic_close_info *ci,
			  const struct shb_h3_close_ctx *ctx, char *out,
			  size_t cap)
{
	if (cap)
		out[0] = '\0';
	switch (ci->origin) {
	case SHB_QUIC_CLOSE_ERROR:
		return describe_error(ci, ctx, out, cap);
	case SHB_QUIC_CLOSE_PEER:
		return describe_peer(ci, ctx, out, cap);
	case SHB_QUIC_CLOSE_IDLE:
		snprintf(out, cap, "idle timeout after %.3g s",
			 (double)ctx->idle_timeout / 1e9);
		return SHB_E_TIMEOUT;
	case SHB_QUIC_CLOSE_HANDSHAKE_TIMEOUT:
		snprintf(out, cap, "QUIC handshake timed out after %.3g s",
			 (double)ctx->handshake_timeout / 1e9);
		return SHB_E_TIMEOUT;
	case SHB_QUIC_CLOSE_STATELESS_RESET:
		snprintf(out, cap, "stateless reset from the server");
		return SHB_E_CLOSED;
	case SHB_QUIC_CLOSE_VERSION:
		snprintf(out, cap, "the server does not support QUIC version 1");
		return SHB_E_PROTO;
	default:
		return 0;
	}
}
