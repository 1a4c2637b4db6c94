/* NodeResourcesBalancedAllocation (PreScore, Score): prefer nodes whose resource fractions
 * (requested / allocatable, with the pod) are close to each other. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <math.h>
#include <stdlib.h>

#include "common/intern.h"

struct balanced_priv {
	uint32_t n;
	const char **names; /* interned */
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
	return 0;
}

static void release(struct fw_pl *pl)
{
	struct balanced_priv *p = pl->priv;
	if (!p)
		return;
	free(p->names);
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
	int rc = fw_pod_res_refs_new(c, pod, NODE_RES_REQUESTS, p->names, NULL, p->n, &s);
	if (rc < 0)
		return fw_status_set(st, FW_ERROR, rc == ERR_NOMEM ? "NodeResourcesBalancedAllocation: out of memory"
								   : "NodeResourcesBalancedAllocation: computing pod requests failed");
	/* scoring best-effort pods would pile them onto one node (upstream #129138) */
	if (s->requests_none)
		return FW_SKIP;
	fw_cycle_set_state(c, pl, (void *)s);
	return FW_SUCCESS;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	const struct fw_pod_res_refs *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR,
				     "reading \"PreScoreNodeResourcesBalancedAllocation\" from cycleState: not found");
	double fr[64], total = 0;
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n && k < 64; i++) {
		int64_t alloc, r;
		fw_res_ref_alloc_req(ni, &s->res[i], true, &alloc, &r);
		if (alloc == 0)
			continue;
		double f = (double)r / (double)alloc;
		if (f > 1)
			f = 1;
		total += f;
		fr[k++] = f;
	}
	double std = 0;
	if (k == 2) {
		std = fabs((fr[0] - fr[1]) / 2);
	} else if (k > 2) {
		double mean = total / k, sum = 0;
		for (uint32_t i = 0; i < k; i++)
			sum += (fr[i] - mean) * (fr[i] - mean);
		std = sqrt(sum / k);
	}
	*out = (int64_t)((1 - std) * (double)FW_MAX_NODE_SCORE);
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
