/* The json reporter's building blocks, shared by json.c and json_v14.c:
 * insertion that remembers a failed allocation, numbers, strings made
 * valid UTF-8, and the HdrHistogram V2 export of a core histogram.
 * Hidden in the module like everything of a reporter. [main]. */
#ifndef SHB_REPORT_JSON_UTIL_H
#define SHB_REPORT_JSON_UTIL_H

#include <stdint.h>
#include <jansson.h>

#include "report_common.h"

/* Builds a document; the first failed allocation or insertion sticks and
 * turns end() into SHB_E_NOMEM instead of a partial document. */
struct jb {
	int failed;
};

/* obj[key] = v (v's reference taken, also on failure). */
void jput(struct jb *b, json_t *obj, const char *key, json_t *v);
/* A count, clamped to 2^63 - 1. */
json_t *jint(uint64_t v);
/* Nanoseconds as seconds. */
json_t *jsecs(uint64_t ns);
/* A string ("" for NULL), anything not UTF-8 as U+FFFD; NULL when out of
 * memory. */
json_t *jstr(const char *s);
/* The histogram as HdrHistogram V2 base64, json null when empty or not
 * exportable; NULL when out of memory. */
json_t *jhdr(const struct shb_host *host, const struct shb_hist *h);

#endif
