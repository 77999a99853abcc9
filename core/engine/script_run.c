/* A run's script on the main thread (script_run.h): set-up before the
 * load, done() after it. The worker's side is in script_work.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/script_run.h"

/* Rates up to 1e12 requests per second, three significant digits. */
#define RATE_HIGHEST 1000000000000ull

static void config_of(const struct shb_run *run, struct shb_script_config *sc,
		      struct shb_kv *kv)
{
	const struct shb_config *cfg = run->cfg;
	size_t n = 0;

	memset(sc, 0, sizeof(*sc));
	sc->struct_size = sizeof(*sc);
	sc->threads = run->threads;
	sc->file = cfg->script;
	sc->args = (const char *const *)cfg->script_args;
	sc->arg_count = cfg->script_arg_count;
	sc->scheme = run->url->scheme;
	sc->host = run->url->host;
	sc->port = run->url->port;
	sc->port_given = (uint32_t)run->url->port_given;
	sc->method = cfg->method ? cfg->method : "GET";
	sc->path = run->url->path;
	/* -H "Host: ..." is wrk.headers.Host, as wrk has it. */
	if (cfg->host_header) {
		kv[n].key = "Host";
		kv[n++].value = cfg->host_header;
	}
	for (size_t i = 0; i < run->header_count; i++, n++) {
		kv[n].key = run->headers[i].name;
		kv[n].value = run->headers[i].value;
	}
	sc->headers = kv;
	sc->header_count = n;
	sc->body = cfg->has_body ? cfg->body : NULL;
	sc->body_len = cfg->has_body ? cfg->body_len : 0;
	if (cfg->has_body && !sc->body)
		sc->body = (const uint8_t *)"";
}

/* The script's file named once in front of the engine's line, unless the
 * line starts with it already (Lua's messages do). */
static void fail_line(const struct shb_run *run, const char *e, char *err,
		      size_t errlen)
{
	const char *f = run->cfg->script;
	if (!strncmp(e, f, strlen(f)))
		snprintf(err, errlen, "-s: %s", e);
	else
		snprintf(err, errlen, "-s %s: %s", f, e[0] ? e : "failed");
}

/* Thread i: created with its setup(), its address, init() and hooks; a
 * script without request() has its one request parsed now, so that bad
 * bytes stop the run before any traffic. */
static int thread_setup(struct shb_run *run, uint32_t i, char *e, size_t elen)
{
	struct shb_script_run *s = run->script;
	struct shb_script_worker *sw = &s->w[i];
	const struct shb_script_vtable *vt = &s->h->vt;
	const struct shb_addr *a = &run->addrs[0];

	if (vt->thread_create(s->script, i, (const struct sockaddr *)&a->ss,
			      (uint32_t)a->len, &sw->thread, e, elen) < 0)
		return -1;
	uint32_t n = vt->thread_addr(sw->thread, (struct sockaddr *)&sw->addr.ss,
				     sizeof(sw->addr.ss));
	sw->own_addr = n > 0;
	sw->addr.len = n;
	if (vt->thread_init(sw->thread, e, elen) < 0)
		return -1;
	sw->hooks = vt->thread_hooks(sw->thread);
	if (shb_histo_init(&sw->rates, RATE_HIGHEST, 3) < 0) {
		snprintf(e, elen, "out of memory");
		return -1;
	}
	if (sw->hooks & SHB_SCRIPT_HOOK_REQUEST)
		return 0;
	struct shb_vec v = {0};
	if (vt->request(sw->thread, &v, e, elen) < 0 ||
	    shb_sreq_parse(&sw->set, v.base, v.len, run->url->scheme, e, elen) < 0)
		return -1;
	return 0;
}

/* What the module must keep of responses, and what -R cannot take. */
static int run_wants(struct shb_run *run, char *err, size_t errlen)
{
	struct shb_script_run *s = run->script;
	const struct shb_config *cfg = run->cfg;
	for (uint32_t i = 0; i < s->threads; i++) {
		uint32_t h = s->w[i].hooks;
		if (h & SHB_SCRIPT_HOOK_RESPONSE)
			s->run_flags |= SHB_RUN_WANT_RESPONSE;
		if (h & SHB_SCRIPT_HOOK_RESPONSE && h & SHB_SCRIPT_HOOK_BODY)
			s->run_flags |= SHB_RUN_WANT_BODY;
		/* The open loop sends on its schedule; a delay would move it. */
		if ((h & SHB_SCRIPT_HOOK_DELAY) && (cfg->rate_milli || cfg->stage_count)) {
			snprintf(err, errlen, "-s %s defines delay(), and -R/--stages "
				 "send on a schedule: give one of them (delay() "
				 "paces the closed loop)", cfg->script);
			return -1;
		}
	}
	return 0;
}

int shb_script_run_setup(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_plan *plan = run->plan;
	struct shb_script_config sc;
	char e[512] = "";

	if (!plan->has_script)
		return 0;
	struct shb_script_run *s = calloc(1, sizeof(*s));
	struct shb_kv *kv = calloc(run->header_count + 2, sizeof(*kv));
	if (s)
		s->w = calloc(run->threads, sizeof(*s->w));
	if (!s || !kv || !s->w) {
		free(kv);
		if (s)
			free(s->w);
		free(s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	run->script = s;
	s->h = &plan->script;
	s->threads = run->threads;
	config_of(run, &sc, kv);
	int rc = s->h->vt.create(run->host, &sc, &s->script, e, sizeof(e));
	free(kv);
	for (uint32_t i = 0; rc >= 0 && i < s->threads; i++)
		rc = thread_setup(run, i, e, sizeof(e));
	if (rc < 0) {
		fail_line(run, e, err, errlen);
		return -1;
	}
	return run_wants(run, err, errlen);
}

/* wrk's summary: requests are the answered ones, connect errors take TLS
 * ones, read errors malformed responses; status counts 4xx and 5xx. */
static void summary_of(const struct shb_results *r, struct shb_script_summary *s)
{
	uint64_t k[SHB_ERRK_EX_COUNT] = {0};
	const struct shb_error_count *e = r->errors_ex;
	memset(s, 0, sizeof(*s));
	s->struct_size = sizeof(*s);
	s->duration_us = r->elapsed_ns / 1000;
	s->requests = r->requests_answered;
	s->bytes = r->bytes_received;
	for (size_t i = 0; e && i < r->error_ex_count; i++)
		if (e[i].kind < SHB_ERRK_EX_COUNT)
			k[e[i].kind] += e[i].count;
	s->errors_connect = k[SHB_ERRK_CONNECT] + k[SHB_ERRK_TLS];
	s->errors_read = k[SHB_ERRK_READ] + k[SHB_ERRK_PROTOCOL];
	s->errors_write = k[SHB_ERRK_WRITE];
	s->errors_timeout = k[SHB_ERRK_TIMEOUT];
	for (size_t i = 0; r->statuses && i < r->status_count; i++)
		if (r->statuses[i].code > 399)
			s->errors_status += r->statuses[i].count;
}

int shb_script_run_done(struct shb_run *run, const struct shb_results *r,
			char *err, size_t errlen)
{
	struct shb_script_run *s = run->script;
	struct shb_script_summary sum;
	struct shb_histo lat, rates;
	char e[512] = "";
	int rc = 0;

	if (!s || !s->script)
		return 0;
	/* wrk's latency covers every answer, error statuses included. */
	const struct shb_histo *ok = (const struct shb_histo *)(const void *)r->latency;
	const struct shb_histo *bad =
		(const struct shb_histo *)(const void *)r->latency_error_reply;
	if (shb_histo_init(&lat, ok->highest, ok->sigfigs) < 0 ||
	    shb_histo_init(&rates, RATE_HIGHEST, 3) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	shb_histo_merge(&lat, ok);
	if (bad)
		shb_histo_merge(&lat, bad);
	for (uint32_t i = 0; i < s->threads; i++)
		shb_histo_merge(&rates, &s->w[i].rates);
	summary_of(r, &sum);
	sum.latency = shb_histo_abi(&lat);
	sum.rates = shb_histo_abi(&rates);
	if (s->h->vt.done(s->script, &sum, e, sizeof(e)) < 0) {
		fail_line(run, e, err, errlen);
		rc = -1;
	}
	shb_histo_destroy(&lat);
	shb_histo_destroy(&rates);
	return rc;
}

void shb_script_run_free(struct shb_run *run)
{
	struct shb_script_run *s = run->script;
	if (!s)
		return;
	for (uint32_t i = 0; i < s->threads; i++) {
		if (s->w[i].thread)
			s->h->vt.thread_destroy(s->w[i].thread);
		shb_sreq_free(&s->w[i].set);
		shb_histo_destroy(&s->w[i].rates);
	}
	if (s->script)
		s->h->vt.destroy(s->script);
	free(s->w);
	free(s);
	run->script = NULL;
}
