/* DefaultPreemption (upstream framework/plugins/defaultpreemption and framework/preemption,
 * v1.37.2, single pods: GenericWorkload is off, so every victim is one pod and IsEligiblePod is
 * upstream's default, true). PostFilter is upstream Evaluator.Preempt: a pod that fits nowhere
 * looks for nodes where evicting lower-priority pods makes room, picks one, asks the scheduler's
 * executor to evict there (fw_preempt_actuate) and nominates that node.
 *
 * Deliberate differences (docs/config.md "Plugin differences"): the dry run checks the potential
 * nodes one by one from the offset, so it stops exactly where upstream's counting says (upstream's
 * parallel run may check a few more); potential nodes are taken in the diagnosis' order, not a Go
 * map's; the offset comes from a seeded PRNG; ties that upstream leaves to Go map order or to
 * time.Now() go to the first candidate. */
#include "framework_internal.h"
#include "preemption_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "DefaultPreemption"
#define MSG_NO_VICTIMS "No preemption victims found for incoming pod"
#define MSG_NOT_HELPFUL "Preemption is not helpful for scheduling"

/* A pod without status.startTime starts "now" (upstream GetPodStartTime): after any real start. */
#define START_NOW INT64_MAX

struct dp_priv {
	int32_t pct, abs;
	uint64_t rng;         /* xorshift64* state; PostFilter (scheduler thread) only */
	int32_t fixed_offset; /* >= 0: the offset (tests, as upstream's getOffsetRand override) */
};

static int init(struct fw_pl *pl, struct err *e)
{
	const struct cfg_preemption_args *a = pl->args;
	struct dp_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(e, ERR_NOMEM, NAME ": out of memory");
	p->pct = a ? a->min_candidate_nodes_percentage : 10;
	p->abs = a ? a->min_candidate_nodes_absolute : 100;
	p->rng = (uint64_t)mono_ns() ^ (uint64_t)(uintptr_t)p ^ 0x9e3779b97f4a7c15ull;
	if (!p->rng)
		p->rng = 1;
	p->fixed_offset = -1;
	pl->priv = p;
	return 0;
}

static void release(struct fw_pl *pl)
{
	free(pl->priv);
	pl->priv = NULL;
}

void fw_default_preemption_set_offset(const struct fw_pl *pl, int32_t offset)
{
	((struct dp_priv *)pl->priv)->fixed_offset = offset;
}

static uint32_t rand_below(struct dp_priv *p, uint32_t n)
{
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return (uint32_t)((p->rng * 0x2545f4914f6cdd1dull) >> 33) % n;
}

/* upstream calculateNumCandidates */
int32_t fw_preemption_num_candidates(int32_t pct, int32_t abs, int32_t num_nodes)
{
	int32_t n = (int32_t)(((int64_t)num_nodes * pct) / 100);
	if (n < abs)
		n = abs;
	if (n > num_nodes)
		n = num_nodes;
	return n;
}

/* ---------- Victims ---------- */

static int64_t start_of(const struct api_pod *p)
{
	return p->has_start_time ? p->start_time_us : START_NOW;
}

/* upstream MoreImportantVictim for two single-pod victims: higher priority, then the earlier start
 * (rank and size are equal). */
bool fw_more_important_victim(const struct api_pod *a, const struct api_pod *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority;
	return start_of(a) < start_of(b);
}

/* A stable sort by fw_more_important_victim (upstream sort.Slice; its order of equal victims is
 * unspecified). Victims per node are few: insertion sort. */
static void sort_victims(struct api_pod **v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct api_pod *x = v[i];
		uint32_t j = i;
		while (j > 0 && fw_more_important_victim(x, v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* upstream PodTerminatingByPreemption */
bool fw_pod_terminating_by_preemption(const struct api_pod *p)
{
	if (!p->meta.being_deleted)
		return false;
	for (uint32_t i = 0; i < p->n_conditions; i++) {
		const struct api_condition *c = &p->conditions[i];
		if (c->type && !strcmp(c->type, "DisruptionTarget"))
			return c->status && !strcmp(c->status, "True") && c->reason &&
			       !strcmp(c->reason, "PreemptionByScheduler");
	}
	return false;
}

/* ---------- PodDisruptionBudgets ---------- */

/* upstream FilterVictimsWithPDBViolation over the PDBs fw_each_pdb lists: each PDB's budget
 * (disruptionsAllowed) is spent by the victims in order; a victim matching a PDB whose budget is
 * exhausted violates it. The lister's objects are borrowed only for the callback, so the matches
 * are taken there: match[v] lists the PDB indices victim v matches (in PDB order). */
struct pdb_scan {
	struct api_pod *const *victims;
	uint32_t n;
	uint32_t n_pdbs, cap_allowed;
	int32_t *allowed;
	uint32_t *n_match, *cap_match;
	uint32_t **match;
	bool oom;
};

static bool pdb_selects(const struct api_pdb *pdb, const struct api_pod *p)
{
	const struct api_label_selector *sel = pdb->selector;
	if (!p->meta.labels.n || !pdb->meta.namespace || strcmp(pdb->meta.namespace, p->meta.namespace))
		return false;
	/* nil selects nothing, {} is Empty(): both skipped */
	if (!sel || (!sel->match_labels.n && !sel->n_exprs) || !api_label_selector_matches(sel, &p->meta.labels))
		return false;
	for (uint32_t i = 0; i < pdb->n_disrupted; i++) /* processed by the API server already */
		if (!strcmp(pdb->disrupted_pods[i], p->meta.name))
			return false;
	return true;
}

/* Grows *a (elements of size elem, *cap of them) to hold need. */
static bool grow(void **a, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	uint32_t c = *cap ? *cap * 2 : 4;
	while (c < need)
		c *= 2;
	void *n = realloc(*a, c * elem);
	if (!n)
		return false;
	*a = n;
	*cap = c;
	return true;
}

static int pdb_scan_one(void *arg, const struct api_pdb *pdb)
{
	struct pdb_scan *s = arg;
	uint32_t idx = s->n_pdbs;
	if (!grow((void **)&s->allowed, &s->cap_allowed, idx + 1, sizeof(*s->allowed))) {
		s->oom = true;
		return 1;
	}
	s->allowed[idx] = pdb->disruptions_allowed;
	s->n_pdbs++;
	for (uint32_t v = 0; v < s->n; v++) {
		if (!pdb_selects(pdb, s->victims[v]))
			continue;
		if (!grow((void **)&s->match[v], &s->cap_match[v], s->n_match[v] + 1, sizeof(*s->match[v]))) {
			s->oom = true;
			return 1;
		}
		s->match[v][s->n_match[v]++] = idx;
	}
	return 0;
}

static void pdb_scan_release(struct pdb_scan *s)
{
	for (uint32_t v = 0; s->match && v < s->n; v++)
		free(s->match[v]);
	free(s->match);
	free(s->n_match);
	free(s->cap_match);
	free(s->allowed);
}

/* Splits victims[0..n) (order kept) into violating (out_viol, *n_viol) and the others (out_ok,
 * *n_ok). pdb_each NULL: the profile's lister. Returns 0 or ERR_NOMEM. */
int fw_filter_victims_with_pdb_violation(const struct fw_pl *pl,
					 int (*pdb_each)(void *ctx, int (*fn)(void *arg, const struct api_pdb *pdb),
							 void *arg),
					 void *pdb_ctx, struct api_pod *const *victims, uint32_t n,
					 struct api_pod **out_viol, uint32_t *n_viol, struct api_pod **out_ok,
					 uint32_t *n_ok)
{
	struct pdb_scan s = { .victims = victims, .n = n };
	int rc = ERR_NOMEM;
	*n_viol = *n_ok = 0;
	if (n && (!(s.match = calloc(n, sizeof(*s.match))) || !(s.n_match = calloc(n, sizeof(*s.n_match))) ||
		  !(s.cap_match = calloc(n, sizeof(*s.cap_match)))))
		goto out;
	if (pdb_each)
		pdb_each(pdb_ctx, pdb_scan_one, &s);
	else
		fw_each_pdb(pl, pdb_scan_one, &s);
	if (s.oom)
		goto out;
	for (uint32_t v = 0; v < n; v++) {
		bool violating = false;
		for (uint32_t k = 0; k < s.n_match[v] && !violating; k++)
			violating = --s.allowed[s.match[v][k]] < 0; /* the first exhausted PDB ends it */
		if (violating)
			out_viol[(*n_viol)++] = victims[v];
		else
			out_ok[(*n_ok)++] = victims[v];
	}
	rc = 0;
out:
	pdb_scan_release(&s);
	return rc;
}

/* ---------- SelectVictimsOnNode ---------- */

/* The PDBs of one preemption, listed once (upstream getPodDisruptionBudgets in findCandidates)
 * and read by every node's dry run, on the pool's workers too, without the lister's lock. */
struct pdb_list {
	uint32_t n, cap;
	struct api_pdb **v; /* referenced */
	bool oom;
};

static int pdb_collect(void *arg, const struct api_pdb *pdb)
{
	struct pdb_list *l = arg;
	if (!grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v))) {
		l->oom = true;
		return 1;
	}
	l->v[l->n++] = api_pdb_ref((struct api_pdb *)pdb); /* the lister lends it: keep a reference */
	return 0;
}

static int pdb_list_each(void *ctx, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg)
{
	const struct pdb_list *l = ctx;
	for (uint32_t i = 0; i < l->n; i++) {
		int rc = fn(arg, l->v[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static void pdb_list_release(struct pdb_list *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		api_pdb_unref(l->v[i]);
	free(l->v);
}

/* upstream SelectVictimsOnNode on a copy of base. FW_SUCCESS with the victims (most important
 * first) in out, or the node's status in st. *owned: the victims' array (malloc'd, the caller
 * frees it, whatever the outcome; NULL when none was made). Runs on the pool's workers: it reads
 * the cycle and allocates nothing from it. */
static enum fw_code select_victims(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
				   const struct node_info *base, const struct pdb_list *pdbs, struct fw_preemption *out,
				   struct api_pod ***owned, struct fw_status *st)
{
	struct node_info ni = { 0 };
	struct api_pod **pot = NULL, **viol = NULL, **ok = NULL;
	uint32_t n_pot = 0, n_viol = 0, n_ok = 0, n_vict = 0;
	int64_t num_viol = 0;
	enum fw_code code;
	*out = (struct fw_preemption){ .node_name = base->name };
	if (base->n_pods && !(pot = malloc(3 * (size_t)base->n_pods * sizeof(*pot))))
		goto nomem;
	for (uint32_t i = 0; i < base->n_pods; i++)
		if (base->pods[i].pod->priority < pod->priority)
			pot[n_pot++] = base->pods[i].pod;
	if (!n_pot) {
		code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NO_VICTIMS);
		goto out;
	}
	viol = pot + base->n_pods;
	ok = viol + base->n_pods;
	/* first remove every potential victim; if the pod does not fit then, it never will here */
	if (node_info_copy(&ni, base, NULL) < 0)
		goto nomem;
	for (uint32_t i = 0; i < n_pot; i++)
		if (node_info_remove_pod(&ni, pot[i], NULL) < 0)
			goto nomem;
	code = fw_run_filters_with_nominated(pl->profile, c, pod, &ni, st);
	if (code != FW_SUCCESS)
		goto out;
	sort_victims(pot, n_pot);
	/* reprieve as many as possible: PDB-violating ones first, each group most important first */
	if (fw_filter_victims_with_pdb_violation(pl, pdb_list_each, (void *)pdbs, pot, n_pot, viol, &n_viol, ok,
						 &n_ok) < 0)
		goto nomem;
	struct api_pod **vict = malloc((size_t)n_pot * sizeof(*vict));
	if (!vict)
		goto nomem;
	*owned = vict;
	for (uint32_t g = 0; g < 2; g++) {
		struct api_pod **grp = g ? ok : viol;
		for (uint32_t i = 0, n = g ? n_ok : n_viol; i < n; i++) {
			if (node_info_add_pod(&ni, grp[i], NULL) < 0)
				goto nomem;
			struct fw_status fst;
			fw_status_reset(&fst);
			if (fw_run_filters_with_nominated(pl->profile, c, pod, &ni, &fst) == FW_SUCCESS)
				continue;
			if (node_info_remove_pod(&ni, grp[i], NULL) < 0)
				goto nomem;
			vict[n_vict++] = grp[i];
			if (!g)
				num_viol++;
		}
	}
	if (n_viol && n_ok)
		sort_victims(vict, n_vict);
	*out = (struct fw_preemption){ base->name, n_vict, vict, num_viol };
	code = fw_status_set(st, FW_SUCCESS, NULL);
	goto out;
nomem:
	code = fw_status_set(st, FW_ERROR, NAME ": out of memory");
out:
	node_info_release(&ni);
	free(pot);
	return code;
}

/* ---------- DryRunPreemption ---------- */


/* utilerrors.NewAggregate(errs).Error(): one error as is, else "[a, b]" without repeats. */
static void aggregate_error(struct fw_dry_run *r, const struct fw_status *const *errs, uint32_t n)
{
	char msg[FW_STATUS_TEXT_MAX];
	size_t off = 0;
	uint32_t distinct = 0;
	r->errors[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		fw_status_message(errs[i], msg, sizeof(msg));
		bool seen = false;
		for (uint32_t j = 0; j < i && !seen; j++) {
			char prev[FW_STATUS_TEXT_MAX];
			seen = !strcmp(fw_status_message(errs[j], prev, sizeof(prev)), msg);
		}
		if (seen)
			continue;
		int w = snprintf(r->errors + off, sizeof(r->errors) - off, "%s%s", distinct ? ", " : "", msg);
		distinct++;
		if (w < 0 || (size_t)w >= sizeof(r->errors) - off)
			break;
		off += (size_t)w;
	}
	if (n > 1 && distinct > 1) {
		memmove(r->errors + 1, r->errors, strnlen(r->errors, sizeof(r->errors) - 3) + 1);
		size_t len = strlen(r->errors);
		snprintf(r->errors + len, sizeof(r->errors) - len, "]");
		r->errors[0] = '[';
	}
}

/* One batch of the dry run: the nodes base..base+n of the walk from offset, each slot written by
 * the worker that ran it. */
struct dry_slot {
	enum fw_code code;
	struct fw_preemption p;
	struct api_pod **owned; /* p's victims (malloc'd) or NULL */
	struct fw_status st;
};
struct dry_batch {
	const struct fw_pl *pl;
	const struct fw_cycle *c;
	const struct api_pod *pod;
	const struct node_info *const *potential;
	uint32_t n, offset, base;
	struct dry_slot *slots;
	const struct pdb_list *pdbs;
};

static void dry_one(void *arg, size_t k)
{
	struct dry_batch *b = arg;
	struct dry_slot *sl = &b->slots[k];
	const struct node_info *ni = b->potential[(b->offset + b->base + (uint32_t)k) % b->n];
	fw_status_reset(&sl->st);
	sl->p = (struct fw_preemption){ .node_name = ni->name };
	sl->owned = NULL;
	sl->code = select_victims(b->pl, b->c, b->pod, ni, b->pdbs, &sl->p, &sl->owned, &sl->st);
}

/* Nodes per batch at most: fw_pool_run's threshold for going parallel. A batch is no larger than the candidates still wanted
 * (a node gives at most one), so no node past the stop point is checked unless some earlier ones
 * gave none; a batch smaller than fw_pool_run's threshold runs inline. */
#define DRY_BATCH 128

/* upstream DryRunPreemption over potential[0..n) from offset, wanting num_candidates. Batches of
 * nodes run on the pool (upstream's Parallelizer); their results are taken in walk order, so the
 * outcome stops at exactly the node where upstream's counting says enough (non-violating > 0 and
 * all >= num_candidates), as a walk one node at a time would, whatever the workers' timing. */
int fw_dry_run_preemption(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *const *potential, uint32_t n, uint32_t offset, uint32_t num_candidates,
			  struct fw_dry_run *r)
{
	memset(r, 0, sizeof(*r));
	struct fw_preemption *ok = fw_cycle_alloc(c, (num_candidates ? num_candidates : 1) * sizeof(*ok));
	struct fw_preemption *viol = fw_cycle_alloc(c, (num_candidates ? num_candidates : 1) * sizeof(*viol));
	struct fw_status *sts = fw_cycle_alloc(c, (n ? n : 1) * sizeof(*sts));
	struct fw_node_status *ns = fw_cycle_alloc(c, (n ? n : 1) * sizeof(*ns));
	const struct fw_status **errs = fw_cycle_alloc(c, (n ? n : 1) * sizeof(*errs));
	uint32_t n_slots = n < DRY_BATCH ? n : DRY_BATCH;
	if (n_slots > num_candidates && num_candidates) /* 0 wanted (1%, absolute 0): nodes one by one */
		n_slots = num_candidates;
	if (!n_slots)
		n_slots = 1;
	/* from the arena: memory the cycle reuses, where a malloc of this size faulted fresh pages in
	 * at every PostFilter (measured: twice the dry run's time at 500 nodes) */
	struct dry_slot *slots = fw_cycle_alloc(c, n_slots * sizeof(*slots));
	if (!ok || !viol || !sts || !ns || !errs || !slots)
		return ERR_NOMEM;
	struct pdb_list pdbs = { 0 };
	fw_each_pdb(pl, pdb_collect, &pdbs);
	if (pdbs.oom) {
		pdb_list_release(&pdbs);
		return ERR_NOMEM;
	}
	uint32_t n_ok = 0, n_viol = 0;
	int rc = 0;
	bool was = c->preempting, done = false;
	fw_cycle_set_preempting(c, true);
	struct dry_batch b = { pl, c, pod, potential, n, offset, 0, slots, &pdbs };
	for (b.base = 0; b.base < n && !done;) {
		uint32_t want = n_ok + n_viol < num_candidates ? num_candidates - (n_ok + n_viol) : 1;
		uint32_t nb = n - b.base < n_slots ? n - b.base : n_slots;
		if (nb > want)
			nb = want;
		fw_pool_run(pl->profile->pool, nb, dry_one, &b, NULL);
		for (uint32_t k = 0; k < nb; k++) {
			struct dry_slot *sl = &slots[k];
			struct fw_preemption p = sl->p;
			if (done || rc) {
				free(sl->owned);
				continue;
			}
			if (sl->code == FW_SUCCESS && p.n_victims) {
				/* the victims move to the cycle arena, with the candidate */
				struct api_pod **v = fw_cycle_alloc(c, p.n_victims * sizeof(*v));
				if (!v) {
					rc = ERR_NOMEM;
					free(sl->owned);
					continue;
				}
				memcpy(v, p.victims, p.n_victims * sizeof(*v));
				free(sl->owned);
				p.victims = v;
				if (!p.num_pdb_violations) {
					if (n_ok < num_candidates)
						ok[n_ok++] = p;
				} else if (n_viol < num_candidates) {
					viol[n_viol++] = p;
				}
				done = n_ok > 0 && n_ok + n_viol >= num_candidates;
				continue;
			}
			free(sl->owned);
			struct fw_status *st = &sts[r->n_status];
			*st = sl->st;
			if (sl->code == FW_SUCCESS)
				fw_status_setf(st, FW_ERROR, "expected at least one victim pod on node \"%s\"", p.node_name);
			if (st->code == FW_ERROR)
				errs[r->n_errors++] = st;
			ns[r->n_status++] = (struct fw_node_status){ p.node_name, st };
		}
		b.base += nb;
	}
	pdb_list_release(&pdbs);
	if (rc) {
		fw_cycle_set_preempting(c, was);
		return rc;
	}
	fw_cycle_set_preempting(c, was);
	r->cands = ok;
	r->n_cands = n_ok;
	if (n_viol) {
		struct fw_preemption *all = fw_cycle_alloc(c, (n_ok + n_viol) * sizeof(*all));
		if (!all)
			return ERR_NOMEM;
		memcpy(all, ok, n_ok * sizeof(*all));
		memcpy(all + n_ok, viol, n_viol * sizeof(*all));
		r->cands = all;
		r->n_cands = n_ok + n_viol;
	}
	r->status = ns;
	if (r->n_errors)
		aggregate_error(r, errs, r->n_errors);
	return 0;
}

/* ---------- Choosing the node ---------- */

/* upstream GetEarliestPodStartTime: the earliest start among the highest-priority victims. */
static int64_t earliest_start(const struct fw_preemption *p)
{
	int64_t earliest = start_of(p->victims[0]);
	int32_t max = p->victims[0]->priority;
	for (uint32_t i = 0; i < p->n_victims; i++) {
		const struct api_pod *v = p->victims[i];
		if (v->priority == max) {
			if (start_of(v) < earliest)
				earliest = start_of(v);
		} else if (v->priority > max) {
			max = v->priority;
			earliest = start_of(v);
		}
	}
	return earliest;
}

/* upstream's five default score functions (higher is better), k = 0..4. */
static int64_t pick_score(const struct fw_preemption *p, int k)
{
	switch (k) {
	case 0:
		return -p->num_pdb_violations;
	case 1:
		return -(int64_t)p->victims[0]->priority;
	case 2: {
		/* MaxInt32+1 added to each so that negative priorities still sum as "more is worse" */
		int64_t sum = 0;
		for (uint32_t i = 0; i < p->n_victims; i++)
			sum += (int64_t)p->victims[i]->priority + (int64_t)INT32_MAX + 1;
		return -sum;
	}
	case 3:
		return -(int64_t)p->n_victims;
	default:
		return earliest_start(p);
	}
}

/* upstream pickOneNodeForPreemption: the index of the chosen candidate (-1 when none). Each score
 * function keeps the candidates with the highest score; the first with one left decides; still
 * tied after the fifth: the first of them in cands' order (upstream: the first in Go map order). */
int32_t fw_pick_one_node_for_preemption(const struct fw_preemption *cands, uint32_t n)
{
	if (!n)
		return -1;
	uint32_t *sel = malloc(n * sizeof(*sel));
	if (!sel)
		return 0;
	uint32_t n_sel = n;
	for (uint32_t i = 0; i < n; i++)
		sel[i] = i;
	for (int k = 0; k < 5 && n_sel > 1; k++) {
		int64_t max = INT64_MIN;
		uint32_t m = 0;
		for (uint32_t i = 0; i < n_sel; i++) {
			int64_t s = pick_score(&cands[sel[i]], k);
			if (s > max) {
				max = s;
				m = 0;
			}
			if (s == max)
				sel[m++] = sel[i];
		}
		n_sel = m;
	}
	int32_t r = (int32_t)sel[0];
	free(sel);
	return r;
}

/* upstream callExtenders: each extender that supports preemption and is interested in the pod
 * narrows the candidates (victims per node). */
static enum fw_code call_extenders(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				   struct fw_preemption **cands, uint32_t *n, struct fw_status *st)
{
	const struct fw_profile *prof = pl->profile;
	for (uint32_t i = 0; i < prof->n_extenders && *n; i++) {
		const struct fw_extender *x = &prof->extenders[i];
		if (!x->preempt || (x->is_interested && !x->is_interested(x->ctx, pod)))
			continue;
		struct fw_preemption *out = NULL;
		uint32_t n_out = 0;
		struct err e = { 0 };
		if (x->preempt(x->ctx, c, pod, *cands, *n, fw_cycle_nodes(c), &out, &n_out, &e) < 0) {
			if (x->ignorable)
				continue; /* upstream: logged at V(2), skipped */
			return fw_status_set(st, FW_ERROR, e.msg);
		}
		uint32_t kept = 0;
		for (uint32_t k = 0; k < n_out; k++) {
			if (!out[k].n_victims) {
				if (x->ignorable)
					continue; /* the node goes */
				return fw_status_setf(st, FW_ERROR, "expected at least one victim pod on node \"%s\"",
						      out[k].node_name);
			}
			out[kept++] = out[k];
		}
		*cands = out;
		*n = kept;
	}
	return FW_SUCCESS;
}

/* ---------- Eligibility ---------- */

/* The status Filter gave node name in d (upstream NodeToStatus.Get: absent nodes have the absent
 * status, UnschedulableAndUnresolvable by default). */
static enum fw_code diag_code(const struct fw_diagnosis *d, const char *name)
{
	for (uint32_t i = 0; i < d->n_node_status; i++)
		if (d->node_status[i].node_name == name || !strcmp(d->node_status[i].node_name, name))
			return d->node_status[i].status->code;
	return d->has_absent_status ? d->absent_status.code : FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

static const struct node_info *node_by_name(const struct fw_node_list *l, const char *name)
{
	if (!l)
		return NULL;
	if (l->get)
		return l->get(l->get_ctx, name);
	for (uint32_t i = 0; i < l->n; i++)
		if (l->nodes[i]->name == name || !strcmp(l->nodes[i]->name, name))
			return l->nodes[i];
	return NULL;
}

/* upstream PodEligibleToPreemptOthers: NULL when eligible, else the reason. */
const char *fw_pod_eligible_to_preempt_others(const struct fw_cycle *c, const struct api_pod *pod,
					      enum fw_code nominated_status)
{
	if (pod->preemption_policy == API_PREEMPT_NEVER)
		return "not eligible due to preemptionPolicy=Never.";
	const char *nom = pod->nominated_node_name;
	if (!nom || !nom[0])
		return NULL;
	/* the nominated node no longer fits at all: preempt again */
	if (nominated_status == FW_UNSCHEDULABLE_AND_UNRESOLVABLE)
		return NULL;
	const struct node_info *ni = node_by_name(fw_cycle_nodes(c), nom) /* interned */;
	for (uint32_t i = 0; ni && i < ni->n_pods; i++) {
		const struct api_pod *p = ni->pods[i].pod;
		if (p->priority < pod->priority && fw_pod_terminating_by_preemption(p))
			return "not eligible due to a terminating pod on the nominated node.";
	}
	return NULL;
}

/* ---------- PostFilter ---------- */

/* upstream Evaluator.evaluate and Preempt (before the "preemption: " prefix). */
static enum fw_code preempt(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			    const struct fw_diagnosis *d, struct fw_post_filter_result *out, struct fw_status *st)
{
	struct dp_priv *priv = pl->priv;
	/* 1) eligibility */
	const char *why = fw_pod_eligible_to_preempt_others(c, pod, diag_code(d, pod->nominated_node_name));
	if (why)
		return fw_status_set(st, FW_UNSCHEDULABLE, why);

	/* 2) candidates: the nodes Filter found Unschedulable (not UnschedulableAndUnresolvable),
	 * in the order they were tried */
	const struct fw_node_list *nodes = fw_cycle_nodes(c);
	uint32_t n_all = nodes ? nodes->n : 0;
	if (!n_all)
		return fw_status_set(st, FW_ERROR, "no nodes available");
	bool absent_too = d->has_absent_status && d->absent_status.code == FW_UNSCHEDULABLE;
	const struct node_info **pot = fw_cycle_alloc(c, ((absent_too ? n_all : d->n_node_status) + 1) * sizeof(*pot));
	if (!pot)
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	uint32_t n_pot = 0;
	/* upstream NodesForStatusCode: when absent nodes carry the code too (a PreFilter's
	 * Unschedulable), every node whose status has it, in the snapshot's order */
	for (uint32_t i = 0; absent_too && i < n_all; i++)
		if (diag_code(d, nodes->nodes[i]->name) == FW_UNSCHEDULABLE)
			pot[n_pot++] = nodes->nodes[i];
	for (uint32_t i = 0; !absent_too && i < d->n_node_status; i++) {
		if (d->node_status[i].status->code != FW_UNSCHEDULABLE)
			continue;
		const struct node_info *ni = node_by_name(nodes, d->node_status[i].node_name);
		if (ni) /* upstream skips a node its lister does not find */
			pot[n_pot++] = ni;
	}
	struct fw_dry_run r = { 0 };
	if (n_pot) {
		uint32_t offset = priv->fixed_offset >= 0 ? (uint32_t)priv->fixed_offset % n_pot : rand_below(priv, n_pot);
		int32_t num = fw_preemption_num_candidates(priv->pct, priv->abs, (int32_t)n_pot);
		if (fw_dry_run_preemption(pl, c, pod, pot, n_pot, offset, (uint32_t)num, &r) < 0)
			return fw_status_set(st, FW_ERROR, NAME ": out of memory");
		if (r.n_errors && !r.n_cands)
			return fw_status_set(st, FW_ERROR, r.errors);
	}
	if (!r.n_cands) {
		/* a FitError over the dry run's statuses; every other node: not helpful */
		struct fw_diagnosis *fd = fw_cycle_alloc(c, sizeof(*fd));
		char *msg = fw_cycle_alloc(c, FW_STATUS_TEXT_MAX);
		if (!fd || !msg)
			return fw_status_set(st, FW_ERROR, NAME ": out of memory");
		fd->num_all_nodes = n_all;
		fd->n_node_status = r.n_status;
		fd->node_status = r.status;
		fd->has_absent_status = true;
		fw_status_set(&fd->absent_status, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NOT_HELPFUL);
		fw_fit_error_message(fd, msg, FW_STATUS_TEXT_MAX);
		out->nominated_node_name = ""; /* clears the pod's nomination */
		return fw_status_set(st, FW_UNSCHEDULABLE, msg);
	}

	/* 3) extenders */
	struct fw_preemption *cands = r.cands;
	uint32_t n_cands = r.n_cands;
	enum fw_code code = call_extenders(pl, c, pod, &cands, &n_cands, st);
	if (code != FW_SUCCESS)
		return code;

	/* 4) the best candidate */
	int32_t best = n_cands == 1 ? 0 : fw_pick_one_node_for_preemption(cands, n_cands);
	if (best < 0 || !cands[best].node_name || !cands[best].node_name[0])
		return fw_status_set(st, FW_UNSCHEDULABLE, "no candidate node for preemption");

	/* 5) actuate */
	const struct fw_preemption *p = &cands[best];
	fw_status_reset(st);
	code = fw_preempt_actuate(pl, pod, p, st);
	if (code != FW_SUCCESS)
		return code;
	out->nominated_node_name = p->node_name;
	return fw_status_setf(st, FW_SUCCESS, "found a potential placement for pod on node %s, preempting %u victims",
			      p->node_name, p->n_victims);
}

static enum fw_code post_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				const struct fw_diagnosis *d, struct fw_post_filter_result *out, struct fw_status *st)
{
	/* 0) upstream re-reads the preemptor from the pod informer (without a pod store: as given) */
	struct api_pod *latest = NULL;
	if (pl->profile->listers.pod) {
		latest = fw_get_pod(pl, pod->meta.namespace, pod->meta.name);
	}
	enum fw_code code = latest || !pl->profile->listers.pod
				    ? preempt(pl, c, latest ? latest : pod, d, out, st)
				    : fw_status_setf(st, FW_ERROR, "pod \"%s\" not found", pod->meta.name);
	if (latest)
		api_pod_unref(latest);
	char msg[FW_STATUS_TEXT_MAX];
	fw_status_message(st, msg, sizeof(msg));
	if (msg[0])
		fw_status_setf(st, code, "preemption: %s", msg);
	return code;
}

/* ---------- PreEnqueue and events ---------- */

/* SchedulerAsyncPreemption (on by default): a pod whose preemption is still being actuated waits. */
static enum fw_code pre_enqueue(const struct fw_pl *pl, const struct api_pod *pod, struct fw_status *st)
{
	if (fw_preempt_is_running(pl, pod->meta.uid))
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
				     "waiting for the preemption for this pod to be finished");
	return FW_SUCCESS;
}

/* upstream isPodSchedulableAfterAssignedPodDeletion: always Skip. The pods this plugin gates are
 * let in by the executor when their preemption ends; the plugins whose failure preemption
 * resolves decide on requeueing. */
static enum queue_hint assigned_pod_deleted(const void *pl, const struct api_pod *pod, const void *old_obj,
					    const void *new_obj)
{
	(void)pl;
	(void)pod;
	(void)old_obj;
	(void)new_obj;
	return QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_ASSIGNED_POD, .actions = QUEUE_ACT_DELETE }, assigned_pod_deleted },
};

const struct fw_plugin fw_plugin_default_preemption = {
	.name = NAME,
	.args_kind = CFG_ARGS_PREEMPTION,
	.init = init,
	.release = release,
	.pre_enqueue = pre_enqueue,
	.post_filter = post_filter,
	FW_EVENTS(events),
};
