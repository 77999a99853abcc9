/* --success's outcome names (success.h): resolved against the protocol's
 * outcome spaces once the protocol is known, before any traffic. */
#include "cli/success.h"

#include <stdio.h>
#include <string.h>

#include "common/quote.h"

/* How many spaces name a code `name` (n bytes). */
static unsigned spaces_naming(const struct shb_outcome_space *spaces,
			      const char *name, size_t n,
			      const struct shb_outcome_space **sp_out,
			      const struct shb_outcome_code **c_out)
{
	unsigned found = 0;

	for (const struct shb_outcome_space *sp = spaces; sp && sp->name; sp++)
		for (const struct shb_outcome_code *c = sp->codes; c && c->name; c++)
			if (strlen(c->name) == n && memcmp(c->name, name, n) == 0) {
				if (!found++) {
					*sp_out = sp;
					*c_out = c;
				}
			}
	return found;
}

/* Every name the protocol has, as --success takes it: "ok, err", or
 * "redis.ok" where two spaces share a name; cut with "..." to fit. */
/* The names of the spaces' codes (only the successes with ok_only),
 * space-qualified where two spaces share one, separated by sep. */
static void names_of(const struct shb_outcome_space *spaces, int ok_only,
		     const char *sep, char *out, size_t outlen)
{
	size_t len = 0;

	out[0] = '\0';
	for (const struct shb_outcome_space *sp = spaces; sp && sp->name; sp++)
		for (const struct shb_outcome_code *c = sp->codes; c && c->name; c++) {
			const struct shb_outcome_space *s1;
			const struct shb_outcome_code *c1;
			if (ok_only && !c->ok)
				continue;
			int shared = spaces_naming(spaces, c->name, strlen(c->name),
						   &s1, &c1) > 1;
			int w = snprintf(out + len, outlen - len, "%s%s%s%s",
					 len ? sep : "", shared ? sp->name : "",
					 shared ? "." : "", c->name);
			if (w < 0 || (size_t)w >= outlen - len) {
				snprintf(out + (outlen > 4 ? outlen - 4 : 0),
					 outlen > 4 ? 4 : outlen, "...");
				return;
			}
			len += (size_t)w;
		}
}

/* The code named `name` in the space named `space` (both n bytes). */
static void list_names(const struct shb_outcome_space *spaces, char *out,
		       size_t outlen)
{
	names_of(spaces, 0, ", ", out, outlen);
}

static const struct shb_outcome_code *
in_space(const struct shb_outcome_space *spaces, const char *space, size_t sn,
	 const char *name, size_t n, const struct shb_outcome_space **sp_out)
{
	for (const struct shb_outcome_space *sp = spaces; sp && sp->name; sp++) {
		if (strlen(sp->name) != sn || memcmp(sp->name, space, sn))
			continue;
		for (const struct shb_outcome_code *c = sp->codes; c && c->name; c++)
			if (strlen(c->name) == n && memcmp(c->name, name, n) == 0) {
				*sp_out = sp;
				return c;
			}
	}
	return NULL;
}

/* One item p[0..n) that is a name: appended to s->outcome, or -1. */
static int resolve_one(struct shb_success *s,
		       const struct shb_outcome_space *spaces, const char *p,
		       size_t n, const char *proto, char *err, size_t errlen)
{
	const struct shb_outcome_space *sp = NULL;
	const struct shb_outcome_code *c = NULL;
	const char *dot = memchr(p, '.', n);
	char names[300];
	unsigned found;

	if (dot) {
		size_t sn = (size_t)(dot - p);
		c = in_space(spaces, p, sn, dot + 1, n - sn - 1, &sp);
		found = c != NULL;
	} else {
		found = spaces_naming(spaces, p, n, &sp, &c);
	}
	if (found > 1)
		return shb_errf(err, errlen, "--success: \"%s\" names an outcome "
				"in more than one space of protocol \"%s\": write "
				"SPACE.%s (%s.%s, ...)", shb_quote_n(p, n).s,
				proto, shb_quote_n(p, n).s, sp->name, c->name);
	if (!found) {
		if (!spaces || !spaces->name)
			return shb_errf(err, errlen, "--success: \"%s\" is not a "
					"status (304, 200-299, 2xx), and protocol "
					"\"%s\" names no outcomes",
					shb_quote_n(p, n).s, proto);
		list_names(spaces, names, sizeof(names));
		return shb_errf(err, errlen, "--success: \"%s\" is not an outcome "
				"of protocol \"%s\" (its outcomes: %s)",
				shb_quote_n(p, n).s, proto, names);
	}
	for (size_t i = 0; i < s->outcome_count; i++)
		if (s->outcome[i].space == sp->space && s->outcome[i].code == c->code)
			return 0; /* named twice: once is enough */
	s->outcome[s->outcome_count].space = sp->space;
	s->outcome[s->outcome_count].reserved0 = 0;
	s->outcome[s->outcome_count].code = c->code;
	s->outcome_count++;
	return 0;
}

int shb_success_resolve(struct shb_success *s,
			const struct shb_outcome_space *spaces, int http,
			const char *proto, char *err, size_t errlen)
{
	char names[300];

	s->outcome_count = 0;
	if (!s->given && !http) {
		/* Without --success a protocol's own outcomes judge (app_ok):
		 * reports name that set, not the HTTP default. */
		names_of(spaces, 1, ",", s->text, sizeof(s->text));
		s->own = 1;
		return 0;
	}
	if (!s->given || s->any || (!s->names && http))
		return 0;
	for (const char *p = s->text;;) {
		size_t n = strcspn(p, ",");
		int name = (*p >= 'a' && *p <= 'z');
		if (!name && !http) {
			list_names(spaces, names, sizeof(names));
			return shb_errf(err, errlen, "--success: \"%s\" is an HTTP "
					"status; protocol \"%s\" takes no HTTP "
					"request (its outcomes: %s)",
					shb_quote_n(p, n).s, proto,
					names[0] ? names : "none");
		}
		if (name && s->outcome_count < SHB_SUCCESS_NAMES_MAX &&
		    resolve_one(s, spaces, p, n, proto, err, errlen) < 0)
			return -1;
		if (!p[n])
			break;
		p += n + 1;
	}
	return 0;
}

int shb_success_named(const struct shb_success *s, uint32_t space,
		      uint64_t code)
{
	for (size_t i = 0; i < s->outcome_count; i++)
		if (s->outcome[i].space == space && s->outcome[i].code == code)
			return 1;
	return 0;
}

void shb_success_outcome_text(const struct shb_outcome_space *spaces,
			      uint32_t space, uint64_t code, char *out,
			      size_t outlen)
{
	for (const struct shb_outcome_space *sp = spaces; sp && sp->name; sp++) {
		if (sp->space != space)
			continue;
		for (const struct shb_outcome_code *c = sp->codes; c && c->name; c++)
			if (c->code == code) {
				snprintf(out, outlen, "%s.%s", sp->name, c->name);
				return;
			}
	}
	snprintf(out, outlen, "%u:%llu", space, (unsigned long long)code);
}
