/* What shb prints about its options rather than parsing them: --help,
 * --version and the warning about reports sharing stdout (cli_usage.c). */
#ifndef SHB_CORE_CLI_USAGE_H
#define SHB_CORE_CLI_USAGE_H

#include <stdio.h>

struct shb_config;

void shb_cli_usage(FILE *out);
void shb_cli_version(FILE *out);
/* [main] Reports that would all print to stdout, one after the other
 * (`--report text,json`, `--report text -j`) make a file of two formats
 * that no reader takes: one line on `out` says so and how to part them.
 * The tui reporter draws on the terminal and leaves first: not counted.
 * Returns how many share stdout. */
int shb_cli_warn_reports(const struct shb_config *cfg, FILE *out);

#endif
