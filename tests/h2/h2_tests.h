/* The h2 test executable: suites (one array per source file), the test
 * kit's fake host that records what the plugin reports, the RFC vector
 * files and a test-only HPACK decoder with a dynamic table. */
#ifndef SHB_H2_TESTS_H
#define SHB_H2_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

#include <shb/shb.h>
#include <shb/kit.h>

extern CU_TestInfo shb_h2_huffman_tests[];
extern CU_TestInfo shb_h2_prefint_tests[];
extern CU_TestInfo shb_h2_hpack_tests[];
extern CU_TestInfo shb_h2_hscan_tests[];
extern CU_TestInfo shb_h2_hscan_table_tests[];
extern CU_TestInfo shb_h2_hmemo_tests[];
extern CU_TestInfo shb_h2_frame_tests[];
extern CU_TestInfo shb_h2_conn_tests[];
extern CU_TestInfo shb_h2_conn_error_tests[];
extern CU_TestInfo shb_h2_conn_stream_tests[];
extern CU_TestInfo shb_h2_conn_hostile_tests[];
extern CU_TestInfo shb_h2_flow_tests[];
extern CU_TestInfo shb_h2_module_tests[];
extern CU_TestInfo shb_h2_fields_tests[];
extern CU_TestInfo shb_h2_observe_tests[];
extern CU_TestInfo shb_h2_var_tests[];
extern CU_TestInfo shb_h2_resp_tests[];
extern CU_TestInfo shb_h2_prio_tests[];
extern CU_TestInfo shb_h2_profile_tests[];

/* The plugin's entry, linked in from the static library. */
extern const struct shb_plugin_entry shb_plugin_entry_v1;

/* ---- fake host (the plugin test kit's, shb/kit.h) ------------------------ */

/* Records every req_done (done[], done_count), conn_event (events[],
 * event_count) and log line (logs[], log_count) since
 * shb_h2_test_reset(), and every rule of the host the plugin broke
 * (violations; shb_h2_fx_close asserts there is none). */
extern struct shb_kit_host shb_h2_kit;

/* Clears the kit's records; `debug` non-zero makes log_enabled(DEBUG)
 * true. */
void shb_h2_test_reset(int debug);

/* The protocol descriptor, after init() with the fake host. */
const struct shb_proto_desc *shb_h2_test_desc(void);

/* The kit's run config for h2 (http://example.com, one connection) with
 * these flags and -p. */
void shb_h2_test_config(struct shb_run_config *cfg, uint32_t run_flags,
			uint32_t parallel);
/* Its response_body_max (0 unless a test sets it, and resets it). */
extern uint64_t shb_h2_test_body_max;

/* A module for a run with these flags and -p (module_create with the
 * kit's host). */
void *shb_h2_test_module(uint32_t run_flags, uint32_t parallel);

/* Log line i as "LEVEL MESSAGE". */
const char *shb_h2_test_log_line(size_t i);

/* ---- RFC vectors (tests/vectors, directory in SHB_H2_VECTORS) ------------ */

/* Reads a vector file into a NUL-terminated malloc'd string (fatal
 * assertion when missing). */
char *shb_h2_vec_read(const char *name);

/* Hex text -> bytes; returns the length, or -1 on a bad digit. */
long shb_h2_unhex(const char *hex, size_t hex_len, uint8_t *out, size_t cap);

struct shb_h2_vec_static {
	char name[40];
	char value[40];
};
/* RFC 7541 Appendix A; index 1..61 (entry 0 unused). */
void shb_h2_vec_static_table(struct shb_h2_vec_static t[62]);

struct shb_h2_vec_huff {
	char bits[32]; /* '0'/'1', first-sent first */
	unsigned len;
};
/* RFC 7541 Appendix B, by symbol. */
void shb_h2_vec_huffman(struct shb_h2_vec_huff t[257]);

#define SHB_H2_VEC_MAX_FIELDS 8
struct shb_h2_vec_field {
	char name[64];
	char value[64];
};
struct shb_h2_vec_case {
	char id[16];
	char context[16];
	unsigned max_table;
	int huffman;
	size_t nfields;
	struct shb_h2_vec_field fields[SHB_H2_VEC_MAX_FIELDS];
	uint8_t block[256];
	size_t block_len;
	size_t ndyn;
	struct shb_h2_vec_field dyn[SHB_H2_VEC_MAX_FIELDS];
	unsigned dyn_size[SHB_H2_VEC_MAX_FIELDS];
	unsigned table_size;
};
struct shb_h2_vec_int {
	char id[16];
	unsigned prefix;
	uint64_t value;
	uint8_t bytes[8];
	size_t len;
};
struct shb_h2_vec_appendix_c {
	size_t nints;
	struct shb_h2_vec_int ints[8];
	size_t ncases;
	struct shb_h2_vec_case cases[32];
};
/* RFC 7541 Appendix C, in file order. */
void shb_h2_vec_appendix_c(struct shb_h2_vec_appendix_c *c);

/* ---- test-only HPACK decoder (full: dynamic table, every string) ------- */

enum shb_h2_tdec_rep {
	SHB_H2_REP_INDEXED = 'I',
	SHB_H2_REP_INCREMENTAL = 'L',
	SHB_H2_REP_WITHOUT = 'N',
	SHB_H2_REP_NEVER = 'V',
};

struct shb_h2_tdec_field {
	char name[128];
	char value[256]; /* Chrome's accept is 135 octets */
	size_t name_len, value_len;
	int rep;           /* enum shb_h2_tdec_rep */
	uint64_t name_index; /* 0 for a literal name */
	int name_huffman, value_huffman;
	size_t name_wire, value_wire; /* string octets on the wire */
};

struct shb_h2_tdec_entry {
	char name[128];
	char value[256]; /* Chrome's accept is 135 octets */
};

struct shb_h2_tdec {
	size_t n;
	struct shb_h2_tdec_entry entries[64]; /* [0] newest */
	size_t size, max;
	const struct shb_h2_vec_static *statics; /* [1..61] */
	uint64_t size_updates; /* count of size updates seen */
	uint64_t last_size_update;
};

void shb_h2_tdec_init(struct shb_h2_tdec *d, size_t max,
		      const struct shb_h2_vec_static *statics);
/* Decodes one block; returns the field count or -1 on any error. */
long shb_h2_tdec_decode(struct shb_h2_tdec *d, const uint8_t *p, size_t n,
			struct shb_h2_tdec_field *out, size_t max);

#endif
