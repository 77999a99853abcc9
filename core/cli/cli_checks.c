/* The checks across options once the scan is done: --source against -4/-6
 * and the URL, --unix-socket and --priority against the options they
 * exclude, --urls and --mix into the targets, every target's URL, and a
 * user Content-Length or Transfer-Encoding against the body. The order
 * they run in is cli_parse's (cli.c). */
#include "common/quote.h"
#include "cli/cli.h"
#include "cli/cli_checks.h"
#include "cli/parse_num.h"
#include "cli/source.h"
#include "cli/targets.h"

#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* --source's family is the one connections use: it narrows name
 * resolution as -4/-6 do, and must match an IP literal the URL connects
 * to. */
int shb_cli_check_source(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	const struct shb_source *s = cfg->source;
	if (!s)
		return 0;
	const char *fam = s->family == AF_INET ? "IPv4" : "IPv6";
	if (cfg->unix_socket)
		return fail(c, "--source cannot be combined with --unix-socket");
	if (cfg->family && cfg->family != s->family)
		return fail(c, "--source is %s but %s was given", fam,
			    cfg->family == AF_INET ? "-4" : "-6");
	if (cfg->url.host_is_ip && !cfg->connect_to_count &&
	    !cfg->resolve_count && !(cfg->proxy && cfg->proxy[0]) &&
	    (cfg->url.host_is_ipv6 != 0) != (s->family == AF_INET6))
		return fail(c, "--source is %s but the URL's host %s is %s", fam,
			    cfg->url.host, cfg->url.host_is_ipv6 ? "IPv6" : "IPv4");
	cfg->family = s->family;
	return 0;
}

/* --unix-socket replaces where TCP would connect; the Priority header
 * comes from --priority or -H, not both. */
int shb_cli_check_route_opts(struct cli *c)
{
	const struct shb_config *cfg = c->cfg;
	size_t nprio = 0;
	for (size_t i = 0; i < cfg->header_count; i++)
		nprio += strcasecmp(cfg->headers[i].name, "priority") == 0;
	if (cfg->priority && nprio > 1)
		return fail(c, "--priority and -H 'Priority: ...' cannot be "
			       "combined: give one");
	if (!cfg->unix_socket)
		return 0;
	if (cfg->proxy && cfg->proxy[0])
		return fail(c, "--unix-socket and --proxy cannot be combined");
	if (cfg->connect_to_count || cfg->resolve_count || cfg->family)
		return fail(c, "--unix-socket cannot be combined with "
			       "--connect-to, --resolve, -4 or -6: the socket "
			       "path is where every connection goes");
	return 0;
}

/* --urls and --mix (targets.h): the list file's targets, or the weights
 * of the command line's (`URL@WEIGHT`); one mixed run either way. */
int shb_cli_finish_targets(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	uint64_t sum = 0;

	if (cfg->urls_file) {
		if (cfg->target_count)
			return fail(c, "--urls %s gives the targets: no URL on "
				       "the command line as well (\"%s\")",
				    cfg->urls_file,
				    shb_quote(cfg->targets[0].url_text).s);
		if (shb_urls_load(cfg, cfg->urls_file, c->err, c->errlen) < 0)
			return -1;
		cfg->mix = 1;
		c->url = cfg->targets[0].url_text;
	}
	if (!cfg->mix)
		return 0;
	if (cfg->target_count > SHB_TARGETS_MAX)
		return fail(c, "--mix: %zu targets, at most %d", cfg->target_count,
			    SHB_TARGETS_MAX);
	for (size_t i = 0; i < cfg->target_count; i++) {
		struct shb_target_arg *t = &cfg->targets[i];
		size_t n;
		if (!cfg->urls_file) {
			if (shb_target_split_weight(t->url_text, &n, &t->weight,
						    c->err, c->errlen) < 0)
				return -1;
			t->url_text[n] = '\0';
		}
		sum += t->weight;
	}
	if (sum > SHB_WEIGHT_MAX)
		return fail(c, "%s: the weights add up to %llu, at most %u",
			    cfg->urls_file ? "--urls" : "--mix",
			    (unsigned long long)sum, SHB_WEIGHT_MAX);
	return 0;
}

/* Every target's URL is checked before any run, so that a typo in the
 * last one of a comparison costs no traffic. */
int shb_cli_check_targets(struct cli *c)
{
	struct shb_config *cfg = c->cfg;
	for (size_t i = 1; i < cfg->target_count; i++) {
		struct shb_url u;
		memset(&u, 0, sizeof(u));
		int rc = shb_url_parse_any(cfg->targets[i].url_text, &u, c->err,
					   c->errlen);
		shb_url_free(&u);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Every protocol frames the body by its length (h1 sends Content-Length,
 * h2 and h3 a content-length field and END_STREAM): a user Content-Length
 * must state that same length, once, or the server waits for bytes that
 * never come (or reads the next request as body); Transfer-Encoding would
 * announce a chunked body shb never sends. */
int shb_cli_check_framing(struct cli *c)
{
	const struct shb_config *cfg = c->cfg;
	const struct shb_header *cl = NULL;
	uint64_t n = 0;

	for (size_t i = 0; i < cfg->header_count; i++) {
		const struct shb_header *h = &cfg->headers[i];
		if (strcasecmp(h->name, "transfer-encoding") == 0)
			return fail(c, "-H '%s: %s': shb sends the body with "
				       "a length, never chunked; remove this "
				       "header",
				    h->name, shb_quote(h->value).s);
		if (strcasecmp(h->name, "content-length") != 0)
			continue;
		if (cl)
			return fail(c, "-H '%s: %s': Content-Length is given "
				       "more than once; give it once or not "
				       "at all",
				    h->name, shb_quote(h->value).s);
		cl = h;
	}
	if (!cl)
		return 0;
	if (shb_parse_u64(cl->value, &n) < 0)
		return fail(c, "-H '%s: %s': Content-Length must be a "
			       "decimal number of bytes",
			    cl->name, shb_quote(cl->value).s);
	if (n != cfg->body_len)
		return fail(c, "-H '%s: %s' disagrees with the body (%zu "
			       "byte%s)",
			    cl->name, shb_quote(cl->value).s, cfg->body_len,
			    cfg->body_len == 1 ? "" : "s");
	return 0;
}
