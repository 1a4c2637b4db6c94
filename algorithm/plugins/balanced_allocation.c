/* NodeResourcesBalancedAllocation (PreScore, Score): prefer nodes whose resource fractions
 * (requested / allocatable) the pod brings closer to each other (v1.37 scores the change in
 * balance, upstream noderesources/balanced_allocation.go balancedResourceScorer). */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <math.h>
#include <stdlib.h>

#include "common/intern.h"
#include "dra_allocator.h"

struct balanced_priv {
	uint32_t n;
	const char **names; /* interned */
	/* DRAExtendedResource: the DeviceClass selectors compiled for scoring, made when a scored
	 * resource may be DRA-backed (NULL otherwise). Upstream's NewBalancedAllocation gives its
	 * scorer no CEL cache, so v1.37.2 dereferences nil (and the scheduler panics) on a backing
	 * class with selectors; csched evaluates them as NodeResourcesFit does (docs/config.md). */
	struct dra_cel_cache *cel;
};

static int init(struct fw_pl *pl, struct err *e)
{
	const struct cfg_balanced_args *a = pl->args;
	struct balanced_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(e, ERR_NOMEM, "out of memory");
	pl->priv = p;
	uint32_t n = a && a->n_resources ? a->n_resources : 2;
	p->names = calloc(n, sizeof(*p->names));
	if (!p->names)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		p->names[i] = a && a->n_resources ? intern_str(a->resources[i].name)
						  : (i == 0 ? fw_names()->cpu : fw_names()->memory);
		if (!p->names[i])
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	p->n = n;
	return fw_dra_scoring_cache(p->names, n, &p->cel, e);
}

static void release(struct fw_pl *pl)
{
	struct balanced_priv *p = pl->priv;
	if (!p)
		return;
	free(p->names);
	dra_cel_cache_free(p->cel);
	free(p);
	pl->priv = NULL;
}

/* PreScore state (struct fw_pod_res_refs): the resources this pod is scored on. */
static enum fw_code pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			      const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)nodes;
	(void)n;
	const struct balanced_priv *p = pl->priv;
	const struct fw_pod_res_refs *s;
	int rc = fw_pod_res_refs_new(pl, p->cel, c, pod, NODE_RES_REQUESTS, p->names, NULL, p->n, &s);
	if (rc < 0)
		return fw_status_set(st, FW_ERROR, rc == ERR_NOMEM ? "NodeResourcesBalancedAllocation: out of memory"
								   : "NodeResourcesBalancedAllocation: computing pod requests failed");
	/* scoring best-effort pods would pile them onto one node (upstream #129138) */
	if (s->requests_none)
		return FW_SKIP;
	fw_cycle_set_state(c, pl, (void *)s);
	return FW_SUCCESS;
}

/* The fraction of resource ref used on ni, with or without the pod's request (capped at 1);
 * false when the resource is not scored on ni (allocatable 0). */
static bool fraction(const struct fw_pod_res_refs *s, const struct node_info *ni, const struct fw_res_ref *ref,
		     bool with_pod, double *f)
{
	int64_t alloc, req;
	fw_res_ref_alloc_req_dra(s, ni, ref, true, &alloc, &req);
	if (alloc == 0)
		return false;
	if (!with_pod)
		req -= ref->pod_req;
	*f = (double)req / (double)alloc;
	if (*f > 1)
		*f = 1;
	return true;
}

/* upstream balancedResourceScore: (1 - std of the fractions) * MaxNodeScore, truncated, for the
 * node with the pod (b[0]) and without it (b[1]). One pass reads each resource once for both;
 * with more than two resources the fractions are recomputed in a second pass (same values, same
 * order) rather than stored, so any number of resources is scored. */
static void balances(const struct fw_pod_res_refs *s, const struct node_info *ni, int64_t b[2])
{
	double total[2] = { 0, 0 }, two[2][2] = { { 0, 0 }, { 0, 0 } };
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		int64_t alloc, req;
		fw_res_ref_alloc_req_dra(s, ni, &s->res[i], true, &alloc, &req);
		if (alloc == 0)
			continue;
		for (int w = 0; w < 2; w++) {
			double f = (double)(w ? req - s->res[i].pod_req : req) / (double)alloc;
			if (f > 1)
				f = 1;
			total[w] += f;
			if (k < 2)
				two[w][k] = f;
		}
		k++;
	}
	for (int w = 0; w < 2; w++) {
		double std = 0;
		if (k == 2) {
			std = fabs((two[w][0] - two[w][1]) / 2);
		} else if (k > 2) {
			double mean = total[w] / k, sum = 0, f;
			for (uint32_t i = 0; i < s->n; i++)
				if (fraction(s, ni, &s->res[i], w == 0, &f))
					sum = sum + (f - mean) * (f - mean);
			std = sqrt(sum / k);
		}
		b[w] = (int64_t)((1 - std) * (double)FW_MAX_NODE_SCORE);
	}
}

/* upstream balancedResourceScorer: the improvement of the node's balance by the pod. Both
 * balances lie in [50, 100], so the result does too (integer division as Go's). */
static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	const struct fw_pod_res_refs *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR,
				     "reading \"PreScoreNodeResourcesBalancedAllocation\" from cycleState: not found");
	int64_t b[2];
	balances(s, ni, b);
	*out = FW_MAX_NODE_SCORE / 2 + (FW_MAX_NODE_SCORE / 2 + b[0] - b[1]) / 2;
	return FW_SUCCESS;
}

const struct fw_plugin fw_plugin_balanced_allocation = {
	.name = "NodeResourcesBalancedAllocation",
	.args_kind = CFG_ARGS_BALANCED,
	.init = init,
	.release = release,
	.pre_score = pre_score,
	.score = score,
};
