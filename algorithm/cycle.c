/* The generic scheduling algorithm (upstream schedule_one.go schedulePod / findNodesThatFitPod /
 * findNodesThatPassFilters / prioritizeNodes / selectHost and framework/types.go FitError).
 *
 * DESIGN: runs on the scheduler thread. Filter and Score fan out over the profile's worker pool:
 * a worker handling candidate i writes only slot i of the per-node arrays (status, state, score
 * row); Filter workers count feasible nodes privately and add them to a shared counter in
 * batches (filter_one), and the feasible list is collected from the states afterwards; the first
 * plugin error is claimed with an atomic flag and copied into the job. fw_pool_run returns after every
 * started piece finished (its mutex orders the workers' writes before our reads). The snapshot,
 * pod and cycle state are read-only while workers run; nominated pods are prepared beforehand
 * into a read-only map. */
#include "algorithm/framework_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/log.h"
#include "common/map.h"

#define MIN_FEASIBLE_NODES_TO_FIND 100
#define MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND 5

uint32_t fw_num_feasible_nodes_to_find(int32_t percentage, uint32_t num_all_nodes)
{
	if (num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND)
		return num_all_nodes;
	int64_t pct = percentage;
	if (pct == 0) {
		pct = 50 - (int64_t)num_all_nodes / 125;
		if (pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
			pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
	}
	int64_t n = (int64_t)num_all_nodes * pct / 100;
	if (n < MIN_FEASIBLE_NODES_TO_FIND)
		return MIN_FEASIBLE_NODES_TO_FIND;
	return (uint32_t)n;
}

void fw_default_normalize_score(int64_t max_priority, bool reverse, struct fw_node_score *scores, uint32_t n)
{
	int64_t max = 0;
	for (uint32_t i = 0; i < n; i++)
		if (scores[i].score > max)
			max = scores[i].score;
	if (max == 0) {
		if (reverse)
			for (uint32_t i = 0; i < n; i++)
				scores[i].score = max_priority;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		int64_t s = max_priority * scores[i].score / max;
		scores[i].score = reverse ? max_priority - s : s;
	}
}

/* xorshift64*: the tie-break RNG (seedable for tests). */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* ---------- Diagnosis ---------- */

static void name_set_add(const char **set, uint32_t *n, const char *name)
{
	for (uint32_t i = 0; i < *n; i++)
		if (set[i] == name || strcmp(set[i], name) == 0)
			return;
	if (*n < FW_MAX_PLUGINS)
		set[(*n)++] = name;
}

/* upstream Diagnosis.AddPluginStatus */
static void diag_add_plugin_status(struct fw_diagnosis *d, const struct fw_status *st)
{
	if (!st->plugin)
		return;
	if (fw_code_is_rejected(st->code))
		name_set_add(d->unschedulable_plugins, &d->n_unschedulable_plugins, st->plugin);
	if (st->code == FW_PENDING)
		name_set_add(d->pending_plugins, &d->n_pending_plugins, st->plugin);
}

/* ---------- Filters with nominated pods ---------- */

/* Where a sampled cycle's worker writes the duration (fw_ticks) and code of plugin k's call for
 * one node (ticks[k * stride], code[k * stride]); NULL in unsampled cycles. */
struct call_slot {
	uint32_t *ticks;
	uint8_t *code;
	size_t stride;
};

/* A plugin call's duration, saturated (a second-long call lands in +Inf either way); a negative one
 * (the thread moved to a core whose counter lags) counts as 0. */
static uint32_t call_ticks(int64_t ticks)
{
	return ticks > UINT32_MAX ? UINT32_MAX : ticks < 0 ? 0 : (uint32_t)ticks;
}

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
			rec->ticks[fs->at[i] * rec->stride] = call_ticks(now - t);
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
static int prepare_nominated(struct fw_cycle *c, const struct api_pod *pod, const struct fw_nominated *nom,
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

static int ensure_scratch(struct fw_profile *p, size_t n, struct err *e)
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
static bool call_scratch(struct fw_profile *p, uint32_t n_pl, size_t n_slots)
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

static bool has_scoring(const struct fw_profile *p)
{
	return p->n_points[CFG_EP_SCORE] > 0;
}

/* upstream findNodesThatPassFilters. Failed nodes are appended to the diagnosis (arena). */
static int find_nodes_that_pass_filters(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
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
	uint32_t to_find = fw_num_feasible_nodes_to_find(pct, n);
	if (!has_scoring(p))
		to_find = 1;
	if (!p->n_points[CFG_EP_FILTER]) {
		for (uint32_t i = 0; i < to_find; i++)
			p->scratch_feasible[i] = nodes[(p->next_start + i) % n];
		*n_feasible = to_find;
		return 0;
	}
	/* upstream times the whole pass (Success unless a plugin errs), not each node */
	int64_t t_filter = fw_now_ns();
	struct filter_job j = {
		.p = p, .c = c, .pod = pod, .nodes = nodes, .n = n, .start = p->next_start % n,
		.to_find = to_find, .status = p->scratch_status, .state = p->scratch_state,
		.n_workers = (uint32_t)fw_pool_workers(p->pool),
	};
	j.workers = fw_cycle_alloc(c, j.n_workers * sizeof(*j.workers));
	if (!j.workers)
		return err_set(e, ERR_NOMEM, "profile %s: filtering: out of memory", p->name);
	for (uint32_t w = 0; w < j.n_workers; w++)
		j.workers[w].flush_at = flush_batch(&j, 0);
	filter_set_init(&j.fs, p, c);
	atomic_init(&j.feasible_len, 0);
	atomic_init(&j.stop, false);
	atomic_init(&j.err_claimed, false);
	atomic_init(&j.calls_hi, 0);
	memset(j.state, 0, n);
	j.rows = c->nominated ? 2 : 1;
	if (c->record_plugins && call_scratch(p, p->n_points[CFG_EP_FILTER], j.rows * n)) {
		j.call_ticks = p->scratch_call_ticks;
		j.call_code = p->scratch_call_code;
		j.n_slots = j.rows * n;
	}
	fw_pool_run_w(p->pool, n, filter_one, &j, &j.stop);

	/* Only candidates below the highest one run were examined. Upstream keeps the first to_find
	 * feasible nodes to finish and drops the rest; here the first to_find by index (the same ones
	 * with one worker, which runs them in order), and the failures before the next feasible node
	 * (upstream's serial loop stops at that node). Candidates past it count as not run. */
	uint32_t hi = 0;
	for (uint32_t w = 0; w < j.n_workers; w++)
		if (j.workers[w].hi > hi)
			hi = j.workers[w].hi;
	uint32_t n_failed = 0, kept = 0, cut = hi;
	for (uint32_t i = 0; i < hi; i++) {
		if (j.state[i] == CAND_FEASIBLE) {
			if (kept == to_find) {
				cut = i;
				break;
			}
			p->scratch_feasible[kept++] = nodes[(j.start + i) % n];
		} else if (j.state[i] == CAND_FAILED) {
			n_failed++;
		}
	}
	*n_feasible = kept;

	/* failures, in the order the nodes were tried */
	struct fw_diagnosis *d = &res->diag;
	uint32_t base = d->n_node_status;
	if (n_failed) {
		struct fw_node_status *ns = fw_cycle_alloc(c, (base + n_failed) * sizeof(*ns));
		if (!ns)
			return err_set(e, ERR_NOMEM, "profile %s: recording filter results: out of memory", p->name);
		if (base)
			memcpy(ns, d->node_status, base * sizeof(*ns));
		uint32_t k = base;
		for (uint32_t i = 0; i < cut; i++) {
			if (j.state[i] != CAND_FAILED)
				continue;
			const struct fw_status *st = &j.status[i];
			ns[k++] = (struct fw_node_status){ nodes[(j.start + i) % n]->name, st };
			if (st->plugin)
				diag_add_plugin_status(d, st);
		}
		d->node_status = ns;
		d->n_node_status = k;
	}
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

/* ---------- PreFilter ---------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "[A B]" as Go prints a sorted []string. */
static void format_plugin_list(const char **names, uint32_t n, char *buf, size_t size)
{
	const char *sorted[FW_MAX_PLUGINS];
	memcpy(sorted, names, n * sizeof(*names));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	size_t off = 0;
	int w = snprintf(buf, size, "[");
	off = w > 0 ? (size_t)w : 0;
	for (uint32_t i = 0; i < n && off < size; i++) {
		w = snprintf(buf + off, size - off, "%s%s", i ? " " : "", sorted[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (off < size)
		snprintf(buf + off, size - off, "]");
}

/* Intersects *cur (NULL = all) with next; the result lives in the cycle arena. */
static int intersect_names(struct fw_cycle *c, struct fw_node_names *cur, const struct fw_node_names *next)
{
	if (next->all)
		return 0;
	if (cur->all) {
		const char **names = fw_cycle_alloc(c, (next->n + 1) * sizeof(*names));
		if (!names)
			return ERR_NOMEM;
		/* dedupe: a plugin may list a node twice */
		struct map m;
		map_init(&m);
		uint32_t k = 0;
		for (uint32_t i = 0; i < next->n; i++) {
			if (!next->names[i] || map_get(&m, next->names[i]))
				continue;
			if (map_put(&m, next->names[i], (void *)next->names[i], NULL) < 0) {
				map_release(&m);
				return ERR_NOMEM;
			}
			names[k++] = next->names[i];
		}
		map_release(&m);
		cur->all = false;
		cur->names = names;
		cur->n = k;
		return 0;
	}
	struct map m;
	map_init(&m);
	for (uint32_t i = 0; i < next->n; i++)
		if (next->names[i] && map_put(&m, next->names[i], (void *)next->names[i], NULL) < 0) {
			map_release(&m);
			return ERR_NOMEM;
		}
	uint32_t k = 0;
	for (uint32_t i = 0; i < cur->n; i++)
		if (map_get(&m, cur->names[i]))
			cur->names[k++] = cur->names[i];
	cur->n = k;
	map_release(&m);
	return 0;
}

enum prefilter_outcome { PF_OK, PF_REJECTED, PF_ERROR };

/* upstream RunPreFilterPlugins + the rejection handling of findNodesThatFitPod. */
static int run_pre_filter(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			  struct fw_node_names *result, const char **with_nodes, uint32_t *n_with_nodes,
			  struct fw_schedule_result *res, enum prefilter_outcome *outcome, struct err *e)
{
	struct fw_status st, rejected;
	bool have_rejected = false;
	struct fw_diagnosis *d = &res->diag;
	char msg[FW_STATUS_TEXT_MAX];

	result->all = true;
	result->n = 0;
	result->names = NULL;
	*n_with_nodes = 0;
	*outcome = PF_OK;
	for (uint32_t i = 0; i < p->n_points[CFG_EP_PRE_FILTER]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_PRE_FILTER][i];
		struct fw_node_names r = { .all = true };
		fw_status_reset(&st);
		int64_t t0 = fw_plugin_clock(c);
		enum fw_code code = pl->plugin->pre_filter(pl, c, pod, &r, &st);
		fw_cycle_record_plugin(c, pl, FW_EP_PRE_FILTER, code, t0);
		st.code = code;
		if (code == FW_SKIP) {
			c->skip_filter[pl->index] = true;
			continue;
		}
		if (code != FW_SUCCESS) {
			st.plugin = pl->plugin->name;
			if (code == FW_UNSCHEDULABLE_AND_UNRESOLVABLE) {
				/* no preemption can help: the remaining PreFilters need not run */
				*n_with_nodes = 0;
				rejected = st;
				have_rejected = true;
				break;
			}
			if (code == FW_UNSCHEDULABLE) {
				/* preemption may still help: run every PreFilter so its state exists */
				rejected = st;
				have_rejected = true;
				continue;
			}
			fw_status_message(&st, msg, sizeof(msg));
			fw_status_setf(&res->status, FW_ERROR, "running PreFilter plugin \"%s\": %s", pl->plugin->name, msg);
			res->status.plugin = pl->plugin->name;
			*outcome = PF_ERROR;
			return 0;
		}
		if (!r.all) {
			name_set_add(with_nodes, n_with_nodes, pl->plugin->name);
			if (intersect_names(c, result, &r) < 0)
				return err_set(e, ERR_NOMEM, "PreFilter %s: out of memory", pl->plugin->name);
			if (result->n == 0) {
				char list[256];
				if (*n_with_nodes == 1) {
					fw_status_setf(&rejected, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
						       "node(s) didn't satisfy plugin %s", with_nodes[0]);
				} else {
					format_plugin_list(with_nodes, *n_with_nodes, list, sizeof(list));
					fw_status_setf(&rejected, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
						       "node(s) didn't satisfy plugin(s) %s simultaneously", list);
				}
				have_rejected = true;
				break;
			}
		}
	}
	for (uint32_t i = 0; i < *n_with_nodes; i++)
		name_set_add(d->unschedulable_plugins, &d->n_unschedulable_plugins, with_nodes[i]);
	if (!have_rejected)
		return 0;
	d->has_absent_status = true;
	d->absent_status = rejected;
	fw_status_message(&rejected, d->pre_filter_msg, sizeof(d->pre_filter_msg));
	diag_add_plugin_status(d, &rejected);
	res->code = FW_UNSCHEDULABLE;
	res->status = rejected;
	*outcome = PF_REJECTED;
	return 0;
}

/* ---------- Score ---------- */

struct score_job {
	const struct fw_profile *p;
	const struct fw_cycle *c;
	const struct api_pod *pod;
	const struct node_info *const *nodes;
	uint32_t n_nodes;
	uint32_t n_pl;
	const struct fw_pl **pls;
	int64_t *scores; /* [n_pl][n_nodes] */
	_Atomic bool stop;
	_Atomic bool err_claimed;
	struct fw_status err;
	uint32_t *call_ticks; /* sampled cycles: plugin k's call on node i at [k * n_nodes + i] */
	uint8_t *call_code;   /* NULL otherwise */
};

static void score_one(void *ctx, size_t i)
{
	struct score_job *j = ctx;
	struct fw_status st;
	int64_t t = j->call_ticks ? fw_ticks() : 0;
	/* stop is checked per node by the pool: a node's few calls finish after another's error */
	for (uint32_t k = 0; k < j->n_pl; k++) {
		const struct fw_pl *pl = j->pls[k];
		int64_t s = 0;
		fw_status_reset(&st);
		enum fw_code code = pl->plugin->score(pl, j->c, j->pod, j->nodes[i], &s, &st);
		if (j->call_ticks) {
			int64_t now = fw_ticks();
			j->call_ticks[(size_t)k * j->n_nodes + i] = call_ticks(now - t);
			j->call_code[(size_t)k * j->n_nodes + i] = (uint8_t)code;
			t = now;
		}
		if (code != FW_SUCCESS) {
			bool expected = false;
			if (atomic_compare_exchange_strong(&j->err_claimed, &expected, true)) {
				char msg[FW_STATUS_TEXT_MAX];
				st.code = code;
				fw_status_message(&st, msg, sizeof(msg));
				fw_status_setf(&j->err, FW_ERROR, "running Score plugins: plugin \"%s\" failed with: %s",
					       pl->plugin->name, msg);
				j->err.plugin = pl->plugin->name;
			}
			atomic_store(&j->stop, true);
			return;
		}
		j->scores[(size_t)k * j->n_nodes + i] = s;
	}
}

/* Makes room for n_scores plugin scores and n_nodes node scores in the profile's scratch. */
static int score_scratch(struct fw_profile *p, size_t n_scores, size_t n_nodes)
{
	if (n_scores > p->scratch_scores_cap) {
		size_t cap = p->scratch_scores_cap ? p->scratch_scores_cap : 1024;
		while (cap < n_scores)
			cap *= 2;
		int64_t *s = realloc(p->scratch_scores, cap * sizeof(*s));
		if (!s)
			return ERR_NOMEM;
		p->scratch_scores = s;
		p->scratch_scores_cap = cap;
	}
	if (n_nodes > p->scratch_node_scores_cap) {
		size_t cap = p->scratch_node_scores_cap ? p->scratch_node_scores_cap : 256;
		while (cap < n_nodes)
			cap *= 2;
		struct fw_node_score *ns = realloc(p->scratch_node_scores, cap * sizeof(*ns));
		if (!ns)
			return ERR_NOMEM;
		p->scratch_node_scores = ns;
		p->scratch_node_scores_cap = cap;
	}
	return 0;
}

/* The end of upstream's RunScorePlugins: the Score point's timing, then (sampled cycles) the
 * calls of every score plugin. Returns 0 on Success, 1 on Error. */
static int score_done(struct fw_cycle *c, const struct score_job *j, enum fw_code code, int64_t start_ns)
{
	fw_cycle_record_ep(c, FW_EP_SCORE, code, start_ns);
	if (j->call_ticks)
		fw_cycle_record_calls(c, FW_EP_SCORE, j->pls, j->n_pl, j->call_ticks, j->call_code, j->n_nodes, j->n_nodes);
	return code == FW_SUCCESS ? 0 : 1;
}

/* upstream prioritizeNodes + selectHost. Returns 0 with res->suggested_host set, 1 on a plugin
 * error (res->status), or a negative code. */
static int prioritize_and_select(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				 const struct node_info *const *nodes, uint32_t n, struct fw_schedule_result *res,
				 struct err *e)
{
	int64_t *totals = fw_cycle_alloc(c, n * sizeof(*totals));
	if (!totals)
		return err_set(e, ERR_NOMEM, "profile %s: scoring: out of memory", p->name);
	if (!has_scoring(p)) {
		for (uint32_t i = 0; i < n; i++)
			totals[i] = 1;
	} else {
		struct fw_status st;
		char msg[FW_STATUS_TEXT_MAX];
		int64_t t_pre_score = fw_now_ns();
		for (uint32_t i = 0; i < p->n_points[CFG_EP_PRE_SCORE]; i++) {
			const struct fw_pl *pl = p->points[CFG_EP_PRE_SCORE][i];
			fw_status_reset(&st);
			int64_t t0 = fw_plugin_clock(c);
			enum fw_code code = pl->plugin->pre_score(pl, c, pod, nodes, n, &st);
			fw_cycle_record_plugin(c, pl, FW_EP_PRE_SCORE, code, t0);
			if (code == FW_SKIP) {
				c->skip_score[pl->index] = true;
				continue;
			}
			if (code != FW_SUCCESS) {
				st.code = code;
				fw_status_message(&st, msg, sizeof(msg));
				fw_status_setf(&res->status, FW_ERROR, "running PreScore plugin \"%s\": %s",
					       pl->plugin->name, msg);
				res->status.plugin = pl->plugin->name;
				fw_cycle_record_ep(c, FW_EP_PRE_SCORE, FW_ERROR, t_pre_score);
				return 1;
			}
		}
		fw_cycle_record_ep(c, FW_EP_PRE_SCORE, FW_SUCCESS, t_pre_score);
		int64_t t_score = fw_now_ns();
		struct score_job j = { .p = p, .c = c, .pod = pod, .nodes = nodes, .n_nodes = n };
		j.pls = fw_cycle_alloc(c, p->n_points[CFG_EP_SCORE] * sizeof(*j.pls));
		if (!j.pls)
			return err_set(e, ERR_NOMEM, "profile %s: scoring: out of memory", p->name);
		for (uint32_t i = 0; i < p->n_points[CFG_EP_SCORE]; i++) {
			const struct fw_pl *pl = p->points[CFG_EP_SCORE][i];
			if (c->skip_score[pl->index])
				continue;
			/* per-pod work of a plugin without PreScore; Skip: every node would score 0 */
			fw_pre_score_fn prepare = fw_score_prepare_of(pl->plugin);
			if (prepare && prepare(pl, c, pod, nodes, n, &st) == FW_SKIP)
				continue;
			j.pls[j.n_pl++] = pl;
		}
		/* every slot is written before it is read: no zeroing (~28 KB per pod at 500 nodes) */
		if (score_scratch(p, (size_t)j.n_pl * n, n) < 0)
			return err_set(e, ERR_NOMEM, "profile %s: scoring: out of memory", p->name);
		j.scores = p->scratch_scores;
		struct fw_node_score *ns = p->scratch_node_scores;
		atomic_init(&j.stop, false);
		atomic_init(&j.err_claimed, false);
		if (c->record_plugins && j.n_pl && call_scratch(p, j.n_pl, n)) {
			j.call_ticks = p->scratch_call_ticks;
			j.call_code = p->scratch_call_code;
		}
		if (j.n_pl)
			fw_pool_run(p->pool, n, score_one, &j, &j.stop);
		if (atomic_load(&j.err_claimed)) {
			res->status = j.err;
			return score_done(c, &j, FW_ERROR, t_score);
		}
		for (uint32_t k = 0; k < j.n_pl; k++) {
			const struct fw_pl *pl = j.pls[k];
			int64_t *row = j.scores + (size_t)k * n;
			if (pl->plugin->normalize_score) {
				for (uint32_t i = 0; i < n; i++)
					ns[i] = (struct fw_node_score){ nodes[i], row[i] };
				fw_status_reset(&st);
				int64_t t0 = fw_plugin_clock(c);
				enum fw_code code = pl->plugin->normalize_score(pl, c, pod, ns, n, &st);
				fw_cycle_record_plugin(c, pl, FW_EP_SCORE_NORMALIZE, code, t0);
				if (code != FW_SUCCESS) {
					st.code = code;
					fw_status_message(&st, msg, sizeof(msg));
					fw_status_setf(&res->status, FW_ERROR,
						       "running Normalize on Score plugins: plugin \"%s\" failed with: %s",
						       pl->plugin->name, msg);
					res->status.plugin = pl->plugin->name;
					return score_done(c, &j, FW_ERROR, t_score);
				}
				for (uint32_t i = 0; i < n; i++)
					row[i] = ns[i].score;
			}
			int64_t w = p->weights[pl->index];
			for (uint32_t i = 0; i < n; i++) {
				if (row[i] > FW_MAX_NODE_SCORE || row[i] < FW_MIN_NODE_SCORE) {
					fw_status_setf(&res->status, FW_ERROR,
						       "applying score defaultWeights on Score plugins: plugin \"%s\" returns an invalid score %lld, it should in the range of [%d, %d] after normalizing",
						       pl->plugin->name, (long long)row[i], FW_MIN_NODE_SCORE,
						       FW_MAX_NODE_SCORE);
					res->status.plugin = pl->plugin->name;
					return score_done(c, &j, FW_ERROR, t_score);
				}
				totals[i] += row[i] * w;
			}
		}
		score_done(c, &j, FW_SUCCESS, t_score);
	}
	/* selectHost: the highest total; ties chosen uniformly by reservoir sampling */
	uint32_t best = 0, count = 1;
	for (uint32_t i = 1; i < n; i++) {
		if (totals[i] > totals[best]) {
			best = i;
			count = 1;
		} else if (totals[i] == totals[best]) {
			count++;
			if (rng_next(&p->rng) % count == 0)
				best = i;
		}
	}
	res->suggested_host = nodes[best]->name;
	return 0;
}

/* ---------- The cycle ---------- */

static const struct node_info *list_get(const struct fw_node_list *l, const char *name)
{
	if (l->get)
		return l->get(l->get_ctx, name);
	for (uint32_t i = 0; i < l->n; i++)
		if (l->nodes[i]->name == name || strcmp(l->nodes[i]->name, name) == 0)
			return l->nodes[i];
	return NULL;
}

static void result_init(struct fw_schedule_result *res, uint32_t num_all_nodes)
{
	res->code = FW_SUCCESS;
	res->suggested_host = NULL;
	res->evaluated_nodes = 0;
	res->feasible_nodes = 0;
	fw_status_reset(&res->status);
	struct fw_diagnosis *d = &res->diag;
	d->num_all_nodes = num_all_nodes;
	d->n_node_status = 0;
	d->node_status = NULL;
	d->has_absent_status = false;
	fw_status_reset(&d->absent_status);
	d->pre_filter_msg[0] = '\0';
	d->post_filter_msg[0] = '\0';
	d->n_unschedulable_plugins = 0;
	d->n_pending_plugins = 0;
}

/* Makes a failed status of the nominated-node pass survive the main pass (which reuses the
 * scratch statuses). */
static int keep_nominated_status(struct fw_cycle *c, struct fw_diagnosis *d)
{
	for (uint32_t i = 0; i < d->n_node_status; i++) {
		struct fw_status *copy = fw_cycle_alloc(c, sizeof(*copy));
		if (!copy)
			return ERR_NOMEM;
		*copy = *d->node_status[i].status;
		((struct fw_node_status *)d->node_status)[i].status = copy;
	}
	return 0;
}

/* The nominated node's failure stays recorded unless the main pass tried it again. */
static void merge_nominated_status(struct fw_diagnosis *d, uint32_t n_nominated)
{
	if (!n_nominated)
		return;
	const struct fw_node_status nom = d->node_status[0];
	struct fw_node_status *ns = (struct fw_node_status *)d->node_status;
	bool retried = false;
	for (uint32_t i = n_nominated; i < d->n_node_status; i++)
		if (ns[i].node_name == nom.node_name)
			retried = true;
	if (retried) {
		memmove(ns, ns + 1, (d->n_node_status - 1) * sizeof(*ns));
		d->n_node_status--;
	}
}

int fw_schedule_pod(struct fw_profile *p, struct fw_cycle *c, const struct fw_node_list *nodes,
		    const struct api_pod *pod, const struct fw_nominated *nominated,
		    struct fw_schedule_result *res, struct err *e)
{
	const char *with_nodes[FW_MAX_PLUGINS];
	uint32_t n_with_nodes = 0;
	struct fw_node_names names;
	enum prefilter_outcome pf;
	uint32_t n_feasible = 0;
	int rc;

	if (!p || !c || !nodes || !pod || !res || (nodes->n && !nodes->nodes))
		return err_set(e, ERR_INVALID, "fw_schedule_pod: missing argument");
	if (c->profile != p)
		return err_set(e, ERR_INVALID, "fw_schedule_pod: cycle state of another profile");
	if (c->used)
		return err_set(e, ERR_INVALID, "fw_schedule_pod: cycle state already used (fw_cycle_reset it)");
	c->used = true;
	result_init(res, nodes->n);
	if (nodes->n == 0) {
		fw_status_set(&res->status, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "no nodes available to schedule pods");
		res->code = FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
		return 0;
	}
	if ((rc = ensure_scratch(p, nodes->n, e)) < 0)
		return rc;
	c->nodes = nodes;

	int64_t t_pre_filter = fw_now_ns();
	rc = run_pre_filter(p, c, pod, &names, with_nodes, &n_with_nodes, res, &pf, e);
	fw_cycle_record_ep(c, FW_EP_PRE_FILTER,
			   rc < 0 || pf == PF_ERROR ? FW_ERROR : pf == PF_REJECTED ? res->status.code : FW_SUCCESS,
			   t_pre_filter);
	if (rc < 0)
		return rc;
	if (pf == PF_ERROR) {
		res->code = FW_ERROR;
		return 0;
	}
	if (pf == PF_REJECTED)
		return 0;

	if ((rc = prepare_nominated(c, pod, nominated, e)) < 0)
		return rc;

	/* a node nominated by an earlier preemption is likely the only fit: try it alone first */
	uint32_t n_nominated_status = 0;
	if (pod->nominated_node_name && pod->nominated_node_name[0]) {
		const struct node_info *ni = list_get(nodes, pod->nominated_node_name);
		if (ni) {
			const struct node_info *one[1] = { ni };
			uint32_t saved = p->next_start;
			p->next_start = 0;
			rc = find_nodes_that_pass_filters(p, c, pod, one, 1, res, &n_feasible, e);
			p->next_start = saved;
			if (rc < 0)
				return rc;
			if (rc == 0 && n_feasible == 1) {
				res->suggested_host = ni->name;
				res->feasible_nodes = 1;
				res->evaluated_nodes = 1 + res->diag.n_node_status;
				return 0;
			}
			if (rc > 0) {
				char key[256];
				LOG_WARN("Evaluation failed on nominated node pod=%s node=%s err=%s",
					 api_pod_key(pod, key, sizeof(key)), ni->name, res->status.text);
				fw_status_reset(&res->status);
			}
			n_nominated_status = res->diag.n_node_status;
			if (keep_nominated_status(c, &res->diag) < 0)
				return err_set(e, ERR_NOMEM, "profile %s: out of memory", p->name);
		}
	}

	const struct node_info *const *cand = nodes->nodes;
	uint32_t n_cand = nodes->n;
	if (!names.all) {
		const struct node_info **arr = p->scratch_nodes;
		n_cand = 0;
		for (uint32_t i = 0; i < names.n; i++) {
			const struct node_info *ni = list_get(nodes, names.names[i]);
			if (ni)
				arr[n_cand++] = ni;
		}
		cand = arr;
		char list[256];
		format_plugin_list(with_nodes, n_with_nodes, list, sizeof(list));
		res->diag.has_absent_status = true;
		fw_status_setf(&res->diag.absent_status, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
			       "node(s) didn't satisfy plugin(s) %s", list);
	}
	rc = find_nodes_that_pass_filters(p, c, pod, cand, n_cand, res, &n_feasible, e);
	if (rc < 0)
		return rc;
	merge_nominated_status(&res->diag, n_nominated_status);
	/* always advance, even on error, so every node gets its turn across pods */
	p->next_start = (uint32_t)(((uint64_t)p->next_start + n_feasible + res->diag.n_node_status) % nodes->n);
	if (rc > 0) {
		res->code = FW_ERROR;
		return 0;
	}
	res->feasible_nodes = n_feasible;
	res->evaluated_nodes = n_feasible + res->diag.n_node_status;
	if (n_feasible == 0) {
		res->code = FW_UNSCHEDULABLE;
		fw_status_set(&res->status, FW_UNSCHEDULABLE, NULL);
		return 0;
	}
	if (n_feasible == 1) {
		res->suggested_host = p->scratch_feasible[0]->name;
		return 0;
	}
	rc = prioritize_and_select(p, c, pod, p->scratch_feasible, n_feasible, res, e);
	if (rc < 0)
		return rc;
	if (rc > 0)
		res->code = FW_ERROR;
	return 0;
}

/* ---------- FitError message ---------- */

struct hist_entry {
	const char *reason;
	uint64_t count;
	char *text; /* "<count> <reason>" */
};

static int cmp_hist(const void *a, const void *b)
{
	return strcmp(((const struct hist_entry *)a)->text, ((const struct hist_entry *)b)->text);
}

static int hist_add(struct map *m, struct hist_entry **arr, size_t *n, size_t *cap, const char *reason,
		    uint64_t count)
{
	struct hist_entry *h = map_get(m, reason);
	if (h) {
		h->count += count;
		return 0;
	}
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct hist_entry *na = realloc(*arr, nc * sizeof(*na));
		if (!na)
			return ERR_NOMEM;
		*arr = na;
		*cap = nc;
		/* the map holds pointers into the array: rebuild it */
		map_release(m);
		map_init(m);
		for (size_t i = 0; i < *n; i++)
			if (map_put(m, (*arr)[i].reason, &(*arr)[i], NULL) < 0)
				return ERR_NOMEM;
	}
	(*arr)[*n] = (struct hist_entry){ reason, count, NULL };
	if (map_put(m, reason, &(*arr)[*n], NULL) < 0)
		return ERR_NOMEM;
	(*n)++;
	return 0;
}

const char *fw_fit_error_message(const struct fw_diagnosis *d, char *buf, size_t size)
{
	struct map m;
	struct hist_entry *arr = NULL;
	size_t n = 0, cap = 0, off = 0;
	int w;

	map_init(&m);
	if (!size)
		return buf;
	w = snprintf(buf, size, "0/%u nodes are available:", d->num_all_nodes);
	off = w > 0 ? (size_t)w : 0;
	if (d->pre_filter_msg[0]) {
		if (off < size) {
			w = snprintf(buf + off, size - off, " %s.", d->pre_filter_msg);
			off += w > 0 ? (size_t)w : 0;
		}
	} else {
		for (uint32_t i = 0; i < d->n_node_status; i++) {
			const struct fw_status *st = d->node_status[i].status;
			for (const char *r = fw_status_reason_next(st, NULL); r; r = fw_status_reason_next(st, r))
				if (hist_add(&m, &arr, &n, &cap, r, 1) < 0)
					goto oom;
		}
		if (d->has_absent_status && d->n_node_status < d->num_all_nodes) {
			const struct fw_status *st = &d->absent_status;
			for (const char *r = fw_status_reason_next(st, NULL); r; r = fw_status_reason_next(st, r))
				if (hist_add(&m, &arr, &n, &cap, r, d->num_all_nodes - d->n_node_status) < 0)
					goto oom;
		}
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(arr[i].reason) + 24;
			arr[i].text = malloc(len);
			if (!arr[i].text)
				goto oom;
			snprintf(arr[i].text, len, "%llu %s", (unsigned long long)arr[i].count, arr[i].reason);
		}
		/* Go's sort.Strings: byte order, so "10 ..." sorts before "2 ..." */
		qsort(arr, n, sizeof(*arr), cmp_hist);
		for (size_t i = 0; i < n && off < size; i++) {
			w = snprintf(buf + off, size - off, "%s%s%s", i ? ", " : " ", arr[i].text, i + 1 == n ? "." : "");
			off += w > 0 ? (size_t)w : 0;
		}
	}
	if (d->post_filter_msg[0] && off < size)
		snprintf(buf + off, size - off, " %s", d->post_filter_msg);
	goto out;
oom:
	snprintf(buf, size, "0/%u nodes are available: (out of memory formatting reasons)", d->num_all_nodes);
out:
	for (size_t i = 0; i < n; i++)
		free(arr[i].text);
	free(arr);
	map_release(&m);
	return buf;
}
