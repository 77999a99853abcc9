/* --shard: parsing and the exact split of a run's totals (shard.h). */
#include "cli/shard.h"
#include "common/quote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number, digits only, up to `max`; `end` gets what follows. */
static int parse_num(const char *s, uint32_t max, uint32_t *out,
		     const char **end)
{
	uint64_t n = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > max)
			return -1;
	}
	*out = (uint32_t)n;
	if (end)
		*end = p;
	else if (*p)
		return -1;
	return 0;
}

static int check_pair(const char *name, const char *what, uint32_t index,
		      uint32_t count, char *err, size_t errlen)
{
	if (count == 0)
		return shb_errf(err, errlen, "%s %s: the shard count must be 1 "
			    "to %u", name, what, SHB_SHARD_MAX);
	if (index >= count)
		return shb_errf(err, errlen, "%s %s: shard %u is not below the "
			    "count %u (shards are numbered from 0 to %u)",
			    name, what, index, count, count - 1);
	return 0;
}

/* One variable of the environment, as a number up to `max`. */
static int env_num(const char *name, shb_env_fn env, const char *var,
		   uint32_t max, uint32_t *out, char *err, size_t errlen)
{
	const char *v = env(var);
	if (parse_num(v, max, out, NULL) < 0)
		return shb_errf(err, errlen, "%s auto: %s=%s is not a number "
			    "from 0 to %u", name, var, v ? shb_quote(v).s : "",
			    max);
	return 0;
}

static int from_env(const char *name, shb_env_fn env, uint32_t *index,
		    uint32_t *count, char *err, size_t errlen)
{
	const char *iv, *nv;
	char what[96];

	if (env("JOB_COMPLETION_INDEX")) {
		iv = "JOB_COMPLETION_INDEX";
		nv = "SHB_SHARD_COUNT";
		if (!env(nv))
			return shb_errf(err, errlen, "%s auto: JOB_COMPLETION_INDEX "
				    "is set but SHB_SHARD_COUNT is not: set it "
				    "to the Job's completions", name);
	} else if (env("SLURM_PROCID") && env("SLURM_NTASKS")) {
		iv = "SLURM_PROCID";
		nv = "SLURM_NTASKS";
	} else {
		return shb_errf(err, errlen, "%s auto: no shard in the "
			    "environment: neither JOB_COMPLETION_INDEX "
			    "(Kubernetes Indexed Job) nor SLURM_PROCID and "
			    "SLURM_NTASKS (Slurm) is set", name);
	}
	if (env_num(name, env, iv, SHB_SHARD_MAX, index, err, errlen) < 0 ||
	    env_num(name, env, nv, SHB_SHARD_MAX, count, err, errlen) < 0)
		return -1;
	snprintf(what, sizeof(what), "auto (%s=%u, %s=%u)", iv, *index, nv,
		 *count);
	return check_pair(name, what, *index, *count, err, errlen);
}

int shb_shard_parse(const char *name, const char *v, shb_env_fn env,
		    uint32_t *index, uint32_t *count, char *err,
		    size_t errlen)
{
	const char *p;

	if (strcmp(v, "auto") == 0)
		return from_env(name, env, index, count, err, errlen);
	if (parse_num(v, SHB_SHARD_MAX, index, &p) < 0 || *p != '/' ||
	    parse_num(p + 1, SHB_SHARD_MAX, count, NULL) < 0)
		return shb_errf(err, errlen, "%s %s: expected I/N, shard I of N "
			    "numbered from 0 (0/4 to 3/4), N at most %u, or "
			    "auto", name, shb_quote(v).s, SHB_SHARD_MAX);
	return check_pair(name, v, *index, *count, err, errlen);
}

int shb_shard_apply(struct shb_config *cfg, char *err, size_t errlen)
{
	uint32_t i = cfg->shard_index, n = cfg->shard_count;
	uint64_t any = 0;
	int open = cfg->rate_milli || cfg->stage_count;

	if (n <= 1)
		return 0;
	if (!cfg->duration_ns) {
		if (shb_shard_part(cfg->requests, i, n) == 0)
			return shb_errf(err, errlen, "--shard %u/%u: -n %llu leaves "
				    "this shard no requests: use at most %llu "
				    "shards", i, n,
				    (unsigned long long)cfg->requests,
				    (unsigned long long)cfg->requests);
		cfg->requests = shb_shard_part(cfg->requests, i, n);
	}
	if (shb_shard_part(cfg->connections, i, n) == 0)
		return shb_errf(err, errlen, "--shard %u/%u: -c %u leaves this "
			    "shard no connections: give -c %u or more",
			    i, n, cfg->connections, n);
	cfg->connections = (uint32_t)shb_shard_part(cfg->connections, i, n);
	if (cfg->rate_milli) {
		cfg->rate_milli = shb_shard_part(cfg->rate_milli, i, n);
		any = cfg->rate_milli;
	}
	for (size_t s = 0; s < cfg->stage_count; s++) {
		struct shb_stage *st = &cfg->stages[s];
		st->rate_from_milli = shb_shard_part(st->rate_from_milli, i, n);
		st->rate_to_milli = shb_shard_part(st->rate_to_milli, i, n);
		any |= st->rate_from_milli | st->rate_to_milli;
	}
	/* A rate of 0 would make this shard a closed loop. */
	if (open && !any)
		return shb_errf(err, errlen, "--shard %u/%u: the rate split %u "
			    "ways leaves this shard no requests: use fewer "
			    "shards or a higher rate", i, n, n);
	return 0;
}
