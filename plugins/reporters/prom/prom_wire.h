/* What the prom reporter puts on the wire, without I/O: Prometheus remote
 * write 1.0 (a protobuf WriteRequest, compressed with snappy's block
 * format) and the status line of the receiver's answer.
 *
 * Only what remote write needs is encoded: WriteRequest.timeseries (1),
 * TimeSeries.labels (1) and .samples (2), Label.name (1) and .value (2),
 * Sample.value (1, a double) and .timestamp (2, int64 milliseconds). The
 * snappy encoder writes literals only: a valid block any decoder takes,
 * a few bytes larger than its input, and no dependency. */
#ifndef SHB_PROM_WIRE_H
#define SHB_PROM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct shb_prom_label {
	const char *name;
	const char *value;
};

/* The protobuf varint of v into out[0..10); returns its length. */
size_t shb_prom_varint(uint8_t out[10], uint64_t v);

/* Appends one WriteRequest.timeseries entry: the labels (sorted by name,
 * as remote write requires; "__name__" sorts first) and one sample.
 * SHB_BUF_OK, or the buffer's error; -3 when the labels are not sorted
 * or a name is repeated (nothing appended). */
int shb_prom_put_series(struct shb_buf *b, const struct shb_prom_label *l,
			size_t n, double value, int64_t ts_ms);

/* Sorts labels by name (insertion sort: a series has a handful). */
void shb_prom_sort_labels(struct shb_prom_label *l, size_t n);

/* Appends in[0..n) as a snappy block (literals of at most 64 KiB each)
 * to out. SHB_BUF_OK or the buffer's error. */
int shb_prom_snappy(struct shb_buf *out, const uint8_t *in, size_t n);

/* The status of an HTTP/1.x response whose first p[0..n) bytes arrived
 * (any bytes a peer sends). 1: *status is the code of a complete status
 * line ("HTTP/1.1 204 No Content\r\n"); 0: not complete yet; -1: not an
 * HTTP/1.x status line, or its line is longer than SHB_PROM_LINE_MAX. */
#define SHB_PROM_LINE_MAX 1024
int shb_prom_status(const char *p, size_t n, int *status);

/* The receiver's whole answer buf[0..n) (cut at the reader's cap or the
 * peer's close): its status, or -1 when it is not an HTTP/1.x answer; why
 * gets one printable line saying so, or "answered N" and, when there is
 * one, the body's first 120 bytes quoted (Prometheus says there why it
 * refused a push). */
int shb_prom_answer(const char *buf, size_t n, char *why, size_t whylen);

#endif
