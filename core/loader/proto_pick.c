/* Choosing the run's protocol (see proto_pick.h). */
#include "loader/proto_pick.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_scheme.h"
#include "cli/plugin_opts.h"
#include "common/quote.h"

#define PROTO_PREFIX "shb-proto-"

const struct shb_scheme *shb_proto_scheme_defs(const struct shb_proto_desc *d)
{
	return SHB_HAS(d, struct shb_proto_desc, scheme_defs) ? d->scheme_defs
							       : NULL;
}

void shb_proto_dgram_limits(const struct shb_proto_desc *d, int gso,
			    uint32_t *max_dgram, uint32_t *train)
{
	uint32_t m = 0, t = 0;

	if (SHB_HAS(d, struct shb_proto_desc, max_dgram))
		m = d->max_dgram;
	if (SHB_HAS(d, struct shb_proto_desc, max_train))
		t = d->max_train;
	if (m == 0 || m > SHB_DGRAM_LIMIT)
		m = SHB_DGRAM_DEFAULT;
	if (t == 0 || t > SHB_TRAIN_DEFAULT)
		t = SHB_TRAIN_DEFAULT;
	if (t > SHB_TRAIN_BYTES_MAX / m)
		t = SHB_TRAIN_BYTES_MAX / m;
	if (t == 0 || !gso)
		t = 1;
	*max_dgram = m;
	*train = t;
}

/* A 1.1 descriptor serves http and https, as far as its `schemes` list
 * says. */
static int listed(const struct shb_proto_desc *d, const char *scheme)
{
	for (const char *const *s = d->schemes; s && *s; s++)
		if (strcmp(*s, scheme) == 0)
			return 1;
	return 0;
}

int shb_proto_settle(const struct shb_config *cfg, struct shb_url *url,
		     const char *url_text, const struct shb_proto_desc *d,
		     char *err, size_t errlen)
{
	const struct shb_scheme *schemes = shb_proto_scheme_defs(d);

	if (shb_cli_set_scheme(cfg, url, url_text, schemes, d->name, err,
			       errlen) < 0)
		return -1;
	if (!schemes && !listed(d, url->scheme))
		return shb_errf(err, errlen,
			    "protocol %s does not support %s:// URLs", d->name,
			    url->scheme);
	return shb_plugin_opts_check("--proto-opt", "protocol", d->name,
				     shb_proto_option_defs(d), cfg->proto_opts,
				     cfg->proto_opt_count, err, errlen);
}

static int serves(const struct shb_proto_desc *d, const char *scheme)
{
	const struct shb_scheme *schemes = shb_proto_scheme_defs(d);

	return schemes && shb_url_find_scheme(schemes, scheme);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Tries dir's shb-proto-*.so in name order. Returns 1 with *out set when
 * one serves `scheme`, 0 when none does (*refused counts the files the
 * loader refused), -1 when out of memory. */
static int scan_dir(struct shb_loader *l, const char *dir, const char *scheme,
		    struct shb_proto_handle *out, unsigned *refused)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t count = 0;
	int found = 0, rc = 0;

	if (!dp)
		return 0;
	while ((de = readdir(dp))) {
		size_t len = strlen(de->d_name);
		if (strncmp(de->d_name, PROTO_PREFIX, strlen(PROTO_PREFIX)) ||
		    len < 4 || strcmp(de->d_name + len - 3, ".so"))
			continue;
		char **nv = realloc(names, (count + 1) * sizeof(*nv));
		if (!nv || !(nv[count] = strdup(de->d_name))) {
			names = nv ? nv : names;
			rc = -1;
			break;
		}
		names = nv;
		count++;
	}
	closedir(dp);
	if (count)
		qsort(names, count, sizeof(*names), cmp_names);
	for (size_t i = 0; i < count && !found && rc == 0; i++) {
		char *path, why[512];
		struct shb_proto_handle h;
		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			rc = -1;
			break;
		}
		if (shb_loader_proto(l, path, &h, why, sizeof(why)) < 0)
			(*refused)++;
		else if (serves(h.desc, scheme)) {
			*out = h;
			found = 1;
		}
		free(path);
	}
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return rc < 0 ? -1 : found;
}

static int pick_by_scheme(struct shb_loader *l, const char *scheme,
			  struct shb_proto_handle *out, char *err,
			  size_t errlen)
{
	unsigned refused = 0;
	char more[96] = "";

	for (size_t i = 0; i < l->dir_count; i++) {
		int r = scan_dir(l, l->dirs[i], scheme, out, &refused);
		if (r < 0)
			return shb_errf(err, errlen, "out of memory");
		if (r > 0)
			return 0;
	}
	if (refused)
		snprintf(more, sizeof(more),
			 "; %u plugin file%s refused (see --list-plugins)",
			 refused, refused == 1 ? " was" : "s were");
	return shb_errf(err, errlen,
		    "no protocol plugin in the search path serves %s:// "
		    "URLs (give --proto NAME or PATH)%s", scheme, more);
}

int shb_proto_pick(struct shb_loader *l, const struct shb_config *cfg,
		   struct shb_url *url, const char *url_text,
		   struct shb_proto_handle *out, char *err, size_t errlen)
{
	if (cfg->proto_given || shb_url_find_scheme(NULL, url->scheme)) {
		if (shb_loader_proto(l, cfg->proto, out, err, errlen) < 0)
			return -1;
	} else if (pick_by_scheme(l, url->scheme, out, err, errlen) < 0) {
		return -1;
	}
	return shb_proto_settle(cfg, url, url_text, out->desc, err, errlen);
}
