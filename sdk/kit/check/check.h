/* shb-plugin-check: shared declarations of the checker's groups.
 *
 * Every group runs in a child process of its own (check_main.c), loads the
 * plugin itself, prints one line per check to stdout and returns how many
 * checks failed. Lines read "STATUS CHECK: text" with STATUS one of PASS,
 * FAIL, WARN or INFO. */
#ifndef SHB_CHECK_H
#define SHB_CHECK_H

#include <shb/kit.h>

#define CHK_MAX_PROVIDERS SHB_KIT_MAX_PROVIDERS

struct chk {
	const char *path;  /* MODULE.so */
	const char *proto; /* --proto NAME, or NULL for every protocol */
	uint64_t seed;     /* --seed */
	unsigned iterations; /* --iterations: random inputs per protocol */
	unsigned index;    /* the descriptor a per-descriptor group checks */
	int fails;         /* FAIL lines printed so far */
	/* --extensions-from MODULE.so, in order: loaded and initialised
	 * before the plugin, asked for the extensions it needs. */
	const char *ext_paths[CHK_MAX_PROVIDERS];
	unsigned next;
	const char *req_path; /* --path: the request's path, "/" if NULL */

	/* Loaded by chk_load. */
	struct shb_kit_host kh;
	struct shb_kit_plugin p;
	struct shb_kit_plugin providers[CHK_MAX_PROVIDERS];
	unsigned nprovided; /* providers opened and initialised */
};

/* Prints "STATUS CHECK: text"; FAIL lines count in k->fails. */
void chk_line(struct chk *k, const char *status, const char *check,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Loads and inits the plugin with a fresh kit host, after the
 * --extensions-from plugins (each made a provider of the host); on
 * failure prints a FAIL line for `check` and returns -1. */
int chk_load(struct chk *k, const char *check);
void chk_unload(struct chk *k);

/* The protocol / reporter factory (NULL when the plugin has none) and
 * their descriptors by index. */
const struct shb_proto_factory *chk_proto_factory(struct chk *k);
const struct shb_report_factory *chk_report_factory(struct chk *k);
const struct shb_proto_desc *chk_proto(struct chk *k, unsigned i);
const struct shb_report_desc *chk_report(struct chk *k, unsigned i);

/* Prints a FAIL line for the host's first violation (with how many more
 * there were) and returns 1, or returns 0 when there is none. */
int chk_violations(struct chk *k, const char *check);

/* Groups. Each returns the number of FAIL lines it printed. */
int chk_group_entry(struct chk *k);
/* Writes "PROTOS REPORTS\n" to fd after the factories checked out. */
int chk_group_init(struct chk *k, int fd);
int chk_group_proto_desc(struct chk *k);
int chk_group_report_desc(struct chk *k);
int chk_group_module(struct chk *k);
int chk_group_random(struct chk *k);
int chk_group_truncated(struct chk *k);
int chk_group_deadlines(struct chk *k);
int chk_group_report_run(struct chk *k);

/* Sets up a module of protocol k->index (create, prepare, worker_init),
 * printing a FAIL line for `check` when a step fails. */
int chk_module_open(struct chk *k, const char *check,
		    struct shb_kit_module *m);

/* Collects a connection's output, whichever its transport: the bytes
 * (STREAM) or datagram bytes (DGRAM) in c->out. */
size_t chk_flush(struct shb_kit_conn *c);

/* A descriptor's name as a label in check names: printable, no spaces,
 * at most 48 characters, "#unnamed" for NULL or "". */
void chk_name(char *out, size_t n, const char *name);

#endif
