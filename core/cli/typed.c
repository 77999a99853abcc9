/* Options kept as typed (typed.h). */
#include "cli/typed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a protocol of request model NONE cannot take (proto.h): the parts
 * of an HTTP request. */
static const char *const http_opts[] = {
	"-m", "-X", "--method", "-H", "--header", "-d", "--data",
	"--data-binary", "--body-lines", "--priority", "-s", "--script", NULL,
};

int shb_typed_is_http(const char *name)
{
	for (const char *const *o = http_opts; *o; o++)
		if (strcmp(*o, name) == 0)
			return 1;
	return 0;
}

static int append(char ***list, size_t *count, const char *v)
{
	char *d = strdup(v);
	char **a = d ? realloc(*list, (*count + 1) * sizeof(*a)) : NULL;

	if (!a) {
		free(d);
		return -1;
	}
	a[(*count)++] = d;
	*list = a;
	return 0;
}

int shb_typed_note(struct shb_typed *t, const char *name, const char *v)
{
	if (shb_typed_is_http(name)) {
		if (!t->http_opt[0])
			snprintf(t->http_opt, sizeof(t->http_opt), "%s", name);
		return 0;
	}
	if (strcmp(name, "--connect-to") == 0)
		return append(&t->connect_to, &t->connect_to_count, v);
	if (strcmp(name, "--resolve") == 0)
		return append(&t->resolve, &t->resolve_count, v);
	if (strcmp(name, "--source") == 0 && !t->source)
		return (t->source = strdup(v)) ? 0 : -1;
	return 0;
}

int shb_typed_keep(struct shb_typed *t, char *s)
{
	char **a = realloc(t->kept, (t->kept_count + 1) * sizeof(*a));

	if (!a) {
		free(s);
		return -1;
	}
	a[t->kept_count++] = s;
	t->kept = a;
	return 0;
}

void shb_typed_free(struct shb_typed *t)
{
	for (size_t i = 0; i < t->kept_count; i++)
		free(t->kept[i]);
	free(t->kept);
	for (size_t i = 0; i < t->connect_to_count; i++)
		free(t->connect_to[i]);
	free(t->connect_to);
	for (size_t i = 0; i < t->resolve_count; i++)
		free(t->resolve[i]);
	free(t->resolve);
	free(t->source);
	memset(t, 0, sizeof(*t));
}
