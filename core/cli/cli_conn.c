/* TLS and connection options: --cacert, --tls-version, --ciphers, --sni,
 * --connect-to, --resolve, --unix-socket, --source and -4/-6. What needs
 * the URL or other options is checked after the scan (cli_checks.c) or
 * once the protocol is known (cli_scheme.c). */
#include "common/quote.h"
#include "cli/cli.h"
#include "cli/cli_conn.h"
#include "cli/source.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The file is read later by GnuTLS; checking now turns a typo into a
 * usage error before any load is sent. */
int shb_cli_cacert_opt(struct cli *c, const char *name, const char *v)
{
	int fd = open(v, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		fd = -1;
		errno = EISDIR;
	}
	if (fd < 0)
		return fail(c, "%s: cannot read %s: %s", name, shb_quote(v).s,
			    strerror(errno));
	close(fd);
	c->cfg->verify = 1;
	return set_string(c, &c->cfg->cacert, v);
}

/* The versions shb speaks: GnuTLS still has 1.0 and 1.1, but servers
 * worth load-testing have dropped them (RFC 8996). */
int shb_cli_tls_version_opt(struct cli *c, const char *name, const char *v)
{
	if (strcmp(v, "1.2") == 0)
		c->cfg->tls_version = 0x0303;
	else if (strcmp(v, "1.3") == 0)
		c->cfg->tls_version = 0x0304;
	else
		return fail(c, "%s %s: give 1.2 or 1.3", name, shb_quote(v).s);
	return 0;
}

/* Checked against GnuTLS at start (shb_tls_priority); here only that
 * there is something to check. */
int shb_cli_ciphers_opt(struct cli *c, const char *name, const char *v)
{
	if (!v[0])
		return fail(c, "%s: empty priority string (e.g. "
			       "NORMAL:-CIPHER-ALL:+AES-256-GCM)", name);
	return set_string(c, &c->cfg->ciphers, v);
}

/* SNI carries a DNS name only (RFC 6066 3): an address is refused. */
int shb_cli_sni_opt(struct cli *c, const char *name, const char *v)
{
	unsigned char a[16];
	size_t n = strlen(v);

	if (n == 0)
		return fail(c, "%s: empty name", name);
	if (n > 253)
		return fail(c, "%s: a name is at most 253 characters, got %zu",
			    name, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
		      ch == '_'))
			return fail(c, "%s \"%s\": a host name holds only "
				       "letters, digits, '-', '.' and '_'",
				    name, shb_quote(v).s);
	}
	if (inet_pton(AF_INET, v, a) == 1)
		return fail(c, "%s %s: SNI holds a host name, never an "
			       "address (RFC 6066)", name, v);
	return set_string(c, &c->cfg->sni, v);
}

int shb_cli_connect_to_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_connect_to ct;

	if (shb_connect_to_parse(name, v, &ct, c->err, c->errlen) < 0)
		return -1;
	struct shb_connect_to *a = realloc(cfg->connect_to,
					   (cfg->connect_to_count + 1) * sizeof(*a));
	if (!a) {
		shb_connect_to_free(&ct);
		return fail(c, "out of memory");
	}
	cfg->connect_to = a;
	a[cfg->connect_to_count++] = ct;
	return 0;
}

int shb_cli_resolve_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_resolve r;

	if (shb_resolve_parse(name, v, &r, c->err, c->errlen) < 0)
		return -1;
	struct shb_resolve *a = realloc(cfg->resolve,
					(cfg->resolve_count + 1) * sizeof(*a));
	if (!a) {
		shb_resolve_free(&r);
		return fail(c, "out of memory");
	}
	cfg->resolve = a;
	a[cfg->resolve_count++] = r;
	return 0;
}

/* A socket path fits sun_path with its NUL (108 bytes on Linux). */
int shb_cli_unix_socket_opt(struct cli *c, const char *name, const char *v)
{
	struct sockaddr_un sun;
	if (!*v)
		return fail(c, "%s: empty path", name);
	if (strlen(v) >= sizeof(sun.sun_path))
		return fail(c, "%s: a socket path is at most %zu bytes, got %zu",
			    name, sizeof(sun.sun_path) - 1, strlen(v));
	return set_string(c, &c->cfg->unix_socket, v);
}

/* --source: parsed and each address checked to be this machine's before
 * any traffic (source.h). */
int shb_cli_source_opt(struct cli *c, const char *name, const char *v)
{
	if (c->cfg->source)
		return fail(c, "%s given twice: list the addresses in one "
			       "(ADDR-ADDR or ADDR,ADDR)", name);
	c->cfg->source = shb_source_parse(v, c->err, c->errlen);
	if (!c->cfg->source ||
	    shb_source_check_local(c->cfg->source, 1, c->err, c->errlen) < 0)
		return -1;
	return 0;
}

int shb_cli_family_opt(struct cli *c, int family)
{
	if (c->cfg->family && c->cfg->family != family)
		return fail(c, "-4/--ipv4 and -6/--ipv6 cannot be combined");
	c->cfg->family = family;
	return 0;
}
