/* The loader tests' harness (test_loader.c, test_loader_list.c,
 * test_loader_ext.c): a fake host that counts init and deinit per plugin
 * id, and the scratch tree the suites share, built once under a fresh
 * mkdtemp directory from the fixture plugins of SHB_TEST_FIXTURES
 * (symlinks and copies), SHB_PLUGIN_SYSTEM_PATH pointed into it. Also
 * the stubs of what core/engine/host.c's table points to, never called
 * here. All on the test's thread. */
#ifndef SHB_TEST_LOADER_HARNESS_H
#define SHB_TEST_LOADER_HARNESS_H

#include <stddef.h>
#include <CUnit/CUnit.h>
#include <shb/shb.h>

#include "loader/loader.h"

/* Directories fit in D bytes (checked), so every message built from a few
 * of them fits in P. */
#define D 256
#define P 4096

/* Every init and deinit in order, "deinit:ID;" (for the deinit order of
 * extension providers). */
extern char events[1024];
/* init and deinit calls of plugin `id` since open_loader. */
int inits(const char *id);
int deinits(const char *id);
extern const struct shb_host fake_host;

extern char fixdir[D];  /* the fixtures, as built */
extern char root[D];    /* mkdtemp */
extern char sysdir[D];  /* empty: SHB_PLUGIN_SYSTEM_PATH by default */
extern char garbage[D]; /* shb-proto-garbage.so, a text file */
extern char shadow[D];  /* a copy of shb-proto-good.so */
/* shb-proto-other.so and shb-proto-good-dgram.so -> shb-proto-good.so */
extern char misc[D];
extern char empty[D];   /* nothing */
extern char ord_cli[D], ord_env[D], ord_sys[D], ord_bad[D]; /* "order" */
extern char v12[D];     /* notimer, timerless11, ontimer */
extern char defs[D];    /* shb-proto-defsN.so, shb-report-rdefs4.so */
extern char byname[D];  /* shb-report-prom.so, any.so -> good */
extern char probe[D];   /* --list-plugins: crashes, extra symbol, tables */
extern char ext[D];     /* extension provider and consumer */
extern char extc[D];    /* the consumer alone */
extern char extp[D];    /* the provider alone */
extern char scripts[D]; /* script engines (ABI 1.4): shb-script-*.so */

/* buf[n] = dir/name (a path too long aborts: a broken setup). */
void pjoin(char *buf, size_t n, const char *dir, const char *name);
/* buf[P] = the fixture `name` as built. */
void fixture(char *buf, const char *name);

/* The suites (test_loader.c registers them in this order). */
extern CU_TestInfo loader_tests[], loader_list_tests[], loader_ext_tests[];
/* Each suite's set-up (the tree is built once), and the last one's
 * clean-up (the tree removed). */
int suite_init(void);
int suite_clean(void);
/* A loader over dirs[n] with the fake host, its counts and events reset,
 * warnings not captured; host->get_extension asks it. */
void open_loader(struct shb_loader *l, const char *const *dirs, size_t n);
/* --list-plugins over dirs[n]: its text (the caller frees it), *refused
 * the count it returned. */
char *list_output(const char *const *dirs, size_t n, int *refused);

#endif
