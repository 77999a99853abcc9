/* Comparison targets: `[label=]URL` and switching the configuration from
 * one target to the next (compare.h). */
#include "cli/compare.h"
#include "cli/cli_scheme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/quote.h"

static int label_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
}

int shb_target_split(const char *arg, const char **label, size_t *label_len,
		     const char **url, char *err, size_t errlen)
{
	size_t eq = strcspn(arg, "=:/?#[");

	*label = NULL;
	*label_len = 0;
	*url = arg;
	if (arg[eq] != '=')
		return 0;
	if (eq == 0) {
		snprintf(err, errlen, "\"%s\": the label before '=' is empty "
			 "(give label=URL, or the URL alone)", shb_quote(arg).s);
		return -1;
	}
	if (eq > SHB_LABEL_MAX) {
		snprintf(err, errlen, "\"%s\": a label is at most %d characters",
			 shb_quote(arg).s, SHB_LABEL_MAX);
		return -1;
	}
	for (size_t i = 0; i < eq; i++)
		if (!label_char(arg[i])) {
			snprintf(err, errlen, "\"%s\": a label may hold only "
				 "letters, digits, '.', '_' and '-'",
				 shb_quote(arg).s);
			return -1;
		}
	if (!arg[eq + 1]) {
		snprintf(err, errlen, "\"%s\": no URL after the label",
			 shb_quote(arg).s);
		return -1;
	}
	*label = arg;
	*label_len = eq;
	*url = arg + eq + 1;
	return 0;
}

int shb_compare_select(const struct shb_config *cfg, size_t k, char **text,
		       struct shb_url *url, char *err, size_t errlen)
{
	const struct shb_target_arg *t = &cfg->targets[k];

	memset(url, 0, sizeof(*url));
	*text = strdup(t->url_text);
	if (!*text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* http and https are settled now, as in shb_cli_parse; other
	 * schemes wait for the protocol. */
	if (shb_url_parse_any(*text, url, err, errlen) == 0 &&
	    (!shb_url_find_scheme(NULL, url->scheme) ||
	     shb_cli_set_scheme(cfg, url, *text, NULL, NULL, err, errlen) == 0))
		return 0;
	shb_url_free(url);
	memset(url, 0, sizeof(*url));
	free(*text);
	*text = NULL;
	return -1;
}
