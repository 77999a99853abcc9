/* Temp files and command-line runs for the tests, and the suite table of
 * this executable. */
#include "test_util.h"
#include "cli/config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

CU_SuiteInfo shb_test_suites[] = {
	{"url", NULL, NULL, NULL, NULL, shb_url_tests},
	{"duration", NULL, NULL, NULL, NULL, shb_duration_tests},
	{"cli", NULL, NULL, NULL, NULL, shb_cli_tests},
	{"cli body", NULL, NULL, NULL, NULL, shb_cli_body_tests},
	{"cli values", NULL, NULL, NULL, NULL, shb_cli_value_tests},
	{"cli targets", NULL, NULL, NULL, NULL, shb_cli_target_tests},
	{"route", NULL, NULL, NULL, NULL, shb_route_tests},
	{"plugin options", NULL, NULL, NULL, NULL, shb_plugin_opt_tests},
	{"cli hints", NULL, NULL, NULL, NULL, shb_cli_hint_tests},
	CU_SUITE_INFO_NULL,
};

int shb_test_parse(struct shb_config *cfg, char *err, size_t errlen,
		   const char *const *args)
{
	char *argv[64];
	int argc = 0;

	argv[argc++] = strdup("shb");
	for (; *args && argc < 63; args++)
		argv[argc++] = strdup(*args);
	argv[argc] = NULL;
	err[0] = '\0';
	int rc = shb_cli_parse(argc, argv, cfg, err, errlen);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

void shb_test_expect_error(const char *want, const char *const *args)
{
	struct shb_config cfg;
	char err[512];

	int rc = shb_test_parse(&cfg, err, sizeof(err), args);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (rc != -1 || strcmp(err, want) != 0)
		fprintf(stderr, "\n  rc %d\n  got: %s\n want: %s\n", rc, err,
			want);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	shb_config_free(&cfg);
}

char *shb_test_mkdir(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl;

	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&tmpl, "%s/shb-url-cli-XXXXXX", base) < 0)
		return NULL;
	if (!mkdtemp(tmpl)) {
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

void shb_test_rmdir(char *dir)
{
	DIR *d;
	struct dirent *e;

	if (!dir)
		return;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char *p;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0) {
			unlink(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

char *shb_test_write(const char *dir, const char *name, const void *data,
		     size_t n)
{
	char *p;
	FILE *f;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	f = fopen(p, "wb");
	if (!f || fwrite(data, 1, n, f) != n) {
		if (f)
			fclose(f);
		free(p);
		return NULL;
	}
	fclose(f);
	return p;
}
