/* The text of an SHB_E_* code: what host->strerror answers, in the core's
 * host and in the SDK kit's fake host alike, so that a plugin's messages
 * read the same under test as in a run. Static strings; [any] thread. */
#ifndef SHB_COMMON_ERROR_TEXT_H
#define SHB_COMMON_ERROR_TEXT_H

const char *shb_error_text(int code);

#endif
