/* Request templates: placeholders in the URL path and query, -H header
 * values and the body, expanded per request, and --body-lines.
 *
 *   {{seq}}        the request's number in the run: 0, 1, 2, ... in the
 *                  order requests are issued, unique across workers (a
 *                  request resent after a refusal gets a new number)
 *   {{worker}}     the worker thread's index, 0 .. threads - 1
 *   {{conn}}       the connection slot's index in the run, 0 .. c - 1
 *   {{rand:N}}     uniform in 0 .. N-1, N in 1 .. 2^63 (one PRNG per
 *                  worker, seeded from the system's secure source)
 *   {{uuid}}       a random version 4 UUID, lower-case
 *   {{line:FILE}}  line number (seq mod lines) of FILE: the lines in turn
 *                  across the run, wrapping
 *   \{{            a literal "{{" (a backslash anywhere else is itself)
 *
 * --body-lines FILE: the body of request seq is line (seq mod lines).
 *
 * Files are read once at start ([main]), at most SHB_MAX_BODY bytes each,
 * and shared read-only by every worker. A line ends at LF; a CR or NUL in
 * it is refused (one line naming file and line), and so is, for a file
 * used in the URL, a space, control or non-ASCII byte.
 *
 * Expansion ([worker]) writes into a scratch buffer of
 * shb_tmpl_scratch_size() bytes allocated once per worker: no allocation
 * per request. The result is a struct shb_request_var (proto.h) borrowed
 * for the issue_var call. */
#ifndef SHB_CORE_TEMPLATE_H
#define SHB_CORE_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>

/* The most the URL path and the header values together may expand to. */
#define SHB_TMPL_MAX_HEAD ((size_t)64 << 10)
#define SHB_TMPL_MAX_HEAD_TEXT "64 KiB"

struct shb_tmpl;

/* [main] What one request template is made of; borrowed by compile. */
struct shb_tmpl_src {
	const char *path;          /* path and query, starts with '/' */
	const char *const *header_names;  /* the template's headers, */
	const char *const *header_values; /* in order (shb_request.headers) */
	size_t header_count;
	const uint8_t *body; /* -d / --data-binary, NULL without */
	size_t body_len;
	const char *body_lines; /* --body-lines FILE, or NULL */
};

/* [main] Parses every placeholder and reads the files. Returns the
 * compiled template (free with shb_tmpl_free), NULL with *err[0] == '\0'
 * when nothing varies (a plain run), or NULL with one line in err naming
 * what is wrong and where. */
struct shb_tmpl *shb_tmpl_compile(const struct shb_tmpl_src *src, char *err,
				  size_t errlen);
void shb_tmpl_free(struct shb_tmpl *t);

/* [any] The bytes one expansion may need at most: the size of a worker's
 * scratch buffer. */
size_t shb_tmpl_scratch_size(const struct shb_tmpl *t);
/* [any] How many header values vary: the size of the worker's
 * struct shb_var_header array. */
size_t shb_tmpl_var_headers(const struct shb_tmpl *t);

/* A worker's PRNG (xoshiro256**), for {{rand:N}} and {{uuid}}. */
struct shb_tmpl_rng {
	uint64_t s[4];
};

/* [worker] Seeds from 32 random bytes (never all zero afterwards). */
void shb_tmpl_rng_seed(struct shb_tmpl_rng *r, const uint8_t seed[32]);
uint64_t shb_tmpl_rng_next(struct shb_tmpl_rng *r);

/* What one request is numbered with. */
struct shb_tmpl_ctx {
	uint64_t seq;
	uint32_t worker;
	uint32_t conn;
	struct shb_tmpl_rng *rng; /* the worker's */
};

/* [worker] Expands the template for one request into scratch
 * (shb_tmpl_scratch_size bytes) and hv (shb_tmpl_var_headers entries),
 * and fills *var to point into them (and into the shared line files).
 * Never fails. */
void shb_tmpl_expand(const struct shb_tmpl *t, const struct shb_tmpl_ctx *ctx,
		     uint8_t *scratch, struct shb_var_header *hv,
		     struct shb_request_var *var);

/* [any] The template's body varies (-d with placeholders, --body-lines):
 * the request has a body even when -d was not given. */
int shb_tmpl_has_body(const struct shb_tmpl *t);

#endif
