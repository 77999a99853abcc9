/* QPACK field line encoders for request field sections built once at
 * start (RFC 9204 Section 4.5). With a zero-capacity dynamic table every
 * section has Required Insert Count 0 and Base 0, and every line is a
 * static reference or a literal; nothing is Huffman-coded, so encoding a
 * line is a copy. The N ("never index") bit is never set. */
#ifndef SHB_QPACK_ENC_H
#define SHB_QPACK_ENC_H

#include <stddef.h>
#include <stdint.h>

/* Sections are built in a struct shb_buf (common/buf.h): an append that
 * fails sets its sticky err and leaves p[len] unchanged; later appends
 * are then no-ops, so callers check err once at the end. */
struct shb_buf;

/* The field section prefix for Required Insert Count 0, Base 0. */
void shb_qpack_put_prefix(struct shb_buf *b);

/* Indexed Field Line referring to static entry `index`. */
void shb_qpack_put_indexed(struct shb_buf *b, uint64_t index);

/* Literal Field Line with a static Name Reference `index` and a plain
 * value. */
void shb_qpack_put_name_ref(struct shb_buf *b, uint64_t index,
			    const char *value, size_t value_len);

/* Literal Field Line with Literal Name; the name is written lower-cased
 * (HTTP/3 field names must be), the value as given. */
void shb_qpack_put_literal(struct shb_buf *b, const char *name,
			   size_t name_len, const char *value,
			   size_t value_len);

/* The best line for a field whose name is static entry `name_index`'s:
 * an Indexed Field Line when some static entry matches name and value
 * exactly, else a Literal Field Line with Name Reference `name_index`. */
void shb_qpack_put_static_name(struct shb_buf *b, uint64_t name_index,
			       const char *value, size_t value_len);

#endif
