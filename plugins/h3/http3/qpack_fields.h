/* The fields of a QPACK field section already checked by the streaming
 * decoder (qpack_dec.h: static references and literals only, a client
 * with dynamic table capacity 0), decoded whole for ABI 1.4's
 * req_response: names and values as NUL-terminated strings, Huffman
 * strings decoded, pseudo-headers (:status) left out. [conn]; only in
 * runs that want responses. */
#ifndef SHB_QPACK_FIELDS_H
#define SHB_QPACK_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Decodes sec[len] into strs ("name\0value\0" ...) and kvs (struct
 * shb_kv into strs), both emptied first. Returns the number of fields, or
 * -1 for a representation the decoder does not take (a dynamic
 * reference), a bad Huffman string, a section cut short, or a buffer
 * cap. */
long shb_qpack_fields(const uint8_t *sec, size_t len, struct shb_buf *strs,
		      struct shb_buf *kvs);

#endif
