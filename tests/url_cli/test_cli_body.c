/* Command-line parsing of headers and bodies: -H, the Content-Type,
 * bodies from files and stdin, their caps, special files, and framing
 * headers a user may not set. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "cli/cli_scheme.h"
#include "cli/compare.h"
#include "cli/config.h"
#include "common/quote.h"
#include "test_util.h"

#define URL "http://example.com/x"
#define TLS_URL "https://example.com/x" /* --cacert needs TLS */

static void test_headers(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "X-Empty:", "-H",
				    "A:\tb c\t ", "-H", "a: 2", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].name, "X-Empty");
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].value, "");
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].name, "A");
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].value, "b c");
	CU_ASSERT_STRING_EQUAL(cfg.headers[2].name, "a");
	CU_ASSERT_STRING_EQUAL(cfg.headers[2].value, "2");
	CU_ASSERT_PTR_NULL(cfg.host_header);
	shb_config_free(&cfg);

	/* Host goes aside, whatever its case; the last one wins. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "HOST:  a.example  ",
				    "-H", "X: y", "-H", "host: b.example:81",
				    URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].name, "X");
	CU_ASSERT_STRING_EQUAL(cfg.host_header, "b.example:81");
	CU_ASSERT_STRING_EQUAL(cfg.url.authority, "example.com");
	shb_config_free(&cfg);

	/* "Hosts" is not Host. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "Hosts: x", URL), 0);
	CU_ASSERT_EQUAL(cfg.header_count, 1);
	CU_ASSERT_PTR_NULL(cfg.host_header);
	shb_config_free(&cfg);
}

static void test_content_type(void)
{
	struct shb_config cfg;
	char err[256];

	/* Added after the user's headers when a body has none. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "X: 1", "-d", "a=1", URL),
			      0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "POST");
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].name, "Content-Type");
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].value,
			       "application/x-www-form-urlencoded");
	shb_config_free(&cfg);

	/* Not when given, in any case and in any position. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", "{}", "-H",
				    "content-TYPE: application/json", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].value, "application/json");
	shb_config_free(&cfg);

	/* Not without a body. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-m", "POST", URL), 0);
	CU_ASSERT_EQUAL(cfg.header_count, 0);
	CU_ASSERT_EQUAL(cfg.has_body, 0);
	shb_config_free(&cfg);

	/* An empty body is still a body. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "", URL), 0);
	CU_ASSERT_EQUAL(cfg.has_body, 1);
	CU_ASSERT_EQUAL(cfg.body_len, 0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "POST");
	CU_ASSERT_EQUAL(cfg.header_count, 1);
	shb_config_free(&cfg);
}

static void test_body_sources(void)
{
	static const char crlf[] = "a=1\r\nb=2\n\rc=3\n";
	struct shb_config cfg;
	char err[256];
	uint8_t bin[300];
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);

	char *text = shb_test_write(dir, "text.txt", crlf, sizeof(crlf) - 1);
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (uint8_t)(i * 7);
	char *binf = shb_test_write(dir, "bin", bin, sizeof(bin));
	char *empty = shb_test_write(dir, "empty", "", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(binf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
	char *at_text = NULL, *at_bin = NULL, *at_empty = NULL;
	CU_ASSERT_FATAL(asprintf(&at_text, "@%s", text) > 0);
	CU_ASSERT_FATAL(asprintf(&at_bin, "@%s", binf) > 0);
	CU_ASSERT_FATAL(asprintf(&at_empty, "@%s", empty) > 0);

	/* -d strips CR and LF from a file... */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", at_text, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, 9);
	CU_ASSERT_EQUAL(memcmp(cfg.body, "a=1b=2c=3", 9), 0);
	shb_config_free(&cfg);

	/* ...--data-binary keeps every byte... */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at_text, URL),
			      0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, sizeof(crlf) - 1);
	CU_ASSERT_EQUAL(memcmp(cfg.body, crlf, sizeof(crlf) - 1), 0);
	shb_config_free(&cfg);

	/* ...and a literal is never stripped. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data", "x\r\ny", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, 4);
	CU_ASSERT_EQUAL(memcmp(cfg.body, "x\r\ny", 4), 0);
	shb_config_free(&cfg);

	/* Binary bytes, NULs included, survive --data-binary exactly. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at_bin, URL),
			      0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, sizeof(bin));
	CU_ASSERT_EQUAL(memcmp(cfg.body, bin, sizeof(bin)), 0);
	shb_config_free(&cfg);

	/* -d on the same bytes drops only the 13s and 10s. */
	uint8_t want[300];
	size_t wn = 0;
	for (size_t i = 0; i < sizeof(bin); i++)
		if (bin[i] != '\r' && bin[i] != '\n')
			want[wn++] = bin[i];
	CU_ASSERT(wn < sizeof(bin));
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", at_bin, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, wn);
	CU_ASSERT_EQUAL(memcmp(cfg.body, want, wn), 0);
	shb_config_free(&cfg);

	/* Several parts are joined with '&', as curl does. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "a=1", "--data-binary",
				    at_empty, "-d", at_text, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, 14);
	CU_ASSERT_EQUAL(memcmp(cfg.body, "a=1&&a=1b=2c=3", 14), 0);
	shb_config_free(&cfg);

	free(at_text);
	free(at_bin);
	free(at_empty);
	free(text);
	free(binf);
	free(empty);
	shb_test_rmdir(dir);
}

/* A file far larger than any read buffer is read in full. */
static void test_body_large_file(void)
{
	struct shb_config cfg;
	char err[256];
	size_t n = 3 * 1024 * 1024 + 17;
	uint8_t *big = malloc(n);
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);

	for (size_t i = 0; i < n; i++)
		big[i] = (uint8_t)(i % 251);
	char *f = shb_test_write(dir, "big", big, n);
	char *at = NULL;
	CU_ASSERT_FATAL(f && asprintf(&at, "@%s", f) > 0);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, n);
	CU_ASSERT_EQUAL(memcmp(cfg.body, big, n), 0);
	shb_config_free(&cfg);
	free(at);
	free(f);
	free(big);
	shb_test_rmdir(dir);
}

/* @- reads standard input to its end. */
static void test_body_stdin(void)
{
	static const char data[] = "k=v\r\n\0z";
	struct shb_config cfg;
	char err[256];
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *f = shb_test_write(dir, "in", data, sizeof(data) - 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);

	int saved = dup(STDIN_FILENO);
	int fd = open(f, O_RDONLY);
	CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
	CU_ASSERT_FATAL(dup2(fd, STDIN_FILENO) == STDIN_FILENO);
	int rc = PARSE(&cfg, err, "-d", "@-", URL);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.body_len, 5);
	if (cfg.body_len == 5)
		CU_ASSERT_EQUAL(memcmp(cfg.body, "k=v\0z", 5), 0);
	shb_config_free(&cfg);

	CU_ASSERT_FATAL(lseek(STDIN_FILENO, 0, SEEK_SET) == 0);
	rc = PARSE(&cfg, err, "--data-binary", "@-", URL);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.body_len, sizeof(data) - 1);
	if (cfg.body_len == sizeof(data) - 1)
		CU_ASSERT_EQUAL(memcmp(cfg.body, data, sizeof(data) - 1), 0);
	shb_config_free(&cfg);

	dup2(saved, STDIN_FILENO);
	close(saved);
	close(fd);
	free(f);
	shb_test_rmdir(dir);
}

/* A sparse file of n bytes (zeros), cheap whatever n is. */
static char *sparse_file(const char *dir, const char *name, off_t n)
{
	char *p = shb_test_write(dir, name, "", 0);

	if (p && truncate(p, n) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* A child that writes n bytes into fd (then exits); its pid. */
static pid_t writer(int fd, size_t n)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	static char chunk[65536];
	memset(chunk, 'w', sizeof(chunk));
	while (n > 0) {
		size_t k = n < sizeof(chunk) ? n : sizeof(chunk);
		ssize_t w = write(fd, chunk, k);
		if (w <= 0)
			_exit(1);
		n -= (size_t)w;
	}
	_exit(0);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Bodies stop at SHB_MAX_BODY, whatever the source: a file up to the cap
 * is read in full, one byte more is refused, and so are parts that only
 * together pass it. */
static void test_body_cap(void)
{
	struct shb_config cfg;
	char err[512], *want = NULL, *at_max = NULL, *at_over = NULL;
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *max = sparse_file(dir, "max", (off_t)SHB_MAX_BODY);
	char *over = sparse_file(dir, "over", (off_t)SHB_MAX_BODY + 1);
	CU_ASSERT_FATAL(max && over);
	CU_ASSERT_FATAL(asprintf(&at_max, "@%s", max) > 0);
	CU_ASSERT_FATAL(asprintf(&at_over, "@%s", over) > 0);

	CU_ASSERT_EQUAL(SHB_MAX_BODY, 64u << 20);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at_max, URL),
			      0);
	CU_ASSERT_EQUAL(cfg.body_len, SHB_MAX_BODY);
	shb_config_free(&cfg);

	CU_ASSERT_FATAL(asprintf(&want, "--data-binary: body from %s exceeds "
				 "64 MiB", over) > 0);
	EXPECT_ERROR(want, "--data-binary", at_over, URL);
	free(want);
	CU_ASSERT_FATAL(asprintf(&want, "-d: body from %s exceeds 64 MiB "
				 "(with the parts before it)", max) > 0);
	EXPECT_ERROR(want, "-d", "a", "-d", at_max, URL);
	free(want);
	EXPECT_ERROR("-d: the body exceeds 64 MiB", "--data-binary", at_max,
		     "-d", "", URL);

	free(at_max);
	free(at_over);
	free(max);
	free(over);
	shb_test_rmdir(dir);
}

/* @- from a pipe that holds more than the cap stops at the cap. */
static void test_body_cap_stdin(void)
{
	int p[2];
	int saved = dup(STDIN_FILENO);
	CU_ASSERT_FATAL(saved >= 0 && pipe(p) == 0);
	pid_t pid = writer(p[1], SHB_MAX_BODY + 65536);
	CU_ASSERT_FATAL(pid > 0);
	close(p[1]);
	CU_ASSERT_FATAL(dup2(p[0], STDIN_FILENO) == STDIN_FILENO);
	EXPECT_ERROR("--data-binary: body from stdin exceeds 64 MiB",
		     "--data-binary", "@-", URL);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(p[0]);
	reap(pid);
}

/* Devices that never end are refused by name before a byte is read;
 * /dev/null is an empty body and a FIFO is read to its end. */
static void test_body_special_files(void)
{
	struct shb_config cfg;
	char err[512], *fifo = NULL, *at_fifo = NULL;
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);

	EXPECT_ERROR("-d: cannot read @/dev/zero: a character device, not a "
		     "file (use a regular file, a pipe or @-)", "-d",
		     "@/dev/zero", URL);
	EXPECT_ERROR("--data-binary: cannot read @/dev/urandom: a character "
		     "device, not a file (use a regular file, a pipe or @-)",
		     "--data-binary", "@/dev/urandom", URL);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "@/dev/null", URL), 0);
	CU_ASSERT_EQUAL(cfg.has_body, 1);
	CU_ASSERT_EQUAL(cfg.body_len, 0);
	shb_config_free(&cfg);

	CU_ASSERT_FATAL(asprintf(&fifo, "%s/fifo", dir) > 0);
	CU_ASSERT_FATAL(asprintf(&at_fifo, "@%s", fifo) > 0);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fd = open(fifo, O_WRONLY);
		_exit(fd >= 0 && write(fd, "abc", 3) == 3 ? 0 : 1);
	}
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "--data-binary", at_fifo, URL), 0);
	CU_ASSERT_EQUAL(cfg.body_len, 3);
	if (cfg.body_len == 3)
		CU_ASSERT_EQUAL(memcmp(cfg.body, "abc", 3), 0);
	shb_config_free(&cfg);
	reap(pid);

	free(fifo);
	free(at_fifo);
	shb_test_rmdir(dir);
}

/* A user Content-Length must state the body's length, once; a
 * Transfer-Encoding is never accepted. */
static void test_framing_headers(void)
{
	struct shb_config cfg;
	char err[512];

	EXPECT_ERROR("-H 'Content-Length: 5' disagrees with the body (0 "
		     "bytes)", "-H", "Content-Length: 5", URL);
	EXPECT_ERROR("-H 'content-length: 4' disagrees with the body (1 "
		     "byte)", "-d", "x", "-H", "content-length: 4", URL);
	EXPECT_ERROR("-H 'Content-Length: 0' disagrees with the body (5 "
		     "bytes)", "-H", "Content-Length: 0", "-d", "hello", URL);
	EXPECT_ERROR("-H 'Content-Length: 5, 5': Content-Length must be a "
		     "decimal number of bytes", "-H", "Content-Length: 5, 5",
		     "-d", "hello", URL);
	EXPECT_ERROR("-H 'Content-Length: -5': Content-Length must be a "
		     "decimal number of bytes", "-H", "Content-Length: -5",
		     URL);
	EXPECT_ERROR("-H 'Content-Length: ': Content-Length must be a "
		     "decimal number of bytes", "-H", "Content-Length:", URL);
	EXPECT_ERROR("-H 'CONTENT-LENGTH: 5': Content-Length is given more "
		     "than once; give it once or not at all", "-d", "hello",
		     "-H", "Content-Length: 5", "-H", "CONTENT-LENGTH: 5", URL);
	EXPECT_ERROR("-H 'Transfer-Encoding: chunked': shb sends the body "
		     "with a length, never chunked; remove this header", "-d",
		     "hello", "-H", "Transfer-Encoding: chunked", URL);
	EXPECT_ERROR("-H 'transfer-encoding: gzip': shb sends the body with "
		     "a length, never chunked; remove this header", "-H",
		     "transfer-encoding: gzip", URL);

	/* Agreeing lengths pass (the protocol sends one Content-Length). */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "Content-Length:  05 ",
				    "--data-binary", "hello", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].value, "05");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-m", "POST", "-H",
				    "Content-Length: 0", URL), 0);
	CU_ASSERT_EQUAL(cfg.has_body, 0);
	CU_ASSERT_EQUAL(cfg.header_count, 1);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "", "-H",
				    "Content-Length: 0", URL), 0);
	shb_config_free(&cfg);
	/* TE (accepted codings of the response) is not Transfer-Encoding. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "TE: trailers", URL), 0);
	shb_config_free(&cfg);
}

CU_TestInfo shb_cli_body_tests[] = {
	{"headers and Host", test_headers},
	{"Content-Type only when absent", test_content_type},
	{"body from files", test_body_sources},
	{"body from a large file", test_body_large_file},
	{"body from stdin", test_body_stdin},
	{"body cap", test_body_cap},
	{"body cap on stdin", test_body_cap_stdin},
	{"body from devices and FIFOs", test_body_special_files},
	{"Content-Length and Transfer-Encoding", test_framing_headers},
	CU_TEST_INFO_NULL,
};
