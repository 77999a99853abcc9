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
#define CHK_MAX_OPTS 32     /* --proto-opt */
#define CHK_MAX_PARALLEL 8  /* values of --parallel */
#define CHK_PARALLEL_MAX 0  /* in --parallel: the module's own maximum */
#define CHK_MAX_REPLIES 256 /* files of --replies DIR */
#define CHK_REPLY_MAX (64 * 1024) /* bytes per file */

/* A reply the peer sends (check_corpus.c): a file of --replies DIR, or a
 * reply the checker knows for the protocol's ALPN. STREAM: the bytes that
 * answer one request (fed once per request issued), or with `seq` a
 * whole sequence (fed once whatever was issued). DGRAM: one datagram. */
struct chk_reply {
	char name[64];
	const uint8_t *p;
	size_t len;
	int seq;
};

struct chk_corpus {
	struct chk_reply r[CHK_MAX_REPLIES];
	size_t n;
	/* DIR/handshake: fed after on_transport_ready, before any request
	 * (a WebSocket 101), or NULL. */
	const uint8_t *handshake;
	size_t handshake_len;
	const char *dir; /* --replies DIR, or NULL: the known replies */
};

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
	struct shb_kv opts[CHK_MAX_OPTS]; /* --proto-opt, in order */
	size_t nopts;
	/* --parallel: the -p values the reply groups run at
	 * (CHK_PARALLEL_MAX: the module's maximum). */
	uint32_t parallel[CHK_MAX_PARALLEL];
	unsigned nparallel;
	const char *replies_dir; /* --replies DIR, or NULL */
	struct chk_corpus dir_corpus; /* its files, read once by main */

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

int chk_group_replies(struct chk *k);
int chk_group_cancel(struct chk *k);
int chk_group_timeouts(struct chk *k);

/* Sets up a module of protocol k->index (create, prepare, worker_init),
 * printing a FAIL line for `check` when a step fails. The run config is
 * the kit's default with --proto-opt, -p `parallel` and a request timeout
 * of `timeout_ns` (0: none). */
int chk_module_open(struct chk *k, const char *check,
		    struct shb_kit_module *m);
int chk_module_open_cfg(struct chk *k, const char *check,
			struct shb_kit_module *m, uint32_t parallel,
			shb_tstamp timeout_ns);

/* Arguments (check_args.c): fills k, or prints one line and returns 2
 * (exits 0 for --help and --version). */
int chk_parse_args(struct chk *k, int argc, char **argv);

/* The replies to check protocol `d` with: k->dir_corpus when --replies
 * was given, else the replies the checker knows for d's ALPN (HTTP/1.1,
 * HTTP/2); c->n is 0 when there is none. */
void chk_corpus_get(struct chk *k, const struct shb_proto_desc *d,
		    struct chk_corpus *c);
/* Reads --replies DIR into k->dir_corpus: 0, or one line on stderr and
 * -1. */
int chk_corpus_load(struct chk *k);

/* Sanitizers (check_san.c): when MODULE.so needs a sanitizer runtime this
 * process has not loaded, runs the checker again with it preloaded
 * (returns only when that cannot be done: 1 after one FAIL line). */
int chk_sanitizer_reexec(struct chk *k, char **argv);

/* random_secure() while replies are fed: zero bytes, so that a corpus
 * can hold replies to what a module randomises (a WebSocket key). */
int chk_zero_random(void *buf, size_t len);

/* pread of exactly n bytes at off: 0, or -1. */
int chk_pread(int fd, void *buf, size_t n, uint64_t off);


/* Collects a connection's output, whichever its transport: the bytes
 * (STREAM) or datagram bytes (DGRAM) in c->out. */
size_t chk_flush(struct shb_kit_conn *c);

/* A descriptor's name as a label in check names: printable, no spaces,
 * at most 48 characters, "#unnamed" for NULL or "". */
void chk_name(char *out, size_t n, const char *name);

#endif
