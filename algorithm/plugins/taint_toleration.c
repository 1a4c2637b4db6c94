/* TaintToleration (Filter, PreScore, Score): NoSchedule/NoExecute taints must be tolerated;
 * untolerated PreferNoSchedule taints lower the score. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"


/* The first NoSchedule/NoExecute taint of node the tolerations do not tolerate, or NULL. */
static const struct api_taint *untolerated(const struct api_node *node, const struct api_toleration *t, uint32_t n)
{
	for (uint32_t i = 0; i < node->n_taints; i++) {
		const struct api_taint *taint = &node->taints[i];
		if (taint->effect != API_EFFECT_NO_SCHEDULE && taint->effect != API_EFFECT_NO_EXECUTE)
			continue;
		if (!fw_tolerations_tolerate(t, n, taint))
			return taint;
	}
	return NULL;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)pl;
	(void)c;
	const struct api_taint *t = untolerated(ni->node, pod->tolerations, pod->n_tolerations);
	if (!t)
		return FW_SUCCESS;
	/* v1.37 names no taint (upstream taint_toleration.go Filter; the key/value form was dropped) */
	return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)");
}

/* Tolerations that matter for scoring: effect "" or PreferNoSchedule. */
struct score_state {
	uint32_t n;
	struct api_toleration *tolerations;
};

static enum fw_code pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			      const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)nodes;
	(void)n;
	struct score_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s || !(s->tolerations = fw_cycle_alloc(c, (pod->n_tolerations + 1) * sizeof(*s->tolerations))))
		return fw_status_set(st, FW_ERROR, "TaintToleration: out of memory");
	for (uint32_t i = 0; i < pod->n_tolerations; i++) {
		const struct api_toleration *t = &pod->tolerations[i];
		if (t->effect == API_EFFECT_NONE || t->effect == API_EFFECT_PREFER_NO_SCHEDULE)
			s->tolerations[s->n++] = *t;
	}
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	const struct score_state *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR, "reading \"PreScoreTaintToleration\" from cycleState: not found");
	int64_t count = 0;
	for (uint32_t i = 0; i < ni->node->n_taints; i++) {
		const struct api_taint *taint = &ni->node->taints[i];
		if (taint->effect == API_EFFECT_PREFER_NO_SCHEDULE && !fw_tolerations_tolerate(s->tolerations, s->n, taint))
			count++;
	}
	*out = count;
	return FW_SUCCESS;
}

/* Queue when the node's NoSchedule/NoExecute taints went from untolerated to tolerated. */
static enum queue_hint node_change(const void *pl, const struct api_pod *pod, const void *old_obj,
				const void *new_obj)
{
	(void)pl;
	const struct api_node *on = old_obj, *nn = new_obj;
	if (!nn)
		return QUEUE_HINT_SKIP;
	bool was = on ? untolerated(on, pod->tolerations, pod->n_tolerations) != NULL : true;
	bool is = untolerated(nn, pod->tolerations, pod->n_tolerations) != NULL;
	return was && !is ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

static enum queue_hint toleration_change(const void *pl, const struct api_pod *pod, const void *old_obj,
				      const void *new_obj)
{
	(void)pl;
	(void)old_obj;
	return fw_hint_updated_self(pod, new_obj) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_TAINT }, node_change },
	{ { .resource = QUEUE_RES_TARGET_POD, .actions = QUEUE_ACT_UPDATE_POD_TOLERATION }, toleration_change },
};

const struct fw_plugin fw_plugin_taint_toleration = {
	.name = "TaintToleration",
	.args_kind = CFG_ARGS_NONE,
	.filter = filter,
	.pre_score = pre_score,
	.score = score,
	.normalize_score = fw_normalize_to_max_reversed,
	FW_EVENTS(events),
};
