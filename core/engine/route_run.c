/* Unix sockets and forward proxies for a run: see route_run.h. */
#include "engine/proxy.h"
#include "engine/route_run.h"
#include "engine/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/un.h>

/* Checked here, at start, so that a typo in the path is one line naming
 * it (exit 2) instead of a run of "connect: No such file or directory".
 * A socket file nobody listens on passes: that is the server's state. */
static int unix_exists(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "--unix-socket %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "--unix-socket %s: not a socket (%s)", path,
			 S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISREG(st.st_mode) ? "a regular file" : "another kind of file");
		return -1;
	}
	return 0;
}

static int unix_route(struct shb_run *run, const struct shb_config *cfg,
		      char *err, size_t errlen)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&run->addrs[0].ss;
	size_t n = strlen(cfg->unix_socket);

	if (run->proto->desc->transport != SHB_TRANSPORT_STREAM) {
		snprintf(err, errlen, "--unix-socket: protocol %s runs over UDP, "
			 "and a Unix socket is a stream: only a protocol over TCP "
			 "can use one", run->proto->desc->name);
		return -1;
	}
	if (unix_exists(cfg->unix_socket, err, errlen) < 0)
		return -1;
	/* The command line checked the length against sun_path. */
	memset(&run->addrs[0], 0, sizeof(run->addrs[0]));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, cfg->unix_socket, n + 1);
	run->addrs[0].len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	run->naddrs = 1;
	return 1;
}

/* Plain http over a protocol that writes absolute-form requests goes to
 * the proxy as it is; everything else through a CONNECT tunnel to the
 * origin (after --connect-to, whose meaning is where the origin is). So
 * does a run with -H Host: a proxy replaces Host with the absolute form's
 * authority (RFC 9112 section 3.2.2), and the absolute form is built from
 * the authority sent (the module knows no other), so only a tunnel takes
 * the URL's host to the origin with the user's Host intact; and one that
 * --connect-to sends elsewhere, which only a CONNECT can name. */
static int proxy_route(struct shb_run *run, const struct shb_config *cfg,
		       const struct shb_proxy *px, char *err, size_t errlen)
{
	const struct shb_proto_desc *d = run->proto->desc;
	const char *host;
	uint16_t port;

	if (d->transport != SHB_TRANSPORT_STREAM) {
		snprintf(err, errlen, "%s: protocol %s runs over UDP, "
			 "which an HTTP proxy does not carry; use --noproxy '*' "
			 "or --proxy \"\" to connect directly", px->source,
			 d->name);
		return -1;
	}
	struct shb_route_spec rs = {
		.host = px->host,
		.port = px->port,
		.family = cfg->family,
		.resolve = cfg->resolve,
		.resolve_count = cfg->resolve_count,
	};
	int n = shb_route_addrs(&rs, run->addrs, err, errlen);
	if (n < 0) {
		char why[256];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: proxy: %s", px->source, why);
		return -1;
	}
	run->naddrs = (uint32_t)n;
	run->sni_hint = run->url->tls && run->url->host_is_ip && !cfg->sni;
	const struct shb_connect_to *ct = shb_route_connect_to(
		cfg->connect_to, cfg->connect_to_count, run->url->host,
		run->url->port, &host, &port);
	if (!run->url->tls && (d->flags & SHB_PROTO_ABSOLUTE_FORM) &&
	    !cfg->host_header && !ct) {
		run->proxy_absolute = 1;
		if (px->auth && !(run->proxy_auth = strdup(px->auth))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		return 1;
	}
	if (shb_proxy_connect_request(px, host, port, &run->connect_req,
				      &run->connect_req_len) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 1;
}

/* The proxies runs used, as reports show them: kept for the process's
 * life, because a comparison's reporters keep every run's facts until
 * they are destroyed, after the runs are released (a few per run: the
 * preflight of a comparison routes too).
 * [main] */
static char **shown;
static size_t nshown;

static int keep_shown(struct shb_run *run, const struct shb_proxy *px)
{
	const char *lb = px->host_is_ip6 ? "[" : "", *rb = px->host_is_ip6 ? "]" : "";
	char **a = realloc(shown, (nshown + 1) * sizeof(*a));
	char *s = NULL;

	if (!a)
		return -1;
	shown = a;
	if (asprintf(&s, "http://%s%s%s:%u", lb, px->host, rb,
		     (unsigned)px->port) < 0)
		return -1;
	shown[nshown++] = s;
	run->proxy_shown = s;
	return 0;
}

int shb_run_route(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	struct shb_proxy px;

	if (cfg->unix_socket)
		return unix_route(run, cfg, err, errlen);
	/* The environment's proxy variables are HTTP's (curl's http_proxy,
	 * https_proxy, all_proxy): a run of another scheme (dns://, line://)
	 * goes through a proxy only when --proxy names one. */
	if (!cfg->proxy && !shb_url_find_scheme(NULL, run->url->scheme))
		return 0;
	int r = shb_proxy_pick(cfg->proxy, cfg->noproxy, run->url->host,
			       run->url->tls, &px, err, errlen);
	if (r <= 0)
		return r;
	r = proxy_route(run, cfg, &px, err, errlen);
	if (r > 0 && keep_shown(run, &px) < 0) {
		snprintf(err, errlen, "out of memory");
		r = -1;
	}
	shb_proxy_free(&px);
	return r;
}

void shb_run_route_free(struct shb_run *run)
{
	free(run->connect_req);
	run->connect_req = NULL;
	free(run->proxy_auth);
	run->proxy_auth = NULL;
}

int shb_run_route_headers(struct shb_run *run)
{
	const struct shb_config *cfg = run->cfg;
	run->headers = cfg->headers;
	run->header_count = cfg->header_count;
	if (!run->proxy_auth)
		return 0;
	for (size_t i = 0; i < cfg->header_count; i++)
		if (strcasecmp(cfg->headers[i].name, "proxy-authorization") == 0)
			return 0; /* the user's own */
	struct shb_header *h = calloc(cfg->header_count + 1, sizeof(*h));
	if (!h)
		return -1;
	run->own_headers = h;
	for (size_t i = 0; i < cfg->header_count; i++)
		h[i] = cfg->headers[i]; /* the config's strings, not copied */
	h += cfg->header_count;
	h->name = strdup("Proxy-Authorization");
	h->value = strdup(run->proxy_auth);
	if (!h->name || !h->value)
		return -1;
	run->headers = run->own_headers;
	run->header_count = cfg->header_count + 1;
	return 0;
}

void shb_run_route_unheaders(struct shb_run *run)
{
	struct shb_header *h = run->own_headers;
	if (!h)
		return;
	free(h[run->cfg->header_count].name);
	free(h[run->cfg->header_count].value);
	free(h);
	run->own_headers = NULL;
	run->headers = NULL;
	run->header_count = 0;
}
