/* NodeUnschedulable (Filter): node.spec.unschedulable rejects pods that do not tolerate the
 * node.kubernetes.io/unschedulable:NoSchedule taint. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

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
static enum queue_hint node_change(const void *pl, const struct api_pod *pod, const void *old_obj,
				const void *new_obj)
{
	(void)pl;
	(void)pod;
	const struct api_node *on = old_obj, *nn = new_obj;
	if (!nn)
		return QUEUE_HINT_SKIP;
	bool was = on ? !on->unschedulable : false;
	return !was && !nn->unschedulable ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

/* Queue when the pod itself now tolerates the unschedulable taint. */
static enum queue_hint toleration_change(const void *pl, const struct api_pod *pod, const void *old_obj,
				      const void *new_obj)
{
	(void)pl;
	(void)old_obj;
	const struct api_pod *np = fw_hint_updated_self(pod, new_obj);
	return np && tolerates_unschedulable(np) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_TAINT }, node_change },
	{ { .resource = QUEUE_RES_TARGET_POD, .actions = QUEUE_ACT_UPDATE_POD_TOLERATION }, toleration_change },
};

const struct fw_plugin fw_plugin_node_unschedulable = {
	.name = "NodeUnschedulable",
	.args_kind = CFG_ARGS_NONE,
	.filter = filter,
	FW_EVENTS(events),
};
