/* -L: redirect chains, their hops and their errors (redirect.h). */
#include "engine/redirect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/url_ref.h"
#include "engine/redirect_var.h"
#include "engine/script_run.h"
#include "engine/timers.h"
#include "engine/worker_int.h"

/* One chain: the request in flight (or queued) and what its next hop is
 * made of. From the worker's pool: allocated at a slot's first redirect,
 * back on the free list at the chain's end, freed with the worker, so a
 * run holds at most one per user. */
struct shb_redir_chain {
	struct shb_redir_chain *next; /* free list, or the queue */
	const char *method;           /* run-owned: cfg's or a target's */
	const uint8_t *body;
	size_t body_len;
	uint32_t has_body;
	uint32_t target; /* its first request's (a mix's per-target stats) */
	uint32_t oi;     /* the origin of the URL below */
	uint32_t hops;   /* redirects followed */
	uint32_t nseen;
	/* The redirect status whose Location is in loc (req_response), 0
	 * for none; loc_len UINT32_MAX: the Location was too long. */
	uint32_t status;
	uint32_t loc_len;
	uint32_t trail_cut; /* trail is full: it ends in "..." */
	uint32_t conn;      /* where its user's last request ended */
	/* When its first request became due: --timeout counts from here for
	 * every hop, one waiting in the queue included. */
	shb_tstamp t_due;
	char url[SHB_URL_REF_MAX + 1]; /* absolute, without fragment */
	char loc[SHB_URL_REF_MAX + 1];
	char trail[SHB_SAMPLE_LEN]; /* "URL -> URL -> ...", for samples */
	/* A templated run: what its first request was sent with (body and
	 * method above point into it when it varied the body). */
	struct shb_redir_var var;
	uint64_t seen[];            /* the URLs' hashes, max + 1 */
};

struct shb_redir {
	struct shb_redir_chain *free, *head, *tail;
	uint32_t queued; /* hops in the queue head .. tail */
	/* The oldest t_due in the queue, looked for again (due_stale) after
	 * a hop left it. */
	shb_tstamp due_min;
	uint32_t due_stale;
	uint32_t max; /* --max-redirs */
	/* The run's headers for a hop: all of them, and without the
	 * Content-Type of a body a hop no longer has. */
	struct shb_kv *kv, *kv_nobody;
	size_t nkv, nkv_nobody;
	/* A templated run (redirect_var.h): each request slot's variation,
	 * [connection index * parallel + slot], and the headers of a hop
	 * whose chain varied some (room for all of the run's). */
	struct shb_redir_var *vars;
	struct shb_kv *kv_var;
};

int shb_redir_setup(struct worker *w)
{
	const struct shb_run *run = w->run;
	if (!run->cfg->follow_redirects)
		return 0;
	struct shb_redir *rd = calloc(1, sizeof(*rd));
	size_t n = run->header_count;
	if (rd) {
		rd->kv = calloc(n + 1, sizeof(*rd->kv));
		rd->kv_nobody = calloc(n + 1, sizeof(*rd->kv));
	}
	w->redir = rd;
	if (!rd || !rd->kv || !rd->kv_nobody) {
		snprintf(w->args->err, sizeof(w->args->err), "out of memory for -L");
		return -1;
	}
	if (run->tmpls) {
		rd->vars = calloc((size_t)w->nconns * w->parallel, sizeof(*rd->vars));
		rd->kv_var = calloc(n + 1, sizeof(*rd->kv_var));
		if (!rd->vars || !rd->kv_var) {
			snprintf(w->args->err, sizeof(w->args->err),
				 "out of memory for -L");
			return -1;
		}
	}
	rd->max = run->cfg->max_redirs;
	rd->due_min = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		struct shb_kv kv = {run->headers[i].name, run->headers[i].value};
		rd->kv[rd->nkv++] = kv;
		if (strcasecmp(kv.key, "content-type") != 0)
			rd->kv_nobody[rd->nkv_nobody++] = kv;
	}
	return 0;
}

static void free_list(struct shb_redir_chain *ch)
{
	while (ch) {
		struct shb_redir_chain *next = ch->next;
		shb_redir_var_free(&ch->var);
		free(ch);
		ch = next;
	}
}

void shb_redir_free(struct worker *w)
{
	struct shb_redir *rd = w->redir;
	if (!rd)
		return;
	for (uint32_t i = 0; w->conns && i < w->nconns; i++)
		for (uint32_t k = 0; k < w->parallel; k++) {
			struct shb_redir_chain *ch = w->conns[i].reqs[k].chain;
			if (ch)
				shb_redir_var_free(&ch->var);
			free(ch);
		}
	free_list(rd->free);
	free_list(rd->head);
	for (size_t i = 0; rd->vars && i < (size_t)w->nconns * w->parallel; i++)
		shb_redir_var_free(&rd->vars[i]);
	free(rd->vars);
	free(rd->kv_var);
	free(rd->kv);
	free(rd->kv_nobody);
	free(rd);
	w->redir = NULL;
}

static uint64_t url_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

/* Appends p[n] to the trail as far as it fits; 0, or -1 when cut. */
static int trail_put(struct shb_redir_chain *ch, const char *p, size_t n)
{
	size_t at = strlen(ch->trail), room = sizeof(ch->trail) - 1 - at;
	memcpy(ch->trail + at, p, n < room ? n : room);
	ch->trail[at + (n < room ? n : room)] = '\0';
	return n <= room ? 0 : -1;
}

/* "URL -> URL -> ...": a sample is SHB_SAMPLE_LEN bytes at most, so a
 * long chain ends in "..." there. */
static void trail_add(struct shb_redir_chain *ch, const char *url)
{
	if (ch->trail_cut)
		return;
	if ((ch->trail[0] && trail_put(ch, " -> ", 4) < 0) ||
	    trail_put(ch, url, strlen(url)) < 0) {
		memcpy(ch->trail + sizeof(ch->trail) - 4, "...", 4);
		ch->trail_cut = 1;
	}
}

/* The request slot r carried (its target's, as the command line gave
 * it): what a chain starts from. */
static void chain_first(const struct worker *w, uint32_t t,
			struct shb_redir_chain *ch, const char **url)
{
	const struct shb_config *cfg = w->run->cfg;
	ch->method = shb_run_method(&w->run->prun->req, cfg);
	ch->body = cfg->body;
	ch->body_len = cfg->body_len;
	ch->has_body = (uint32_t)cfg->has_body;
	*url = cfg->url_text;
	if (!w->mixw || t >= cfg->target_count)
		return;
	const struct shb_target_arg *ta = &cfg->targets[t];
	*url = ta->url_text;
	if (ta->method)
		ch->method = ta->method;
	if (ta->body_file) {
		ch->body = ta->body;
		ch->body_len = ta->body_len;
		ch->has_body = 1;
	}
}

/* Where request slot i of c keeps its variation. */
static struct shb_redir_var *slot_var(const struct shb_conn *c, size_t i)
{
	return &c->w->redir->vars[(size_t)c->idx * c->w->parallel + i];
}

int shb_redir_keep(struct shb_conn *c, uint64_t cookie,
		   const struct shb_request_var *var)
{
	/* The cookie's low bits are the slot's index (shb_conn_cookie). */
	return shb_redir_var_keep(slot_var(c, (size_t)(cookie & 0xffff)), var);
}

/* A templated run: the chain takes what slot r's request was sent with
 * (and the slot the chain's old variation, to reuse): its body for 307
 * and 308, its header values for every hop, and its path for the URL
 * the chain starts from. Returns that URL: `url` (as typed), or, when
 * the path varied, the origin's with the path as sent. */
static const char *chain_take_var(struct shb_conn *c, const struct req_slot *r,
				  struct shb_redir_chain *ch, const char *url)
{
	static _Thread_local char sent[SHB_URL_REF_MAX + 1];
	struct shb_redir_var *sv = slot_var(c, (size_t)(r - c->reqs)), tmp = *sv;
	const struct shb_origin *o = c->ro->origin;
	const uint8_t *body;
	const char *path;
	size_t n;
	*sv = ch->var;
	ch->var = tmp;
	if ((body = shb_redir_var_body(&ch->var, &n))) {
		ch->body = body;
		ch->body_len = n;
		ch->has_body = 1;
	}
	if ((path = shb_redir_var_path(&ch->var, &n))) {
		snprintf(sent, sizeof(sent), "%s://%s%.*s", o->scheme, o->authority,
			 (int)(n < SHB_URL_REF_MAX ? n : SHB_URL_REF_MAX), path);
		url = sent;
	}
	return url;
}

static struct shb_redir_chain *chain_start(struct worker *w, struct shb_conn *c,
					   const struct req_slot *r)
{
	struct shb_redir *rd = w->redir;
	struct shb_redir_chain *ch = rd->free;
	const char *url;
	if (ch)
		rd->free = ch->next;
	else if (!(ch = malloc(sizeof(*ch) + (rd->max + 1u) * sizeof(uint64_t))))
		return NULL;
	else
		memset(&ch->var, 0, sizeof(ch->var));
	ch->next = NULL;
	ch->target = r->target;
	ch->oi = c->oi;
	ch->t_due = r->t_due;
	ch->hops = ch->status = ch->trail_cut = 0;
	ch->trail[0] = '\0';
	chain_first(w, r->target, ch, &url);
	if (rd->vars)
		url = chain_take_var(c, r, ch, url);
	/* The URL as typed, with "/" for an empty path, without fragment:
	 * as a resolved Location back to it reads. */
	struct shb_url_parts p;
	size_t n = strcspn(url, "#");
	if (n > SHB_URL_REF_MAX - 1)
		n = SHB_URL_REF_MAX - 1;
	memcpy(ch->url, url, n);
	ch->url[n] = '\0';
	if (shb_url_ref_split(ch->url, &p) == 0 && p.path_len == 0)
		memcpy(ch->url + n, "/", 2);
	ch->seen[0] = url_hash(ch->url);
	ch->nseen = 1;
	trail_add(ch, ch->url);
	return ch;
}

static void chain_put(struct shb_redir *rd, struct shb_redir_chain *ch)
{
	ch->next = rd->free;
	rd->free = ch;
}

void shb_redir_slot_end(struct worker *w, struct req_slot *r)
{
	if (r->chain && w->redir)
		chain_put(w->redir, r->chain);
	r->chain = NULL;
}

static int is_redirect(uint32_t status)
{
	return status == 301 || status == 302 || status == 303 ||
	       status == 307 || status == 308;
}

void shb_worker_req_response(struct shb_conn *c, uint64_t cookie,
			     const struct shb_response *resp)
{
	struct worker *w = c->w;
	struct req_slot *r = shb_conn_slot_of(c, cookie);
	const char *loc = NULL;
	if (w->script) { /* -s (script_run.h); never with -L */
		if (r && resp)
			shb_script_response(c, cookie, resp);
		return;
	}
	if (!r || !w->redir || !resp || !is_redirect(resp->status))
		return;
	for (size_t i = 0; i < resp->header_count && !loc; i++)
		if (strcasecmp(resp->headers[i].key, "location") == 0)
			loc = resp->headers[i].value;
	if (!loc) /* a 3xx without Location is a status like any other */
		return;
	if (!r->chain && !(r->chain = chain_start(w, c, r))) {
		shb_worker_fatal(w, "out of memory for -L's redirect chains");
		return;
	}
	size_t n = strlen(loc);
	r->chain->status = resp->status;
	r->chain->loc_len = n > SHB_URL_REF_MAX ? UINT32_MAX : (uint32_t)n;
	if (n <= SHB_URL_REF_MAX)
		memcpy(r->chain->loc, loc, n + 1);
}

static unsigned default_port(const char *scheme, size_t n)
{
	if (n == 4 && strncasecmp(scheme, "http", 4) == 0)
		return 80;
	if (n == 5 && strncasecmp(scheme, "https", 5) == 0)
		return 443;
	return 0;
}

/* The run's origin the URL's scheme, host and port name, or -1. */
static int find_origin(const struct worker *w, const struct shb_url_parts *p)
{
	const char *host;
	size_t hl;
	unsigned port;
	if (shb_url_ref_host_port(p->authority, p->authority_len, &host, &hl,
				  &port) < 0)
		return -1;
	if (!port)
		port = default_port(p->scheme, p->scheme_len);
	for (uint32_t k = 0; k < w->run->norigins; k++) {
		const struct shb_origin *o = w->run->ro[k].origin;
		if (strlen(o->scheme) == p->scheme_len &&
		    strncasecmp(o->scheme, p->scheme, p->scheme_len) == 0 &&
		    strlen(o->host) == hl && strncasecmp(o->host, host, hl) == 0 &&
		    o->port == port)
			return (int)k;
	}
	return -1;
}

static int worker_serves(const struct worker *w, uint32_t k)
{
	for (uint32_t i = 0; i < w->nconns; i++)
		if (w->conns[i].oi == k)
			return 1;
	return 0;
}

static int bad_location(const struct shb_redir_chain *ch)
{
	if (ch->loc_len == UINT32_MAX)
		return 1;
	for (uint32_t i = 0; i < ch->loc_len; i++)
		if ((uint8_t)ch->loc[i] >= 0x80)
			return 1;
	return 0;
}

/* Where the chain's Location leads: next[] (absolute, no fragment) and
 * its origin; -1 with why[] filled when it leads nowhere this run goes. */
static int next_hop(const struct worker *w, struct shb_redir_chain *ch,
		    char *next, uint32_t *oi, char *why)
{
	struct shb_url_parts p;
	long n = bad_location(ch) ? -1 :
		 shb_url_ref_resolve(ch->url, ch->loc, ch->loc_len, next,
				     SHB_URL_REF_MAX + 1);
	if (n >= 0)
		next[strcspn(next, "#")] = '\0';
	if (n < 0 || shb_url_ref_split(next, &p) < 0) {
		snprintf(why, SHB_SAMPLE_LEN, "redirect with a Location that is "
			 "not a URL this run can request: \"%.40s\" (from %.40s)",
			 ch->loc_len == UINT32_MAX ? "(over 8 KiB)" : ch->loc,
			 ch->url);
		return -1;
	}
	int k = find_origin(w, &p);
	if (k < 0 || !worker_serves(w, (uint32_t)k)) {
		snprintf(why, SHB_SAMPLE_LEN, "redirect to an origin this run has "
			 "no connection to: %.*s", SHB_SAMPLE_LEN - 60, next);
		return -1;
	}
	*oi = (uint32_t)k;
	return 0;
}

/* A loop or one hop too many: why[] names it with the chain. */
static int chain_check(const struct shb_redir *rd, struct shb_redir_chain *ch,
		       uint64_t h, char *why)
{
	for (uint32_t i = 0; i < ch->nseen; i++)
		if (ch->seen[i] == h) {
			snprintf(why, SHB_SAMPLE_LEN, "redirect loop: %.*s",
				 SHB_SAMPLE_LEN - 16, ch->trail);
			return -1;
		}
	if (ch->hops >= rd->max) {
		snprintf(why, SHB_SAMPLE_LEN, "too many redirects (--max-redirs "
			 "%u): %.*s", rd->max, SHB_SAMPLE_LEN - 40, ch->trail);
		return -1;
	}
	return 0;
}

/* 303, and 301 or 302 after a POST, turn into GET without a body (RFC
 * 9110 15.4, as curl does); HEAD stays HEAD; 307 and 308 keep both. */
static void next_method(struct shb_redir_chain *ch, uint32_t status)
{
	int to_get = (status == 303 && strcmp(ch->method, "HEAD") != 0) ||
		     ((status == 301 || status == 302) &&
		      strcmp(ch->method, "POST") == 0);
	if (!to_get)
		return;
	ch->method = "GET";
	ch->body = NULL;
	ch->body_len = 0;
	ch->has_body = 0;
}

/* A connection of origin k that can take the hop now looks at the queue
 * in its service (c itself when it is of k: its service follows). */
static void wake_origin(struct worker *w, struct shb_conn *c, uint32_t k)
{
	if (c->oi == k) {
		shb_conn_mark_dirty(c);
		return;
	}
	for (uint32_t i = 0; i < w->nconns; i++) {
		struct shb_conn *o = &w->conns[i];
		if (o->oi == k && o->st == C_READY && w->vt->capacity(o->p) > 0) {
			shb_conn_mark_dirty(o);
			return;
		}
	}
}

static void due_note(struct shb_redir *rd, const struct shb_redir_chain *ch)
{
	if (!rd->due_stale && ch->t_due < rd->due_min)
		rd->due_min = ch->t_due;
}

static void enqueue(struct shb_redir *rd, struct shb_redir_chain *ch)
{
	due_note(rd, ch);
	ch->next = NULL;
	if (rd->tail)
		rd->tail->next = ch;
	else
		rd->head = ch;
	rd->tail = ch;
	rd->queued++;
}

uint32_t shb_redir_queued(const struct worker *w)
{
	return w->redir ? w->redir->queued : 0;
}

int shb_redir_on_response(struct shb_conn *c, struct req_slot *r,
			  const struct shb_req_result *res, char *why)
{
	struct worker *w = c->w;
	struct shb_redir_chain *ch = r->chain;
	static _Thread_local char next[SHB_URL_REF_MAX + 1];
	uint32_t oi = 0;
	int rc = -1;
	if (!ch)
		return 0;
	if (!ch->status || ch->status != res->status) {
		rc = 0; /* the chain's last response */
	} else if (next_hop(w, ch, next, &oi, why) == 0) {
		uint64_t h = url_hash(next);
		trail_add(ch, next);
		rc = chain_check(w->redir, ch, h, why) == 0 ? 1 : -1;
		if (rc == 1) {
			ch->seen[ch->nseen++] = h;
			ch->hops++;
			memcpy(ch->url, next, strlen(next) + 1);
		}
	}
	if (rc != 1) {
		shb_redir_slot_end(w, r);
		return rc;
	}
	next_method(ch, ch->status);
	ch->status = 0;
	ch->oi = oi;
	ch->conn = c->idx;
	r->chain = NULL;
	enqueue(w->redir, ch);
	wake_origin(w, c, oi);
	return 1;
}

/* The run's headers with the values the chain's first request was sent
 * with, without Content-Type when the hop has no body: into out, their
 * number. */
static size_t hop_headers(const struct shb_redir *rd,
			  const struct shb_redir_chain *ch, struct shb_kv *out)
{
	size_t n = 0;
	for (size_t i = 0; i < rd->nkv; i++) {
		struct shb_kv kv = rd->kv[i];
		const char *v = shb_redir_var_header(&ch->var, (uint32_t)i);
		if (v)
			kv.value = v;
		if (ch->has_body || strcasecmp(kv.key, "content-type") != 0)
			out[n++] = kv;
	}
	return n;
}

/* The hop's request: the chain's method and body, the URL's path and
 * query ("/" when empty), c's origin's scheme and authority, the run's
 * headers. Returns issue_req's code. */
static int send_hop(struct shb_conn *c, struct shb_redir_chain *ch,
		    uint64_t cookie)
{
	static _Thread_local char path[SHB_URL_REF_MAX + 2];
	struct worker *w = c->w;
	const struct shb_redir *rd = w->redir;
	const struct shb_origin *o = c->ro->origin;
	struct shb_url_parts p;
	if (shb_url_ref_split(ch->url, &p) < 0)
		return SHB_E_INVAL; /* checked when queued */
	path[0] = '/';
	memcpy(path + (p.path_len == 0), p.path, p.path_len);
	path[p.path_len + (p.path_len == 0)] = '\0';
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = ch->has_body ? SHB_REQUEST_HAS_BODY : 0,
		.method = ch->method,
		.scheme = o->scheme,
		.authority = o->authority,
		.path = path,
		.headers = ch->has_body ? rd->kv : rd->kv_nobody,
		.header_count = ch->has_body ? rd->nkv : rd->nkv_nobody,
		.body = ch->body,
		.body_len = ch->body_len,
	};
	if (ch->var.flags & SHB_VAR_HEADERS) {
		req.header_count = hop_headers(rd, ch, rd->kv_var);
		req.headers = rd->kv_var;
	}
	return w->vt->issue_req(c->p, &req, cookie, shb_conn_now(c));
}

/* Sends ch on c: a slot of its own, timed from now (a hop is no new
 * intended start), --timeout from when its chain's first request became
 * due. 0, or -1 when c has no room after all. */
static int issue_hop(struct shb_conn *c, struct shb_redir_chain *ch)
{
	struct worker *w = c->w;
	uint32_t i;
	for (i = c->free_from; i < w->parallel; i++)
		if (!c->reqs[i].used)
			break;
	if (i == w->parallel)
		return -1;
	struct req_slot *r = &c->reqs[i];
	r->target = (uint8_t)ch->target;
	r->gen++;
	r->t_start = r->t_intended = w->now;
	r->t_due = ch->t_due;
	shb_conn_req_add(c, i);
	c->issued_here++;
	if (send_hop(c, ch, shb_conn_cookie(c, i)) < 0) {
		shb_conn_req_drop(c, i);
		c->issued_here--;
		return -1;
	}
	r->chain = ch;
	shb_conn_timer_request(c, r->t_due);
	return 0;
}

/* Takes ch (after prev, NULL for the head) out of the queue. */
static void unlink_hop(struct shb_redir *rd, struct shb_redir_chain *prev,
		       struct shb_redir_chain *ch)
{
	if (prev)
		prev->next = ch->next;
	else
		rd->head = ch->next;
	if (rd->tail == ch)
		rd->tail = prev;
	rd->queued--;
	rd->due_stale = 1;
}

/* A chain that ends in an error (kind, msg) while its hop waits, taken
 * out of the queue already: one request of the run, as one whose
 * connection failed. */
static void hop_failed(struct worker *w, struct shb_redir_chain *ch,
		       unsigned kind, const char *msg, uint32_t conn)
{
	shb_worker_count_error(w, kind, msg);
	struct shb_stats *ts = shb_mix_stats(w->mixw, ch->target);
	if (ts)
		shb_stats_error(ts, kind, msg);
	chain_put(w->redir, ch);
	shb_worker_finished_one(w);
	shb_wait_again(w, conn);
}

/* --timeout passed since the chain's first request became due. */
static int hop_expired(const struct worker *w, const struct shb_redir_chain *ch)
{
	uint64_t limit = w->run->cfg->timeout_ns;
	return limit && w->now > ch->t_due && w->now - ch->t_due > limit;
}

static void hop_timed_out(struct worker *w, struct shb_redir_chain *ch)
{
	char msg[160], d[32];
	snprintf(msg, sizeof(msg), "request timed out after %s, its redirect "
		 "hop never sent: no connection or stream of its origin had "
		 "room for it", shb_duration_text(w->run->cfg->timeout_ns, d,
						  sizeof(d)));
	hop_failed(w, ch, SHB_ERRK_TIMEOUT, msg, ch->conn);
}

void shb_redir_issue(struct shb_conn *c)
{
	struct worker *w = c->w;
	struct shb_redir *rd = w->redir;
	struct shb_redir_chain *prev = NULL, *ch = rd->head;
	while (ch && !w->stopping && w->loading && !shb_worker_past_deadline(w) &&
	       w->vt->capacity(c->p) > 0) {
		struct shb_redir_chain *next = ch->next;
		if (ch->oi != c->oi) {
			prev = ch;
		} else if (hop_expired(w, ch)) { /* not sent only to be cancelled */
			unlink_hop(rd, prev, ch);
			hop_timed_out(w, ch);
		} else {
			if (issue_hop(c, ch) < 0)
				return;
			unlink_hop(rd, prev, ch);
		}
		ch = next;
	}
}

uint64_t shb_redir_due(const struct worker *w)
{
	struct shb_redir *rd = w->redir;
	uint64_t limit = w->run->cfg->timeout_ns;
	if (!rd || !rd->head || !limit || !w->loading || w->stopping ||
	    shb_worker_past_deadline(w))
		return UINT64_MAX;
	/* The cached oldest due time is bookkeeping, not the worker's state:
	 * refreshed here, through the pointer, for a const worker too. */
	if (rd->due_stale) {
		rd->due_min = UINT64_MAX;
		for (const struct shb_redir_chain *ch = rd->head; ch; ch = ch->next)
			if (ch->t_due < rd->due_min)
				rd->due_min = ch->t_due;
		rd->due_stale = 0;
	}
	/* Timed out once more than the limit has passed (hop_expired). */
	return rd->due_min + limit + 1;
}

void shb_redir_expire(struct worker *w)
{
	struct shb_redir *rd = w->redir;
	if (!rd || w->stopping || !w->loading || shb_worker_past_deadline(w))
		return;
	struct shb_redir_chain *prev = NULL, *ch = rd->head;
	while (ch) {
		struct shb_redir_chain *next = ch->next;
		if (hop_expired(w, ch)) {
			unlink_hop(rd, prev, ch);
			hop_timed_out(w, ch);
		} else {
			prev = ch;
		}
		ch = next;
	}
}

int shb_redir_fail_one(struct shb_conn *c, unsigned kind, const char *msg)
{
	struct worker *w = c->w;
	struct shb_redir *rd = w->redir;
	struct shb_redir_chain *prev = NULL, *ch = rd->head;
	while (ch && ch->oi != c->oi) {
		prev = ch;
		ch = ch->next;
	}
	if (!ch)
		return 0;
	unlink_hop(rd, prev, ch);
	hop_failed(w, ch, kind, msg, c->idx);
	return 1;
}

void shb_redir_requeue(struct worker *w, struct req_slot *r)
{
	struct shb_redir_chain *ch = r->chain;
	struct shb_redir *rd = w->redir;
	r->chain = NULL;
	ch->t_due = r->t_due;
	due_note(rd, ch);
	ch->next = rd->head;
	rd->head = ch;
	if (!rd->tail)
		rd->tail = ch;
	rd->queued++;
}
