/* The command-line parser (core/cli/cli*.c), on any argument vector. Input:
 * the arguments after "shb", separated by NUL bytes (at most 62).
 *
 * Bodies named "@-" read standard input, which is /dev/null here; other
 * "@FILE" and --cacert names are opened read-only as given (the fuzzer
 * does not know the machine's paths; seeds never name one).
 *
 * Checked besides memory safety: the result is -1, 0 or 1; an error has
 * a one-line message; a run has a URL, a protocol, a report and non-zero
 * counts; shb_config_free releases everything (LeakSanitizer). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/config.h"
#include "fuzz_input.h"

#define MAX_ARGS 64

static char text[16384];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_RDONLY);

	(void)argc;
	(void)argv;
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	struct shb_config cfg;
	char err[512];
	int rc;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	argv[argc++] = (char *)"shb"; /* never written */
	for (char *p = text; p <= text + size && argc < MAX_ARGS;) {
		argv[argc++] = p;
		p += strlen(p) + 1;
	}
	if (size == 0)
		argc = 1;
	argv[argc] = NULL;
	err[0] = '\0';
	rc = shb_cli_parse(argc, argv, &cfg, err, sizeof(err));
	FZ_CHECK(rc >= -1 && rc <= 1);
	if (rc == -1)
		FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
	if (rc == 0 && !cfg.list_plugins) {
		FZ_CHECK(cfg.url_text && cfg.url.host && cfg.url.path);
		FZ_CHECK(cfg.proto && cfg.report_count >= 1);
		FZ_CHECK(cfg.connections >= 1 && cfg.parallel >= 1);
		FZ_CHECK(cfg.requests > 0 || cfg.duration_ns > 0);
		/* --body-lines: the bodies are the file's lines (template.h) */
		FZ_CHECK(!cfg.has_body || cfg.body || cfg.body_lines);
	}
	shb_config_free(&cfg);
	return 0;
}
