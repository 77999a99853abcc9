/* --shard I/N: this process runs its share of a run split over N
 * processes, so that the N shards together do exactly what one process
 * with the same options would.
 *
 * Shards are numbered from 0, as run_info.shard_index is, as Kubernetes'
 * JOB_COMPLETION_INDEX and Slurm's SLURM_PROCID are: --shard 0/4 to
 * --shard 3/4. Every total (-n, -c, -R and each stage's rates, the last
 * two in milli-requests/s) is split the same way: each shard gets
 * total / N, and the first total % N shards one more, so the shares add
 * up to the total exactly. -z and -t are not split.
 *
 * [main] only, while parsing the command line; pure but for the
 * environment lookup, which the caller passes in. */
#ifndef SHB_CORE_SHARD_H
#define SHB_CORE_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "cli/config.h"

#define SHB_SHARD_MAX 10000u

/* Shard `index` of `count`'s part of `total`. */
static inline uint64_t shb_shard_part(uint64_t total, uint32_t index,
				      uint32_t count)
{
	return total / count + (index < total % count);
}

/* Looks a variable up, as getenv does; NULL when it is not set. */
typedef const char *(*shb_env_fn)(const char *name);

/* Parses --shard's value `v` (`name`: the option as typed, for messages):
 * "I/N" or "auto", which takes I and N from Kubernetes (an Indexed Job's
 * JOB_COMPLETION_INDEX, with N in SHB_SHARD_COUNT) or else Slurm
 * (SLURM_PROCID, SLURM_NTASKS). Returns 0 and *index < *count, or -1
 * with one line in err. */
int shb_shard_parse(const char *name, const char *v, shb_env_fn env,
		    uint32_t *index, uint32_t *count, char *err,
		    size_t errlen);

/* Replaces cfg's -n (count mode), -c, -R and stage rates by shard
 * cfg->shard_index of cfg->shard_count's parts (nothing when the count is
 * 1). Returns 0, or -1 with one line in err when this shard's part of
 * -n or -c is 0, or of the rate is 0 throughout. */
int shb_shard_apply(struct shb_config *cfg, char *err, size_t errlen);

#endif
