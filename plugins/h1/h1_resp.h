/* ABI 1.4's req_response for HTTP/1.1: the head the scanner kept (struct
 * shb_h1_keep) split into fields in place, handed to the core with the
 * kept body. Only in runs with SHB_RUN_WANT_RESPONSE; [conn]. */
#ifndef SHB_H1_RESP_H
#define SHB_H1_RESP_H

#include <stdint.h>

#include <shb/host.h>

#include "common/buf.h"
#include "h1_scan.h"

/* Splits keep->head ("HTTP/1.1 301 ...\r\nName: value\r\n...\r\n\r\n")
 * in place into fields (name as sent, value without surrounding
 * whitespace; obs-fold lines, lines without ':' and lines holding a NUL
 * are left out), with
 * kvs (a buffer of struct shb_kv) holding them, and calls
 * host->req_response(handle, cookie, ...). Nothing when the host has no
 * req_response. */
void shb_h1_resp_deliver(const struct shb_host *host, struct shb_conn *handle,
			 uint64_t cookie, uint32_t status,
			 struct shb_h1_keep *keep, struct shb_buf *kvs);

#endif
