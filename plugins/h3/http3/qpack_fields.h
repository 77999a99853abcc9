/* The fields of a QPACK field section already checked by the streaming
 * decoder (qpack_dec.h), decoded whole for ABI 1.4's req_response: names
 * and values as NUL-terminated strings, Huffman strings decoded,
 * pseudo-headers (:status) left out. References to the dynamic table
 * read the connection's (qpack_table.h), so a section is decoded when the
 * streaming decoder finished it, before its Section Acknowledgment lets
 * the server evict what it references. [conn]; only in runs that want
 * responses. */
#ifndef SHB_QPACK_FIELDS_H
#define SHB_QPACK_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct shb_qpack_table;

/* Decodes sec[len] over table t (NULL: static references only) into
 * strs ("name\0value\0" ...) and kvs (struct shb_kv into strs), both
 * emptied first. Returns the number of fields, or -1 for a reference the
 * table cannot resolve (or any dynamic one without a table, or a section
 * still blocked), a bad Huffman string, a section cut short, or a buffer
 * cap. */
long shb_qpack_fields(const uint8_t *sec, size_t len,
		      const struct shb_qpack_table *t, struct shb_buf *strs,
		      struct shb_buf *kvs);

#endif
