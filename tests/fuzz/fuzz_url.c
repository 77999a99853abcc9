/* The target URL parser (core/cli/url.c), on any string. Input: the URL.
 *
 * Checked besides memory safety: an error has a one-line message; an
 * accepted URL has a scheme of http or https, a host, a path starting
 * with '/', and an authority that names the host. The same string goes
 * through shb_url_parse_any and shb_url_set_scheme with a protocol's own
 * schemes (ABI 1.2 scheme_defs): the same rules, the scheme one of them,
 * and the port the URL's or the scheme's default. */
#include <string.h>

#include "fuzz_input.h"
#include "cli/url.h"

static char text[8192];

static const struct shb_scheme schemes[] = {
	{"ws", 80, 0},
	{"wss", 443, SHB_SCHEME_TLS},
	{"x+y.z-1", 7, 0},
	{NULL, 0, 0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_url(const struct shb_url *u)
{
	FZ_CHECK(u->host && u->authority && u->path);
	FZ_CHECK(u->path[0] == '/');
	FZ_CHECK(strstr(u->authority, u->host) != NULL);
	FZ_CHECK(!u->host_is_ipv6 || u->host_is_ip);
	FZ_CHECK(u->port != 0);
}

static void declared(void)
{
	struct shb_url u;
	char err[256] = "";

	if (shb_url_parse_any(text, &u, err, sizeof(err)) != 0) {
		FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
		return;
	}
	FZ_CHECK(u.authority == NULL && u.host && u.path);
	if (shb_url_set_scheme(&u, text, schemes, "fz", err, sizeof(err)) != 0) {
		FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
		FZ_CHECK(u.authority == NULL);
		shb_url_free(&u);
		return;
	}
	const struct shb_scheme *d = shb_url_find_scheme(schemes, u.scheme);
	FZ_CHECK(d != NULL);
	FZ_CHECK(u.tls == ((d->flags & SHB_SCHEME_TLS) != 0));
	FZ_CHECK(u.port_given || u.port == d->default_port);
	check_url(&u);
	shb_url_free(&u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shb_url u;
	char err[256];

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	declared();
	memset(&u, 0, sizeof(u));
	err[0] = '\0';
	if (shb_url_parse(text, &u, err, sizeof(err)) != 0) {
		FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
		shb_url_free(&u);
		return 0;
	}
	FZ_CHECK(strcmp(u.scheme, u.tls ? "https" : "http") == 0);
	check_url(&u);
	shb_url_free(&u);
	return 0;
}
