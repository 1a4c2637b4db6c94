/* DefaultPreemption's steps (algorithm/plugins/default_preemption.c), named after upstream's
 * framework/preemption functions so that unit tests can run each as upstream's tests do. Internal
 * to algorithm/ and its tests. */
#ifndef CSCHED_ALGORITHM_PREEMPTION_INTERNAL_H
#define CSCHED_ALGORITHM_PREEMPTION_INTERNAL_H

#include "framework_internal.h"

/* Fixes the dry run's offset into the potential nodes (taken modulo their number); -1 = random
 * again (upstream tests override getOffsetRand the same way). */
void fw_default_preemption_set_offset(const struct fw_pl *pl, int32_t offset);

/* upstream calculateNumCandidates */
int32_t fw_preemption_num_candidates(int32_t pct, int32_t abs, int32_t num_nodes);
/* upstream MoreImportantVictim for single-pod victims */
bool fw_more_important_victim(const struct api_pod *a, const struct api_pod *b);
/* upstream PodTerminatingByPreemption */
bool fw_pod_terminating_by_preemption(const struct api_pod *p);
/* upstream PodEligibleToPreemptOthers: NULL when eligible, else the reason. nominated_status: the
 * diagnosis' code for the pod's nominated node. */
const char *fw_pod_eligible_to_preempt_others(const struct fw_cycle *c, const struct api_pod *pod,
					      enum fw_code nominated_status);
/* upstream FilterVictimsWithPDBViolation over the PDBs pdb_each lists (NULL: pl's lister). */
int fw_filter_victims_with_pdb_violation(const struct fw_pl *pl,
					 int (*pdb_each)(void *ctx, int (*fn)(void *arg, const struct api_pdb *pdb),
							 void *arg),
					 void *pdb_ctx, struct api_pod *const *victims, uint32_t n,
					 struct api_pod **out_viol, uint32_t *n_viol, struct api_pod **out_ok,
					 uint32_t *n_ok);
/* upstream pickOneNodeForPreemption: index into cands, -1 when n is 0. */
int32_t fw_pick_one_node_for_preemption(const struct fw_preemption *cands, uint32_t n);

/* What a dry run found: candidates (those without PDB violations first, each in node order) and
 * the statuses of the nodes checked that are not candidates; all in the cycle arena. */
struct fw_dry_run {
	uint32_t n_cands;
	struct fw_preemption *cands;
	uint32_t n_status;
	struct fw_node_status *status;
	uint32_t n_errors;
	char errors[FW_STATUS_TEXT_MAX]; /* upstream's aggregate of the node errors */
};
/* upstream DryRunPreemption of pod over potential[0..n) from offset, wanting num_candidates
 * (during fw_schedule_pod's cycle c, after its PreFilter). 0 or ERR_NOMEM. */
int fw_dry_run_preemption(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *const *potential, uint32_t n, uint32_t offset, uint32_t num_candidates,
			  struct fw_dry_run *r);

#endif
