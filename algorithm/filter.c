/* Filter: the Filter plugins over the candidate nodes on the worker pool (upstream
 * findNodesThatPassFilters), twice on nodes with nominated pods. See the DESIGN comment in cycle.c. */
#include "cycle_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/map.h"

/* ---------- Filters with nominated pods ---------- */

/* The Filter plugins a cycle runs (those its PreFilter did not Skip), listed once per pass rather
 * than checked per node; at[i]: plugin i's place in the profile's Filter list (its call slot). */
struct filter_set {
	uint32_t n;
	uint8_t at[FW_MAX_PLUGINS];
	const struct fw_pl *pls[FW_MAX_PLUGINS];
};

static void filter_set_init(struct filter_set *fs, const struct fw_profile *p, const struct fw_cycle *c)
{
	fs->n = 0;
	for (uint32_t i = 0; i < p->n_points[CFG_EP_FILTER]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_FILTER][i];
		if (c->skip_filter[pl->index])
			continue;
		fs->at[fs->n] = (uint8_t)i;
		fs->pls[fs->n++] = pl;
	}
}

static enum fw_code run_filters(const struct filter_set *fs, const struct fw_cycle *c, const struct api_pod *pod,
				const struct node_info *ni, struct fw_status *st, const struct call_slot *rec)
{
	if (!ni->node) /* a ghost: pods assumed onto a node the informer does not know */
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) not found");
	int64_t t = rec ? fw_ticks() : 0; /* one clock read per call: each end starts the next */
	for (uint32_t i = 0; i < fs->n; i++) {
		const struct fw_pl *pl = fs->pls[i];
		fw_status_reset(st);
		enum fw_code code = pl->plugin->filter(pl, c, pod, ni, st);
		if (rec) {
			int64_t now = fw_ticks();
			rec->ticks[fs->at[i] * rec->stride] = fw_call_ticks(now - t);
			rec->code[fs->at[i] * rec->stride] = (uint8_t)code;
			t = now;
		}
		if (code == FW_SUCCESS)
			continue;
		st->code = code;
		if (!fw_code_is_rejected(code)) {
			char msg[FW_STATUS_TEXT_MAX];
			fw_status_message(st, msg, sizeof(msg));
			fw_status_setf(st, FW_ERROR, "running \"%s\" filter plugin: %s", pl->plugin->name, msg);
		}
		st->plugin = pl->plugin->name;
		return st->code;
	}
	fw_status_reset(st);
	return FW_SUCCESS;
}

enum fw_code fw_run_filters(const struct fw_profile *p, const struct fw_cycle *c, const struct api_pod *pod,
			    const struct node_info *ni, struct fw_status *st)
{
	struct filter_set fs;
	filter_set_init(&fs, p, c);
	return run_filters(&fs, c, pod, ni, st, NULL);
}

/* A private deep copy of ni with the bucket's pods added (upstream nodeInfo.Snapshot +
 * AddPodInfo), built with the cache's own accounting. Runs on a worker thread. */
static int node_info_with_pods(const struct node_info *ni, const struct fw_nom_bucket *b, struct node_info *out)
{
	memset(out, 0, sizeof(*out));
	if (node_info_copy(out, ni, NULL) < 0)
		goto fail;
	for (uint32_t i = 0; i < b->n; i++)
		if (node_info_add_pod(out, (struct api_pod *)b->pods[i], NULL) < 0)
			goto fail;
	return 0;
fail:
	node_info_release(out);
	return ERR_NOMEM;
}

/* rec_aug: where the pass with nominated pods records its calls (sampled cycles). */
static enum fw_code run_filters_with_nominated(const struct filter_set *fs, const struct fw_cycle *c,
					       const struct api_pod *pod, const struct node_info *ni,
					       struct fw_status *st, const struct call_slot *rec,
					       const struct call_slot *rec_aug)
{
	const struct fw_nom_bucket *b = c->nominated ? map_get(c->nominated, ni->name) : NULL;
	if (b && b->n) {
		/* upstream runs twice: with the nominated pods of >= priority added, then (if that
		 * passed) without them, so that a decision holds either way */
		struct node_info aug;
		if (node_info_with_pods(ni, b, &aug) < 0)
			return fw_status_set(st, FW_ERROR, "adding nominated pods to node: out of memory");
		enum fw_code code = run_filters(fs, c, pod, &aug, st, rec_aug);
		node_info_release(&aug);
		if (code != FW_SUCCESS)
			return code;
	}
	return run_filters(fs, c, pod, ni, st, rec);
}

enum fw_code fw_run_filters_with_nominated(const struct fw_profile *p, const struct fw_cycle *c,
					   const struct api_pod *pod, const struct node_info *ni,
					   struct fw_status *st)
{
	struct filter_set fs;
	filter_set_init(&fs, p, c);
	return run_filters_with_nominated(&fs, c, pod, ni, st, NULL, NULL);
}

static void nominated_release(void *arg)
{
	map_release(arg);
}

/* Buckets the nominated pods that count for pod (priority >= its, not itself) by node. */
int fw_prepare_nominated(struct fw_cycle *c, const struct api_pod *pod, const struct fw_nominated *nom,
			     struct err *e)
{
	if (!nom || !nom->n)
		return 0;
	struct map *m = fw_cycle_alloc(c, sizeof(*m));
	if (!m)
		return err_set(e, ERR_NOMEM, "nominated pods: out of memory");
	map_init(m);
	if (fw_cycle_on_release(c, nominated_release, m) < 0)
		return err_set(e, ERR_NOMEM, "nominated pods: out of memory");
	for (uint32_t i = 0; i < nom->n; i++) {
		const struct fw_nominated_pod *np = &nom->pods[i];
		if (!np->pod || !np->node_name || !np->node_name[0])
			continue;
		if (np->pod->priority < pod->priority || np->pod->meta.uid == pod->meta.uid)
			continue;
		struct fw_nom_bucket *b = map_get(m, np->node_name);
		if (!b) {
			b = fw_cycle_alloc(c, sizeof(*b));
			if (!b || map_put(m, np->node_name, b, NULL) < 0)
				return err_set(e, ERR_NOMEM, "nominated pods: out of memory");
		}
		const struct api_pod **pods = fw_cycle_alloc(c, (b->n + 1) * sizeof(*pods));
		if (!pods)
			return err_set(e, ERR_NOMEM, "nominated pods: out of memory");
		if (b->n)
			memcpy(pods, b->pods, b->n * sizeof(*pods));
		pods[b->n++] = np->pod;
		b->pods = pods;
	}
	c->nominated = m;
	return 0;
}

/* ---------- Filter over nodes ---------- */

/* Candidate states in filter_job.state. */
enum { CAND_NOT_RUN, CAND_FAILED, CAND_FEASIBLE };

/* One pool worker's part of a Filter pass, 64 bytes so that workers' fields never share a cache
 * line (the array is 16-byte aligned and the fields take 12 bytes). */
struct filter_worker {
	uint32_t pending;  /* feasible nodes found, not yet added to feasible_len */
	uint32_t flush_at; /* add them once this many are pending */
	uint32_t hi;       /* 1 + the highest candidate index this worker ran */
	char pad[64 - 3 * sizeof(uint32_t)];
};

struct filter_job {
	const struct fw_profile *p;
	const struct fw_cycle *c;
	const struct api_pod *pod;
	const struct node_info *const *nodes;
	uint32_t n, start, to_find, n_workers;
	struct fw_status *status;       /* [n], slot i written by the worker of i */
	unsigned char *state;           /* [n] CAND_*, slot i written by the worker of i */
	struct filter_worker *workers;  /* [n_workers], indexed by the pool's worker index */
	struct filter_set fs;
	/* own cache lines: feasible_len is written per batch of feasible nodes, stop read per node by
	 * every worker */
	_Alignas(64) _Atomic uint32_t feasible_len;
	_Alignas(64) _Atomic bool stop;
	_Atomic bool err_claimed;
	struct fw_status err;           /* the first Error, written by whoever claimed it */
	/* Sampled cycles: plugin k's call on candidate i at [k * n_slots + rows * i], the pass with
	 * nominated pods at [k * n_slots + rows * i + 1] (rows = 2 when there are nominated pods,
	 * n_slots = rows * n); calls_hi: candidates below it may have run. NULL otherwise. */
	uint32_t *call_ticks;
	uint8_t *call_code;
	size_t n_slots, rows;
	_Atomic size_t calls_hi;
};

/* How many feasible nodes a worker finds before adding them to the shared count: a share of
 * what is still to find, so the count lags reality by at most half of it (a shared increment per
 * feasible node bounced its cache line between the cores, ~40 ns each) and reaches every node
 * once few remain. With one worker the pass stops at exactly the node it would stop at with a
 * per-node count, which the collection after the loop relies on. */
static uint32_t flush_batch(const struct filter_job *j, uint32_t found)
{
	uint32_t remaining = found > j->to_find ? 0 : j->to_find + 1 - found;
	uint32_t b = remaining / (2 * j->n_workers);
	return b ? b : 1;
}

static void filter_one(void *ctx, int worker, size_t i)
{
	struct filter_job *j = ctx;
	if (atomic_load_explicit(&j->stop, memory_order_relaxed))
		return;
	const struct node_info *ni = j->nodes[(j->start + i) % j->n];
	struct fw_status *st = &j->status[i];
	struct call_slot rec, rec_aug, *r = NULL, *ra = NULL;
	if (j->call_ticks) {
		size_t s = j->rows * i, hi = atomic_load_explicit(&j->calls_hi, memory_order_relaxed);
		while (hi < i + 1 && !atomic_compare_exchange_weak_explicit(&j->calls_hi, &hi, i + 1,
									     memory_order_relaxed, memory_order_relaxed))
			;
		rec = (struct call_slot){ j->call_ticks + s, j->call_code + s, j->n_slots };
		r = &rec;
		if (j->rows == 2) {
			rec_aug = (struct call_slot){ j->call_ticks + s + 1, j->call_code + s + 1, j->n_slots };
			ra = &rec_aug;
		}
	}
	enum fw_code code = run_filters_with_nominated(&j->fs, j->c, j->pod, ni, st, r, ra);
	struct filter_worker *w = &j->workers[worker];
	if (i >= w->hi)
		w->hi = (uint32_t)i + 1;
	if (code == FW_SUCCESS) {
		j->state[i] = CAND_FEASIBLE;
		if (++w->pending < w->flush_at)
			return;
		/* upstream stops once one more than needed was found */
		uint32_t found = atomic_fetch_add(&j->feasible_len, w->pending) + w->pending;
		w->pending = 0;
		if (found > j->to_find)
			atomic_store(&j->stop, true);
		else
			w->flush_at = flush_batch(j, found);
	} else if (fw_code_is_rejected(code)) {
		j->state[i] = CAND_FAILED;
	} else {
		bool expected = false;
		if (atomic_compare_exchange_strong(&j->err_claimed, &expected, true))
			j->err = *st;
		atomic_store(&j->stop, true);
	}
}

int fw_ensure_scratch(struct fw_profile *p, size_t n, struct err *e)
{
	if (n <= p->scratch_cap)
		return 0;
	size_t cap = p->scratch_cap ? p->scratch_cap : 64;
	while (cap < n)
		cap *= 2;
	struct fw_status *s = realloc(p->scratch_status, cap * sizeof(*s));
	if (s)
		p->scratch_status = s;
	unsigned char *st = realloc(p->scratch_state, cap);
	if (st)
		p->scratch_state = st;
	const struct node_info **f = realloc(p->scratch_feasible, cap * sizeof(*f));
	if (f)
		p->scratch_feasible = f;
	const struct node_info **nn = realloc(p->scratch_nodes, cap * sizeof(*nn));
	if (nn)
		p->scratch_nodes = nn;
	if (!s || !st || !f || !nn)
		return err_set(e, ERR_NOMEM, "profile %s: scheduling %zu nodes: out of memory", p->name, n);
	p->scratch_cap = cap;
	return 0;
}

/* The sampled-call arrays for n_pl plugins over n_slots slots, every code FW_CALL_NOT_RUN.
 * False on out of memory (the cycle then goes unsampled rather than failing). */
bool fw_call_scratch(struct fw_profile *p, uint32_t n_pl, size_t n_slots)
{
	size_t need = (size_t)n_pl * n_slots;
	if (need > p->scratch_calls_cap) {
		size_t cap = p->scratch_calls_cap ? p->scratch_calls_cap : 1024;
		while (cap < need)
			cap *= 2;
		uint32_t *ticks = realloc(p->scratch_call_ticks, cap * sizeof(*ticks));
		if (ticks)
			p->scratch_call_ticks = ticks;
		uint8_t *code = realloc(p->scratch_call_code, cap);
		if (code)
			p->scratch_call_code = code;
		if (!ticks || !code)
			return false;
		p->scratch_calls_cap = cap;
	}
	memset(p->scratch_call_code, FW_CALL_NOT_RUN, need);
	return true;
}

/* No Filter plugin: the first to_find nodes from the rotating start are feasible. */
static uint32_t take_unfiltered(struct fw_profile *p, const struct node_info *const *nodes, uint32_t n,
				uint32_t to_find)
{
	for (uint32_t i = 0; i < to_find; i++)
		p->scratch_feasible[i] = nodes[(p->next_start + i) % n];
	return to_find;
}

static int filter_job_init(struct filter_job *j, struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *const *nodes, uint32_t n, uint32_t to_find)
{
	memset(j, 0, sizeof(*j));
	j->p = p;
	j->c = c;
	j->pod = pod;
	j->nodes = nodes;
	j->n = n;
	j->start = p->next_start % n;
	j->to_find = to_find;
	j->status = p->scratch_status;
	j->state = p->scratch_state;
	j->n_workers = (uint32_t)fw_pool_workers(p->pool);
	j->workers = fw_cycle_alloc(c, j->n_workers * sizeof(*j->workers));
	if (!j->workers)
		return ERR_NOMEM;
	for (uint32_t w = 0; w < j->n_workers; w++)
		j->workers[w].flush_at = flush_batch(j, 0);
	filter_set_init(&j->fs, p, c);
	atomic_init(&j->feasible_len, 0);
	atomic_init(&j->stop, false);
	atomic_init(&j->err_claimed, false);
	atomic_init(&j->calls_hi, 0);
	memset(j->state, 0, n);
	j->rows = c->nominated ? 2 : 1;
	if (c->record_plugins && fw_call_scratch(p, p->n_points[CFG_EP_FILTER], j->rows * n)) {
		j->call_ticks = p->scratch_call_ticks;
		j->call_code = p->scratch_call_code;
		j->n_slots = j->rows * n;
	}
	return 0;
}

/* Only candidates below the highest one run were examined. Upstream keeps the first to_find
 * feasible nodes to finish and drops the rest; here the first to_find by index (the same ones
 * with one worker, which runs them in order), and the failures before the next feasible node
 * (upstream's serial loop stops at that node). Candidates past it (*cut) count as not run.
 * Returns how many feasible nodes were kept in feasible. */
static uint32_t collect_feasible(const struct filter_job *j, const struct node_info **feasible, uint32_t *cut,
				 uint32_t *n_failed)
{
	uint32_t hi = 0;
	for (uint32_t w = 0; w < j->n_workers; w++)
		if (j->workers[w].hi > hi)
			hi = j->workers[w].hi;
	uint32_t kept = 0;
	*n_failed = 0;
	*cut = hi;
	for (uint32_t i = 0; i < hi; i++) {
		if (j->state[i] == CAND_FEASIBLE) {
			if (kept == j->to_find) {
				*cut = i;
				break;
			}
			feasible[kept++] = j->nodes[(j->start + i) % j->n];
		} else if (j->state[i] == CAND_FAILED) {
			(*n_failed)++;
		}
	}
	return kept;
}

/* Appends the failures below cut to the diagnosis, in the order the nodes were tried. */
static int record_failures(const struct filter_job *j, struct fw_cycle *c, uint32_t cut, uint32_t n_failed,
			   struct fw_diagnosis *d)
{
	uint32_t base = d->n_node_status;
	struct fw_node_status *ns = fw_cycle_alloc(c, (base + n_failed) * sizeof(*ns));
	if (!ns)
		return ERR_NOMEM;
	if (base)
		memcpy(ns, d->node_status, base * sizeof(*ns));
	uint32_t k = base;
	for (uint32_t i = 0; i < cut; i++) {
		if (j->state[i] != CAND_FAILED)
			continue;
		const struct fw_status *st = &j->status[i];
		ns[k++] = (struct fw_node_status){ j->nodes[(j->start + i) % j->n]->name, st };
		if (st->plugin)
			fw_diag_add_plugin_status(d, st);
	}
	d->node_status = ns;
	d->n_node_status = k;
	return 0;
}

int fw_find_nodes_that_pass_filters(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				    const struct node_info *const *nodes, uint32_t n,
				    struct fw_schedule_result *res, uint32_t *n_feasible, struct err *e)
{
	*n_feasible = 0;
	if (!n) {
		if (p->n_points[CFG_EP_FILTER]) /* upstream times the empty pass too */
			fw_cycle_record_ep(c, FW_EP_FILTER, FW_SUCCESS, fw_now_ns());
		return 0;
	}
	int32_t pct = p->has_pct ? p->pct : p->global_pct;
	/* upstream: one node is enough only without extender filters and without any scoring */
	bool more = fw_has_scoring(p) || fw_ext_has_filters(p) || fw_ext_has_prioritizers(p);
	uint32_t to_find = more ? fw_num_feasible_nodes_to_find(pct, n) : 1;
	if (!p->n_points[CFG_EP_FILTER]) {
		*n_feasible = take_unfiltered(p, nodes, n, to_find);
		return 0;
	}
	/* upstream times the whole pass (Success unless a plugin errs), not each node */
	int64_t t_filter = fw_now_ns();
	struct filter_job j;
	if (filter_job_init(&j, p, c, pod, nodes, n, to_find) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: filtering: out of memory", p->name);
	fw_pool_run_w(p->pool, n, filter_one, &j, &j.stop);

	uint32_t cut, n_failed;
	*n_feasible = collect_feasible(&j, p->scratch_feasible, &cut, &n_failed);
	if (n_failed && record_failures(&j, c, cut, n_failed, &res->diag) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: recording filter results: out of memory", p->name);
	int rc = 0;
	if (atomic_load(&j.err_claimed)) {
		res->status = j.err;
		rc = 1; /* a plugin error: res->status says which */
	}
	fw_cycle_record_ep(c, FW_EP_FILTER, rc ? FW_ERROR : FW_SUCCESS, t_filter);
	if (j.call_ticks)
		fw_cycle_record_calls(c, FW_EP_FILTER, p->points[CFG_EP_FILTER], p->n_points[CFG_EP_FILTER], j.call_ticks,
				      j.call_code, j.n_slots, j.rows * atomic_load(&j.calls_hi));
	return rc;
}
