/* Options kept as the user typed them, for what the core reports and
 * refuses once the protocol is known (ABI 1.4): the first HTTP request
 * option given (a protocol of request model NONE refuses it, naming it),
 * and --connect-to, --resolve and --source as typed (shb_run_info). Pure;
 * [main]. */
#ifndef SHB_CORE_TYPED_H
#define SHB_CORE_TYPED_H

#include <stddef.h>

struct shb_typed {
	/* The first of -m/-X, -H, -d and the other body options,
	 * --body-lines, --priority given, as typed ("-m", "--data"); "" none */
	char http_opt[24];
	char **connect_to; /* --connect-to values, in order */
	size_t connect_to_count;
	char **resolve;    /* --resolve values, in order */
	size_t resolve_count;
	char *source;      /* --source's value, or NULL */
	/* Strings the run facts point to, kept until the config is freed
	 * (shb_typed_keep). */
	char **kept;
	size_t kept_count;
};

/* Notes option `name` (as typed: "-m", "--connect-to") with value v.
 * 0, or -1 out of memory. */
int shb_typed_note(struct shb_typed *t, const char *name, const char *v);

/* 1 when `name` (as typed) is an HTTP request option. */
int shb_typed_is_http(const char *name);

/* Takes s (malloc'd) into t's keeping, freed with t. 0, or -1 out of
 * memory (s is freed then). */
int shb_typed_keep(struct shb_typed *t, char *s);

void shb_typed_free(struct shb_typed *t);

#endif
