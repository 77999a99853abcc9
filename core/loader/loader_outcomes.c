/* Request model and outcome names of a protocol descriptor: see
 * loader_outcomes.h. */
#include "loader/loader_outcomes.h"

#include <string.h>

#include "loader/loader_int.h"

/* [a-z0-9_]{1,31}: names go into report keys, CSV columns and --success
 * lists unquoted. */
static int name_ok(const char *s)
{
	size_t n = 0;

	if (!s || !s[0])
		return 0;
	for (; s[n]; n++)
		if (n == SHB_OUTCOME_NAME_MAX ||
		    !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
		      s[n] == '_'))
			return 0;
	return 1;
}

static int codes_check(const struct shb_outcome_space *sp, char *why, size_t n)
{
	const struct shb_outcome_code *c = sp->codes;
	char a[64];

	for (uint32_t i = 0; c && c[i].name; i++) {
		if (i == SHB_LOADER_MAX_CODES) {
			shb_loader_fmt(why, n, "protocol descriptor names more than %u "
			    "codes in outcome space \"%s\"", SHB_LOADER_MAX_CODES,
			    sp->name);
			return -1;
		}
		shb_loader_clean(c[i].name, a, sizeof a);
		if (!name_ok(c[i].name)) {
			shb_loader_fmt(why, n, "protocol descriptor has a bad outcome "
			    "name \"%s\" in space \"%s\" ([a-z0-9_], 1 to %u bytes)",
			    a, sp->name, SHB_OUTCOME_NAME_MAX);
			return -1;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (c[j].code == c[i].code || !strcmp(c[j].name, c[i].name)) {
				shb_loader_fmt(why, n, "protocol descriptor names code %llu "
				    "or \"%s\" twice in outcome space \"%s\"",
				    (unsigned long long)c[i].code, a, sp->name);
				return -1;
			}
		}
	}
	return 0;
}

static int space_check(const struct shb_outcome_space *s, uint32_t i,
		       char *why, size_t n)
{
	char a[64];

	shb_loader_clean(s[i].name, a, sizeof a);
	if (!name_ok(s[i].name)) {
		shb_loader_fmt(why, n, "protocol descriptor has a bad outcome space "
		    "name \"%s\" ([a-z0-9_], 1 to %u bytes)", a, SHB_OUTCOME_NAME_MAX);
		return -1;
	}
	if (s[i].space < SHB_APPSPACE_PRIVATE) {
		shb_loader_fmt(why, n, "protocol descriptor has outcome space \"%s\" "
		    "numbered %u (a plugin's own start at %u)", a,
		    (unsigned)s[i].space, (unsigned)SHB_APPSPACE_PRIVATE);
		return -1;
	}
	for (uint32_t j = 0; j < i; j++) {
		if (s[j].space == s[i].space || !strcmp(s[j].name, s[i].name)) {
			shb_loader_fmt(why, n, "protocol descriptor lists outcome space "
			    "%u or \"%s\" twice", (unsigned)s[i].space, a);
			return -1;
		}
	}
	return codes_check(&s[i], why, n);
}

int shb_loader_desc14_check(const struct shb_proto_desc *d, char *why,
			    size_t n)
{
	const struct shb_outcome_space *s;

	if (SHB_HAS(d, struct shb_proto_desc, request_model) &&
	    d->request_model != SHB_REQMODEL_HTTP &&
	    d->request_model != SHB_REQMODEL_NONE) {
		shb_loader_fmt(why, n, "protocol descriptor has an unknown request "
		    "model (%u)", (unsigned)d->request_model);
		return -1;
	}
	if (!SHB_HAS(d, struct shb_proto_desc, outcome_spaces))
		return 0;
	s = d->outcome_spaces;
	for (uint32_t i = 0; s && s[i].name; i++) {
		if (i == SHB_LOADER_MAX_SPACES) {
			shb_loader_fmt(why, n, "protocol descriptor lists more than %u "
			    "outcome spaces", SHB_LOADER_MAX_SPACES);
			return -1;
		}
		if (space_check(s, i, why, n))
			return -1;
	}
	return 0;
}

size_t shb_loader_space_count(const struct shb_outcome_space *s)
{
	size_t i = 0;

	while (s && s[i].name)
		i++;
	return i;
}
