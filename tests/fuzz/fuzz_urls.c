/* The --urls file parser (core/cli/targets.c): the input is the file, written
 * as "u" in a scratch directory (fuzz_files.h) that also holds a body
 * file "b" a line may name; shb_urls_load reads it the way the command
 * line does. Every line of it also goes through shb_urls_parse_line on
 * its own, at any length (without NUL bytes, which it does not take).
 *
 * Checked besides memory safety: a refusal has a one-line message naming
 * the file ("u:LINE: ..." or "--urls u..."); an accepted file gives 1 to
 * SHB_TARGETS_MAX targets, each with a URL that parses, a weight of 1 to
 * SHB_WEIGHT_MAX, a method of token characters, its body file's bytes
 * when it names one, and lines in ascending order; the file's targets
 * are those of its lines parsed alone; everything is released
 * (LeakSanitizer). */
#include <string.h>

#include "cli/config.h"
#include "fuzz_files.h"
#include "fuzz_input.h"
#include "cli/targets.h"
#include "cli/url.h"

static const char body[] = "{\"k\": 1}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_files_init(argc, argv);
	fz_files_write("b", body, sizeof(body) - 1);
	return 0;
}

static int is_tchar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static void check_target(const struct shb_target_arg *t)
{
	struct shb_url u;
	char err[256];

	memset(&u, 0, sizeof(u));
	FZ_CHECK(t->url_text != NULL);
	FZ_CHECK(shb_url_parse_any(t->url_text, &u, err, sizeof(err)) == 0);
	shb_url_free(&u);
	FZ_CHECK(t->weight >= 1 && t->weight <= SHB_WEIGHT_MAX);
	for (const char *m = t->method; m && *m; m++)
		FZ_CHECK(is_tchar(*m));
	FZ_CHECK(!t->method || t->method[0]);
	FZ_CHECK(!t->body_file == !t->body);
	if (t->body_file && !strcmp(t->body_file, "b"))
		FZ_CHECK(t->body_len == sizeof(body) - 1 &&
			 !memcmp(t->body, body, t->body_len));
}

/* Each line alone; returns how many are targets (-1: one is refused). */
static int lines_alone(const uint8_t *data, size_t size)
{
	int targets = 0;

	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t n = nl ? (size_t)(nl - data - at) : size - at;
		struct shb_target_arg t;
		char err[512] = "";
		int r = shb_urls_parse_line((const char *)data + at, n, &t, err,
					    sizeof(err));

		at += n + 1;
		FZ_CHECK(r >= -1 && r <= 1);
		if (r < 0) {
			FZ_CHECK(err[0] && !strchr(err, '\n'));
			targets = -1;
			continue;
		}
		if (r == 1) {
			FZ_CHECK(t.url_text && !t.body);
			free(t.label);
			free(t.url_text);
			free(t.method);
			free(t.body_file);
			targets += targets >= 0;
		}
	}
	return targets;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shb_config cfg;
	char err[1024] = "";

	if (size > SHB_URLS_LINE_MAX * 4 || !fz_files_tame(data, size))
		return 0;
	/* a line holds no NUL (the file reader refuses one) */
	int alone = memchr(data, '\0', size) ? -2 : lines_alone(data, size);
	fz_files_write("u", data, size);
	memset(&cfg, 0, sizeof(cfg));
	if (shb_urls_load(&cfg, "u", err, sizeof(err)) != 0) {
		FZ_CHECK(err[0] && !strchr(err, '\n'));
		FZ_CHECK(!strncmp(err, "u:", 2) || !strncmp(err, "--urls u", 8));
	} else {
		FZ_CHECK(cfg.target_count >= 1 &&
			 cfg.target_count <= SHB_TARGETS_MAX);
		/* the file's targets are its lines' that parse alone */
		FZ_CHECK(alone == -2 || alone == (int)cfg.target_count);
		for (size_t i = 0; i < cfg.target_count; i++) {
			check_target(&cfg.targets[i]);
			FZ_CHECK(cfg.targets[i].line >= 1);
			FZ_CHECK(i == 0 || cfg.targets[i].line > cfg.targets[i - 1].line);
		}
	}
	shb_config_free(&cfg);
	return 0;
}
