/* The census of connections that never opened (census.h): the pure part,
 * shared by the worker (setup_phase.c keeps the count) and the main thread. */
#include <errno.h>
#include <string.h>

#include "engine/census.h"

enum shb_never_kind shb_census_kind(const char *msg)
{
	if (!msg)
		return SHB_NEVER_OTHER;
	if (strstr(msg, "timed out"))
		return SHB_NEVER_TIMEOUT;
	if (strstr(msg, strerror(ECONNREFUSED)))
		return SHB_NEVER_REFUSED;
	return SHB_NEVER_OTHER;
}

void shb_census_add(struct shb_census *a, const struct shb_census *b)
{
	a->asked += b->asked;
	for (int k = 0; k < SHB_NEVER_KINDS; k++) {
		a->never[k] += b->never[k];
		if (!a->sample[k][0] && b->sample[k][0])
			memcpy(a->sample[k], b->sample[k], sizeof(a->sample[k]));
	}
}

uint64_t shb_census_never(const struct shb_census *c)
{
	uint64_t n = 0;
	for (int k = 0; k < SHB_NEVER_KINDS; k++)
		n += c->never[k];
	return n;
}
