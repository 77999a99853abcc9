/* The target URL parser (core/url.c), on any string. Input: the URL.
 *
 * Checked besides memory safety: an error has a one-line message; an
 * accepted URL has a scheme of http or https, a host, a path starting
 * with '/', and an authority that names the host. */
#include <string.h>

#include "fuzz_input.h"
#include "url.h"

static char text[8192];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shb_url u;
	char err[256];

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&u, 0, sizeof(u));
	err[0] = '\0';
	if (shb_url_parse(text, &u, err, sizeof(err)) != 0) {
		FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
		shb_url_free(&u);
		return 0;
	}
	FZ_CHECK(strcmp(u.scheme, u.tls ? "https" : "http") == 0);
	FZ_CHECK(u.host && u.authority && u.path);
	FZ_CHECK(u.path[0] == '/');
	FZ_CHECK(strstr(u.authority, u.host) != NULL);
	FZ_CHECK(!u.host_is_ipv6 || u.host_is_ip);
	shb_url_free(&u);
	return 0;
}
