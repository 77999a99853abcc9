/* The checks that wait for the protocol: the URL's scheme settled against
 * the protocol's schemes (url.h), and the TLS options (--cert, --key,
 * --ciphers, --tls-version, --cacert, --tls-resume, --sni) against a URL
 * that does not run over TLS. Called by cli.c for http and https, by the
 * protocol pick (loader/) for other schemes and by compare.c for each
 * target of a comparison. */
#include "cli/cli_scheme.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* --cacert verifies whichever targets run over TLS: with several (a mix,
 * a comparison) it is refused only when every one is plain http. */
static int cacert_unused(const struct shb_config *cfg)
{
	for (size_t i = 0; cfg->cacert && i < cfg->target_count; i++)
		if (strncasecmp(cfg->targets[i].url_text, "http://", 7) != 0)
			return 0;
	return cfg->cacert != NULL;
}

int shb_cli_set_scheme(const struct shb_config *cfg, struct shb_url *url,
		       const char *url_text, const struct shb_scheme *schemes,
		       const char *proto, char *err, size_t errlen)
{
	if (shb_url_set_scheme(url, url_text, schemes, proto, err, errlen) < 0)
		return -1;
	if (cfg->key && !cfg->cert) {
		snprintf(err, errlen, "--key %s: give the certificate too "
			 "(--cert FILE)", cfg->key);
		return -1;
	}
	const char *tls_opt = cfg->cert ? "--cert" : cfg->ciphers ? "--ciphers" :
			      cfg->tls_version ? "--tls-version" :
			      cacert_unused(cfg) ? "--cacert" :
			      cfg->tls_resume ? "--tls-resume" : NULL;
	if (tls_opt && !url->tls) {
		snprintf(err, errlen, "%s: the URL is %s://, which does not run "
			 "over TLS%s", tls_opt, url->scheme,
			 strcmp(url->scheme, "http") == 0 ? "; use https://" : "");
		return -1;
	}
	if (cfg->sni && !url->tls) {
		if (strcmp(url->scheme, "http") == 0)
			snprintf(err, errlen,
				 "--sni %s: SNI is sent only over TLS, and the "
				 "URL is http://; use https://", cfg->sni);
		else
			snprintf(err, errlen,
				 "--sni %s: SNI is sent only over TLS, and "
				 "%s:// does not run over TLS", cfg->sni,
				 url->scheme);
		return -1;
	}
	return 0;
}
