/* NodeUnschedulable (Filter): node.spec.unschedulable rejects pods that do not tolerate the
 * node.kubernetes.io/unschedulable:NoSchedule taint. */
#include "algorithm/framework_internal.h"

#define REASON "node(s) were unschedulable"

static bool tolerates_unschedulable(const struct api_pod *pod)
{
	const struct fw_names *nm = fw_names();
	struct api_taint t = { nm->taint_unschedulable, nm->empty, API_EFFECT_NO_SCHEDULE };
	return fw_tolerations_tolerate(pod->tolerations, pod->n_tolerations, &t);
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)pl;
	(void)c;
	if (!ni->node->unschedulable || tolerates_unschedulable(pod))
		return FW_SUCCESS;
	return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON);
}

/* Queue when a node appears schedulable or stops being unschedulable. */
static enum fw_hint node_change(const struct fw_pl *pl, const struct api_pod *pod, const void *old_obj,
				const void *new_obj)
{
	(void)pl;
	(void)pod;
	const struct api_node *on = old_obj, *nn = new_obj;
	if (!nn)
		return FW_HINT_QUEUE_SKIP;
	bool was = on ? !on->unschedulable : false;
	return !was && !nn->unschedulable ? FW_HINT_QUEUE : FW_HINT_QUEUE_SKIP;
}

/* Queue when the pod itself now tolerates the unschedulable taint. */
static enum fw_hint toleration_change(const struct fw_pl *pl, const struct api_pod *pod, const void *old_obj,
				      const void *new_obj)
{
	(void)pl;
	(void)old_obj;
	const struct api_pod *np = new_obj;
	if (!np || np->meta.uid != pod->meta.uid)
		return FW_HINT_QUEUE_SKIP;
	return tolerates_unschedulable(np) ? FW_HINT_QUEUE : FW_HINT_QUEUE_SKIP;
}

static const struct fw_event_reg events[] = {
	{ { FW_EV_NODE, FW_ACT_ADD | FW_ACT_UPDATE_NODE_TAINT }, node_change },
	{ { FW_EV_UNSCHEDULED_POD, FW_ACT_UPDATE_POD_TOLERATION }, toleration_change },
};

const struct fw_plugin fw_plugin_node_unschedulable = {
	.name = "NodeUnschedulable",
	.args_kind = CFG_ARGS_NONE,
	.filter = filter,
	.n_events = 2,
	.events = events,
};
