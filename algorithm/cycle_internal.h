/* Shared by the files of one scheduling cycle: cycle.c (the pipeline), filter.c, score.c and
 * diagnosis.c. See the DESIGN comment in cycle.c. Not for use outside algorithm/. */
#ifndef CSCHED_ALGORITHM_CYCLE_INTERNAL_H
#define CSCHED_ALGORITHM_CYCLE_INTERNAL_H

#include "framework_internal.h"

/* Where a sampled cycle's worker writes the duration (fw_ticks) and code of plugin k's call for
 * one node (ticks[k * stride], code[k * stride]); NULL in unsampled cycles. */
struct call_slot {
	uint32_t *ticks;
	uint8_t *code;
	size_t stride;
};

/* A plugin call's duration, saturated (a second-long call lands in +Inf either way); a negative one
 * (the thread moved to a core whose counter lags) counts as 0. */
static inline uint32_t fw_call_ticks(int64_t ticks)
{
	return ticks > UINT32_MAX ? UINT32_MAX : ticks < 0 ? 0 : (uint32_t)ticks;
}

static inline bool fw_has_scoring(const struct fw_profile *p)
{
	return p->n_points[CFG_EP_SCORE] > 0;
}

/* ---------- extenders.c ---------- */

/* upstream hasExtenderFilters / the extender half of hasScoring. */
bool fw_ext_has_filters(const struct fw_profile *p);
bool fw_ext_has_prioritizers(const struct fw_profile *p);
/* upstream findNodesThatPassExtenders over nodes[0..*n), narrowed in place; failed nodes go
 * into d (the caller adds the "Extender" rejector, as findNodesThatFitPod does). 0, 1 when a non-ignorable extender failed (failed: Error with its message), or a
 * negative code. */
int fw_find_nodes_that_pass_extenders(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				      const struct node_info **nodes, uint32_t *n, struct fw_diagnosis *d,
				      struct fw_status *failed, struct err *e);
/* The extender half of upstream prioritizeNodes: adds each interested extender's scaled scores to
 * totals and draws randomizer[i] for every node an extender scored. 0 or ERR_NOMEM. */
int fw_ext_prioritize(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		      const struct node_info *const *nodes, uint32_t n, int64_t *totals, int64_t *randomizer);

/* ---------- diagnosis.c ---------- */

/* Adds name to a small set of names (at most FW_MAX_PLUGINS). */
void fw_name_set_add(const char **set, uint32_t *n, const char *name);
/* upstream Diagnosis.AddPluginStatus */
void fw_diag_add_plugin_status(struct fw_diagnosis *d, const struct fw_status *st);
/* "[A B]" as Go prints a sorted []string. */
void fw_format_plugin_list(const char **names, uint32_t n, char *buf, size_t size);

/* ---------- filter.c ---------- */

/* Grows the profile's per-candidate scratch arrays to n entries. */
int fw_ensure_scratch(struct fw_profile *p, size_t n, struct err *e);
/* The sampled-call arrays for n_pl plugins over n_slots slots, every code FW_CALL_NOT_RUN.
 * False on out of memory (the cycle then goes unsampled rather than failing). */
bool fw_call_scratch(struct fw_profile *p, uint32_t n_pl, size_t n_slots);
/* Buckets the nominated pods that count for pod (priority >= its, not itself) by node. */
int fw_prepare_nominated(struct fw_cycle *c, const struct api_pod *pod, const struct fw_nominated *nom,
			 struct err *e);
/* upstream findNodesThatPassFilters: the feasible nodes into p->scratch_feasible, the failed ones
 * appended to res->diag (arena). 0, 1 on a plugin error (res->status), or a negative code. */
int fw_find_nodes_that_pass_filters(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				    const struct node_info *const *nodes, uint32_t n,
				    struct fw_schedule_result *res, uint32_t *n_feasible, struct err *e);

/* ---------- score.c ---------- */

/* upstream prioritizeNodes, then NewSortedScoredNodes(...).Pop() (the rest stays in p->sorted).
 * Returns 0 with res->suggested_host set, 1 on a plugin error (res->status), or a negative code. */
int fw_prioritize_and_select(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			     const struct node_info *const *nodes, uint32_t n, struct fw_schedule_result *res,
			     struct err *e);

/* upstream rescoreHintedNode after its candidate resolution: PreScore over nodes (the batch
 * state's heap in its order, then the last chosen node), that node's raw scores, normalization
 * with the state's raw scores; the state's heap becomes NewSortedScoredNodes of them (room for n
 * entries is the caller's). The caller saves and restores the cycle state (upstream's Clone).
 * Returns the flush reason of a failure, FW_FLUSH_NONE otherwise (*rc < 0: out of memory). */
enum fw_batch_flush fw_batch_rescore(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				     const struct node_info *const *nodes, uint32_t n, struct err *e, int *rc);

/* ---------- batch.c: upstream runtime/batch.go ---------- */

/* GetNodeHint for pod, whose signature is in p->batch.pod (pod_signed): the hinted node
 * (interned) or NULL; res->batch records it. */
const char *fw_batch_get_node_hint(struct fw_profile *p, struct fw_cycle *c, const struct fw_node_list *nodes,
				   const struct api_pod *pod, struct fw_schedule_result *res, struct err *e, int *rc);
/* StoreScheduleResults: sorted says whether p->sorted holds this cycle's remainder (else nil). */
int fw_batch_store(struct fw_profile *p, const char *hinted, const char *chosen, bool sorted,
		   struct fw_schedule_result *res);

#endif
