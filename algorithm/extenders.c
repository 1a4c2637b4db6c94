/* HTTP extenders in the cycle (upstream schedule_one.go findNodesThatPassExtenders and the extender
 * half of prioritizeNodes). The calls themselves are the scheduler's (struct fw_extender); here
 * is what upstream does with their answers. Runs on the scheduler thread. */
#include "cycle_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/map.h"

bool fw_ext_has_filters(const struct fw_profile *p)
{
	for (uint32_t i = 0; i < p->n_extenders; i++)
		if (p->extenders[i].is_filter)
			return true;
	return false;
}

bool fw_ext_has_prioritizers(const struct fw_profile *p)
{
	for (uint32_t i = 0; i < p->n_extenders; i++)
		if (p->extenders[i].is_prioritizer)
			return true;
	return false;
}

/* upstream NodeToStatus.Set: a node's status is replaced, else appended. idx maps the names
 * already in d (value: index + 1). */
static int diag_set(struct fw_cycle *c, struct fw_diagnosis *d, uint32_t *cap, struct map *idx, const char *node,
		    enum fw_code code, const char *reason)
{
	struct fw_status *st = fw_cycle_alloc(c, sizeof(*st));
	if (!st)
		return ERR_NOMEM;
	fw_status_reset(st);
	fw_status_set(st, code, reason);
	uintptr_t at = (uintptr_t)map_get(idx, node);
	struct fw_node_status *ns = (struct fw_node_status *)d->node_status;
	if (at) {
		ns[at - 1].status = st;
		return 0;
	}
	if (d->n_node_status == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 16;
		struct fw_node_status *nn = fw_cycle_alloc(c, nc * sizeof(*nn));
		if (!nn)
			return ERR_NOMEM;
		if (d->n_node_status)
			memcpy(nn, ns, d->n_node_status * sizeof(*nn));
		d->node_status = ns = nn;
		*cap = nc;
	}
	ns[d->n_node_status++] = (struct fw_node_status){ node, st };
	return map_put(idx, node, (void *)(uintptr_t)d->n_node_status, NULL);
}

/* Records one extender's failed nodes: FailedAndUnresolvableNodes take precedence over
 * FailedNodes for a node in both. feasible maps the input's names to their interned spelling. */
static int record_failed(struct fw_cycle *c, struct fw_diagnosis *d, const struct fw_ext_filter_result *r,
			 const struct map *feasible)
{
	struct map idx, unres;
	uint32_t cap = d->n_node_status;
	int rc = 0;
	map_init(&idx);
	map_init(&unres);
	for (uint32_t i = 0; i < d->n_node_status && rc == 0; i++)
		rc = map_put(&idx, d->node_status[i].node_name, (void *)(uintptr_t)(i + 1), NULL);
	for (int pass = 0; pass < 2 && rc == 0; pass++)
		for (uint32_t i = 0; i < r->n_failed && rc == 0; i++) {
			const struct fw_ext_failed *f = &r->failed[i];
			if (f->unresolvable != (pass == 0) || (pass == 1 && map_get(&unres, f->node)))
				continue;
			const struct node_info *ni = map_get(feasible, f->node);
			const char *name = ni ? ni->name : f->node;
			if (pass == 0 && (rc = map_put(&unres, f->node, (void *)f->node, NULL)) < 0)
				break;
			rc = diag_set(c, d, &cap, &idx, name,
				      f->unresolvable ? FW_UNSCHEDULABLE_AND_UNRESOLVABLE : FW_UNSCHEDULABLE, f->reason);
		}
	map_release(&idx);
	map_release(&unres);
	return rc;
}

/* Replaces nodes[0..*n) with the nodes the extender kept, resolved by name against the input. */
static int keep_nodes(const struct fw_extender *x, const struct fw_ext_filter_result *r, const struct map *feasible,
		      const struct node_info **nodes, uint32_t *n, struct err *e)
{
	uint32_t k = 0;
	if (r->has_kept)
		for (uint32_t i = 0; i < r->n_kept; i++) {
			const struct node_info *ni = map_get(feasible, r->kept[i]);
			if (!ni)
				/* upstream's message for NodeNames; csched also holds Nodes to the input
				 * (docs/config.md) */
				return err_set(e, ERR_INVALID,
					       "extender \"%s\" claims a filtered node \"%s\" which is not found in the input node list",
					       x->name, r->kept[i]);
			if (k >= *n)
				return err_set(e, ERR_INVALID, "extender \"%s\" returned more nodes than it was given", x->name);
			nodes[k++] = ni;
		}
	*n = k;
	return 0;
}

int fw_find_nodes_that_pass_extenders(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				      const struct node_info **nodes, uint32_t *n, struct fw_diagnosis *d,
				      struct fw_status *failed, struct err *e)
{
	for (uint32_t i = 0; i < p->n_extenders && *n; i++) {
		const struct fw_extender *x = &p->extenders[i];
		if (!x->is_interested(x->ctx, pod))
			continue;
		if (!x->is_filter) /* upstream Filter without a verb: every node passes */
			continue;
		struct fw_ext_filter_result r = { 0 };
		struct err xe = { 0 };
		struct map feasible;
		map_init(&feasible);
		int rc = 0;
		for (uint32_t k = 0; k < *n && rc == 0; k++)
			rc = map_put(&feasible, nodes[k]->name, (void *)nodes[k], NULL);
		if (rc == 0) {
			rc = x->filter(x->ctx, c, pod, nodes, *n, &r, &xe);
			if (rc == 0)
				rc = keep_nodes(x, &r, &feasible, nodes, n, &xe);
			if (rc == 0 && record_failed(c, d, &r, &feasible) < 0)
				rc = err_set(&xe, ERR_NOMEM, "extender %s: out of memory", x->name);
		} else {
			rc = err_set(&xe, ERR_NOMEM, "extender %s: out of memory", x->name);
		}
		map_release(&feasible);
		if (rc == 0)
			continue;
		if (x->ignorable) {
			char key[256];
			LOG_INFO("Skipping extender as it returned error and has ignorable flag set extender=%s pod=%s err=%s",
				 x->name, api_pod_key(pod, key, sizeof(key)), xe.msg);
			continue;
		}
		fw_status_set(failed, FW_ERROR, xe.msg);
		return 1;
	}
	(void)e;
	return 0;
}

int fw_ext_prioritize(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		      const struct node_info *const *nodes, uint32_t n, int64_t *totals, int64_t *randomizer)
{
	struct map idx;
	bool any = false;
	map_init(&idx);
	for (uint32_t i = 0; i < n; i++)
		if (map_put(&idx, nodes[i]->name, (void *)(uintptr_t)(i + 1), NULL) < 0) {
			map_release(&idx);
			return ERR_NOMEM;
		}
	bool *scored = fw_cycle_alloc(c, n ? n : 1);
	if (!scored) {
		map_release(&idx);
		return ERR_NOMEM;
	}
	memset(scored, 0, n);
	/* the interested prioritizers, called at once when the scheduler can (upstream: goroutines) */
	const struct fw_extender **xs = fw_cycle_alloc(c, (p->n_extenders + 1) * sizeof(*xs));
	struct fw_ext_prio_result *rs = fw_cycle_alloc(c, (p->n_extenders + 1) * sizeof(*rs));
	int *rcs = fw_cycle_alloc(c, (p->n_extenders + 1) * sizeof(*rcs));
	struct err *errs = calloc(p->n_extenders + 1, sizeof(*errs));
	if (!xs || !rs || !rcs || !errs) {
		free(errs);
		map_release(&idx);
		return ERR_NOMEM;
	}
	uint32_t nx = 0;
	for (uint32_t i = 0; i < p->n_extenders; i++) {
		const struct fw_extender *x = &p->extenders[i];
		if (!x->is_interested(x->ctx, pod))
			continue;
		if (!x->is_prioritizer) {
			/* upstream Prioritize without a verb: every node scores 0, and so counts as
			 * scored by an extender (its Randomizer is drawn) */
			memset(scored, 1, n);
			any = true;
			continue;
		}
		xs[nx++] = x;
	}
	if (nx > 1 && p->ext_prioritize_all)
		p->ext_prioritize_all(p->ext_ctx, c, pod, nodes, n, xs, nx, rs, rcs, errs);
	else
		for (uint32_t i = 0; i < nx; i++)
			rcs[i] = xs[i]->prioritize(xs[i]->ctx, c, pod, nodes, n, &rs[i], &errs[i]);
	for (uint32_t i = 0; i < nx; i++) {
		const struct fw_extender *x = xs[i];
		const struct fw_ext_prio_result r = rs[i];
		if (rcs[i] < 0) {
			char key[256];
			LOG_V(5, "Failed to run extender's priority function. No score given by this extender. error=%s pod=%s extender=%s",
			      errs[i].msg, api_pod_key(pod, key, sizeof(key)), x->name);
			continue;
		}
		for (uint32_t k = 0; k < r.n; k++) {
			uintptr_t at = (uintptr_t)map_get(&idx, r.scores[k].host);
			if (!at) /* upstream keeps it under a name no feasible node has: no effect */
				continue;
			/* upstream: score * weight * (MaxNodeScore / MaxExtenderPriority), in int64 */
			totals[at - 1] += r.scores[k].score * x->weight * (FW_MAX_NODE_SCORE / FW_MAX_EXTENDER_PRIORITY);
			scored[at - 1] = true;
			any = true;
		}
	}
	free(errs);
	map_release(&idx);
	if (any)
		for (uint32_t i = 0; i < n; i++)
			if (scored[i])
				randomizer[i] = (int64_t)(((uint64_t)random() << 31 | (uint64_t)random()) & INT64_MAX);
	return 0;
}
