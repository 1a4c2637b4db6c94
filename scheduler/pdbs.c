/* The listers preemption reads (upstream preemption.NewEvaluator takes the informer factory's
 * Pods and PodDisruptionBudgets listers): fw_listers.pod answers from the pod informer's store,
 * fw_listers.pdb_each walks the PodDisruptionBudget informer's. The PDB informer
 * (s->pdb_inf) exists only when a profile runs DefaultPreemption at PostFilter, the one place
 * upstream reads PDBs; it has no handlers (no plugin registers PDB events).
 *
 * Both read the informers' stores under their own locks, from the scheduler thread or the pool's
 * (see struct fw_listers): pdb_each calls its callback with the PDB store's lock held. */
#include "sched_internal.h"

bool sched_pdbs_needed(const struct config *cfg)
{
	for (uint32_t i = 0; i < cfg->n_profiles; i++)
		if (config_profile_runs(&cfg->profiles[i], CFG_EP_POST_FILTER, "DefaultPreemption", NULL))
			return true;
	return false;
}

int sched_pdbs_start(struct api_informer *inf, struct err *e)
{
	return inf ? api_informer_start(inf, e) : 0;
}

bool sched_pdbs_synced(const struct api_informer *inf)
{
	return !inf || api_informer_synced(inf);
}

bool sched_pdbs_wait_synced(struct api_informer *inf, long timeout_ms)
{
	return !inf || api_informer_wait_synced(inf, timeout_ms);
}

/* fw_listers.pod: upstream's pod lister is the scheduler's pod informer (same field selector). */
struct api_pod *sched_pod_lister(void *ctx, const char *ns, const char *name)
{
	const struct scheduler *s = ctx;
	return s->pod_inf ? api_informer_get(s->pod_inf, ns, name) : NULL;
}

struct pdb_each_ctx {
	int (*fn)(void *arg, const struct api_pdb *pdb);
	void *arg;
	int rc;
};

static void pdb_each_one(void *ctx, void *obj)
{
	struct pdb_each_ctx *c = ctx;
	if (!c->rc)
		c->rc = c->fn(c->arg, obj);
}

/* fw_listers.pdb_each: every PDB of the store (upstream pdbLister.List(labels.Everything())); the
 * first non-zero answer of fn stops the walk and is returned. */
int sched_pdb_each(void *ctx, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg)
{
	const struct scheduler *s = ctx;
	struct pdb_each_ctx c = { fn, arg, 0 };
	if (s->pdb_inf)
		api_informer_foreach(s->pdb_inf, pdb_each_one, &c);
	return c.rc;
}
