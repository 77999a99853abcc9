/* shb plugin extension "org.shb.h2.proto/1": HTTP/2 for other plugins.
 *
 * The HTTP/2 plugin (org.shb.proto.h2) offers this table through its
 * entry's get_extension; another plugin finds it with
 * host->get_extension(SHB_EXT_H2_PROTO) and builds a protocol on top of
 * HTTP/2 (gRPC, ...) without a copy of framing, HPACK, flow control or
 * stream state: it drives h2's own descriptor and vtable and is told, per
 * response, every field and body octet h2 accepted.
 *
 * How a wrapping protocol uses it (sdk/examples/grpc does exactly this):
 *  - its conn_size is desc->conn_size plus its own state, and every conn
 *    starts with h2's state, which it passes to each desc->vt member;
 *    likewise worker_size (0 today);
 *  - its module_create calls set_observer on the module that
 *    desc->vt->module_create gave it, before any worker starts;
 *  - it may pass h2 a host table of its own (a copy of the real one with
 *    some members replaced) and, in conn_init, a handle of its own: h2
 *    uses the host given to module_create for everything that module
 *    does, and hands every callback of a connection (host->req_done,
 *    host->conn_event, host->conn_origin, the observer) the handle given
 *    to its conn_init. A wrapper that passes its own conn as the handle
 *    finds its state from any observer call without a lookup, and
 *    forwards host calls with the core's handle.
 *
 * The rules of types.h hold: struct_size first, members only appended;
 * a later revision that breaks a caller gets a new id (".../2"). */
#ifndef SHB_EXT_H2_H
#define SHB_EXT_H2_H

#include <shb/types.h>
#include <shb/proto.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHB_EXT_H2_PROTO "org.shb.h2.proto/1"

/* The kind of block a field came in (on_field's flags). */
enum shb_h2_field_flags {
	SHB_H2_FIELD_HEADER = 1u << 0,  /* the final response head */
	SHB_H2_FIELD_TRAILER = 1u << 1, /* the trailers */
};

/* Calls h2 makes on a connection of an observed module, all [conn]: from
 * inside a vtable call on that connection (recv, in practice), with the
 * handle the connection was given in conn_init and the cookie of the
 * request. Every pointer is borrowed for the call. No host callback and
 * no h2 vtable call may be made from inside them.
 *
 * Order per request: on_field for every field of the final head (1xx
 * heads are not shown), on_data for body octets as they arrive (split
 * anywhere; padding excluded), on_field for every trailer field, then
 * on_result. Fields come only from a block h2 accepted: well-formed
 * HPACK, a well-formed response (RFC 9113 8.3) within h2's caps (a block
 * of at most 256 KiB, a decoded list of at most 256 KiB); a block h2
 * refuses ends the request as a protocol error without a field shown.
 * Names are lower case; :status comes first, as the server sent it;
 * values are octets, not NUL-terminated.
 *
 * on_field and on_data return SHB_OK, or a negative SHB_E_* to stop the
 * request: h2 resets the stream (RST_STREAM CANCEL; not when the server
 * had already ended it and our request body was sent), calls no more
 * on_field or on_data for it and ends it as SHB_REQ_PROTO_ERROR (err_space
 * H2, err_code CANCEL or, without a reset, NO_ERROR), through on_result. */
struct shb_h2_observer {
	uint32_t struct_size;
	uint32_t reserved0; /* 0 */
	int (*on_field)(struct shb_conn *handle, uint64_t cookie,
			const char *name, size_t nlen, const uint8_t *value,
			size_t vlen, uint32_t flags);
	int (*on_data)(struct shb_conn *handle, uint64_t cookie,
		       const uint8_t *data, size_t len);
	/* Just before h2 calls host->req_done(handle, cookie, res) for any
	 * outcome: the observer may set res->app_space, app_code, app_ok and
	 * detail (which must then stay valid until on_result is called again
	 * on this connection, or conn_fini), and may turn an OK outcome into
	 * SHB_REQ_PROTO_ERROR (a response h2 accepted but the application
	 * protocol does not). Nothing else of res may change. An app outcome
	 * on a result that is not OK in the end is dropped. Not called for
	 * a request the core cancelled, nor for requests still outstanding
	 * when the connection is finalised (the core completes those). May
	 * be NULL, like the others. */
	void (*on_result)(struct shb_conn *handle, uint64_t cookie,
			  struct shb_req_result *res);
};

struct shb_h2_proto_ext {
	uint32_t struct_size;
	uint32_t reserved0; /* 0 */
	/* h2's descriptor: transport, flags, ALPN, conn_size, worker_size and
	 * vtable. Static, valid until the h2 plugin's deinit (the core keeps
	 * a plugin that answered get_extension loaded for the whole run). */
	const struct shb_proto_desc *desc;
	/* [main] After desc->vt->module_create and before any worker starts:
	 * every connection of `module` reports to `obs` (copied: it need not
	 * outlive the call). A module without an observer behaves as if the
	 * extension did not exist. SHB_OK, or SHB_E_INVAL for a NULL or too
	 * small observer. Call at most once per module. */
	int (*set_observer)(void *module, const struct shb_h2_observer *obs);
};

#ifdef __cplusplus
}
#endif
#endif
